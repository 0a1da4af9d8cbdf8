"""(v1.2) The run's pages: which one is active (pages.py), and the actions on them (actions.py)."""
