"""(v1.3) The rules of plan format v1.3's actions (``force``, dispatch_event's events, fill's delay)."""
