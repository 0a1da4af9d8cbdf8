"""From loaded trees to validated plans, or to located problems: the pipeline, its rules and its results.
"""
