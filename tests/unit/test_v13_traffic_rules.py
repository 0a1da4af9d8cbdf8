"""(v1.3) ``request_seen`` and ``respond.delay_ms`` without a browser: the model, the rules URL, POINTER,
REGEX, SINCE and SCHEMA (each located in its text), the route glob's meaning, the step's format version,
``describe_condition``, and the verdicts of the evaluator on hand-made exchanges (count, checks, waiting,
a refused request never taken for an answer)."""

from __future__ import annotations

import re

import pytest

from pytest_cometlocal.contract.model.actionspec import V13_CONDITION_KINDS, format_version
from pytest_cometlocal.contract.model.conditions import describe_condition
from pytest_cometlocal.contract.model.checks.traffic import glob_regex
from pytest_cometlocal.executor.http.seen import TrafficLook, decided, request_seen
from pytest_cometlocal.executor.http.traffic import Exchange
from tests.support import mark_at, only, only_problems, only_valid, plan

SEEN = "{kind: request_seen, args: {url: '**/api/notes', method: POST, count: 1}}"


def asserting(*conditions: str, before: str = "") -> str:
    """A plan whose step ``check`` (after the step ``first``) has ``conditions`` as postconditions."""
    return plan(f"- {{id: first, kind: navigate, target: {{type: url, url: /x}}}}\n{before}"
                f"- id: check\n  kind: assert\n  postconditions:\n"
                + "".join(f"    - {c}\n" for c in conditions))


def test_a_request_seen_validates_and_makes_its_step_v13(validate):
    text = asserting(SEEN, "{kind: request_seen, args: {url: {pattern: 'notes$'}, since: first, "
                     "request_json: [{pointer: /a, equals: 1}, {pointer: /b, length: 2}], "
                     "request_header: {name: X-Client}, request_body: {matches: a}, response_status: [200, 201], "
                     "response_json: {pointer: '', matches: x}, response_header: {name: ETag, equals: v}}}")
    steps = only_valid(validate(text)).plan.steps
    assert [format_version(s) for s in steps] == ["v1", "v1.3"]
    assert "request_seen" in V13_CONDITION_KINDS
    first, second = steps[1].postconditions
    assert describe_condition(first) == "request_seen (POST **/api/notes, count=1)"
    assert describe_condition(second) == "request_seen (/notes$/, since=first, 7 checks)"


@pytest.mark.parametrize("args, at, key, rule", [
    ("{url: '/api/notes'}", "'/api/notes'", "args.url", "URL"),  # a glob reads a full URL
    ("{url: '**/{a,b'}", "'**/{a,b'", "args.url", "URL"),
    ("{url: '**/x', request_json: {pointer: 'title', equals: a}}", "'title'", "args.request_json.pointer", "POINTER"),
    ("{url: '**/x', response_json: [{pointer: /a, equals: 1}, {pointer: '/~2', length: 1}]}", "'/~2'",
     "args.response_json[1].pointer", "POINTER"),
    ("{url: {pattern: '(('}}", "'(('", "args.url.pattern", "REGEX"),
    ("{url: '**/x', request_body: {matches: '[z-a]'}}", "'[z-a]'", "args.request_body.matches", "REGEX"),
    ("{url: '**/x', request_header: {name: A, matches: ')'}}", "')'", "args.request_header.matches", "REGEX"),
    ("{url: '**/x', method: post}", "method: post", "args.method", "SCHEMA"),
    ("{url: '**/x', count: -1}", "-1", "args.count", "SCHEMA"),
    ("{url: '**/x', request_body: {}}", "{}", "args.request_body", "SCHEMA"),
    ("{url: '**/x', response_json: {pointer: /a, equals: 1, length: 1}}", "{pointer: /a", "args.response_json",
     "SCHEMA"),
    ("{url: '**/x', response_status: 700}", "700", "args.response_status", "SCHEMA"),
    ("{url: '**/x', response_header: {name: A, equals: a, matches: b}}", "{name: A", "args.response_header",
     "SCHEMA"),
    ("{url: '**/x', since: 'no such'}", "'no such'", "args.since", "SCHEMA"),
])
def test_a_mistake_is_located_at_its_key(validate, args: str, at: str, key: str, rule: str):
    text = asserting(f"{{kind: request_seen, args: {args}}}")
    invalid = only_problems(validate(text))
    assert [(p.rule, p.key_path) for p in invalid.problems][:1] == [(rule, f"steps[1].postconditions[0].{key}")], \
        "\n".join(p.format() for p in invalid.problems)
    assert invalid.problems[0].mark.line == mark_at(text, at)[0]


