"""(v1.2) ``routes:`` in a real Chromium: stubs answered inside the browser, never sent.

The pages are served by this module on 127.0.0.1; "the outside" is a listener on
another loopback address (127.0.0.2), not on any plan's allowlist, that counts
every request reaching it. A route that answers it leaves the count at 0 and the
guard's blocked list without it; a request no route takes is blocked by the guard
and traced as before. Routes live on the context: every page, popups included.
"""

from __future__ import annotations

import http.server
import json
import socketserver
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cometlocal.contract.load.suite_config import load_suite_config
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text
from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
from pytest_cometlocal.executor.session import RunRecord, guarded_context, open_run, run_plan
from pytest_cometlocal.runs.reader import read_run
from pytest_cometlocal.runs.show import show_run
from pytest_cometlocal.runs.verify import verify_run
from tests.support import DEFAULTS, Run, read_trace

pytestmark = pytest.mark.browser

FEED = "https://feed.outside.example/items.json"
TOKEN = "tok-5ecret-value"

# A page that fetches ``src`` (with ``method``) and shows what came back, or "Feed unavailable".
PAGE = """<title>{title}</title><p data-testid="feed">loading</p>
<script>
fetch({src!r}, {{method: {method!r}}}).then(r => r.ok ? r.json() : Promise.reject(r.status))
  .then(d => document.querySelector('[data-testid=feed]').textContent = 'items: ' + d.items.join(','))
  .catch(e => document.querySelector('[data-testid=feed]').textContent = 'Feed unavailable');
</script>"""


