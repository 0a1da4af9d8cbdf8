"""The executor layer: runs validated ActionSpecs and records what happened.

Modules here may import Playwright (the browser parts); the recording parts
(trace writer, evidence store, run folder, redaction) are plain Python so an
invalid plan can be recorded without starting a browser.
"""
