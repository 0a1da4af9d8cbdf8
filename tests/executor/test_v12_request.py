"""(v1.2) ``request`` steps in a real Chromium against a small API served on 127.0.0.1 (api_server.py).

- cookies are shared both ways with the page (a sign-in made in the page is
  carried; a cookie the response sets reaches the page), and saved values
  (``save:``, ``save_text:``) fill later steps;
- a request to an outside host, or a redirect to one, is DOMAIN_BLOCKED and
  nothing is sent there (the listener on 127.0.0.2 counts 0 connections);
- a pointer that does not resolve, a refused port, a critical POST in a dry run;
- the http evidence verifies, and an edited one does not; ``show`` prints one line.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from pytest_cometlocal.runs.show import show_run
from pytest_cometlocal.runs.verify import verify_run
from tests.executor.api_server import ApiServer
from tests.support import DEFAULTS, run_text

pytestmark = pytest.mark.browser


@pytest.fixture
def api():
    with ApiServer() as server:
        yield server


def request_plan(steps: str, extra: str = "") -> str:
    return "name: http\npolicy: {retries_per_action: 0}\n" + extra + DEFAULTS + "steps:\n" + steps


FLOW = """\
  - {id: signin, kind: navigate, target: {type: url, url: /signin}}
  - id: me
    kind: request
    method: GET
    url: /api/me
    postconditions:
      - {kind: response_status, args: {status: 200}}
      - {kind: response_json, args: {pointer: /user, equals: ana}}
  - id: create
    kind: request
    method: POST
    url: /api/docs
    json: {title: Draft, body: first}
    save: {doc_id: /id, loc: "header:Location", st: status}
    postconditions:
      - {kind: response_status, args: {status: [200, 201]}}
      - {kind: response_header, args: {name: location, matches: "^/api/docs/d"}}
  - id: open
    kind: navigate
    target: {type: url, url: "/docs/${saved.doc_id}"}
    postconditions:
      - {kind: cookie, args: {name: seen, equals: "yes"}}
      - {kind: title_contains, args: {text: Draft}}
  - {id: number, kind: assert, target: {type: testid, id: doc-number}, save_text: number,
     postconditions: [{kind: element_text_contains, args: {text: "N-"}}]}
  - id: check
    kind: request
    method: GET
    url: "${saved.loc}?n=${saved.number}"
    postconditions:
      - {kind: response_json, args: {pointer: /n, equals: "${saved.number}"}}
      - {kind: response_json, args: {pointer: /title, matches: "^Dra"}}
