"""The executor's Chromium-only paths on Firefox (issue 49): each one's Firefox path or typed refusal.

The suite's ``firefox`` (tests/conftest.py): Firefox ESR through WebDriver BiDi, launched by
``BrowserManager(browser_name="firefox")`` with its prefs, on the session's one Playwright.
Playwright 1.65 cannot drive Firefox 153 (every new context fails): the fixture's pair probe
then skips these tests with one line (fails them under ``COMETLOCAL_REQUIRE_FIREFOX=1``).
"""

from __future__ import annotations

import faulthandler
import http.server
import socket
import socketserver
import textwrap
import threading
import time
from typing import Iterator

import pytest

from pytest_cometlocal.executor.errors import CallTimedOut
from pytest_cometlocal.executor.page.watchdog import PageWatch, bound, cdp_session, page_answers

pytestmark = pytest.mark.browser

HARD_LIMIT_S = 180  # a watchdog that stopped working would hang these tests (tests/executor/test_watchdog.py)

PAGES = {
    "/spin": b"<title>spin</title><button id=b onclick='while(true){}'>go</button>",
    "/ok": b"<title>ok</title><p>fine</p>",
    "/hang-link": b"<title>old</title><a id=l href='/hang'>hang</a>",
    "/notes": b"""<title>notes</title><button id=b onclick="fetch('/api/notes', {method: 'POST',
        headers: {'content-type': 'application/json'}, body: JSON.stringify({title: 'x'})})
        .then(() => document.title = 'sent')">send</button>""",
    "/a11y": b"<title>a11y</title><input type=email>",
}


