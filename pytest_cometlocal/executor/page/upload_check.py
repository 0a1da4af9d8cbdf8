"""``upload_completed``: the page's requests for the files have ended; then the files or the text.

An upload is complete when the requests the page started for its files have
finished, not when the page first draws the file's name (Gradio shows
``Uploading 1 file... po-1234.txt`` while the file is on its way). The
requests are those with a body (every method but GET, HEAD, OPTIONS: an
upload's progress stream is a GET and may stay open) that the page started
since the run's last ``upload`` action (events.PageEvents.upload_requests).
The condition holds only when none is in flight, none failed (a network error
or a status of 400 or more), and none started or ended for ``QUIET_S``: a
request the page starts a moment after the action is not missed. The step's
poll bounds the wait by its ``timeout_ms``; when the look holds and only the
quiet moment is missing, it names that moment (``CheckContext.ready_at``), so
poll looks again then rather than up to a pause later.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.executor.page.events import SentRequest
from pytest_cometlocal.executor.page.locators import matches_now, not_one
from pytest_cometlocal.executor.page.texts import normalize, seen, shown_texts
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Locator

    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.page.conditions import CheckContext

# How long the upload's requests must have been quiet (none started or ended) before it is complete.
QUIET_S = 0.25

# How many elements a file input's locator matches and, when one, the names of its files.
_FILES_JS = load_script(__package__, "input_files.js")

# The most requests a failure lists (the last ones).
REQUESTS_SHOWN = 20

Resolver = Callable[["CheckContext", Any], "tuple[Locator | None, dict[str, Any]]"]


def upload_completed(cond: Condition, ctx: CheckContext, resolve: Resolver) -> tuple[bool, Any]:
    """Settled requests, and (with ``text``) the page shows it, or (without) the file input has a file."""
    quiet_at, requests = _requests(ctx)
    settled = quiet_at is not None and time.monotonic() >= quiet_at  # now: for the requests seen so far
    look = _text_look if cond.args.text is not None else _files_look
    ok, observed = look(cond, ctx, resolve)
    if ok and quiet_at is not None and not settled:
        ctx.ready_at[id(cond)] = quiet_at
    return ok and settled, {**observed, **requests}


def _requests(ctx: CheckContext) -> tuple[float | None, dict[str, Any]]:
    """When the upload's requests are quiet enough (``time.monotonic()``; None while one is in flight
    or after one failed), and what a result records of them."""
    requests, since = ctx.upload_requests()
    if not requests:
        return since + QUIET_S, {}
    pending = [r for r in requests if r.ended is None]
    failed = [r for r in requests if r.failed()]
    last = max([since] + [r.started for r in requests] + [r.ended for r in requests if r.ended is not None])
    shown = {"requests": [_described(r, ctx.mask_text) for r in requests[-REQUESTS_SHOWN:]]}
    if failed:
        return None, {**shown, "problem": f"{len(failed)} of the upload's {len(requests)} request(s) failed"}
    if pending:
        return None, {**shown, "problem": f"{len(pending)} of the upload's {len(requests)} request(s) still in flight"}
    return last + QUIET_S, shown


def _described(request: SentRequest, mask: Callable[[str], str]) -> dict[str, Any]:
    state = "pending" if request.ended is None else "failed" if request.failed() else "finished"
    described: dict[str, Any] = {"method": request.method, "url": mask(request.url), "state": state}
    if request.status is not None:
        described["status"] = request.status
    if request.failure is not None:
        described["failure"] = request.failure
    return described


def _text_look(cond: Condition, ctx: CheckContext, resolve: Resolver) -> tuple[bool, dict[str, Any]]:
    """A shown toast's text or a visible element's text contains it, read as Playwright's toContainText reads."""
    wanted = normalize(ctx.resolve_text(cond.args.text))
    got = shown_texts(ctx.page, ctx.toast_selector, wanted)
    ok = any(wanted in t for t in got["toasts"]) or bool(got["shown"])
    return ok, {"toasts": [seen(t, ctx.mask_text) for t in got["toasts"]], "text": seen(got["page"], ctx.mask_text)}


def _files_look(cond: Condition, ctx: CheckContext, resolve: Resolver) -> tuple[bool, dict[str, Any]]:
    locator, found = resolve(ctx, cond.args.target)
    if locator is None:
        return False, found
    try:  # one round trip that also counts (locator.evaluate makes three: wait, read, release)
        got = locator.evaluate_all(_FILES_JS)
    except Exception as exc:
        if is_crash(exc) or (gone := matches_now(locator)) is None:
            raise
        return False, gone
    gone = not_one(got["count"])
    if gone is not None:
        return False, gone
    return bool(got["files"]), {"files": got["files"]}
