"""(v1.2) ``cometlocal import`` of HTTP calls and stubs (no browser): ``page.request.*`` / ``context.request.*``
become ``request`` steps, ``expect(response).to_be_ok()`` and asserts on the response their ``response_*``
postconditions, ``page.route(...)`` / ``context.route(...)`` with ``fulfill`` / ``abort`` the plan's ``routes:``.

The plans are built as the command builds them (read, map, build, dump); the command itself (which validates
before writing) is run once, on the whole recording.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_cometlocal.planners.codegen.http import OK_STATUSES
from pytest_cometlocal.planners.codegen.map import map_calls
from pytest_cometlocal.planners.codegen.parse import read_script
from pytest_cometlocal.planners.importer import build_plan
from pytest_cometlocal.planners.plan_yaml import dump_plan
from tests.planners.test_codegen_import import GOTO, imported, script

# A hand-written test as people write them next to codegen's output: set up through the API, check, stub.
RECORDING = GOTO + """\
page.route("**/api/slow/recommendations*", lambda route: route.fulfill(status=200, json={"items": []}))
context.route(re.compile(r"^https://feed\\.outside\\.example/"), lambda route: route.fulfill(
    path="feed.json", headers={"X-Stub": "1"}, content_type="application/json"))
page.route("https://cdn.analytics.example/**", lambda route: route.abort())
response = page.request.post("http://127.0.0.1:8000/api/docs", data={"title": "Draft", "body": "first"},
                             headers={"X-Trace": "t1"})
