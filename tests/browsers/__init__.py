"""Tests that launch a browser other than Chromium (issue 49: Firefox); marked ``browser``."""