class Counting(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(address: str, pages: dict[str, str], hits: list[str]) -> tuple[Counting, str]:
    """A server on ``address`` that counts every request and answers ``pages`` (JSON under /api/)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def _answer(self) -> None:
            hits.append(f"{self.command} {self.path}")
            if self.path.startswith("/api/slow"):
                time.sleep(3)
            body = pages.get(self.path.split("?")[0])
            api = self.path.startswith("/api/")
            data = (json.dumps({"items": [f"real-{self.command}"]}) if api else body or "not found").encode()
            self.send_response(200 if (body or api) else 404)
            self.send_header("Content-Type", "application/json" if api else "text/html; charset=utf-8")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

    server = Counting((address, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{address}:{server.server_address[1]}"


@pytest.fixture(scope="module")
def sites() -> Iterator[dict[str, Any]]:
    outside_hits: list[str] = []
    outside, outside_url = serve("127.0.0.2", {}, outside_hits)
    own_hits: list[str] = []
    pages = {
        "/feed": PAGE.format(title="Feed", src=FEED, method="GET"),
        "/near": PAGE.format(title="Near", src=outside_url + "/items.json", method="GET"),
        "/post": PAGE.format(title="Post", src="/api/items", method="POST"),
        "/get": PAGE.format(title="Get", src="/api/items", method="GET"),
        "/slow": PAGE.format(title="Slow", src="/api/slow/recommendations", method="GET"),
        "/secret": PAGE.format(title="Secret", src=FEED + "?token=" + TOKEN, method="GET"),
        "/popup": '<title>Opener</title><a data-testid="pop" href="/feed" target="_blank">feed</a>',
    }
    own, own_url = serve("127.0.0.1", pages, own_hits)
    yield {"url": own_url, "hits": own_hits, "outside": outside_url, "outside_hits": outside_hits}
    outside.shutdown()
    own.shutdown()


def shows(text: str) -> str:
    return (f"[{{kind: element_text_contains, args: {{target: {{type: testid, id: feed}}, text: \"{text}\"}}}}]")


def opening(path: str, text: str, routes: str = "", name: str = "stubbed") -> str:
    """A plan that opens ``path`` and waits until the feed shows ``text``; ``routes`` is its routes: block."""
    return (f"name: {name}\nallowlist: [127.0.0.1]\n{DEFAULTS}{textwrap.dedent(routes)}steps:\n"
            f"  - id: open\n    kind: navigate\n    target: {{type: url, url: \"{path}\"}}\n"
            f"  - id: look\n    kind: wait_for\n    target: {{type: testid, id: feed}}\n    timeout_ms: 5000\n"
            f"    postconditions: {shows(text)}\n")


def validated(root: Path, text: str, suite: str | None = None, env: dict[str, str] | None = None):
    (root / "plans").mkdir(parents=True, exist_ok=True)
    path = root / "plans" / f"p{len(list((root / 'plans').glob('*.actions.yaml')))}.actions.yaml"
    path.write_text(text, encoding="utf-8")
    config = None
    if suite is not None:
        (root / "cometlocal.yaml").write_text(textwrap.dedent(suite), encoding="utf-8")
        config = load_suite_config(root / "cometlocal.yaml", "cometlocal.yaml")
    ctx = ValidationContext(root=root, plan_path=path, env=env or {}, suite_config=config)
    (valid,) = validate_text(path.read_bytes(), ctx, file=f"plans/{path.name}")
    if isinstance(valid, InvalidPlan):
        raise AssertionError("\n".join(p.format() for p in valid.problems))
    return valid


def run_routes(chromium, root: Path, sites: dict[str, Any], text: str, suite: str | None = None,
               env: dict[str, str] | None = None) -> Run:
    valid = validated(root, text, suite, env)
    eff = effective_settings(valid, default_base_url=sites["url"], env=env or {})
    result = run_plan(chromium.browser(), valid, root / "runs", eff)
    return Run(result, result.run_dir, read_trace(result.run_dir / "trace.jsonl"),
               json.loads((result.run_dir / "run_manifest.json").read_text(encoding="utf-8")), {})


def stubbed(r: Run) -> list[dict[str, Any]]:
    return [e["metadata"] | {"step": e["step_id"]} for e in r.events if e["event_type"] == "request_stubbed"]


def finished(r: Run) -> dict[str, Any]:
    assert r.events[-1]["event_type"] == "run_finished"
    return r.events[-1]["metadata"]


def blocked_hosts(r: Run) -> set[str]:
    found = set()
    for e in r.events:
        for b in (e.get("metadata") or {}).get("blocked_requests") or []:
            found.add(b["host"])
    return found


def test_a_route_answers_an_outside_host_and_nothing_reaches_it(chromium, tmp_path, sites):
    routes = f"""\
    routes:
      - url: "{sites['outside']}/items.json"
        respond: {{status: 200, json: {{items: [stubbed-near]}}}}
      - url: "{FEED}"
        respond: {{json: {{items: [stubbed-feed]}}}}
      - url: "**/never/*"
        abort: true
    """
    before = len(sites["outside_hits"])
    r = run_routes(chromium, tmp_path, sites, opening("/near", "items: stubbed-near", routes))
    assert r.error is None, r.error
    assert len(sites["outside_hits"]) == before  # the listener on 127.0.0.2 counted nothing
    assert "127.0.0.2" not in blocked_hosts(r)  # nor did the guard see it: it never left the browser
    (hit,) = stubbed(r)
    assert (hit["route"], hit["method"], hit["answer"], hit["status"]) == (0, "GET", "answered", 200)
    assert hit["url"] == f"{sites['outside']}/items.json" and hit["step"] in ("open", "look")
    # Unused routes are named on the run's last event; the manifest records the routes in order.
    assert [u["index"] for u in finished(r)["routes_unused"]] == [1, 2]
    assert finished(r)["routes_unused"][1] == {"index": 2, "url": "**/never/*", "abort": True}
    effective = r.manifest["configuration"]["effective"]
    assert [x["url"] for x in effective["routes"]] == [f"{sites['outside']}/items.json", FEED, "**/never/*"]
    assert r.manifest["configuration"]["sources"]["routes"] == "plan"
    r = run_routes(chromium, tmp_path, sites, opening("/feed", "items: stubbed-feed", routes))
    assert r.error is None, r.error
    assert [(h["route"], h["url"]) for h in stubbed(r)] == [(1, FEED)]


def test_without_a_matching_route_the_guard_blocks_as_before(chromium, tmp_path, sites):
    routes = """\
    routes:
      - url: "**/other.json"
        respond: {json: {items: [x]}}
    """
    before = len(sites["outside_hits"])
    r = run_routes(chromium, tmp_path, sites, opening("/near", "Feed unavailable", routes))
    assert r.error is None, r.error
    assert len(sites["outside_hits"]) == before
    assert "127.0.0.2" in blocked_hosts(r)  # refused by the guard and traced, exactly as without routes
    assert stubbed(r) == [] and [u["index"] for u in finished(r)["routes_unused"]] == [0]


def test_a_plan_without_routes_installs_nothing_and_records_nothing(chromium, tmp_path, sites):
    r = run_routes(chromium, tmp_path, sites, opening("/near", "Feed unavailable"))
    assert r.error is None, r.error
    assert "127.0.0.2" in blocked_hosts(r)
    assert "routes_unused" not in finished(r) and "routes" not in r.manifest["configuration"]["effective"]
    assert "routes" not in r.manifest["configuration"]["sources"]


def test_abort_makes_the_fetch_fail(chromium, tmp_path, sites):
    routes = """\
    routes:
      - url: "https://feed.outside.example/**"
        abort: true
    """
    r = run_routes(chromium, tmp_path, sites, opening("/feed", "Feed unavailable", routes))
    assert r.error is None, r.error
    assert [(h["route"], h["answer"]) for h in stubbed(r)] == [(0, "aborted")]
    assert "feed.outside.example" not in blocked_hosts(r) and finished(r)["routes_unused"] == []


def test_file_answer_method_filter_and_first_match_wins(chromium, tmp_path, sites):
    (tmp_path / "plans").mkdir(parents=True, exist_ok=True)
    (tmp_path / "plans" / "items.json").write_text('{"items": ["from-file"]}', encoding="utf-8")
    routes = """\
    routes:
      - url: "**/api/items"
        method: POST
        respond: {file: items.json}
      - url: "**/api/items"
        respond: {json: {items: [second]}}
    """
    posts = len([h for h in sites["hits"] if h.startswith("POST /api/items")])
    r = run_routes(chromium, tmp_path, sites, opening("/post", "items: from-file", routes))
    assert r.error is None, r.error
    assert [(h["route"], h["method"]) for h in stubbed(r)] == [(0, "POST")]  # the first route that matches
    assert len([h for h in sites["hits"] if h.startswith("POST /api/items")]) == posts
    # A GET is not the first route's (method POST): the second one answers it.
    r = run_routes(chromium, tmp_path, sites, opening("/get", "items: second", routes))
    assert r.error is None, r.error
    assert [(h["route"], h["method"]) for h in stubbed(r)] == [(1, "GET")]
    assert [u["index"] for u in finished(r)["routes_unused"]] == [0]
    # Read back: the reader's stubs, show's lines, and verify accepts the new event.
    assert verify_run(r.run_dir).ok
    stubs = read_run(r.run_dir).stubs
    assert [(x["route"], x["answer"], x["step"] in ("open", "look")) for x in stubs["stubbed"]] == [(1, "answered", True)]
    assert [u["index"] for u in stubs["routes_unused"]] == [0] and len(stubs["routes"]) == 2
    shown = show_run(r.run_dir)
    assert "[0] POST   **/api/items -> 200 file  (unused)" in shown
    assert "[1] any    **/api/items -> 200 json  1 request(s)" in shown
    assert "GET " + sites["url"] + "/api/items by route 1, answered 200" in shown


def test_a_method_no_route_takes_goes_to_the_server(chromium, tmp_path, sites):
    routes = """\
    routes:
      - url: "**/api/items"
        method: POST
        respond: {json: {items: [stub]}}
    """
    r = run_routes(chromium, tmp_path, sites, opening("/get", "items: real-GET", routes))
    assert r.error is None, r.error
    assert stubbed(r) == []


def test_a_regex_route(chromium, tmp_path, sites):
    routes = r"""
    routes:
      - url: {pattern: "^https://feed\\.outside\\.example/items\\.(json|xml)$"}
        respond: {body: '{"items": ["by-regex"]}', headers: {Content-Type: application/json}}
    """
    r = run_routes(chromium, tmp_path, sites, opening("/feed", "items: by-regex", routes))
    assert r.error is None, r.error
    assert [h["route"] for h in stubbed(r)] == [0]
    assert r.manifest["configuration"]["effective"]["routes"][0]["url"].startswith("/^https://feed")


def test_suite_routes_apply_to_every_plan_after_the_plan_own(chromium, tmp_path, sites):
    suite = f"""\
    routes:
      - url: "{FEED}"
        respond: {{json: {{items: [from-suite]}}}}
    """
    r = run_routes(chromium, tmp_path, sites, opening("/feed", "items: from-suite"), suite)
    assert r.error is None, r.error
    assert [h["route"] for h in stubbed(r)] == [0]
    assert r.manifest["configuration"]["sources"]["routes"] == "suite"
    own = f"""\
    routes:
      - url: "{FEED}"
        respond: {{json: {{items: [from-plan]}}}}
    """
    r = run_routes(chromium, tmp_path, sites, opening("/feed", "items: from-plan", own), suite)
    assert r.error is None, r.error
    assert [h["route"] for h in stubbed(r)] == [0]
    assert [u["index"] for u in finished(r)["routes_unused"]] == [1]  # the suite's, after the plan's
    assert r.manifest["configuration"]["sources"]["routes"] == "plan+suite"


def test_a_stubbed_slow_endpoint_is_not_waited_for(chromium, tmp_path, sites):
    routes = """\
    routes:
      - url: "**/api/slow/recommendations"
        method: GET
        respond: {json: {items: [quick]}}
    """
    slow = len([h for h in sites["hits"] if "/api/slow" in h])
    r = run_routes(chromium, tmp_path, sites, opening("/slow", "items: quick", routes))
    assert r.error is None, r.error
    assert [(h["route"], h["answer"]) for h in stubbed(r)] == [(0, "answered")]
    assert len([h for h in sites["hits"] if "/api/slow" in h]) == slow  # the slow endpoint was never asked


def test_a_popup_is_answered_too(chromium, tmp_path, sites):
    routes = f"""\
    routes:
      - url: "{FEED}"
        respond: {{json: {{items: [in-popup]}}}}
    """
    text = (f"name: popup\nallowlist: [127.0.0.1]\n{DEFAULTS}{textwrap.dedent(routes)}steps:\n"
            f"  - {{id: open, kind: navigate, target: {{type: url, url: /popup}}}}\n"
            f"  - {{id: pop, kind: click, target: {{type: testid, id: pop}}, opens: page}}\n"
            f"  - id: look\n    kind: wait_for\n    target: {{type: testid, id: feed}}\n    timeout_ms: 5000\n"
            f"    postconditions: {shows('items: in-popup')}\n")
    r = run_routes(chromium, tmp_path, sites, text)
    assert r.error is None, r.error
    assert [h["route"] for h in stubbed(r)] == [0]


def test_a_context_reused_by_another_plan_keeps_no_routes(chromium, tmp_path, sites):
    """One context, two runs (as a caller that keeps its context would): the second plan has no routes,
    and its page's request is blocked by the guard, not answered by the first plan's stub."""
    first = validated(tmp_path, opening("/feed", "items: first", f"""\
    routes:
      - url: "{FEED}"
        respond: {{json: {{items: [first]}}}}
    """, name="first"))
    second = validated(tmp_path, opening("/feed", "Feed unavailable", name="second"))
    with NetworkGuard(("127.0.0.1",)) as guard, guarded_context(chromium.browser(), guard) as context:
        page = context.new_page()
        results = []
        for valid in (first, second):
            eff = effective_settings(valid, default_base_url=sites["url"], env={})
            with open_run(None, eff, tmp_path / "runs", RunRecord.of_plan(eff), guard=guard, page=page) as executor:
                results.append(executor.run_plan(valid.plan))
        assert [r.error for r in results] == [None, None], results
        assert "feed.outside.example" in {b.host for b in guard.blocked_since(0)}  # the second plan's request
    second_trace = read_trace(results[1].run_dir / "trace.jsonl")
    assert not [e for e in second_trace if e["event_type"] == "request_stubbed"]


def test_a_secret_in_a_stubbed_url_or_answer_is_masked_everywhere(chromium, tmp_path, sites):
    routes = """\
    secrets: {tok: {env: FEED_TOKEN}}
    routes:
      - url: "**/items.json?token=${secrets.tok}"
        respond: {json: {items: [ok], echo: "${secrets.tok}"}}
    """
    r = run_routes(chromium, tmp_path, sites, opening("/secret", "items: ok", routes), env={"FEED_TOKEN": TOKEN})
    assert r.error is None, r.error
    (hit,) = stubbed(r)
    assert TOKEN not in hit["url"] and hit["url"].startswith(FEED + "?token=")
    assert "${secrets.tok}" in r.manifest["configuration"]["effective"]["routes"][0]["url"]
    for name in ("trace.jsonl", "run_manifest.json"):
        assert TOKEN not in (r.run_dir / name).read_text(encoding="utf-8")
    assert TOKEN not in show_run(r.run_dir)


def test_a_saved_sign_in_state_carries_no_routes(chromium, tmp_path, sites):
    """The plan that saves a storage state has routes; the plan that starts from the state has none: its
    request is the guard's to block (a state holds cookies and storage, never the maker's stubs)."""
    from pytest_cometlocal.executor.browser.storage_states import StorageStates

    storage = StorageStates(tmp_path / "runs")
    maker = validated(tmp_path, opening("/feed", "items: maker", f"""\
    save_storage_state: signed_in
    routes:
      - url: "{FEED}"
        respond: {{json: {{items: [maker]}}}}
    """, name="maker"))
    user = validated(tmp_path, opening("/feed", "Feed unavailable", "storage_state: signed_in\n", name="user"))
    results = []
    for valid in (maker, user):
        eff = effective_settings(valid, default_base_url=sites["url"], env={})
        results.append(run_plan(chromium.browser(), valid, tmp_path / "runs", eff, storage=storage))
    assert [r.error for r in results] == [None, None], results
    assert storage.exists("signed_in")
    user_trace = read_trace(results[1].run_dir / "trace.jsonl")
    assert not [e for e in user_trace if e["event_type"] == "request_stubbed"]
    assert "feed.outside.example" in {b["host"] for e in user_trace
                                      for b in (e.get("metadata") or {}).get("blocked_requests") or []}


def test_requests_of_a_failed_step_are_traced_before_run_finished(chromium, tmp_path, sites):
    routes = f"""\
    policy: {{retries_per_action: 0}}
    routes:
      - url: "{FEED}"
        respond: {{json: {{items: [shown]}}}}
    """
    # One step, which fetches the feed and then fails its postcondition: nothing of it passes.
    text = (f"name: failing\nallowlist: [127.0.0.1]\n{DEFAULTS}{textwrap.dedent(routes)}steps:\n"
            f"  - id: open\n    kind: navigate\n    target: {{type: url, url: /feed}}\n    timeout_ms: 1500\n"
            f"    postconditions: {shows('items: something else')}\n")
    r = run_routes(chromium, tmp_path, sites, text)
    assert r.code == "POSTCONDITION_FAILED" and r.error.action_id == "open", r.error
    kinds = [e["event_type"] for e in r.events]
    # Written between steps, after the step's error and just before run_finished, with no step id.
    assert kinds[-2:] == ["request_stubbed", "run_finished"] and r.events[-2]["step_id"] is None
    assert kinds.index("error_raised") < len(kinds) - 2
    assert stubbed(r)[0]["route"] == 0 and finished(r)["routes_unused"] == []
    assert verify_run(r.run_dir).ok


def request_plan(url: str, routes: str, postconditions: str = "") -> str:
    """A plan whose one step is a ``request`` GET of ``url``, with ``routes`` (a routes: block) that match it."""
    return (f"name: request under routes\nallowlist: [127.0.0.1]\n{DEFAULTS}policy: {{retries_per_action: 0}}\n"
            f"{textwrap.dedent(routes)}steps:\n"
            f"  - id: call\n    kind: request\n    method: GET\n    url: \"{url}\"\n{postconditions}")


def test_a_route_does_not_answer_a_request_step_it_goes_to_the_server(chromium, tmp_path, sites):
    """Playwright's context routes do not apply to the context's request client: the step reaches the real
    server (its body is the server's, not the stub's) and the route stays unused."""
    routes = """\
    routes:
      - url: "**/api/items"
        respond: {json: {items: [stub]}}
    """
    checks = ("    postconditions: [{kind: response_json, args: {pointer: /items/0, equals: real-GET}}]\n")
    gets = len([h for h in sites["hits"] if h == "GET /api/items"])
    r = run_routes(chromium, tmp_path, sites, request_plan(sites["url"] + "/api/items", routes, checks))
    assert r.error is None, r.error
    assert len([h for h in sites["hits"] if h == "GET /api/items"]) == gets + 1
    assert stubbed(r) == [] and [u["index"] for u in finished(r)["routes_unused"]] == [0]


def test_a_route_does_not_let_a_request_step_leave_the_allowlist_and_the_failure_names_unused_routes(
        chromium, tmp_path, sites):
    """A request step to an off-list host that a route would answer is DOMAIN_BLOCKED, nothing sent; the
    item's failure carries ``routes_unused`` in its error's details (error_raised, the result) as well as on
    run_finished."""
    routes = f"""\
    routes:
      - url: "{sites['outside']}/items.json"
        respond: {{json: {{items: [stub]}}}}
      - url: "**/never/*"
        abort: true
    """
    before = len(sites["outside_hits"])
    r = run_routes(chromium, tmp_path, sites, request_plan(sites["outside"] + "/items.json", routes))
    assert r.code == "DOMAIN_BLOCKED", r.error
    assert len(sites["outside_hits"]) == before and stubbed(r) == []
    assert [u["index"] for u in r.error.details["routes_unused"]] == [0, 1]
    assert r.error.details["routes_unused"][1] == {"index": 1, "url": "**/never/*", "abort": True}
    (raised,) = [e for e in r.events if e["event_type"] == "error_raised"]
    assert raised["error"]["details"]["routes_unused"] == r.error.details["routes_unused"]
    assert finished(r)["routes_unused"] == r.error.details["routes_unused"]
    assert verify_run(r.run_dir).ok


def test_a_failure_without_routes_has_no_routes_unused(chromium, tmp_path, sites):
    r = run_routes(chromium, tmp_path, sites, request_plan(sites["outside"] + "/items.json", ""))
    assert r.code == "DOMAIN_BLOCKED", r.error
    assert "routes_unused" not in r.error.details