expect(response).to_be_ok()
assert response.status == 201
assert response.json()["title"] == "Draft"
assert "json" in response.headers["content-type"]
page.get_by_label("Title").fill("Final")
check = context.request.get("/api/docs/d1", params={"full": "1"}, timeout=5000)
assert check.status in (200, 304)
assert check.json()["tags"][0] == "a/b"
page.request.delete("http://127.0.0.1:8000/api/docs/d1")
page.request.fetch("https://api.other.example/x", method="patch", form={"a": "1"})
"""


def planned(tmp_path: Path, body: str) -> tuple[dict, list, list[str]]:
    """(plan, statements left out, notices) as ``cometlocal import`` makes them, before validating."""
    path = script(tmp_path, body)
    mapped = map_calls(read_script(path.read_text(), str(path)))
    plan, notices = build_plan(mapped, "rec", {}, str(path))
    return yaml.safe_load(dump_plan(plan)), mapped.unmapped, notices


def test_requests_and_their_checks_become_request_steps(tmp_path):
    plan, unmapped, notices = planned(tmp_path, RECORDING)
    assert unmapped == []
    steps = plan["steps"]
    assert [(s["id"], s["kind"]) for s in steps] == [
        ("open_form", "navigate"), ("post_api_docs", "request"), ("fill_title", "fill"),
        ("get_api_docs_d1", "request"), ("delete_api_docs_d1", "request"), ("patch_x", "request")]
    create = steps[1]
    assert {k: create[k] for k in ("method", "url", "json", "headers")} == {
        "method": "POST", "url": "/api/docs", "json": {"title": "Draft", "body": "first"}, "headers": {"X-Trace": "t1"}}
    assert create["postconditions"] == [
        {"kind": "response_status", "args": {"status": OK_STATUSES}},
        {"kind": "response_status", "args": {"status": 201}},
        {"kind": "response_json", "args": {"pointer": "/title", "equals": "Draft"}},
        {"kind": "response_header", "args": {"name": "content-type", "matches": "json"}}]
    check = steps[3]
    assert (check["url"], check["timeout_ms"]) == ("/api/docs/d1?full=1", 5000)
    assert check["postconditions"] == [{"kind": "response_status", "args": {"status": [200, 304]}},
                                       {"kind": "response_json", "args": {"pointer": "/tags/0", "equals": "a/b"}}]
    assert (steps[4]["method"], "postconditions" in steps[4]) == ("DELETE", False)
    assert {k: steps[5][k] for k in ("method", "url", "form")} == {
        "method": "PATCH", "url": "https://api.other.example/x", "form": {"a": "1"}}
    assert plan["allowlist"] == ["127.0.0.1", "api.other.example"]  # a request to another host is held to it
    assert any("delete_api_docs_d1" in n and "critical" in n for n in notices)  # a DELETE: make it critical?
    assert 200 in OK_STATUSES and 204 in OK_STATUSES and 299 not in OK_STATUSES and 300 not in OK_STATUSES


def test_routes_become_the_plans_routes_in_order(tmp_path):
    plan, _, notices = planned(tmp_path, RECORDING)
    assert plan["routes"] == [
        {"url": "**/api/slow/recommendations*", "respond": {"status": 200, "json": {"items": []}}},
        {"url": {"pattern": r"^https://feed\.outside\.example/"},
         "respond": {"file": "feed.json", "headers": {"X-Stub": "1", "Content-Type": "application/json"}}},
        {"url": "https://cdn.analytics.example/**", "abort": True}]
    # A stubbed host is not added to the allowlist: a stubbed request never leaves.
    assert "cdn.analytics.example" not in plan["allowlist"]
    assert any("route() (line" in n and "first step" in n for n in notices)  # page.route after the goto


def test_a_text_body_is_body_and_a_secret_header_becomes_a_reference(tmp_path, monkeypatch):
    body = GOTO + 'page.request.put("/api/docs/d1", data="plain text", headers={"Authorization": "Bearer tok-123456"})'
    path = script(tmp_path, body)
    mapped = map_calls(read_script(path.read_text(), str(path)))
    plan, _ = build_plan(mapped, "rec", {"token": ("API_TOKEN", "Bearer tok-123456")}, str(path))
    step = plan["steps"][1]
    assert (step["body"], step["headers"]) == ("plain text", {"Authorization": "${secrets.token}"})
    assert "tok-123456" not in dump_plan(plan)


@pytest.mark.parametrize(("line", "why"), [
    ('page.request.post("/api/docs", multipart={"f": "x"})', "multipart=...) has no plan equivalent"),
    ('page.request.post(URL)', "the URL is not a literal"),
    ('page.request.post("/a", data={"a": 1}, form={"b": "2"})', "rule BODY"),
    ('page.request.fetch("/a", method="TRACE")', "method is GET, POST"),
    ('page.route("**/*", lambda route: route.continue_())', "route.fulfill(...) or route.abort()"),
    ('page.route("**/*", handle)', "route.fulfill(...) or route.abort()"),
    ('page.route("**/*", lambda route: route.fulfill(status=200), times=1)', "no times="),
    ('page.route("**/*", lambda route: route.fulfill(json={}, body="x"))', "more than one of json=, body=, path="),
    ('page.route("**/*", lambda route: route.fulfill(response=r))', "response=...) has no plan equivalent"),
    ('page.route("**/*", lambda route: route.fulfill(body=b"x"))', "body=...) maps as text only"),
])
def test_what_has_no_plan_equivalent_is_reported_with_its_line(tmp_path, line, why):
    plan, unmapped, _ = planned(tmp_path, GOTO + line)
    (left,) = unmapped
    assert why in left.why and left.line == 10 and left.source.startswith(("page.request", "page.route"))
    assert [s["kind"] for s in plan["steps"]] == ["navigate"] and "routes" not in plan


@pytest.mark.parametrize(("lines", "why"), [
    ('r = page.request.get("/a")\npage.get_by_text("x").click()\nassert r.status == 200',
     "a check of r maps only right after the request that got it"),
    ('r = page.request.get("/a")\nexpect(r).not_to_be_ok()', "expect(response).not_to_be_ok() does not map"),
    ('r = page.request.get("/a")\nassert r.status > 199', "this assert on a response does not map"),
    ('r = page.request.get("/a")\nassert r.json()["n"] != 1', "compared with == only"),
])
def test_a_response_check_that_does_not_map_is_reported(tmp_path, lines, why):
    plan, unmapped, _ = planned(tmp_path, GOTO + lines)
    (left,) = unmapped
    assert why in left.why
    assert plan["steps"][1]["kind"] == "request"


def test_the_cli_reports_left_out_http_statements_like_any_other(tmp_path, capsys):
    code, plan = imported(tmp_path, GOTO + 'page.route("**/*", lambda route: route.continue_())')
    err = capsys.readouterr().err
    assert code == 1 and plan is None
    assert "rec.py:10: not imported: a route handler maps only as a lambda" in err


def test_the_imported_plan_validates(tmp_path):
    (tmp_path / "feed.json").write_text('{"items": []}')
    code, plan = imported(tmp_path, RECORDING)
    assert code == 0, plan
    assert [s["kind"] for s in plan["steps"]].count("request") == 4 and len(plan["routes"]) == 3