@pytest.fixture(autouse=True)
def hard_limit():
    faulthandler.dump_traceback_later(HARD_LIMIT_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/hang":
                time.sleep(30)
                return
            self._send(PAGES.get(self.path, b"<title>none</title>"), "text/html")

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self._send(b"{}", "application/json", 201)

        def _send(self, body: bytes, kind: str, status: int = 200) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass

        def log_message(self, *args: object) -> None:
            return

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def page(firefox):
    context = firefox.browser().new_context()
    page = context.new_page()
    yield page
    try:
        context.close()
    except Exception:
        pass


@pytest.fixture
def no_cdp(monkeypatch) -> list[str]:
    """Every ``new_cdp_session`` asked of any context: none may be asked of Firefox."""
    from playwright.sync_api import BrowserContext

    asked: list[str] = []
    original = BrowserContext.new_cdp_session

    def recorded(self, page):
        asked.append(page.url)
        return original(self, page)

    monkeypatch.setattr(BrowserContext, "new_cdp_session", recorded)
    return asked


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# -- 2.1 the watchdog without CDP --------------------------------------------------------------


def test_a_spinning_firefox_page_is_bounded_and_closed_without_cdp(page, site, no_cdp):
    page.goto(site + "/spin")
    started = time.monotonic()
    with pytest.raises(CallTimedOut, match="^click: no answer within 1500 ms$"):
        with bound("click", 1500):
            page.locator("#b").click(timeout=60_000)
    assert time.monotonic() - started < 1.5 + 2.0
    watch = PageWatch(page)
    assert cdp_session(page) is None
    assert not watch.answers()
    assert watch.close() == "page.close"  # Firefox closes the tab from its parent process
    assert no_cdp == []
    fresh = page.context.new_page()
    fresh.goto(site + "/ok")
    assert fresh.title() == "ok"


# -- 2.2 stop_loading ------------------------------------------------------------------------


def test_stop_loading_on_firefox_stops_a_pending_navigation(page, site, no_cdp):
    from pytest_cometlocal.executor.page.settle import stop_loading

    page.goto(site + "/hang-link")
    page.click("#l", no_wait_after=True)
    time.sleep(0.5)
    assert page_answers(page)  # a pending navigation is not a stuck page
    started = time.monotonic()
    assert stop_loading(page) is True
    assert time.monotonic() - started < 3.5
    assert page.evaluate("document.title") == "old" and page.url.endswith("/hang-link")
    assert no_cdp == []


# -- runs of plans on Firefox ----------------------------------------------------------------------




def _plan(steps: str) -> str:
    return ("name: t\ndefaults:\n  criticality: normal\n  timeout_ms: 5000\n"
            "  preconditions: [{kind: host_in_allowlist}]\n  postconditions: [{kind: host_in_allowlist}]\n"
            "policy: {retries_per_action: 0}\nsteps:\n" + textwrap.indent(textwrap.dedent(steps), "  "))


# -- 2.3 the state picture -------------------------------------------------------------------------


def test_firefox_signatures_are_full_screenshots_taken_without_cdp(ff_run, no_cdp):
    result, events = ff_run(_plan("""\
        - {id: open, kind: navigate, target: {type: url, url: "{site}/ok"}}
        - {id: check, kind: assert, postconditions: [{kind: title_contains, args: {text: ok}}]}
    """))
    assert result.error is None, result.error
    signatures = [e[key] for e in events for key in ("state_signature_before", "state_signature_after")
                  if e.get(key) and e["event_type"] in ("observation_captured", "postconditions_checked")]
    versions = {s["algorithm_version"] for s in signatures}
    hashes = [s["screenshot_hash"] for s in signatures]
    assert versions == {"v1"}, versions  # FULL_ALGORITHM: page.screenshot
    assert hashes and all(hashes)
    assert no_cdp == []


# -- 2.4 accessibility_clean ------------------------------------------------------------------------


def test_accessibility_clean_on_firefox_is_refused_precondition_failed(ff_run, no_cdp):
    result, _ = ff_run(_plan("""\
        - id: open
          kind: navigate
          target: {type: url, url: "{site}/a11y"}
          postconditions: [{kind: accessibility_clean}]
    """))
    error = result.error
    assert error is not None and error.error_code.value == "PRECONDITION_FAILED", error
    assert error.action_id == "open"  # never POSTCONDITION_FAILED: a negative plan cannot take it for a violation
    # refused before the context is made (executor/session.py guarded_context): no step ran
    assert error.details["browser"] == "firefox" and error.details["unavailable"] == "isolated_world_available"
    assert error.details["feature"] == "accessibility_clean" and error.details["where"] == "steps[0].postconditions[0]"
    assert [f.kind for f in error.failed_conditions] == ["isolated_world_available"]
    assert "firefox" in error.message
    assert no_cdp == []


# -- 2.6 network errors ---------------------------------------------------------------------------


def test_a_closed_port_on_firefox_is_navigation_failed_with_its_cause(ff_run):
    result, _ = ff_run(_plan(f"""\
        - {{id: open, kind: navigate, target: {{type: url, url: "http://127.0.0.1:{_closed_port()}/"}}}}
    """))
    error = result.error
    assert error is not None and error.error_code.value == "NAVIGATION_FAILED", error
    # On Firefox every request passes the guard's proxy (no bypass: network_guard.py), which cannot connect
    # and hangs up: Firefox reports the reset, not the refusal; the code is NAVIGATION_FAILED as on Chromium.
    assert error.details["net_error"] == "NS_ERROR_NET_RESET"
    assert error.details["net_error_class"] == "ERR_CONNECTION_RESET"


# -- 2.13 request bodies --------------------------------------------------------------------------


def test_a_request_body_check_on_firefox_is_refused_naming_the_browser(ff_run):
    result, _ = ff_run(_plan("""\
        - {id: open, kind: navigate, target: {type: url, url: "{site}/notes"}}
        - id: send
          kind: click
          target: {type: css, selector: "#b"}
          postconditions:
            - {kind: request_seen, args: {url: "**/api/notes", method: POST, request_json: {pointer: /title, equals: x}}}
    """))
    error = result.error
    assert error is not None and error.error_code.value == "PRECONDITION_FAILED", error
    assert error.action_id == "send"
    assert error.details["browser"] == "firefox"
    assert error.details["problem"] == "the browser does not give request bodies (firefox)"
    assert "not JSON" not in error.message
