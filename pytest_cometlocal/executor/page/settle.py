"""Calls into a page that may be between two documents, or whose document is still arriving.

An observation can land while a navigation is in flight (the action's own,
or a page that reloads itself): the old document's execution context is gone
and the new one does not exist yet. These helpers retry across that moment,
bound the wait for a document that never arrives, and stop a navigation that
keeps the page from having any document at all.

A look can also land in a document committed but not yet parsed (issue 46): a
click on a link returns once the next document is committed, and a server that
sends the head first has then given the title, not the body. Such a look reads
an empty or half-built document: every such page, and about:blank, one
DOM-derived state, with no picture to tell them apart (a document with no body
is not painted), so a few of them were a false ``same_state_revisit`` halt.
``until_parsed`` reads such a look again once the document is parsed. The
observation script says whether the document is still loading
(``document.readyState``) in the same call as the look, so a parsed page costs
nothing more. The callers say how long to wait: the step's ``timeout_ms`` for a
look whose state the anti-loop counters count (the "before" of a side-effecting
step's first attempt), none elsewhere (a retry, an assert, a failure's
evidence: a page that never finishes arriving costs no more there than it did).
Every look of a loading document says so in ``metadata.document_loading``
(``waited_ms``, ``parsed``); one still loading when its wait ran out is never
counted (``step/budget.py``, ``still_loading``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from pytest_cometlocal.executor.errors import CallTimedOut, is_crash
from pytest_cometlocal.executor.page.watchdog import CALL_MARGIN_MS, CAPTURE_MS, bound, call, cdp_session, has_cdp
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_cometlocal.executor.page.observation import Look

T = TypeVar("T")

# The wait of a look that found its document still being parsed (until_parsed).
PARSED_JS = load_script(__package__, "parsed.js")

_TRANSIENT = ("Execution context was destroyed", "Cannot find context", "navigating", "frame was detached",
              "Inspected target navigated or closed")


def between_documents(exc: BaseException) -> bool:
    """Whether ``exc`` is a call that failed because the page was between two documents."""
    return any(t in str(exc) for t in _TRANSIENT)


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
            if not between_documents(exc):
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
    """Stop the page's pending navigation (the browser's Stop button); True when it was sent.

    Chromium: CDP's ``Page.stopLoading``. A browser without CDP (Firefox: issue 49): ``window.stop()``
    in the document still there, bounded by CAPTURE_MS and isolated from the step's bound (its bound may
    have run out: that is why the navigation is being stopped). Firefox runs it on the old document
    while the new one is pending (measured 0.09 s; the page stays on the old URL). It runs in the page's
    world, so a page that replaced ``window.stop`` keeps its navigation: the wait for it stays bounded.
    """
    if not has_cdp(page):
        try:
            call("window.stop", CAPTURE_MS, lambda: page.evaluate("window.stop()"), isolated=True)
            return True
        except Exception:
            return False
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


def until_parsed(page: Page, read: Callable[[], T], look: Callable[[T], Look | None], wait_ms: float) -> T:
    """``read()``, read again while the look in it (``look``; None: no look, nothing to wait for) is of a
    document still loading, for up to ``wait_ms``; the look kept records the wait (module docstring)."""
    result = read()
    seen = look(result)
    if seen is None or not seen.loading:
        return result  # the common case: one read
    started = time.monotonic()
    deadline = started + max(wait_ms, 0) / 1000
    while seen is not None and seen.loading and time.monotonic() < deadline:
        if not _wait(page, (deadline - time.monotonic()) * 1000):
            break
        result = read()
        seen = look(result)
    if seen is not None:
        seen.metadata["document_loading"] = {"waited_ms": int((time.monotonic() - started) * 1000),
                                             "parsed": not seen.loading}
    return result


def _wait(page: Page, ms: float) -> bool:
    """Wait in the page until its document is parsed, at most ``ms``. False when the page did not answer
    (a look again would not either: the caller's own bound decides what that is) or the wait threw (a page
    that replaced what it uses): the look is then kept as it is."""
    try:
        with bound("observation (a document being parsed)", ms + CALL_MARGIN_MS):
            page.evaluate(PARSED_JS, int(ms))
        return True
    except CallTimedOut:
        return False
    except Exception as exc:
        if is_crash(exc):
            raise
        return between_documents(exc)  # the document was replaced meanwhile (a navigation): read the new one
