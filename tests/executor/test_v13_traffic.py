"""(v1.3) ``request_seen`` and ``respond.delay_ms`` in a real Chromium, against the demo portal's /v13/traffic.

The page posts a note through ``fetch`` (JSON with a token the plan types from a
secret), fires an analytics beacon at a host outside the allowlist (the network
guard refuses it), and loads two feeds at once. The plans check the page's own
requests (body, headers, the answer), that a beacon was not sent (``count: 0``)
and, when it was, fail naming it; a stubbed request counts, and a stub with
``delay_ms`` answers later without holding up the other stub or the executor.
"""

from __future__ import annotations

import json

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.support import DEFAULTS

pytestmark = pytest.mark.browser

TOKEN = "tk-Sup3r-5ecret-42"
BEACON = "http://analytics.outside.example/**"


def plan(steps: str, extra: str = "") -> str:
    return (f"name: traffic\nallowlist: [127.0.0.1]\n{extra}{DEFAULTS}steps:\n"
            "  - {id: open, kind: navigate, target: {type: url, url: /v13/traffic}}\n" + steps)


def failed(r):
    (cond,) = r.error.failed_conditions
    return cond


def test_a_fetch_is_checked_body_headers_answer_and_its_secret_masked_in_every_file(run):
    steps = f"""\
  - {{id: title, kind: fill, target: {{type: label, text: Title, exact: true}}, value: Groceries}}
  - {{id: token, kind: fill, target: {{type: label, text: API token, exact: true}}, value: "${{secrets.api_token}}"}}
  - id: save
    kind: click
    target: {{type: role, role: button, name: Save note, exact: true}}
    postconditions:
      - {{kind: element_text_contains, args: {{target: {{type: testid, id: status}}, text: Saved note}}}}
      - kind: request_seen
        args:
          url: "**/v13/api/notes"
          method: POST
          count: 1
          request_json: [{{pointer: /title, equals: Groceries}}, {{pointer: /token, equals: "${{secrets.api_token}}"}},
                         {{pointer: /tags, length: 2}}]
          request_header: {{name: X-Client, equals: demo-notes}}
          response_status: 201
          response_json: {{pointer: /title, equals: Groceries}}
          response_header: {{name: x-note-id, matches: "^[0-9]+$"}}
      - {{kind: request_seen, args: {{url: "{BEACON}", count: 0}}}}
  - id: again
    kind: assert
    postconditions:
      - {{kind: request_seen, args: {{url: {{pattern: "/v13/api/notes$"}}, since: title, request_body: {{matches: Groceries}}}}}}
      - {{kind: request_seen, args: {{url: "**/v13/api/notes", since: title, greater_than: 0, less_than: 2}}}}
      - {{kind: request_seen, args: {{url: "**/v13/api/notes", since: save, count: 1}}}}
"""
    r = run(plan(steps, "secrets: {api_token: {env: API_TOKEN}}\n"), env={"API_TOKEN": TOKEN})
    assert r.error is None, r.error
    # The exchange is evidence, hashed in the manifest, the token masked in it.
    seen = [e for e in r.evidence["files"] if e["kind"] == "http_exchange"]
    assert {e["step_id"] for e in seen} == {"save", "again"}
    exchange = json.loads((r.run_dir / seen[0]["uri"]).read_text(encoding="utf-8"))
    assert exchange["source"] == "page" and exchange["request"]["method"] == "POST"
    assert exchange["response"]["status"] == 201 and "***" in exchange["request"]["body"]
    assert json.loads(exchange["request"]["body"].replace("***", "x"))["title"] == "Groceries"
    # Every file of the run folder: no trace of the secret, in any encoding the redactor knows.
    leaks = [name for name, data in r.files().items() if TOKEN.encode() in data]
    assert leaks == []
    versions = {e["step_id"]: e["action_spec"]["schema_version"] for e in r.events if e.get("action_spec")}
    assert (versions["save"], versions["title"]) == ("v1.3", "v1")
    assert r.manifest["format_versions"] == ["v1", "v1.3"]
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_count_zero_holds_until_a_beacon_is_sent_then_fails_naming_it(run):
    steps = f"""\
  - id: buy
    kind: click
    target: {{type: role, role: button, name: Buy, exact: true}}
    timeout_ms: 20000
    postconditions:
      - {{kind: element_text_contains, args: {{target: {{type: testid, id: status}}, text: Bought}}}}
      - {{kind: request_seen, args: {{url: "{BEACON}", count: 0}}}}
"""
    r = run(plan(steps))
    assert r.code == "POSTCONDITION_FAILED" and r.error.action_id == "buy"
    cond = failed(r)
    assert cond.kind == "request_seen" and cond.phase == "post"
    observed = cond.observed
    assert "POST http://analytics.outside.example/collect" in observed["problem"]
    (beacon,) = observed["requests"]
    assert beacon["blocked"] is True and "status" not in beacon  # the guard's 403 is no answer
    assert observed["final"] is True  # decided at once: a count passed never comes back down
    # A refused request never makes request_seen hold as if answered (no count: it needs an answer).
    r = run(plan(steps.replace(", count: 0", "").replace("20000", "1500")))
    assert r.code == "POSTCONDITION_FAILED"
    assert failed(r).observed["problem"] == "no matching request was answered and passed every check"
    # As a precondition (the window: since the step began), a check that does not hold is PRECONDITION_FAILED.
    steps = """\
  - {id: note, kind: fill, target: {type: label, text: Title, exact: true}, value: ""}
  - {id: save, kind: click, target: {type: role, role: button, name: Save note, exact: true},
     postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: status}, text: Refused}}]}
  - id: check
    kind: assert
    timeout_ms: 1500
    preconditions: [{kind: request_seen, args: {url: "**/v13/api/notes", since: save, response_status: [200, 201]}}]
"""
    r = run(plan(steps))
    assert r.code == "PRECONDITION_FAILED" and r.error.action_id == "check"
    (row,) = failed(r).observed["requests"]
    assert row["status"] == 400 and row["problem"] == "status 400" and row["exchange"].startswith("evidence/http/")


