"""The page under test: looking at it, finding elements, evaluating conditions, its events and the watchdog.

Nothing here knows about steps; the step room asks, this room answers (one bounded call at a time).
"""