"""


def test_cookies_go_both_ways_and_saved_values_fill_later_steps(chromium, tmp_path: Path, api: ApiServer) -> None:
    r = run_text(chromium, tmp_path, request_plan(FLOW), api.url)
    assert r.error is None, r.error
    assert api.posts() == ["/api/docs"]
    assert ("GET", "/api/docs/d1?n=N-d142") in api.received
    saved = {e["step_id"]: e["metadata"]["saved"] for e in r.events if "saved" in (e.get("metadata") or {})}
    assert saved == {"create": {"doc_id": "d1", "loc": "/api/docs/d1", "st": "201"}, "number": {"number": "N-d142"}}
    executed = {e["step_id"]: e["metadata"] for e in r.events if e["event_type"] == "action_executed"}
    assert executed["create"]["status"] == 201 and executed["create"]["method"] == "POST"
    # The exchange, in the manifest, hashed; the run verifies.
    entries = {e["step_id"]: e for e in r.evidence["files"] if e["kind"] == "http_exchange"}
    assert entries["create"]["uri"] == "evidence/http/step_002.json"
    doc = json.loads((r.run_dir / entries["create"]["uri"]).read_text())
    assert doc["request"]["method"] == "POST" and json.loads(doc["request"]["body"]) == {"title": "Draft", "body": "first"}
    assert doc["response"]["status"] == 201 and doc["response"]["headers"]["Location"] == "/api/docs/d1"
    assert doc["request"]["headers"]["Content-Type"] == "application/json"
    me = json.loads((r.run_dir / entries["me"]["uri"]).read_text())
    assert me["response"]["headers"]["Set-Cookie"] == "***"
    verification = verify_run(r.run_dir)
    assert verification.ok, verification.problems
    shown = show_run(r.run_dir)
    assert f"POST {api.url}/api/docs -> 201" in shown and f"GET {api.url}/api/docs/d1?n=N-d142 -> 200" in shown
    # An edited exchange no longer verifies.
    path = r.run_dir / entries["create"]["uri"]
    path.write_text(path.read_text().replace("Draft", "Final"))
    problems = verify_run(r.run_dir).problems
    assert any("http/step_002.json" in p for p in problems), problems


def test_without_the_page_sign_in_the_call_is_refused(chromium, tmp_path: Path, api: ApiServer) -> None:
    plan = request_plan("  - {id: me, kind: request, method: GET, url: /api/me, "
                        "postconditions: [{kind: response_status, args: {status: 200}}]}\n")
    r = run_text(chromium, tmp_path, plan, api.url)
    assert r.code == "POSTCONDITION_FAILED"
    (failed,) = r.error.failed_conditions
    assert failed.kind == "response_status" and failed.observed["status"] == 401
    assert json.loads(failed.observed["body"]) == {"error": "sign in first"}


ANY_PAGE = "preconditions: [{kind: url_matches, args: {pattern: '.*'}}]"


@pytest.mark.parametrize("url, pre, stage", [
    ("{outside}/x", "", "precondition"),  # the step's host_in_allowlist reads the request's URL
    ("{outside}/x", ANY_PAGE, "precondition"),  # without one, the client's own check before sending
    ("/api/out", ANY_PAGE, "execution"),  # a redirect that leaves the allowlist
])
def test_an_outside_host_is_blocked_and_nothing_is_sent(chromium, tmp_path: Path, api: ApiServer, url: str, pre: str,
                                                         stage: str) -> None:
    where = url.format(outside=api.outside.url)
    plan = request_plan(f"  - {{id: leave, kind: request, method: GET, url: \"{where}\"{', ' + pre if pre else ''}}}\n")
    r = run_text(chromium, tmp_path, plan, api.url)
    assert r.code == "DOMAIN_BLOCKED", r.error
    assert r.error.details["host"] == "127.0.0.2" and r.error.stage == stage
    assert r.error.details.get("stopped_before_request", True) is True
    if pre:
        assert r.error.failed_conditions == []  # the client refused it, not a condition
    else:
        assert [c.kind for c in r.error.failed_conditions] == ["host_in_allowlist"]
    assert api.outside.connections == 0


def test_a_pointer_that_does_not_resolve_fails_the_saving_step(chromium, tmp_path: Path, api: ApiServer) -> None:
    plan = request_plan("""\
  - {id: signin, kind: navigate, target: {type: url, url: /signin}}
  - {id: me, kind: request, method: GET, url: /api/me, save: {who: /name}}
""")
    r = run_text(chromium, tmp_path, plan, api.url)
    assert r.code == "POSTCONDITION_FAILED" and r.error.action_id == "me"
    (failed,) = r.error.failed_conditions
    assert failed.kind == "response_json" and failed.args == {"pointer": "/name"}
    assert failed.observed["problem"] == "the pointer names nothing in the body"


def test_a_refused_port_is_a_typed_transport_failure(chromium, tmp_path: Path, api: ApiServer) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    plan = request_plan(f"  - {{id: gone, kind: request, method: GET, url: \"http://127.0.0.1:{port}/x\"}}\n")
    r = run_text(chromium, tmp_path, plan, api.url)
    assert r.code == "NAVIGATION_FAILED", r.error
    assert "ECONNREFUSED" in r.error.details["cause"] and r.error.details["method"] == "GET"


def test_a_call_that_runs_out_of_time_is_navigation_timeout(chromium, tmp_path: Path, api: ApiServer) -> None:
    plan = request_plan("  - {id: slow, kind: request, method: GET, url: /api/slow, timeout_ms: 500}\n")
    r = run_text(chromium, tmp_path, plan, api.url)
    assert r.code == "NAVIGATION_TIMEOUT", r.error
    assert r.error.details["timeout_ms"] == 500 and r.error.details["url"] == api.url + "/api/slow"
    assert r.error.details["cause"]


def test_a_redirect_inside_the_allowlist_is_followed_and_recorded(chromium, tmp_path: Path, api: ApiServer) -> None:
    plan = request_plan("""\
  - {id: signin, kind: navigate, target: {type: url, url: /signin}}
  - {id: hop, kind: request, method: GET, url: /api/hop,
     postconditions: [{kind: response_json, args: {pointer: /user, equals: ana}}, {kind: host_in_allowlist}]}
