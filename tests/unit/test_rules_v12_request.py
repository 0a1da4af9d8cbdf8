"""The rules plan format v1.2 adds for HTTP steps and saved values (no browser): METHOD, BODY, SAVE_POINTER,
SAVED, URL and INPUTS for the request keys, ``save_text`` and the response_* conditions, each located in its
text; and the pure parts of the executor's request step (save sources, saved values, the masked exchange).
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.load.interpolation import interpolate
from pytest_cometlocal.contract.model.actionspec import (
    SIDE_EFFECT_KINDS, V12_CONDITION_KINDS, V12_KINDS, V12_STEP_KEYS, ActionSpec, describe_step, effect_kind,
    format_version)
from pytest_cometlocal.contract.http.rules import save_problem
from pytest_cometlocal.executor.http import saves
from pytest_cometlocal.executor.http.client import next_hop, prepared
from pytest_cometlocal.executor.http.exchange import HttpResponse, evidence_document, observed
from pytest_cometlocal.executor.http.saved import SavedValues
from tests.support import mark_at, only, only_problems, only_valid, plan

POST = '''\
- id: create
  kind: request
  method: POST
  url: /api/docs
  headers: {X-Trace: "${vars.trace}"}
  json: {title: Draft, body: first}
  save: {doc_id: /id, st: status, loc: "header:Location"}
  postconditions:
    - {kind: response_status, args: {status: [200, 201]}}
    - {kind: response_json, args: {pointer: /title, equals: Draft}}
    - {kind: response_header, args: {name: Content-Type, matches: json}}
- {id: open, kind: navigate, target: {type: url, url: "/docs/${saved.doc_id}"}}
- {id: shown, kind: assert, target: {type: testid, id: doc-number}, save_text: number,
   postconditions: [{kind: element_text_contains, args: {text: "${saved.st}"}}]}
- {id: again, kind: request, method: GET, url: "/api/docs/${saved.doc_id}?n=${saved.number}"}
'''


def test_a_request_plan_validates_with_its_saves(validate):
    steps = only_valid(validate(plan(POST, extra="vars: {trace: t1}\n"))).plan.steps
    create = steps[0]
    assert create.method == "POST" and create.json_body == {"title": "Draft", "body": "first"}
    assert create.headers == {"X-Trace": "t1"} and create.save == {"doc_id": "/id", "st": "status", "loc": "header:Location"}
    assert steps[1].target.url == "/docs/${saved.doc_id}"  # left for run time
    assert [describe_step(s) for s in (create, steps[3])] == ["POST /api/docs", "GET /api/docs/${saved.doc_id}?n=${saved.number}"]
    assert [format_version(s) for s in steps] == ["v1.2", "v1", "v1.2", "v1.2"]
    # The json key is written back as json (the trace's record of the step reads back).
    assert ActionSpec.model_validate(create.model_dump(mode="json", exclude_none=True)) == create


def test_the_v12_sets_name_the_request_additions():
    assert "request" in V12_KINDS and "request" in SIDE_EFFECT_KINDS
    assert {"save", "save_text"} <= V12_STEP_KEYS
    assert {"response_status", "response_json", "response_header"} <= V12_CONDITION_KINDS


def test_get_and_head_are_read_only_for_same_state_counting(validate):
    steps = only_valid(validate(plan(POST, extra="vars: {trace: t1}\n"))).plan.steps
    assert effect_kind(steps[0]) == "request" and effect_kind(steps[3]) == "request:read"
    assert effect_kind(steps[3]) not in SIDE_EFFECT_KINDS and effect_kind(steps[1]) == "navigate"


@pytest.mark.parametrize("step, rule, key_path, at, message", [
    ("- {id: s, kind: request, method: FETCH, url: /x}", "METHOD", "steps[0].method", "method: ^FETCH",
     "method 'FETCH' is not one of GET, POST, PUT, PATCH, DELETE, HEAD"),
    ("- {id: s, kind: request, method: post, url: /x}", "METHOD", "steps[0].method", "method: ^post",
     "method 'post' is not one of GET, POST, PUT, PATCH, DELETE, HEAD (write it in capitals)"),
    ("- {id: s, kind: request, url: /x}", "METHOD", "steps[0].method", "{id: s", None),
    ("- {id: s, kind: request, method: POST, url: /x, json: {a: 1}, body: text}", "BODY", "steps[0].body",
     "body: ^text", "a request takes at most one of json, form, body (it has json, body)"),
    ("- {id: s, kind: request, method: GET, url: /x, save: {a: id}}", "SAVE_POINTER", "steps[0].save.a",
     "a: ^id", None),
    ("- {id: s, kind: request, method: GET, url: /x, save: {a: 'header:'}}", "SAVE_POINTER", "steps[0].save.a",
     "a: ^'header:'", "'header:' needs a header name after it: 'header:'"),
    ("- {id: s, kind: request, method: GET, url: /x, save: {a: /b~2}}", "SAVE_POINTER", "steps[0].save.a",
     "a: ^/b~2", None),
    ("- {id: s, kind: request, method: GET, url: 'ftp://h/x'}", "URL", "steps[0].url", "url: ^'ftp",
     "scheme 'ftp' is not allowed; use http or https"),
    ("- {id: s, kind: request, method: GET}", "INPUTS", "steps[0].url", "{id: s", "'request' needs a url"),
    ("- {id: s, kind: click, method: GET, target: {type: testid, id: a}}", "INPUTS", "steps[0].method",
     "method: ^GET", "'method' is not used by 'click' (only request)"),
    ("- {id: s, kind: click, json: {a: 1}, target: {type: testid, id: a}}", "INPUTS", "steps[0].json",
     "json: ^{", "'json' is not used by 'click' (only request)"),
    ("- {id: s, kind: click, save_text: n, target: {type: testid, id: a}}", "INPUTS", "steps[0].save_text",
     "save_text: ^n", "'save_text' is not used by 'click' (only assert and wait_for)"),
    ("- {id: s, kind: assert, save_text: n}", "INPUTS", "steps[0].save_text", "save_text: ^n",
     "save_text needs the assert's target: it stores that element's text"),
    ("- {id: s, kind: assert, postconditions: [{kind: response_status, args: {status: 200}}]}", "INPUTS",
     "steps[0].postconditions[0].kind", "kind: ^response_status", None),
    ("- {id: s, kind: request, method: GET, url: /x, preconditions: [{kind: response_status, args: {status: 200}}]}",
     "INPUTS", "steps[0].preconditions[0].kind", "kind: ^response_status", None),
    ("- {id: s, kind: request, method: GET, url: /x, target: {type: testid, id: a}}", "INPUTS", "steps[0].target",
     "target: ^{", "'request' takes no target"),
    ("- {id: s, kind: request, method: DELETE, url: /x, criticality: critical}", "U5", "steps[0].postconditions",
     "postconditions: ^", "a critical step needs a strong postcondition (response_status, response_json, "
     "response_header, url_is, url_matches, download_started, upload_completed, or "
     "toast_contains/element_text_contains/aria_snapshot_matches with severity critical)"),
])
def test_request_rules_are_located(validate, step, rule, key_path, at, message):
    text = plan(step + "\n")
    line, col = mark_at(text, at)
    only(only_problems(validate(text)), rule, key_path, line, col, message)


def test_a_critical_request_with_a_response_check_is_strong_enough(validate):
    only_valid(validate(plan("- {id: s, kind: request, method: DELETE, url: /x, criticality: critical, "
                             "postconditions: [{kind: response_status, args: {status: 204}}]}\n")))


def test_saved_with_nothing_saving_it_is_located_at_load(validate):
    text = plan("""\
        - {id: a, kind: navigate, target: {type: url, url: "/docs/${saved.x}"}}
        - {id: b, kind: request, method: GET, url: /api, save: {x: /id}}
        - {id: c, kind: fill, value: "${saved.x}", target: {type: testid, id: f}}
        """)
    line, col = mark_at(text, 'url: ^"/docs')
    only(only_problems(validate(text)), "SAVED", "steps[0].target.url", line, col,
         "no earlier step saves 'x' (saved before this step: none)")


def test_saved_in_a_condition_of_the_saving_step_itself_is_too_early(validate):
    text = plan("""\
        - {id: b, kind: request, method: GET, url: /api, save: {x: /id},
           postconditions: [{kind: response_json, args: {pointer: /id, equals: "${saved.x}"}}]}
        """)
    line, _ = mark_at(text, "equals:")
    only(only_problems(validate(text)), "SAVED", "steps[0].postconditions[0].args.equals", line)


def test_an_unknown_space_is_still_interpolation(validate):
    text = plan('- {id: a, kind: navigate, target: {type: url, url: "/x/${save.x}"}}\n')
    problem = only_problems(validate(text)).problems[0]
    assert problem.rule == "INTERPOLATION" and "${save.x}" in problem.message


def test_interpolation_keeps_saved_references_and_refuses_building_one():
    assert interpolate("/d/${saved.id}/${vars.v}", {"v": 1}, lambda _n: None) == "/d/${saved.id}/1"
    assert interpolate("${vars.w}", {"w": "${saved.id}"}, lambda _n: None, secrets_in_vars=True) == "${saved.id}"
    with pytest.raises(Exception, match="cannot form a new"):
        interpolate("${saved.${vars.v}}", {"v": "x"}, lambda _n: None)


@pytest.mark.parametrize("source, ok", [
    ("status", True), ("header:Location", True), ("/id", True), ("/items/0/id", True), ("", True),
    ("/a~1b", True), ("id", False), ("header:", False), ("header:a b", False), ("/a~2", False), ("Status", False),
])
def test_save_sources(source, ok):
    assert (save_problem(source) is None) is ok


def _response(body: bytes = b'{"id": "d3", "n": 7, "items": [{"x": 1}]}', status: int = 201) -> HttpResponse:
    return HttpResponse("http://h/api", status, [("content-type", "application/json"), ("Location", "/api/d3")], body)


def test_saves_take_pointer_status_header_as_json_values():
    """(v1.3) A saved value keeps its JSON type (the status a number); its text is what a longer string gets."""
    values, missing = saves.take(_response(), {"id": "/id", "n": "/n", "st": "status", "loc": "header:location",
                                               "items": "/items"})
    assert missing is None
    assert values == {"id": "d3", "n": 7, "st": 201, "loc": "/api/d3", "items": [{"x": 1}]}
    store = SavedValues()
    store.keep(values)
    assert store.values == {"id": "d3", "n": "7", "st": "201", "loc": "/api/d3", "items": '[{"x":1}]'}


@pytest.mark.parametrize("body, save, kind, problem", [
    (b'{"id": "d3"}', {"x": "/nope"}, "response_json", "the pointer names nothing in the body"),
    (b"<html>", {"x": "/id"}, "response_json", "the body is not JSON"),
    (b"{}", {"x": "header:X-Nope"}, "response_header", "no such header"),
])
def test_a_save_source_that_names_nothing_is_its_condition(body, save, kind, problem):
    _values, missing = saves.take(_response(body), save)
    assert (missing.name, missing.kind, missing.problem) == ("x", kind, problem)


def test_saved_values_fill_later_steps_and_leave_others_untouched(validate):
    steps = only_valid(validate(plan(POST, extra="vars: {trace: t1}\n"))).plan.steps
    store = SavedValues()
    assert store.apply(steps[1]) is steps[1]  # nothing saved: the same step
    store.keep({"doc_id": "d3", "st": "201", "number": "N-1"})
    assert store.apply(steps[1]).target.url == "/docs/d3"
    assert store.apply(steps[2]).postconditions[0].args.text == "201"
    assert store.apply(steps[3]).url == "/api/docs/d3?n=N-1"
    assert store.apply(steps[0]) is steps[0]  # no reference: the same object
    assert SavedValues.refused({"a": "x", "b": "${secrets.pw}"}) == "b"


def test_the_exchange_record_masks_credentials_and_secrets_and_cuts_bodies():
    secret = "s3cr3t-value"
    mask = lambda s: s.replace(secret, "***")  # noqa: E731
    request = {"method": "POST", "url": f"http://h/api?k={secret}",
               "headers": {"Authorization": "Bearer abc", "X-Key": secret, "Cookie": "session=1"},
               "body": f'{{"pw": "{secret}"}}'}
    response = HttpResponse("http://h/api", 200, [("set-cookie", "session=2"), ("x", "y")], b"a" * 70_000)
    doc = evidence_document(request, response, [], mask)
    assert secret not in str(doc)
    assert doc["request"]["headers"] == {"Authorization": "***", "X-Key": "***", "Cookie": "***"}
    assert doc["response"]["headers"] == {"set-cookie": "***", "x": "y"}
    assert len(doc["response"]["body"]) == 64 * 1024 and doc["response"]["truncated"] is True
    seen = observed(response, mask)
    assert len(seen["body"]) == 4 * 1024 and seen["status"] == 200


def test_prepared_fills_secrets_only_in_what_is_sent():
    spec = ActionSpec.model_validate({
        "id": "s", "kind": "request", "criticality": "normal", "timeout_ms": 1000, "method": "POST", "url": "/x",
        "headers": {"Authorization": "Bearer ${secrets.tok}"}, "json": {"pw": "${secrets.tok}", "n": [1]},
        "preconditions": [{"kind": "network_idle"}], "postconditions": [{"kind": "network_idle"}]})
    headers, body = prepared(spec, {"tok": "T0K"})
    assert headers == {"Authorization": "Bearer T0K", "Content-Type": "application/json"}
    assert body == {"data": '{"pw": "T0K", "n": [1]}'}
    assert "T0K" not in spec.model_dump_json()


@pytest.mark.parametrize("method, status, expected", [
    ("POST", 303, "GET"), ("POST", 302, "GET"), ("POST", 307, "POST"), ("PUT", 308, "PUT"), ("HEAD", 303, "HEAD"),
    ("GET", 301, "GET"),
])
def test_redirects_change_the_method_as_browsers_do(method, status, expected):
    new, body = next_hop(method, status, {"data": "x"})
    assert new == expected and (body == {} if new != method else body == {"data": "x"})


GROUP = """\
description: open the document the plan created
vars: {suffix: x}
steps:
  - id: open
    kind: navigate
    target: {type: url, url: "/docs/${saved.doc_id}?s=${vars.suffix}"}
  - id: number
    kind: assert
    target: {type: testid, id: n}
    save_text: number
