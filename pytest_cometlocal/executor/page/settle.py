"""Calls into a page that may be between two documents.

An observation can land while a navigation is in flight (the action's own,
or a page that reloads itself): the old document's execution context is gone
and the new one does not exist yet. These helpers retry across that moment,
bound the wait for a document that never arrives, and stop a navigation that
keeps the page from having any document at all.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from pytest_cometlocal.executor.errors import CallTimedOut, is_crash
from pytest_cometlocal.executor.page.watchdog import CAPTURE_MS, bound, cdp_session

if TYPE_CHECKING:
    from playwright.sync_api import Page

T = TypeVar("T")

_TRANSIENT = ("Execution context was destroyed", "Cannot find context", "navigating", "frame was detached",
              "Inspected target navigated or closed")


def settled(page: Page, fn: Callable[[], T], attempts: int = 20) -> T:
    """Run ``fn`` again while the page is between two documents (a navigation in flight).

    A page that is still between documents after ``attempts`` tries keeps
    navigating (a page that reloads itself forever): CallTimedOut, which the
    executor types as a page that never settled, not a raw navigation error.
    """
    started = time.monotonic()
    for attempt in range(attempts):
        try:
            return fn()
        except Exception as exc:
            if not any(t in str(exc) for t in _TRANSIENT):
                raise
            if attempt == attempts - 1:
                raise CallTimedOut("observation (the page kept navigating)",
                                   int((time.monotonic() - started) * 1000)) from None
            try:
                page.wait_for_load_state("domcontentloaded", timeout=2_000)
            except Exception as exc:
                if is_crash(exc):
                    raise
    raise AssertionError("unreachable")  # pragma: no cover


SETTLE_TIMEOUT_MS = 10_000


def evaluate_settled(page: Page, script: str, arg: Any) -> Any:
    """``page.evaluate``, bounded: a navigation still pending after SETTLE_TIMEOUT_MS is stopped.

    ``evaluate`` waits for the page's execution context, and a navigation to a
    server that never answers keeps it from existing, for as long as the
    server keeps the connection open. The wait is bounded here (the step's own
    bound around the observation still applies); then the navigation is
    stopped, as the browser's Stop button would, and the page is observed as
    it is.
    """
    try:
        with bound("observation", SETTLE_TIMEOUT_MS):
            return page.evaluate(script, arg)
    except CallTimedOut:
        stop_loading(page)
        with bound("observation", SETTLE_TIMEOUT_MS):
            return page.evaluate(script, arg)


def stop_loading(page: Page) -> bool:
    """Stop the page's pending navigation (the browser's Stop button); True when it was sent."""
    session = cdp_session(page)
    if session is None:
        return False
    try:
        # Served by the browser, not the page: it answers while a navigation is pending.
        with bound("Page.stopLoading", CAPTURE_MS, isolated=True):
            session.send("Page.stopLoading", {})
        return True
    except Exception:
        return False