def test_a_stubbed_request_counts_and_a_delayed_stub_answers_after_the_other(run):
    routes = """\
routes:
  - url: "**/v13/api/slow"
    respond: {json: {n: 10}, delay_ms: 2500}
  - url: "**/v13/api/fast"
    respond: {json: {n: 20}, headers: {X-Stub: fast}}
"""
    steps = """\
  - id: load
    kind: click
    target: {type: role, role: button, name: Load feeds, exact: true}
    postconditions:
      # Not texts_equal [fast 20]: on a slow machine the slow stub may have answered too by the first look;
      # the order the answers came in is `later`'s check (a stub that blocked would put slow first).
      - {kind: element_text_contains, args: {target: {type: testid, id: log}, text: fast 20}}
      - {kind: request_seen, args: {url: "**/v13/api/fast", count: 1, response_header: {name: X-Stub, equals: fast}}}
  - id: later
    kind: assert
    timeout_ms: 8000
    postconditions:
      - {kind: request_seen, args: {url: "**/v13/api/slow", since: load, response_json: {pointer: /n, equals: 10}}}
      - {kind: element_texts_equal, args: {target: {type: css, selector: "[data-testid=log] li"},
                                           texts: [fast 20, slow 10]}}
"""
    r = run(plan(steps, routes))
    assert r.error is None, r.error
    stubbed = [e["metadata"] for e in r.events if e["event_type"] == "request_stubbed"]
    assert {(s["url"].rsplit("/", 1)[1], s.get("delay_ms")) for s in stubbed} == {("slow", 2500), ("fast", None)}
    assert r.manifest["configuration"]["effective"]["routes"][0]["delay_ms"] == 2500
