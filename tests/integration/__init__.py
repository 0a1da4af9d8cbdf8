"""Tests that cross a process boundary: pytest or the CLI run in a subprocess or an inner session,
a fresh interpreter, ``pip install``. tests/unit holds the in-process, browser-free rest."""
