"""(v1.2) The plan format's HTTP steps and saved values: the rules of a ``request`` step's keys and of
``${saved.NAME}`` (validate/rules.py calls them with the other context rules)."""
