"""(v1.2) HTTP steps and saved values: a ``request`` step's call (client.py), the exchange it records
(exchange.py), the conditions on its response (response_checks.py), what steps save (saves.py) and the
item's saved values (saved.py); and a step's URL made absolute (urls.py, navigate's too)."""
