"""The two pictures of an observation: the frame its hash is taken from, and the full screenshot.

The state signature's ``screenshot_hash`` is computed from a **screencast
frame**: one JPEG of the viewport, at most 320 px wide, which Chromium's
DevTools screencast delivers on demand (``Page.startScreencast``, first frame,
``Page.stopScreencast``). A full ``Page.captureScreenshot`` waits for the
compositor to draw a new frame at full size and encodes it as PNG; the frame
comes from the screencast's own copy, scaled down first: the same wait for
the compositor, about half the processor time (benchmarks/RESULTS.md). The
method is recorded in the signature's ``algorithm_version`` (FRAME_ALGORITHM).

**Freshness.** The frame must never be older than the last visible change.
Before the screencast starts, a fence runs in the page: two
``requestAnimationFrame`` callbacks and then a task, which returns once the
frame that holds every change made before the observation has been drawn (one
callback proves it committed, not drawn: a stale frame now and then on a loaded
machine). The screencast's first frame is copied after that; without the
fence, a page slow to paint gave frames from before the change (a test pins it).

**What each frame was** (issue 50): ``grab_frame`` and ``PendingFrame`` fill a
frame record, a dict (``method``; ``frame_ts``: the frame's ``metadata.timestamp``; ``fence_ms``:
the fence sent to the fence resolved; ``waited_ms``: what the caller blocked
for), which the observation keeps as ``metadata.screenshot_frame``: the trace
then says which frame a state got and what it cost the step.

A **full-size PNG** (``capture_png``) is what the evidence keeps: critical
steps and failures. It is also what the hash is taken from when a secret is on
screen (Playwright's ``page.screenshot`` with its ``mask``; the frame could
show the secret) or when the DevTools protocol is not available; the
signature then says ``algorithm_version: "v1"``.

**Browsers without CDP** (Firefox through WebDriver BiDi, WebKit: issue 49):
``cdp_session`` gives None at once, with no failing round trip (the watchdog's
``has_cdp``), so every picture is ``page.screenshot`` (PNG, ``caret="hide"``)
and every signature says ``algorithm_version: "v1"`` (FULL_ALGORITHM): measured
83 ms median on Firefox against Chromium's 71 ms for the same PNG. A hash is a
picture's, and pictures differ between browsers (fonts, anti-aliasing): a
signature of one browser is never compared with one of another.

A blinking text caret would give two looks at the same page two hashes. The
observation script makes the caret steady once per document (see
``scripts/observe.js``); only in a browser without ``caret-animation`` is a
caret that may be on screen made transparent by a constructed style sheet
while the picture is taken (``caret=True`` here).
"""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.executor.errors import CallTimedOut, first_line, is_crash
from pytest_cometlocal.executor.page.settle import settled
from pytest_cometlocal.executor.page.watchdog import CAPTURE_MS, bound, cdp_session, forget_cdp_session, page_answers
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import CDPSession, Page

FRAME_ALGORITHM = "v2-frame-320"
FULL_ALGORITHM = "v1"
FRAME_PARAMS = {"format": "jpeg", "quality": 80, "maxWidth": 320, "maxHeight": 320}

# Chromium's "Unable to capture screenshot" (Page.captureScreenshot): the compositor
# has no frame to give yet. Seen on the first screenshot of a fresh page when two
# browsers share two busy CPUs (pytest -n 2); a moment later the same capture works.
# "Not attached to an active page": the session's document was swapped by a
# navigation (a page that reloads itself); a new session works.
# "unable to capture screen": the WebDriver BiDi error of browsingContext.captureScreenshot (Firefox), the
# same moment as Chromium's first string (not seen in the measured runs; the spec names it).
_SCREENSHOT_TRANSIENT = ("Unable to capture screenshot", "Not attached to an active page", "Session closed",
                         "unable to capture screen")
SCREENSHOT_RETRY_DELAYS_MS = (50, 100, 200, 400, 800)


