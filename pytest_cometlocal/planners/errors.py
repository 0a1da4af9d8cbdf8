"""The exceptions of importing a recorded script into a plan.

A recording is read, never run: each error says which file (and line) or which
call, so ``cometlocal import`` prints one line and exits 2, or lists the calls
it left out::

    CometLocalError                 (contract/errors.py)
    ├── NotAScript                  (ValueError) not Python, or not a Playwright script; says where
    ├── CannotMap                   (ValueError) a call with no equivalent in the plan format; says why
    └── ImportFailed                (ValueError) the script cannot be imported at all; names the file
"""

from __future__ import annotations

from pytest_cometlocal.contract.errors import CometLocalError

__all__ = ["CannotMap", "ImportFailed", "NotAScript"]


class NotAScript(ValueError, CometLocalError):
    """The file is not Python, or not a Playwright script; the message says where."""


class CannotMap(ValueError, CometLocalError):
    """This call has no equivalent in the plan format; the message says why."""


class ImportFailed(ValueError, CometLocalError):
    """The script cannot be imported at all (exit 2); the message names the file."""
