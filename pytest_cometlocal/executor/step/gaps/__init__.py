"""Known browser gaps (issue 49): what a browser cannot do through Playwright's public API, typed
before or after the action instead of a hang or an untyped timeout (browser_gaps.py)."""
