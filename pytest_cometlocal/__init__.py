"""pytest-cometlocal: browser action plans as auditable pytest items."""

__version__ = "0.1.0"