@pytest.mark.parametrize("since, named", [("check", "this step itself"), ("later", "a later step"),
                                          ("nowhere", "no step of this list")])
def test_since_names_an_earlier_step_or_is_since(validate, since: str, named: str):
    later = "- {id: later, kind: navigate, target: {type: url, url: /y}}\n"
    text = asserting(f"{{kind: request_seen, args: {{url: '**/x', since: {since}}}}}") + "  " + later
    invalid = only_problems(validate(text))
    only(invalid, "SINCE", "steps[1].postconditions[0].args.since", *mark_at(text, f"since: ^{since}"))
    assert named in invalid.problems[0].message and "(before this one: first)" in invalid.problems[0].message


def test_a_route_delay_is_bounded_by_a_minute(validate):
    route = "routes:\n  - url: '**/slow'\n    respond: {{json: {{}}, delay_ms: {}}}\n"
    only_valid(validate(plan("- {id: a, kind: navigate, target: {type: url, url: /x}}\n", extra=route.format(60000))))
    text = plan("- {id: a, kind: navigate, target: {type: url, url: /x}}\n", extra=route.format(60001))
    only(only_problems(validate(text)), "SCHEMA", "routes[0].respond.delay_ms", *mark_at(text, "delay_ms: ^60001"))


@pytest.mark.parametrize("glob, url, matches", [
    ("**/api/notes", "http://127.0.0.1:8000/api/notes", True),
    ("**/api/notes", "http://127.0.0.1:8000/api/notes?x=1", False),  # the whole URL, as a route's glob
    ("**/api/*", "http://h/api/notes", True),
    ("**/api/*", "http://h/api/a/b", False),
    ("http://h/{a,b}.json", "http://h/b.json", True),
    ("http://h/a.json", "http://h/aXjson", False),  # '.' is a dot
    ("**/x\\*", "http://h/x*", True),
])
def test_a_glob_means_what_it_means_to_a_route(glob: str, url: str, matches: bool):
    assert (re.match(glob_regex(glob), url) is not None) is matches


def test_the_glob_is_playwrights_own_where_this_playwright_has_it():
    """Parity with the Playwright routes use (its private helper, when this version has it at this place)."""
    helper = pytest.importorskip("playwright._impl.isomorphic.url_match")
    for glob in ("**/api/notes", "http://h/{a,b}.json", "**/x\\*", "https://a.b/**/c?d=1", "a**b", "x,y", "/**/x"):
        assert glob_regex(glob) == helper.glob_to_regex_pattern(glob), glob


class Look:
    """A CheckContext's part request_seen reads: the window (hand-made exchanges), nothing masked."""

    def __init__(self, *exchanges: Exchange) -> None:
        self.written: list[int] = []
        self.traffic = TrafficLook(lambda since: list(exchanges), lambda e: self.written.append(e.number) or "ev")
        self.mask_text = lambda s: s.replace("s3cret", "***")
        self.resolve_text = lambda s: s


class Request:
    """What Exchange.read asks of Playwright's request, hand-made."""

    def __init__(self, body: bytes, headers: dict[str, str]) -> None:
        self.post_data_buffer, self._headers = body, headers

    def all_headers(self) -> dict[str, str]:
        return self._headers


def exchange(number: int, url: str = "http://h/api/notes", *, done: bool = True, blocked: bool = False,
             body: bytes = b'{"title": "a", "token": "s3cret"}', status: int | None = 201) -> Exchange:
    e = Exchange(Request(body, {"x-client": "demo"}), "POST", url, number=number, done=done, blocked=blocked)
    if status is not None and not blocked:
        e.response = type("Response", (), {"status": status, "url": url, "headers": {},
                                           "body": lambda self: b'{"id": 7}',
                                           "headers_array": lambda self: [{"name": "X-Id", "value": "7"}]})()
    return e


