"""The run folder: trace writer, evidence store, redaction, clock and download evidence.

Plain Python, no browser: an invalid plan, a crashed browser and a finished run are all recorded by the same code.
"""
