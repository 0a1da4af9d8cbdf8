"""The errors of ``cometlocal targets``: each message is one line for the terminal::

    CometLocalError                 (contract/errors.py)
    ├── TargetsRefused              the page could not be opened; carries a code (DOMAIN_BLOCKED, the failed step's)
    └── TargetsUsage                bad arguments: a plan file missing or invalid, a step it does not have (exit 2)
"""

from __future__ import annotations

from pytest_cometlocal.contract.errors import CometLocalError

__all__ = ["TargetsRefused", "TargetsUsage"]


class TargetsRefused(CometLocalError):
    """The page could not be opened: ``code`` (an error code: DOMAIN_BLOCKED, the failed step's...) and why."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


class TargetsUsage(CometLocalError):
    """Bad arguments: a plan file that is not there or not valid, a step it does not have (exit 2)."""