def seen(ctx: Look, **args) -> tuple[bool, dict]:
    from pytest_cometlocal.contract.model.checks.traffic import RequestSeen
    return request_seen(RequestSeen.model_validate({"kind": "request_seen", "args": args}), ctx, "post")


def test_count_is_decided_when_nothing_matching_is_in_flight():
    assert seen(Look(), url="**/notes", count=0) == (True, {"count": 0, "seen": 0, "passed": 0, "in_flight": 0})
    ok, observed = seen(Look(exchange(0, done=False)), url="**/api/notes", count=0)
    assert not ok and observed["problem"] == "1 matching request(s) still in flight" and not decided(observed)
    ok, observed = seen(Look(exchange(0), exchange(1, "http://h/other")), url="**/api/notes", count=0)
    assert not ok and decided(observed)  # one sent: count 0 can never hold again
    assert observed["problem"].endswith("the first: POST http://h/api/notes")
    assert observed["requests"] == [{"method": "POST", "url": "http://h/api/notes", "status": 201, "exchange": "ev"}]


def test_checks_pick_the_requests_that_pass_and_a_refused_one_never_answers():
    look = Look(exchange(0, body=b'{"title": "b"}'), exchange(1))
    ok, observed = seen(look, url="**/api/notes", request_json={"pointer": "/title", "equals": "a"},
                        request_header={"name": "X-Client", "equals": "demo"}, response_status=201,
                        response_json={"pointer": "/id", "equals": 7}, response_header={"name": "x-id", "matches": "7"})
    assert ok and observed["request"]["url"] == "http://h/api/notes" and observed["passed"] == 1
    assert look.written == [0, 1]  # each matching exchange that finished is evidence
    ok, observed = seen(Look(exchange(0, body=b'{"title": "b"}')), url="**/api/notes", count=1,
                        request_json={"pointer": "/title", "equals": "a"})
    assert not ok and observed["requests"][0]["problem"] == "request /title is b"
    ok, observed = seen(Look(exchange(0, blocked=True)), url="**/api/notes")
    assert not ok and observed["requests"][0] == {"method": "POST", "url": "http://h/api/notes", "blocked": True,
                                                  "exchange": "ev"}
    ok, observed = seen(Look(exchange(0, blocked=True)), url="**/api/notes", response_status=403, count=1)
    assert not ok and observed["requests"][0]["problem"] == "no response: refused by the allowlist (network guard)"
    assert seen(Look(exchange(0, blocked=True)), url="**/api/notes", count=1)[0]  # it was sent: it counts
    ok, observed = seen(Look(exchange(0)), url="**/api/notes", request_body={"equals": "x"})
    assert not ok and "***" in observed["requests"][0]["problem"] and "s3cret" not in str(observed)


def test_a_look_ahead_leaves_request_seen_to_the_step():
    look = Look(exchange(0))
    look.traffic.provisional = True
    assert seen(look, url="**/api/notes")[0] is False and look.written == []


def test_expect_response_and_expect_request_around_one_action_import_as_request_seen(tmp_path):
    """``cometlocal import``: the wait around one action becomes that action's request_seen; a regex or
    predicate wait is reported, its body imported."""
    import yaml

    from pytest_cometlocal.planners.codegen.map import map_calls
    from pytest_cometlocal.planners.codegen.parse import read_script
    from pytest_cometlocal.planners.importer import build_plan
    from pytest_cometlocal.planners.plan_yaml import dump_plan

    from tests.planners.test_codegen_import import script as recording

    script = recording(tmp_path, 'page.goto("http://127.0.0.1:3000/v13/traffic")\n'
                       'with page.expect_response("**/v13/api/notes") as info:\n'
                       '    page.get_by_role("button", name="Save note").click()\n'
                       'with page.expect_request("http://127.0.0.1:3000/v13/api/slow"):\n'
                       '    page.get_by_role("button", name="Load feeds").click()\n'
                       'with page.expect_response(lambda r: r.ok):\n'
                       '    page.get_by_role("button", name="Buy").click()\n')
    mapped = map_calls(read_script(script.read_text(), str(script)))
    plan = yaml.safe_load(dump_plan(build_plan(mapped, "rec", {}, str(script))[0]))
    seen = [[c for c in s.get("postconditions", []) if c["kind"] == "request_seen"] for s in plan["steps"]]
    assert seen[1:] == [[{"kind": "request_seen", "args": {"url": "**/v13/api/notes"}}],
                        [{"kind": "request_seen", "args": {"url": "**/v13/api/slow"}}], []]
    assert [u.line for u in mapped.unmapped] == [14]  # the predicate's wait (line 6 of run()), reported


