"""(v1.2) HTTP steps: a ``request`` step's call (client.py), the exchange it records (exchange.py), the
conditions on its response (response_checks.py) and the values it saves (saves.py)."""
