"""(v1.3) The input actions of plan format v1.3: focus, blur, dispatch_event, and click's position, select's
list, fill's delay and ``force`` (element_actions.py)."""
