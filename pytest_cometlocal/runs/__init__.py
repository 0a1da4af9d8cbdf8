"""Reading finished run folders: one reader, and verify, show and diff built on it.

Imports the contract only: a run folder is read back without a browser and without the executor.
"""