"""


def _group(plan_dir, text: str) -> None:
    path = plan_dir / "groups" / "doc.steps.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_saved_values_cross_step_groups_both_ways(validate, plan_dir):
    _group(plan_dir, GROUP)
    steps = only_valid(validate(plan("""\
        - {id: create, kind: request, method: POST, url: /api/docs, save: {doc_id: /id}}
        - use: ../groups/doc.steps.yaml
        - {id: check, kind: fill, value: "${saved.number}", target: {type: testid, id: f}}
        """))).plan.steps
    assert steps[1].target.url == "/docs/${saved.doc_id}?s=x" and steps[3].value == "${saved.number}"


def test_saved_in_a_group_with_nothing_saving_it_is_located_in_the_group(validate, plan_dir):
    _group(plan_dir, GROUP)
    problems = only_problems(validate(plan("- use: ../groups/doc.steps.yaml\n"))).problems
    assert [(p.rule, p.file, p.key_path, p.mark.line) for p in problems] == [
        ("SAVED", "groups/doc.steps.yaml", "steps[0].target.url", 6)]


def test_verify_reads_an_http_exchange_as_json_with_its_request_and_response(tmp_path):
    from pytest_cometlocal.runs.verify import Verification, _check_exchange

    good, bad, broken = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "broken.json"
    good.write_text('{"request": {"method": "GET", "url": "http://h/"}, "response": null}')
    bad.write_text('{"request": {"method": "GET"}}')
    broken.write_text('{"request": ')
    result = Verification(tmp_path)
    for path in (good, bad, broken):
        _check_exchange(path, path.name, result)
    assert [p.split(":")[0] for p in result.problems] == ["bad.json", "broken.json"]


def test_host_in_allowlist_on_a_request_reads_the_request_s_url(validate):
    from pytest_cometlocal.executor.page.conditions import CheckContext, evaluate

    step = only_valid(validate(plan(POST, extra="vars: {trace: t1}\n"))).plan.steps[0]
    cond = step.preconditions[0]
    assert cond.kind == "host_in_allowlist"
    ctx = CheckContext(page=None, step=step, base_url=None, allowlist=("127.0.0.1",), toast_selector="",
                       overlay_selectors=(), requested_url="http://127.0.0.2/api/docs")
    assert evaluate(cond, ctx, "post") == (False, {"url": "http://127.0.0.2/api/docs", "allowlist": ["127.0.0.1"]})
    ctx.response = _response()  # sent: its last URL (after redirects)
    assert evaluate(cond, ctx, "post")[0] is False and evaluate(cond, ctx, "post")[1]["url"] == "http://h/api"
    ctx.response.url = "http://127.0.0.1/api/docs/d3"
    assert evaluate(cond, ctx, "post")[0] is True