def test_since_in_a_step_group_names_the_groups_own_step_by_its_expanded_id(validate, plan_dir):
    (plan_dir / "plans" / "groups").mkdir()
    (plan_dir / "plans" / "groups" / "save.steps.yaml").write_text(
        "steps:\n  - {id: fill, kind: fill, target: {type: label, text: Title, exact: true}, value: x}\n"
        "  - id: click\n    kind: click\n    target: {type: role, role: button, name: Save, exact: true}\n"
        "    postconditions: [{kind: request_seen, args: {url: '**/api/notes', since: fill}}]\n", encoding="utf-8")
    text = plan("- {id: open, kind: navigate, target: {type: url, url: /x}}\n- {use: groups/save.steps.yaml, id: note}\n"
                "- {id: after, kind: assert, postconditions: [{kind: request_seen, args: {url: '**/x', since: note.fill}}]}\n")
    steps = only_valid(validate(text)).plan.steps
    assert [s.postconditions[-1].args.since for s in steps[2:]] == ["note.fill", "note.fill"]


def test_the_demo_notes_api_answers_201_with_the_id_and_400_without_a_title():
    """The demo portal's /v13/api/notes, as the page's fetch meets it (no browser)."""
    import json as _json
    import urllib.error
    import urllib.request

    from pytest_cometlocal.demo.portal import DemoPortal

    def post(portal: DemoPortal, body: object) -> tuple[int, dict, dict]:
        request = urllib.request.Request(portal.url + "/v13/api/notes", data=_json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                return answer.status, dict(answer.headers), _json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), _json.loads(exc.read())

    with DemoPortal() as portal:
        status, headers, note = post(portal, {"title": "Groceries", "token": "t"})
        assert status == 201 and note["title"] == "Groceries" and headers["X-Note-Id"] == str(note["id"])
        assert post(portal, {"title": " "})[::2] == (400, {"error": "a note needs a title"})
        with urllib.request.urlopen(portal.url + "/v13/traffic", timeout=5) as page:
            assert "analytics.outside.example/collect" in page.read().decode()


def test_number_keys_hold_on_the_exchange_s_headers_and_count_with_the_bound_masked():
    """(v1.3) request_seen's header checks take the number keys as response_header does (one comparison,
    response_checks.header_holds): a header of 7 is not less than 3. A count's failure says it in words,
    with a bound that came from a saved value shown masked."""
    assert seen(Look(exchange(0)), url="**/api/notes", response_header={"name": "x-id", "greater_than": 3})[0]
    ok, observed = seen(Look(exchange(0)), url="**/api/notes", response_header={"name": "x-id", "less_than": 3})
    assert not ok and observed["requests"][0]["problem"] == "response header x-id is 7"
    ok, observed = seen(Look(exchange(0), exchange(1)), url="**/api/notes", between=[0, 1])
    assert not ok and observed["problem"] == "2 matching request(s) passed, which is not between 0 and 1"
    assert decided(observed)  # past the high bound: looking again cannot make it hold
    ok, observed = seen(Look(exchange(0)), url="**/api/notes", greater_than=1)
    assert not ok and not decided(observed)  # below a low bound: another request may still come
    ok, observed = seen(Look(exchange(0)), url="**/api/notes", less_than="s3cret")
    assert not ok and observed["bound"] == "***" and "s3cret" not in str(observed)
