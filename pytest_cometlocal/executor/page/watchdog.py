"""The watchdog: no call into the browser can wait longer than its bound.

A page under test can stop answering: a script that never returns holds its
main thread, and every call that needs the renderer (an ``evaluate``, a
screenshot, ``page.content()``, a click) then waits for an answer that never
comes. Playwright's own ``timeout=`` does not cover every call (``content``,
``evaluate`` and CDP commands have none), so the executor bounds them itself.

How: Playwright's sync API runs each call as an asyncio task on its own event
loop, created by the calling greenlet. ``bound`` installs a task factory (a
public asyncio hook) on that loop for the duration of a ``with`` block and
remembers every task the calling greenlet creates; a timer on the same loop
cancels them when the bound runs out, and a call started after that is
cancelled at once. The cancelled call raises in the caller, and ``bound``
turns that into ``CallTimedOut``. Tasks of event listeners run in greenlets of
their own and are never touched. No private attribute of Playwright is used;
``tests/executor/test_watchdog.py`` pins the behaviour this relies on (a sync call
is a task created on the running loop by the calling greenlet) against a real
browser.

``PageWatch`` adds what the executor does with a page that stopped answering:
a short probe (is the main thread stuck?), a grace period in which a dying
renderer (out of memory) still reports its crash, and closing the page, or
its target through the browser's CDP session when closing hangs too.

**Browsers without CDP** (Firefox through WebDriver BiDi, WebKit: issue 49).
``has_cdp`` reads the browser's name (``page.context.browser.browser_type.name``,
no round trip): on a browser known not to be Chromium, ``cdp_session`` gives
None without asking for a session, so nothing round-trips to fail. The probe
is then ``page.evaluate("1")`` (on Firefox it answers during a pending
navigation too, measured in 0.03 s), and ``page.close`` is the only close
path: Firefox closes a tab from its parent process, so it works on a page
spinning in a script loop (measured 0.54 s); ``PageWatch.close`` says
``failed`` when it does not. tests/browsers/test_firefox_paths.py pins both.
An unknown name (a fake page, a persistent context) keeps Chromium's way.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar

import greenlet

from pytest_cometlocal.executor.browser.channels import browser_type_name
from pytest_cometlocal.executor.errors import CallTimedOut

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, CDPSession, Page

    from pytest_cometlocal.executor.page.events import PageEvents

T = TypeVar("T")

# The step's calls are bounded by its timeout_ms plus CALL_MARGIN_MS; when one
# runs out, PROBE_MS to see whether the page answers at all, then up to
# CRASH_GRACE_MS for a dying renderer's crash event. Together MARGIN_MS: a step
# whose page stops answering ends within timeout_ms + MARGIN_MS.
CALL_MARGIN_MS = 2_000
PROBE_MS = 1_000
CRASH_GRACE_MS = 2_000
MARGIN_MS = CALL_MARGIN_MS + PROBE_MS + CRASH_GRACE_MS
# Closing a stuck page: page.close() gets this long, then its target is closed through CDP.
CLOSE_MS = 2_000
# A screenshot normally takes tens of milliseconds; one that takes longer than
# this means the compositor has no frame to give (a document still arriving).
CAPTURE_MS = 3_000
# The evidence of a failure (the page after it, its HTML, screenshots) gets this
# long of its own, whatever was left of the step's bound.
FAILURE_EVIDENCE_MS = 8_000


def _loop() -> asyncio.AbstractEventLoop | None:
    """Playwright's loop: the sync API leaves it set as the running loop of its thread."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@contextlib.contextmanager
