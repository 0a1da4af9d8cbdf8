"""The errors of reading run folders back: each message is one line for the terminal.

A run folder is read after the fact, often one that a crash or a kill cut
short, so a folder that cannot be read is an answer (``cometlocal diff`` exits
2 with it), never a traceback::

    CometLocalError                 (contract/errors.py)
    ├── RunFolderError              a path that cannot be read as a run folder
    │   └── RunFileError            one of its files is missing or is not JSON; ``missing`` says which
    └── DiffError                   two runs that cannot be compared (not runs, different plans)
"""

from __future__ import annotations

from pathlib import Path

from pytest_cometlocal.contract.errors import CometLocalError

__all__ = ["DiffError", "RunFileError", "RunFolderError"]


class RunFolderError(CometLocalError):
    """A path that cannot be read as a run folder; the message is one line for the terminal."""


class RunFileError(RunFolderError):
    """One file of a run folder that is missing (``missing``) or unreadable; ``reason`` is the first line of why."""

    def __init__(self, path: Path, reason: str, missing: bool = False):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.missing = missing


class DiffError(CometLocalError):
    """The two paths cannot be compared (not runs, different plans); one line, exit code 2."""