def retried(page: Page, take: Callable[[], bytes | None]) -> tuple[bytes | None, str | None]:
    """``take()`` (a picture of the page), retried while the browser cannot give one yet.

    Navigation errors are retried by ``settled`` as for every observation call.
    A transient capture error is retried after 50, 100, 200, 400 and 800 ms; if
    it persists, the observation is recorded without a picture (``None``, with
    the error's first line): the format allows a null ``screenshot_hash``, and
    a picture missing is no reason to fail a step of the application under
    test, let alone to report a fault of the plugin. A capture that gets no
    answer within CAPTURE_MS is recorded the same way when the page still runs
    scripts (a document still arriving has no frame to show); when it does
    not, the page stopped answering and CallTimedOut goes up. Crashes propagate.
    """
    for delay_ms in (*SCREENSHOT_RETRY_DELAYS_MS, None):
        try:
            return settled(page, take), None
        except CallTimedOut as exc:
            if not page_answers(page):
                raise
            return None, str(exc)
        except Exception as exc:
            if is_crash(exc) or not any(t in str(exc) for t in _SCREENSHOT_TRANSIENT):
                raise
            forget_cdp_session(page)
            if delay_ms is None:
                return None, first_line(exc)
            try:  # keeps Playwright's events flowing (a page crash is noticed), unlike a sleep
                page.wait_for_timeout(delay_ms)
            except Exception as exc:
                if is_crash(exc):
                    raise
                time.sleep(delay_ms / 1000)
    raise AssertionError("unreachable")  # pragma: no cover


# The caret, hidden by a constructed style sheet: not a node in the DOM (no
# mutation observer of the page sees it, page.content() does not show it) and
# not subject to a Content-Security-Policy on inline styles. The sheet carries
# an expando property, by which it is taken away again. Its rule names only the
# focused element and what is inside it (where a caret can be): a rule for every
# element makes the browser restyle the whole page twice per picture, which on a
# page of thousands of rows cost more than everything else in a step. A document
# in design mode is editable everywhere: there the rule is for every element.
_CARET_OFF_JS = load_script(__package__, "caret_off.js")
_CARET_ON_JS = load_script(__package__, "caret_on.js")

# The frame fence: resolves once the page has drawn the frame holding every change made
# before it (two frame callbacks, then a task). A page whose rendering is paused never
# runs frame callbacks: the timer ends the wait (scripts/fence.js says how long).
_FENCE_JS = load_script(__package__, "fence.js")
_GROUP = "cometlocal-fence"  # the object group of a pending fence's promise, released when it is done


def _send(session: CDPSession, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A CDP command, bounded: a picture must never wait forever on a stuck renderer."""
    with bound(method, CAPTURE_MS):
        return session.send(method, params)


def _caret_back(session: CDPSession) -> None:
    try:
        _send(session, "Runtime.evaluate", {"expression": _CARET_ON_JS})
    except Exception:
        pass


FRAME_METHOD = "screencast-after-fence"


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 1)


def grab_frame(page: Page, caret: bool = True, record: dict[str, Any] | None = None) -> bytes | None:
    """One fresh screencast frame of the viewport (JPEG); None without the DevTools protocol.
    ``record``, when given, gets the frame record's fields (the module's docstring)."""
    session = cdp_session(page)
    if session is None:
        return None
    start = time.perf_counter()
    fence = (_CARET_OFF_JS + ";\n" if caret else "") + _FENCE_JS
    try:
        _send(session, "Runtime.evaluate", {"expression": fence, "awaitPromise": True})
    except BaseException:
        if caret:
            _caret_back(session)
        raise
    fence_ms = _ms(start)
    shot = _first_frame(page, session, caret, record)
    if record is not None:
        record.update(fence_ms=fence_ms, waited_ms=_ms(start))
    return shot


def _first_frame(page: Page, session: CDPSession, caret: bool, record: dict[str, Any] | None = None) -> bytes:
    """The screencast's first frame, started after the fence has run (the caret put back after it)."""
    frames: list[dict[str, Any]] = []

    def on_frame(event: dict[str, Any]) -> None:  # a function: Playwright keeps an attribute on it
        frames.append(event)

    session.on("Page.screencastFrame", on_frame)
    started = False
    try:
        _send(session, "Page.startScreencast", FRAME_PARAMS)
        started = True
        deadline = time.monotonic() + CAPTURE_MS / 1000
        with bound("Page.screencastFrame", CAPTURE_MS):
            while not frames:  # the events arrive while Playwright waits
                if time.monotonic() > deadline:
                    raise CallTimedOut("Page.screencastFrame", CAPTURE_MS)
                page.wait_for_timeout(2)
    finally:
        session.remove_listener("Page.screencastFrame", on_frame)
        if started:
            try:
                _send(session, "Page.stopScreencast", {})
            except Exception:
                pass
        if caret:
            _caret_back(session)
    if record is not None:
        record.clear()
        record.update(method=FRAME_METHOD, frame_ts=(frames[0].get("metadata") or {}).get("timestamp"))
    return base64.b64decode(frames[0]["data"])


