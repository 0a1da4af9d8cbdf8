"""The exceptions of the agent's MCP session: each becomes a typed answer, not a traceback.

An agent reads the answer of a tool call; both classes carry a ``code`` it can
act on (``NO_SESSION``, ``INVALID_ARGUMENT``, a refused plan's rule) and a
one-line message::

    CometLocalError                 (contract/errors.py)
    ├── AgentError                  a tool call that cannot be taken (no session, bad arguments)
    └── PlanRefused                 (ValueError) a plan the session may not write (where, what)
"""

from __future__ import annotations

from typing import Any

from pytest_cometlocal.contract.errors import CometLocalError

__all__ = ["AgentError", "PlanRefused"]


class AgentError(CometLocalError):
    """A tool call that cannot be taken (no session, bad arguments): a typed answer, not a traceback."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, Any]:
        return {"ok": False, "error_code": self.code, "message": self.message}


class PlanRefused(ValueError, CometLocalError):
    """A plan the session may not write (outside the plans folder, not a plan file name); ``code`` says which rule."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
