"""Firefox's known gaps (issue 49), run as plans on Firefox: each a typed failure naming the browser,
never a hang or an untyped timeout (executor/step/gaps/browser_gaps.py).

Plans run through ``ff_run`` (tests/browsers/conftest.py) on the suite's one Firefox (tests/conftest.py
``firefox``, launched as the plugin launches it). Without a Firefox, or with a Playwright that cannot
drive it, they skip with one line, unless COMETLOCAL_REQUIRE_FIREFOX=1 (CI), where they fail.
"""

from __future__ import annotations

import faulthandler
import http.server
import socketserver
import textwrap
import threading
from typing import Any, Iterator

import pytest

from pytest_cometlocal.demo.pages.widgets import SORTABLE

pytestmark = pytest.mark.browser

HARD_LIMIT_S = 180  # a gap that hangs again would hang these tests

PAGES = {
    "/sortable": ("<title>Priorities</title>" + SORTABLE).encode(),
    # The measured case: a submit to a named host. outside.example is outside the allowlist;
    # other.test is allowed by the plans that say so, and resolves nowhere (the hang comes first).
    "/post-outside": b"<title>post</title><form method=post action='http://outside.example/landing'>"
                     b"<input type=hidden name=note value=demo><button type=submit>Send outside</button></form>",
    "/post-other": b"<title>post</title><form method=post action='http://other.test/landing'>"
                   b"<button type=submit>Send</button></form>",
    "/post-same": b"<title>post</title><form method=post action='/landing'><button type=submit>Send</button></form>",
    "/landing": b"<title>landing</title><p>landed</p>",
    "/amounts": b"<title>amounts</title><label>Quantity <input type=number value=1></label>"
                b"<label>Mail <input type=email value=a@b.c></label>",
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
            self._send(PAGES.get(self.path.split("?")[0], b"<title>none</title>"))

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self._send(PAGES["/landing"])

        def _send(self, body: bytes) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
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


def _plan(steps: str, head: str = "") -> str:
    return ("name: t\n" + head + "defaults:\n  criticality: normal\n  timeout_ms: 3000\n"
            "  preconditions: [{kind: host_in_allowlist}]\n  postconditions: [{kind: host_in_allowlist}]\n"
            "policy: {retries_per_action: 2, retry_on: [PRECONDITION_FAILED]}\nsteps:\n"
            + textwrap.indent(textwrap.dedent(steps), "  "))


def _failed(error) -> list[tuple[str, Any]]:
    return [(c.kind, c.observed) for c in error.failed_conditions]


def test_a_drag_on_firefox_is_refused_before_the_action_and_not_retried(ff_run):
    result, events = ff_run(_plan("""\
        - {id: open, kind: navigate, target: {type: url, url: "{site}/sortable"}}
        - id: ship_first
          kind: drag
          target: {type: testid, id: task-ship}
          to: {type: testid, id: task-write}
        - {id: after, kind: assert, postconditions: [{kind: title_contains, args: {text: Priorities}}]}
    """))
    error = result.error
    assert error is not None and error.error_code.value == "PRECONDITION_FAILED", error
    assert error.action_id == "ship_first"
    assert error.details["browser"] == "firefox" and error.details["unavailable"] == "html5_drag_available"
    assert error.details["browser_gap"] == "html5_drag" and error.details["condition"] == "drag"
    assert _failed(error) == [("html5_drag_available", {"browser": "firefox"})]
    assert error.retryable is False
    assert [e for e in events if e["event_type"] == "action_executed"
            and e.get("step_id") == "ship_first"] == []  # refused before: nothing was dragged
    assert len([e for e in events if e["event_type"] == "action_started"
                and e.get("step_id") == "ship_first"]) == 1  # retry_on names the code: still one attempt


def test_a_critical_submit_outside_the_allowlist_on_firefox_is_blocked_as_on_chromium(ff_run):
    result, _ = ff_run(_plan("""\
        - {id: open, kind: navigate, target: {type: url, url: "{site}/post-outside"}}
        - id: pay_outside
          kind: click
          criticality: critical
          target: {type: role, role: button, name: Send outside, exact: true}
          postconditions: [{kind: url_matches, args: {pattern: /landing}}]
    """))
    error = result.error
    assert error is not None and error.error_code.value == "ACTION_CRITICAL_BLOCKED", error
    assert error.action_id == "pay_outside"
    assert error.details["host"] == "outside.example" and error.details["critical_reason"] == "unsafe_domain_escape"
    assert error.details["browser_gap"] == "cross_origin_submit" and error.details["browser"] == "firefox"
    assert error.details["stopped_before_request"] is True


def test_a_submit_to_an_allowed_other_origin_on_firefox_is_a_typed_gap_not_a_timeout(ff_run):
    result, _ = ff_run(_plan("""\
        - {id: open, kind: navigate, target: {type: url, url: "{site}/post-other"}}
        - {id: send, kind: click, target: {type: role, role: button, name: Send, exact: true}}
    """, head="allowlist: [127.0.0.1, other.test]\n"))
    error = result.error
    assert error is not None and error.error_code.value == "PRECONDITION_FAILED", error
    assert error.action_id == "send"
    assert error.details["browser_gap"] == "cross_origin_submit"
    assert error.details["unavailable"] == "cross_origin_submit_available"
    assert error.details["url"] == "http://other.test/landing" and error.details["browser"] == "firefox"
    assert _failed(error) == [("cross_origin_submit_available", {"browser": "firefox"})]
    assert error.retryable is False  # a second click would hang as long again


def test_a_submit_to_the_same_origin_on_firefox_works(ff_run):
    result, _ = ff_run(_plan("""\
        - {id: open, kind: navigate, target: {type: url, url: "{site}/post-same"}}
        - id: send
          kind: click
          target: {type: role, role: button, name: Send, exact: true}
          postconditions: [{kind: title_contains, args: {text: landing}}]
    """))
    assert result.error is None, result.error


def test_fill_on_firefox_replaces_a_number_or_email_value_instead_of_appending(ff_run):
    """Playwright's fill on Firefox appends to these inputs (1 then "3" gave 13): emptied first."""
    result, _ = ff_run(_plan("""\
        - {id: open, kind: navigate, target: {type: url, url: "{site}/amounts"}}
        - id: quantity
          kind: fill
          target: {type: label, text: Quantity, exact: true}
          value: "3"
          postconditions: [{kind: element_value_equals, args: {value: "3"}}]
        - id: mail
          kind: fill
          target: {type: label, text: Mail, exact: true}
          value: q@r.s
          postconditions: [{kind: element_value_equals, args: {value: q@r.s}}]
    """))
    assert result.error is None, result.error