class PendingFrame:
    """A fresh frame under way: the fence runs in the page while the caller does read-only work.

    ``request`` sends the fence without waiting for it (``Runtime.evaluate``
    gives the promise's handle at once); ``result`` waits for whatever of the
    fence is left (``Runtime.awaitPromise``), then starts the screencast and
    takes its first frame, as ``grab_frame`` does. The order that makes a frame
    fresh is the same (the fence before the screencast), so the frame is never
    older than a change made before ``request``; the fence's frame is drawn
    while the caller reads the page. Anything that can go wrong with the handle
    (a navigation swapped the document) falls back to ``grab_frame``.
    """

    def __init__(self, page: Page, caret: bool):
        self.page, self.caret = page, caret
        self.session = cdp_session(page)
        self.handle: str | None = None
        self.done = False
        self.record: dict[str, Any] = {}  # the frame record of the frame result() gives
        self.sent = time.perf_counter()
        if self.session is None:
            return
        fence = (_CARET_OFF_JS + ";\n" if caret else "") + _FENCE_JS
        try:
            answer = _send(self.session, "Runtime.evaluate", {"expression": fence, "objectGroup": _GROUP})
            self.handle = (answer.get("result") or {}).get("objectId")
        except Exception as exc:
            if is_crash(exc):
                raise
            self.handle = None

    @classmethod
    def request(cls, page: Page, caret: bool = True) -> "PendingFrame":
        return cls(page, caret)

    def result(self) -> bytes | None:
        """The frame (JPEG); None without the DevTools protocol. Waits only for what is left."""
        self.done = True
        if self.session is None:
            return None
        if self.handle is None:
            return grab_frame(self.page, self.caret, self.record)
        session = self.session
        start = time.perf_counter()
        try:
            _send(session, "Runtime.awaitPromise", {"promiseObjectId": self.handle, "returnByValue": True})
        except CallTimedOut:
            raise
        except Exception as exc:
            if is_crash(exc):
                raise
            return grab_frame(self.page, self.caret, self.record)  # the document changed under the handle
        finally:
            self._release()
        fence_ms = _ms(self.sent)
        shot = _first_frame(self.page, session, self.caret, self.record)
        self.record.update(fence_ms=fence_ms, waited_ms=_ms(start))
        return shot

    def cancel(self) -> None:
        """Not needed after all (a failure): let the fence's handle go; nothing else is running."""
        if not self.done:
            self.done = True
            self._release()
            if self.caret and self.session is not None:
                _caret_back(self.session)

    def _release(self) -> None:
        if self.session is not None and self.handle is not None:
            try:
                _send(self.session, "Runtime.releaseObjectGroup", {"objectGroup": _GROUP})
            except Exception:
                pass
            self.handle = None


def capture_png(page: Page, masked: bool, caret: bool = True) -> bytes:
    """A full-size viewport PNG: CDP's fast capture, or ``page.screenshot`` with the secret mask."""
    session = None if masked else cdp_session(page)
    if session is None:
        mask = [page.locator("[data-cometlocal-secret]")] if masked else []
        with bound("screenshot", CAPTURE_MS + 500):
            return page.screenshot(type="png", caret="hide", timeout=CAPTURE_MS, mask=mask)
    params = {"format": "png", "optimizeForSpeed": True, "captureBeyondViewport": False}
    if not caret:
        return base64.b64decode(_send(session, "Page.captureScreenshot", params)["data"])
    try:
        _send(session, "Runtime.evaluate", {"expression": _CARET_OFF_JS})
        shot = _send(session, "Page.captureScreenshot", params)
    finally:
        _caret_back(session)
    return base64.b64decode(shot["data"])
