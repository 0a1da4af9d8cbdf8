"""The demo portal's pages, one module per family, each a dict of paths portal.py's ROUTES serves."""
