"""(v1.2) The actions on the run's pages: history, reload, switch and close, and ``opens: page``.

Each kind is a row of ``step/actions.py``'s ``ACTIONS``; each function here is one
row's side effect, made on the active page (``pages.py``).

Whether there is history in a direction is asked of the page before moving
(``HISTORY_JS``): the Navigation API's ``canGoBack``/``canGoForward`` is a
web standard that tells the direction exactly, but only over the entries of
the current origin; ``history.length`` tells whether there is any other entry
at all, not in which direction. So: the Navigation API says yes, the move is
made; the session has a single entry, it is PRECONDITION_FAILED
(``history_available``) without touching the page; otherwise (an entry of
another origin, or only ones the other way) the move is tried, and
Playwright's ``go_back``/``go_forward`` returning no response with the URL
unchanged means there was nothing that way: the same failure, nothing having
happened. A CDP call (``Page.getNavigationHistory``) would tell it at once,
but only in Chromium and through a private-ish path.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.contract.load.interpolation import resolve_secrets
from pytest_cometlocal.contract.errors import PatternTimeout
from pytest_cometlocal.contract.patterns import compiled, matching_until
from pytest_cometlocal.executor.errors import is_timeout
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Page

# ``actions``: the step room's Actions (its ctx, its failures); not imported here, the step room imports this one.
Actions = Any

# What the page knows of its session history (scripts/history.js).
HISTORY_JS = load_script(__package__, "history.js")

# How often switch_page looks again at the open pages while none (or several) match.
SWITCH_POLL_MS = 100


def go_back(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    return _move(actions, attempt, "back")


def go_forward(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    return _move(actions, attempt, "forward")


def reload(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    response = actions.ctx.page.reload(timeout=attempt.spec.timeout_ms, wait_until="load")
    return _landed(actions.ctx.page, response)


def _move(actions: Actions, attempt: StepAttempt, direction: str) -> dict[str, Any]:
    page = actions.ctx.page
    seen = page.evaluate(HISTORY_JS)
    sure = seen.get(direction) is True
    if not sure and int(seen.get("length") or 1) <= 1:
        raise _no_history(actions, attempt, direction, seen)
    before = page.url
    move = page.go_back if direction == "back" else page.go_forward
    response = move(timeout=attempt.spec.timeout_ms, wait_until="load")
    if response is None and not sure and page.url == before:
        raise _no_history(actions, attempt, direction, seen)
    return {"history": direction, **_landed(page, response)}


def _landed(page: Page, response: Any) -> dict[str, Any]:
    """What action_executed records of a navigation: the document's status and URL (a same-document move has no
    response: its URL only)."""
    return {"status": response.status, "url": response.url} if response is not None else {"url": page.url}


def _no_history(actions: Actions, attempt: StepAttempt, direction: str, seen: dict[str, Any]) -> Exception:
    failed = FailedCondition(kind="history_available", args={"direction": direction}, phase="pre",
                             observed={"history_length": seen.get("length"), f"can_go_{direction}": False,
                                       "url": actions.ctx.page.url})
    return actions.failures.fail(attempt, ErrorCode.PRECONDITION_FAILED, "precondition",
                                 f"{attempt.spec.kind}: the active page has no history {direction}",
                                 failed_conditions=[failed], retryable=False)


def switch_page(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """Make the one open page that ``page`` names the active one; waits up to timeout_ms for exactly one."""
    ctx, spec = actions.ctx, attempt.spec
    want = spec.page
    assert want is not None, "validation requires page on switch_page"
    matches = _page_matcher(want, lambda s: resolve_secrets(s, ctx.settings.secrets))
    deadline = time.monotonic() + spec.timeout_ms / 1000
    with matching_until(deadline):  # url_matches: bounded, never past timeout_ms (contract/patterns.py)
        while True:
            pages = ctx.pages.open
            try:
                found = [p for i, p in enumerate(pages) if matches(i, p)]
            except PatternTimeout as exc:
                raise actions.failures.pattern_gave_up(attempt, "precondition", "page.url_matches", exc) from None
            if len(found) == 1 or time.monotonic() >= deadline:
                break
            ctx.page.wait_for_timeout(SWITCH_POLL_MS)  # keeps the browser's events (a page opening) flowing
    if len(found) != 1:
        code = ErrorCode.TARGET_NOT_UNIQUE if found else ErrorCode.TARGET_NOT_FOUND
        raise actions.failures.fail(
            attempt, code, "precondition",
            f"switch_page: {len(found)} open pages match {want.describe()}; requires exactly 1",
            details={"which": "page", "page": want.model_dump(exclude_none=True), "count_observed": len(found),
                     "pages_seen": ctx.pages.describe(ctx.run.redactor.text),
                     "page_suggestions": page_suggestions(ctx.pages.open)})
    page = found[0]
    ctx.pages.activate(page)
    page.bring_to_front()
    return {"page": ctx.pages.index(page)}


def page_suggestions(pages: list[Page]) -> list[dict[str, Any]]:
    """A ``page`` for each open page that names it alone, never applied: its URL's path (a regex anchored at
    the end), else its title, else its index; with what it matched (``page N: URL``)."""
    titles = [_title(p) for p in pages]
    out = []
    for i, page in enumerate(pages):
        parts = urlsplit(page.url)
        pattern = re.escape(parts.path or "/") + "$" if parts.scheme in ("http", "https") else None
        if pattern and sum(1 for p in pages if re.search(pattern, p.url)) == 1:
            spec: dict[str, Any] = {"url_matches": pattern}
        elif titles[i] and sum(1 for t in titles if titles[i] in t) == 1:
            spec = {"title_contains": titles[i]}
        else:
            spec = {"index": i}
        out.append({"page": spec, "matched": f"page {i}: {page.url}"})
    return out


def _page_matcher(want: Any, resolve: Callable[[str], str]) -> Callable[[int, Page], bool]:
    if want.index is not None:
        return lambda i, _p: i == want.index
    if want.url_matches is not None:
        pattern = compiled(want.url_matches)  # the object validation compiled (contract/patterns.py)
        return lambda _i, p: pattern.search(p.url) is not None
    text = resolve(want.title_contains)
    return lambda _i, p: text in _title(p)


def _title(page: Page) -> str:
    try:
        return page.title()
    except Exception:  # closed or navigating meanwhile: no title to match
        return ""


def close_page(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """Close the active page; its opener (else the first open page) becomes active. The run's last open page is
    not closed: nothing would be left to act on or to observe (PRECONDITION_FAILED, ``another_page_open``)."""
    pages = actions.ctx.pages
    if len(pages.open) < 2:
        failed = FailedCondition(kind="another_page_open", args={}, phase="pre",
                                 observed={"open_pages": len(pages.open), "url": actions.ctx.page.url})
        raise actions.failures.fail(attempt, ErrorCode.PRECONDITION_FAILED, "precondition",
                                    "close_page: the active page is the run's only open page",
                                    failed_conditions=[failed], retryable=False)
    closed = pages.index()
    now = pages.close_active()
    return {"closed_page": closed, "page": pages.index(now)}


def opening_page(actions: Actions, attempt: StepAttempt, perform: Callable[[Actions, StepAttempt], dict[str, Any]]
                 ) -> dict[str, Any]:
    """``opens: page``: the action must open a new page within the step's timeout; it becomes the active page.

    The pages the run had before the action are counted; one that appeared
    during it (Playwright's ``page`` event, already dispatched) is taken,
    else the context is waited on for one (``wait_for_event("page")``) in what
    is left of the timeout. None: POSTCONDITION_FAILED, ``page_opened``.
    """
    ctx, spec = actions.ctx, attempt.spec
    started = time.monotonic()
    count = ctx.pages.seen()
    outcome = perform(actions, attempt)
    new = ctx.pages.opened_since(count)
    if new:
        page = new[0]
    else:
        left = max(1.0, spec.timeout_ms - (time.monotonic() - started) * 1000)
        try:
            page = ctx.pages.context.wait_for_event("page", timeout=left)
        except Exception as exc:
            if not is_timeout(exc):
                raise
            failed = FailedCondition(kind="page_opened", args={}, phase="post",
                                     observed={"open_pages": len(ctx.pages.open)})
            raise actions.failures.fail(attempt, ErrorCode.POSTCONDITION_FAILED, "postcondition",
                                        f"{spec.kind} opened no new page within {spec.timeout_ms} ms",
                                        failed_conditions=[failed], retryable=False) from None
    ctx.pages.activate(page)
    left = max(1.0, spec.timeout_ms - (time.monotonic() - started) * 1000)
    try:
        page.wait_for_load_state("load", timeout=left)
    except Exception as exc:
        if not is_timeout(exc):
            raise
        # Still loading: the postconditions, checked on it, decide.
    return {**outcome, "opened_page": ctx.pages.index(page)}