def bound(what: str, ms: float, *, isolated: bool = False) -> Iterator[None]:
    """Every Playwright call made in the block answers within ``ms`` or raises CallTimedOut.

    Bounds nest: a call inside two blocks ends at the earlier bound. An
    ``isolated`` block escapes the blocks around it: the calls that record a
    failure, or let go of a stuck page, get time of their own after the
    step's bound has run out. Without a running Playwright loop (a fake page
    in unit tests) the block runs unbounded.
    """
    loop = _loop()
    if loop is None:
        yield
        return
    me = greenlet.getcurrent()
    tasks: list[asyncio.Task[Any]] = []
    state = {"fired": False}
    previous = loop.get_task_factory()
    base = getattr(previous, "cometlocal_base", previous)
    chained = base if isolated else previous

    def factory(lp: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Future[Any]:
        task = chained(lp, coro, **kwargs) if chained is not None else asyncio.Task(coro, loop=lp, **kwargs)
        if greenlet.getcurrent() is me:
            if state["fired"]:
                task.cancel()
            else:
                tasks[:] = [t for t in tasks if not t.done()]  # a long phase makes many calls
                tasks.append(task)
        return task

    def fire() -> None:
        state["fired"] = True
        for task in tasks:
            if not task.done():
                task.cancel()

    factory.cometlocal_base = base  # type: ignore[attr-defined]
    loop.set_task_factory(factory)
    timer = loop.call_later(max(ms, 0) / 1000, fire)
    try:
        yield
    except asyncio.CancelledError:
        if state["fired"]:
            raise CallTimedOut(what, int(ms)) from None
        raise
    finally:
        timer.cancel()
        if loop.get_task_factory() is factory:
            loop.set_task_factory(previous)


def call(what: str, ms: float, fn: Callable[[], T], *, isolated: bool = False) -> T:
    """``fn()``, bounded (see ``bound``)."""
    with bound(what, ms, isolated=isolated):
        return fn()


def browser_name(page: Page) -> str | None:
    """The page's browser type, ``chromium``, ``firefox`` or ``webkit`` (a property: no round trip);
    None when it is not known (a fake page, a persistent context has no ``browser``)."""
    try:
        browser = page.context.browser
    except Exception:
        return None
    return browser_type_name(browser)


def has_cdp(page: Page) -> bool:
    """Whether the page's browser may have the DevTools protocol: not one known not to be Chromium."""
    return browser_name(page) in (None, "chromium")


# One CDP session per page, made on first use; None where CDP is not available
# (a fake page in unit tests, a browser that is not Chromium).
_sessions: "weakref.WeakKeyDictionary[Page, CDPSession | None]" = weakref.WeakKeyDictionary()


def cdp_session(page: Page) -> CDPSession | None:
    """The page's CDP session, made once; None without one (never asked for on a browser that is not Chromium)."""
    try:
        return _sessions[page]
    except KeyError:
        pass
    except TypeError:  # not weak-referenceable
        return None
    if not has_cdp(page):
        _sessions[page] = None
        return None
    try:
        session = call("CDP session", CLOSE_MS, lambda: page.context.new_cdp_session(page), isolated=True)
    except Exception:
        session = None
    _sessions[page] = session
    return session


def forget_cdp_session(page: Page) -> None:
    """A session that stopped working (its page's document was swapped): the next use makes a new one."""
    try:
        _sessions.pop(page, None)
    except TypeError:
        pass


def page_answers(page: Page, ms: float = PROBE_MS) -> bool:
    """Whether the page's main thread runs a trivial script within ``ms``.

    Through CDP's ``Runtime.evaluate`` where there is a session: it answers as
    soon as the main thread is free, where ``page.evaluate`` would first wait
    for a document (a navigation still pending is not a stuck page).
    """
    session = cdp_session(page)
    try:
        if session is not None:
            call("probe", ms, lambda: session.send("Runtime.evaluate", {"expression": "1"}), isolated=True)
        else:
            call("probe", ms, lambda: page.evaluate("1"), isolated=True)
        return True
    except CallTimedOut:
        return False
    except Exception:  # a navigation in between, a closed page: not stuck
        return True


class PageWatch:
    """What the executor does with a page that stopped answering: probe it, give it time to die, let go of it.

    ``events`` (the executor's PageEvents) says whether the page crashed;
    without it the watch listens for the crash itself.
    """

    def __init__(self, page: Page, events: PageEvents | None = None):
        self.page = page
        self.events = events
        self._crashed = False
        if events is None:
            try:
                page.on("crash", self._on_crash)
            except Exception:
                pass

    def _on_crash(self, *_: Any) -> None:
        self._crashed = True

    @property
    def crashed(self) -> bool:
        return self.events.crashed if self.events is not None else self._crashed

    # -- a page that stopped answering -----------------------------------------

    def answers(self, ms: float = PROBE_MS) -> bool:
        """Whether the page's main thread runs a trivial script within ``ms``."""
        if self.crashed or self.closed():
            return False
        return page_answers(self.page, ms) and not (self.crashed or self.closed())

    def wait_for_crash(self, ms: float = CRASH_GRACE_MS) -> bool:
        """Give a dying renderer ``ms`` to report its crash; True when it did."""
        end = time.monotonic() + ms / 1000
        while not self.crashed and time.monotonic() < end:
            left = (end - time.monotonic()) * 1000
            try:
                # Waits in the driver, not in the page: it keeps events (the crash) flowing.
                call("crash grace", left + 500, lambda: self.page.wait_for_timeout(min(left, 200)), isolated=True)
            except CallTimedOut:
                break
            except Exception:
                if self.closed():
                    break
                time.sleep(0.05)
        return self.crashed

    def closed(self) -> bool:
        try:
            return bool(self.page.is_closed())
        except Exception:
            return True

    def close(self, page_close_ms: float = CLOSE_MS) -> str:
        """Let go of a stuck or crashed page so the context and the next item are not held up.

        Returns how: ``page.close``, ``cdp`` (its target closed through the
        browser's CDP session: the Target domain is served by the browser
        process, so it answers while the page's renderer does not; Chromium
        only), ``already_closed`` or ``failed``.
        """
        if self.closed():
            return "already_closed"
        try:
            with bound("closing the page", page_close_ms + 4 * CLOSE_MS, isolated=True):
                return self._close(page_close_ms)
        except CallTimedOut:
            return "failed"

    def _close(self, page_close_ms: float) -> str:
        try:
            call("page.close", page_close_ms, lambda: self.page.close(run_before_unload=False))
            return "page.close"
        except Exception:
            pass
        if not has_cdp(self.page):
            return "failed"  # page.close is the only way (module docstring)
        try:
            context = self.page.context
            session = call("CDP session", CLOSE_MS, lambda: context.new_cdp_session(self.page))
            info = call("Target.getTargetInfo", CLOSE_MS, lambda: session.send("Target.getTargetInfo"))
            target_id = info["targetInfo"]["targetId"]
            browser = context.browser
            if browser is None:
                return "failed"
            browser_session = call("CDP session", CLOSE_MS, browser.new_browser_cdp_session)
            call("Target.closeTarget", CLOSE_MS,
                 lambda: browser_session.send("Target.closeTarget", {"targetId": target_id}))
            with contextlib.suppress(Exception):
                call("CDP detach", CLOSE_MS, browser_session.detach)
            return "cdp"
        except Exception:
            return "failed"


CONTEXT_CLOSE_MS = 15_000


def close_context(context: BrowserContext) -> None:
    """``context.close()``, bounded: a teardown must not hang on a page that stopped answering.

    The executor closes such a page itself (``PageWatch.close``); this bound is
    the last line, for a context closed after something else went wrong.
    """
    call("context.close", CONTEXT_CLOSE_MS, context.close, isolated=True)


def backoff(page: Page, ms: int) -> None:
    """A retry's backoff that keeps the page's events flowing (a sync sleep would stall them)."""
    try:
        with bound("backoff", ms + CALL_MARGIN_MS):
            page.wait_for_timeout(ms)
    except Exception:
        time.sleep(ms / 1000)
