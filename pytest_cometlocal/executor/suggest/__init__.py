"""Suggested targets for a failed target: candidates read from the page, ranked, narrowed and checked, never applied.
"""