""")
    r = run_text(chromium, tmp_path, plan, api.url)
    assert r.error is None, r.error
    (entry,) = [e for e in r.evidence["files"] if e["kind"] == "http_exchange"]
    doc = json.loads((r.run_dir / entry["uri"]).read_text())
    assert doc["redirects"] == [{"status": 302, "url": api.url + "/api/hop", "location": "/api/me"}]
    assert doc["response"]["url"] == api.url + "/api/me" and doc["response"]["status"] == 200


def test_a_form_and_a_text_body_are_sent_as_written(chromium, tmp_path: Path, api: ApiServer) -> None:
    plan = request_plan("""\
  - {id: form, kind: request, method: POST, url: /api/echo, form: {a: 1, b: x y},
     postconditions: [{kind: response_json, args: {pointer: /body, equals: "a=1&b=x+y"}},
                      {kind: response_json, args: {pointer: /headers, matches: "application/x-www-form-urlencoded"}}]}
  - {id: text, kind: request, method: POST, url: /api/echo, body: "plain ${vars.word}", headers: {Content-Type: text/plain},
     postconditions: [{kind: response_json, args: {pointer: /body, equals: plain words}},
                      {kind: response_json, args: {pointer: /headers/Content-Type, equals: text/plain}}]}
""", extra="vars: {word: words}\n")
    r = run_text(chromium, tmp_path, plan, api.url)
    assert r.error is None, r.error
    assert api.posts() == ["/api/echo", "/api/echo"]


def test_a_dry_run_blocks_a_critical_post(chromium, tmp_path: Path, api: ApiServer) -> None:
    from pytest_cometlocal.contract.settings import effective_settings
    from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_text
    from pytest_cometlocal.executor.session import run_plan

    text = request_plan("""\
  - {id: create, kind: request, method: POST, url: /api/docs, json: {title: x}, criticality: critical,
     postconditions: [{kind: response_status, args: {status: 201}}]}
""")
    path = tmp_path / "plans" / "dry.actions.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    (valid,) = validate_text(path.read_bytes(), ValidationContext(root=tmp_path, plan_path=path, env={}), "plans/dry.actions.yaml")
    eff = effective_settings(valid, default_base_url=api.url, force_dry_run=True, env={})
    result = run_plan(chromium.browser(), valid, tmp_path / "runs", eff)
    assert result.error.error_code.value == "ACTION_CRITICAL_BLOCKED"
    assert result.error.details["critical_reason"] == "dry_run"
    assert api.posts() == []


# Three POSTs from one page (a request leaves it as it was): the third differs from the first two by its
# URL and body, which hold a secret.
THREE_POSTS = """\
  - {id: one, kind: request, method: POST, url: /api/echo, json: {n: 1}}
  - {id: two, kind: request, method: POST, url: /api/echo, json: {n: 2}}
  - {id: three, kind: request, method: POST, url: "/api/echo?t=${secrets.tok}", body: "t=${secrets.tok}",
     headers: {Content-Type: text/plain}}
"""
TOKEN = "Tk-5519-secret"


def request_keys(r) -> dict[str, str]:
    return {e["step_id"]: e["metadata"]["policy"].get("request_key") for e in r.events
            if e["event_type"] == "observation_captured"}


def test_distinct_calls_from_one_page_are_distinct_states(chromium, tmp_path: Path, api: ApiServer) -> None:
    """Issue 46, item 6: a request step's state is the page's and its call (method, URL, body), so three
    different POSTs in a row are three states, not one visited three times (same_state_revisits: 2)."""
    r = run_text(chromium, tmp_path, request_plan(THREE_POSTS, extra="secrets: {tok: {env: API_TOK}}\n"), api.url,
                 env={"API_TOK": TOKEN})
    assert r.error is None, r.error
    assert api.posts() == ["/api/echo", "/api/echo", f"/api/echo?t={TOKEN}"]
    keys = request_keys(r)
    assert len(set(keys.values())) == 3 and all(k.startswith("sha256:") for k in keys.values()), keys
    assert {e["metadata"]["policy"]["same_state_revisit_count"] for e in r.events
            if e["event_type"] == "observation_captured"} == {0}
    # The key is a hash of the call with its secrets as references: the value is nowhere in the run folder.
    assert not [name for name, data in r.files().items() if TOKEN.encode() in data]
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_the_same_call_from_one_page_again_and_again_still_halts(chromium, tmp_path: Path, api: ApiServer) -> None:
    same = "  - {id: %s, kind: request, method: POST, url: /api/echo, json: {n: 1}}\n"
    r = run_text(chromium, tmp_path, request_plan("".join(same % f"s{i}" for i in range(1, 4))), api.url)
    assert r.code == "POLICY_HALT" and r.error.action_id == "s3", r.error
    assert api.posts() == ["/api/echo", "/api/echo"]  # halted before the third was sent
    keys = request_keys(r)
    assert len(set(keys.values())) == 1
    assert r.error.details["request_key"] == keys["s3"] and r.error.details["count"] == 3
    halt = next(e for e in r.events if e["event_type"] == "policy_halt")
    assert halt["metadata"]["policy"]["request_key"] == keys["s3"]
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems
