"""(v1.2) ``routes:`` at load time, without a browser: each bad route is located at its key (rules
ROUTE, REGEX, PATH_CONFINEMENT, SCHEMA), a route's file is read and bounded at load, a suite
config's routes follow the plan's, and a suite route's file is relative to the config's folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_cometlocal.contract.model.plan import MAX_ROUTE_FILE_BYTES
from pytest_cometlocal.contract.model.schema import plan_json_schema, suite_json_schema
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_text
from pytest_cometlocal.executor.results import ExecutorSettings
from tests.support import mark_at, only, only_problems, only_valid, plan
from tests.unit.test_suite_config import check, write

OPEN = "- {id: open, kind: navigate, target: {type: url, url: /x}}\n"


def validate(text: str, root: Path):
    path = root / "plans" / "p.actions.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return validate_text(text, ValidationContext(root=root, plan_path=path, env={}), "plans/p.actions.yaml")


@pytest.mark.parametrize(("routes", "rule", "key_path", "at", "says"), [
    ('  - {url: "**/a", respond: {status: 200}, abort: true}\n', "ROUTE", "routes[0].abort", "^true",
     "either responds or aborts, not both"),
    ('  - {url: "**/a", method: GET}\n', "ROUTE", "routes[0]", "^{url", "needs respond"),
    ('  - {url: "**/a", respond: {json: {a: 1}, body: x}}\n', "ROUTE", "routes[0].respond.body", "^x}",
     "at most one of json, body, file (got json, body)"),
    ('  - {url: {pattern: "a(b"}, abort: true}\n', "REGEX", "routes[0].url.pattern", '^"a(b"',
     "invalid regular expression"),
    ('  - {url: "**/a", respond: {file: ../secret.json}}\n', "PATH_CONFINEMENT", "routes[0].respond.file",
     "^../secret", "'..' in '../secret.json' is not allowed (the plan's folder)"),
    ('  - {url: "**/a", respond: {file: /etc/passwd}}\n', "PATH_CONFINEMENT", "routes[0].respond.file",
     "^/etc/passwd", "absolute path '/etc/passwd' is not allowed"),
    ('  - {url: "**/a", respond: {file: missing.json}}\n', "ROUTE", "routes[0].respond.file", "^missing.json",
     "'missing.json' cannot be read (the plan's folder)"),
    ('  - {url: "**/a", respond: {json: {a: [1, .nan]}}}\n', "ROUTE", "routes[0].respond.json.a[1]", "^.nan",
     "a route's json cannot hold NaN or Infinity"),
    ('  - {url: "**/a", respond: {json: .inf}}\n', "ROUTE", "routes[0].respond.json", "^.inf", "they are not JSON"),
    ('  - {url: "**/a", respond: {json: {b: {c: -.Inf}}}}\n', "ROUTE", "routes[0].respond.json.b.c", "^-.Inf",
     "NaN or Infinity"),
    ('  - {url: "**/d/${saved.id}", abort: true}\n', "SAVED", "routes[0].url", '^"**/d',
     "a route cannot use ${saved.id}: routes are installed before any step runs"),
    ('  - {url: "**/a", respond: {json: {id: "${saved.id}"}}}\n', "SAVED", "routes[0].respond.json.id", '^"${saved',
     "a route cannot use ${saved.id}"),
    ('  - {url: "**/a", respond: {body: x, headers: {X-Id: "${saved.id}"}}}\n', "SAVED",
     "routes[0].respond.headers.X-Id", '^"${saved', "a route cannot use ${saved.id}"),
])
def test_each_bad_route_is_located_at_its_key(tmp_path: Path, routes: str, rule: str, key_path: str, at: str,
                                              says: str) -> None:
    text = plan(OPEN, extra="routes:\n" + routes)
    invalid = only_problems(validate(text, tmp_path))
    line, col = mark_at(text, at)
    only(invalid, rule, key_path, line, col)
    assert says in invalid.problems[0].message, invalid.problems[0].message


@pytest.mark.parametrize(("route", "key_path", "says"), [
    ('{url: "**/a", method: FETCH, abort: true}', "routes[0].method", "GET"),
    ('{url: "", abort: true}', "routes[0].url", "at least 1 character"),
    ('{url: "**/a", respond: {status: 999}}', "routes[0].respond.status", "599"),
    ('{url: "**/a", respond: {text: hi}}', "routes[0].respond.text", "unknown key"),
    ('{url: "**/a", abort: "yes"}', "routes[0].abort", "bool"),
])
def test_the_closed_sets_are_the_models(tmp_path: Path, route: str, key_path: str, says: str) -> None:
    invalid = only_problems(validate(plan(OPEN, extra=f"routes:\n  - {route}\n"), tmp_path))
    keys = [(p.rule, p.key_path) for p in invalid.problems]
    assert ("SCHEMA", key_path) in keys and any(says in p.message for p in invalid.problems), keys


def test_a_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "plans").mkdir()
    (tmp_path / "outside.json").write_text("{}")
    os.symlink(tmp_path / "outside.json", tmp_path / "plans" / "link.json")
    text = plan(OPEN, extra='routes:\n  - {url: "**/a", respond: {file: link.json}}\n')
    invalid = only_problems(validate(text, tmp_path))
    assert [(p.rule, p.key_path) for p in invalid.problems] == [("PATH_CONFINEMENT", "routes[0].respond.file")]


def test_a_file_is_read_at_load_and_held_to_its_bound(tmp_path: Path) -> None:
    (tmp_path / "plans" / "data").mkdir(parents=True)
    (tmp_path / "plans" / "data" / "items.json").write_bytes(b'{"items": [1]}')
    text = plan(OPEN, extra='routes:\n  - {url: "**/a", abort: true}\n  - {url: "**/b", respond: {file: data/items.json}}\n')
    valid = only_valid(validate(text, tmp_path))
    assert dict(valid.route_files) == {1: b'{"items": [1]}'}
    settings = ExecutorSettings.from_effective(effective_settings(valid, env={}))
    assert settings.route_files[1] == b'{"items": [1]}' and len(settings.routes) == 2
    (tmp_path / "plans" / "data" / "items.json").write_bytes(b"x" * (MAX_ROUTE_FILE_BYTES + 1))
    invalid = only_problems(validate(text, tmp_path))
    assert [(p.rule, p.key_path) for p in invalid.problems] == [("ROUTE", "routes[1].respond.file")]
    assert f"at most {MAX_ROUTE_FILE_BYTES}" in invalid.problems[0].message


def test_a_plan_without_routes_has_none_anywhere(tmp_path: Path) -> None:
    valid = only_valid(validate(plan(OPEN), tmp_path))
    eff = effective_settings(valid, env={})
    assert valid.plan.routes is None and not valid.route_files
    assert "routes" not in eff.configuration()["effective"] and "routes" not in eff.sources
    assert ExecutorSettings.from_effective(eff).routes == ()


SUITE = """\
routes:
  - url: "**/suite"
    respond: {file: stubs/suite.json}
  - url: {pattern: "x("}
    abort: true
"""


def test_suite_routes_follow_the_plan_own_and_their_file_is_relative_to_the_config(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", SUITE.replace('  - url: {pattern: "x("}\n    abort: true\n', ""))
    write(tmp_path / "stubs" / "suite.json", '{"from": "suite"}')
    write(tmp_path / "plans" / "deep" / "own.json", '{"from": "plan"}')
    p = write(tmp_path / "plans" / "deep" / "p.actions.yaml",
              plan(OPEN, name="p", extra='routes:\n  - {url: "**/own", respond: {file: own.json}}\n'))
    valid = only_valid(check(tmp_path, p))
    assert [r.url for r in valid.plan.routes] == ["**/own", "**/suite"]  # the plan's first
    assert dict(valid.route_files) == {0: b'{"from": "plan"}', 1: b'{"from": "suite"}'}
    eff = effective_settings(valid, env={})
    assert eff.sources["routes"] == "plan+suite"
    assert [r["url"] for r in eff.configuration()["effective"]["routes"]] == ["**/own", "**/suite"]
    alone = write(tmp_path / "plans" / "q.actions.yaml", plan(OPEN, name="q"))
    valid = only_valid(check(tmp_path, alone))
    assert [r.url for r in valid.plan.routes] == ["**/suite"]
    assert effective_settings(valid, env={}).sources["routes"] == "suite"


def test_a_bad_suite_route_names_the_config_file(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", SUITE)
    p = write(tmp_path / "plans" / "p.actions.yaml",
              plan(OPEN, name="p", extra='routes:\n  - {url: "**/own", abort: true}\n'))
    invalid = only_problems(check(tmp_path, p))
    found = sorted((pr.rule, pr.file, pr.mark.line) for pr in invalid.problems)
    # routes[1] (the suite's first, stubs/suite.json missing) and routes[2] (its bad regex), in cometlocal.yaml
    assert found == [("REGEX", "cometlocal.yaml", 4), ("ROUTE", "cometlocal.yaml", 3)], found


def test_routes_are_in_the_v12_schemas_only() -> None:
    assert "routes" in plan_json_schema()["properties"] and "routes" in suite_json_schema()["properties"]
    assert "Route" in plan_json_schema()["$defs"]
    for older in ("v1", "v1.1"):
        schema = plan_json_schema(older)
        assert "routes" not in schema["properties"] and "Route" not in schema["$defs"]


def test_a_failure_report_names_the_unused_routes(tmp_path):
    """The item's failure text shows ``details.routes_unused`` (the executor puts it on a failing item's error)."""
    from pytest_cometlocal.contract.model.codes import ErrorCode
    from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError
    from pytest_cometlocal.plugin.reporting.report import failure_text

    valid = only_valid(validate(plan(OPEN, extra='routes:\n  - {url: "**/never/*", abort: true}\n'), tmp_path))
    ref = EvidenceRef(kind="dom_snapshot_partial", uri="evidence/dom/open.json", sha256="0" * 64)
    error = ExecutorError(error_code=ErrorCode.DOMAIN_BLOCKED, stage="precondition", severity="error",
                          message="host not allowed", retryable=False, run_id="r", seq=3, step_index=0,
                          action_id="open", action_kind="navigate", criticality="normal", state_before=None,
                          evidence_refs=[ref], created_at="2026-11-25T00:00:00Z",
                          details={"routes_unused": [{"index": 0, "url": "**/never/*", "abort": True}]})
    text = failure_text(valid, error, None)
    assert '  routes_unused: [{"index": 0, "url": "**/never/*", "abort": true}]' in text.splitlines()
