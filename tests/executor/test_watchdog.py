"""The watchdog against a real Chromium: what it relies on in Playwright, pinned.

The bound works because a sync-API call is an asyncio task created on the
running loop by the calling greenlet. If a Playwright upgrade changed that,
these tests fail (the stuck calls below would hang until ``HARD_LIMIT_S``
ends the process), rather than the executor silently hanging.
"""

from __future__ import annotations

import faulthandler
import http.server
import socketserver
import threading
from typing import Iterator

import pytest

from pytest_cometlocal.executor.errors import CallTimedOut
from pytest_cometlocal.executor.page.watchdog import PageWatch, bound, call, page_answers

pytestmark = pytest.mark.browser

# These tests call into pages that never answer: a watchdog that stopped working
# would hang them. This hard limit then ends the process with every thread's
# stack on stderr, so the suite fails at once instead of waiting for CI's limit.
HARD_LIMIT_S = 120


@pytest.fixture(autouse=True)
def hard_limit():
    faulthandler.dump_traceback_later(HARD_LIMIT_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()

PAGES = {
    "/spin": b"<title>spin</title><button id=b onclick='while(true){}'>go</button>",
    "/ok": b"<title>ok</title><button id=b onclick='document.title=\"clicked\"'>go</button>",
}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = PAGES.get(self.path, b"<title>none</title>")
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def page(chromium):
    context = chromium.browser().new_context()
    page = context.new_page()
    yield page
    context.close()


def _stuck(page, site: str) -> None:
    """Leave ``page`` with a main thread that never returns."""
    page.goto(site + "/spin")
    with pytest.raises(CallTimedOut, match="^click: no answer within 1500 ms$"):
        with bound("click", 1500):
            page.locator("#b").click(timeout=60_000)


def test_a_bound_ends_a_call_the_page_never_answers(page, site):
    page.goto(site + "/spin")
    with pytest.raises(CallTimedOut) as caught:
        with bound("click", 1500):
            page.locator("#b").click(timeout=60_000)
    assert caught.value.what == "click" and caught.value.waited_ms == 1500
    # Calls without a timeout of their own are bounded too.
    with pytest.raises(CallTimedOut, match="^content: no answer within 1000 ms$"):
        call("content", 1000, page.content)
    with pytest.raises(CallTimedOut, match="^evaluate: no answer within 1000 ms$"):
        call("evaluate", 1000, lambda: page.evaluate("1"))
    assert not page_answers(page)


def test_calls_within_their_bound_are_untouched(page, site):
    page.goto(site + "/ok")
    with bound("step", 10_000):
        page.locator("#b").click()
        assert page.title() == "clicked"
        assert page.evaluate("1 + 1") == 2
    assert page_answers(page)
    # The task factory is given back: an unbounded call after the block still works.
    assert page.evaluate("2 + 2") == 4


def test_a_call_started_after_the_bound_ran_out_ends_at_once(page, site):
    _stuck(page, site)
    with pytest.raises(CallTimedOut, match="^phase: no answer within 1000 ms$"):
        with bound("phase", 1000):
            try:
                page.evaluate("1")
            finally:
                page.evaluate("2")  # a clean-up call after the bound fired: cancelled, not a second wait


def test_an_isolated_bound_gets_time_of_its_own(page, site):
    page.goto(site + "/ok")
    finished = []
    with pytest.raises(CallTimedOut) as caught:
        with bound("outer", 600):
            with bound("inner", 5000, isolated=True):
                page.wait_for_timeout(900)  # longer than the outer bound: isolated, it finishes
            finished.append("inner")
            page.evaluate("1")  # back under the outer bound, which has run out
    assert finished == ["inner"] and caught.value.what == "outer"


def test_a_stuck_page_is_closed_and_the_context_goes_on(page, site):
    _stuck(page, site)
    watch = PageWatch(page)
    assert not watch.answers()
    assert not watch.wait_for_crash(300)
    assert watch.close() in ("page.close", "cdp")
    fresh = page.context.new_page()
    fresh.goto(site + "/ok")
    assert fresh.title() == "ok"


def test_closing_falls_back_to_the_cdp_target_when_page_close_hangs(page, site):
    _stuck(page, site)
    watch = PageWatch(page)
    assert watch.close(page_close_ms=1) == "cdp"
    fresh = page.context.new_page()
    fresh.goto(site + "/ok")
    assert fresh.title() == "ok"
