"""The executor's exceptions, and how a Playwright exception is recognised.

Playwright's public classes say what they can (``playwright.sync_api.Error``
for everything Playwright raises, ``TimeoutError`` for its own timeouts); a
crash or a closed target has no public class of its own, so for those the
message of a Playwright ``Error`` is read.
"""

from __future__ import annotations

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pytest_cometlocal.contract.model.records import ExecutorError


class ExecutorFailure(Exception):
    """Raised inside the executor with a complete ExecutorError."""

    def __init__(self, error: ExecutorError):
        super().__init__(f"{error.error_code.value}: {error.message}")
        self.error = error


class Crashed(Exception):
    """The page or the browser died under the executor."""


class PageUnresponsive(Exception):
    """The page stopped answering while the executor was doing ``what``."""

    def __init__(self, what: str, waited_ms: int, probe: str):
        super().__init__(f"the page did not answer {what} within {waited_ms} ms")
        self.what = what
        self.waited_ms = waited_ms
        self.probe = probe  # "no answer": its main thread is stuck; "answered": it is alive but never settled


_CRASH_MARKERS = (
    "Target crashed",
    "Page crashed",
    "Browser has been closed",
    "Target page, context or browser has been closed",
    "Browser closed",
    "Connection closed",
)


def is_timeout(exc: BaseException) -> bool:
    """Playwright's own timeout (an action's ``timeout=``), not the watchdog's bound."""
    return isinstance(exc, PlaywrightTimeoutError)


def is_crash(exc: BaseException) -> bool:
    """The page, its context or the browser is gone."""
    if isinstance(exc, Crashed):
        return True
    return isinstance(exc, PlaywrightError) and any(marker in exc.message for marker in _CRASH_MARKERS)


def first_line(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:limit]
