"""(extensions, issue 48) The command-line tools load extensions: validate, schema, mcp's validation,
import; and the run manifest's ``extensions`` with its readers (verify, show, diff). No browser."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml
from pydantic import BaseModel, Field

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.extensions.registry import KindRegistry, active, using
from pytest_cometlocal.contract.extensions.schema import with_kinds
from pytest_cometlocal.contract.model.checks.extension import is_extension_kind
from pytest_cometlocal.contract.model.schema import plan_json_schema
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validated import ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.validator import validate_action_spec, validate_text
from tests.support import defaults
from tests.unit.test_run_diff import step, write_run

CONFTEST = '''\
from pydantic import BaseModel, Field


class HoldArgs(BaseModel):
    """How long to hold the button."""
    ms: int = Field(ge=0)


def pytest_cometlocal_register_kinds(registry):
    registry.action("x_hold", perform=lambda ctx: None, args=HoldArgs, side_effect=False)
    registry.action("click", perform=lambda ctx: None)
    registry.condition("x_row", check=lambda ctx: (True, None), strong=True)
'''

PLAN = "name: NAME\nbase_url: http://127.0.0.1:8000\n" + defaults() + "steps:\nSTEPS"
HOLD = "  - id: hold\n    kind: x_hold\n    args: {{ms: {ms}}}\n"


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "plans").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def plan(suite: Path, name: str, steps: str, folder: str = "plans") -> Path:
    path = suite / folder / f"{name}.actions.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PLAN.replace("NAME", name).replace("STEPS", steps), encoding="utf-8")
    return path


# -- cometlocal validate -----------------------------------------------------------------------


def test_validate_uses_the_kinds_of_the_plans_conftests_and_warns_of_refused_ones(suite: Path, capsys) -> None:
    plan(suite, "ok", HOLD.format(ms=300))
    assert main(["validate", "plans"]) == 0  # the refused 'click' concerns no plan: a warning only
    out = capsys.readouterr().out
    assert ("conftest.py:11: warning: kind 'click' is a built-in kind: an extension cannot replace it "
            "(name it x_click or <team>.click) [EXTENSION]") in out
    assert out.index("warning:") < out.index("1 plans in 1 files: 1 valid, 0 invalid")


def test_validate_locates_an_extension_kinds_problems(suite: Path, capsys) -> None:
    plan(suite, "bad", HOLD.format(ms=-1) + "  - id: other\n    kind: x_nothing\n")
    assert main(["validate", "plans"]) == 1
    out = capsys.readouterr().out
    assert "plans/bad.actions.yaml:11:16 steps[0].args.ms: input should be greater than or equal to 0" in out
    assert "plans/bad.actions.yaml:13:11 steps[1].kind: unknown extension action kind 'x_nothing' " \
           "(registered: x_hold (conftest.py), x_row (conftest.py))" in out
    assert "1 plans in 1 files: 0 valid, 1 invalid" in out


def test_validate_json_lists_the_warnings_and_no_extensions_loads_none(suite: Path, capsys) -> None:
    plan(suite, "ok", HOLD.format(ms=300))
    assert main(["validate", "--format", "json", "plans"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["extension_warnings"] == [
        {"where": "conftest.py:11", "kind": "click", "rule": "EXTENSION",
         "message": "kind 'click' is a built-in kind: an extension cannot replace it (name it x_click or <team>.click)"}]
    assert main(["validate", "--no-extensions", "plans"]) == 1
    out = capsys.readouterr().out
    assert "unknown extension action kind 'x_hold' (registered: none registered)" in out
    assert "warning" not in out


def test_a_folders_conftest_serves_only_the_plans_below_it(suite: Path, capsys) -> None:
    (suite / "conftest.py").unlink()
    (suite / "plans" / "team").mkdir()
    (suite / "plans" / "team" / "conftest.py").write_text(CONFTEST.replace('    registry.action("click"', "    # "))
    plan(suite, "inside", HOLD.format(ms=1), folder="plans/team")
    plan(suite, "outside", HOLD.format(ms=1))
    assert main(["validate", "plans"]) == 1
    out = capsys.readouterr().out
    assert "plans/outside.actions.yaml:10:11 steps[0].kind: unknown extension action kind 'x_hold'" in out
    assert "inside" not in out and "warning" not in out
    assert "2 plans in 2 files: 1 valid, 1 invalid" in out


def test_a_conftest_that_fails_to_import_is_a_warning(suite: Path, capsys) -> None:
    (suite / "conftest.py").write_text("raise RuntimeError('no database')\n")
    plan(suite, "plain", "  - id: go\n    kind: click\n    target: {type: testid, id: go}\n")
    assert main(["validate", "plans"]) == 0
    assert "conftest.py: warning: conftest.py failed to import: RuntimeError: no database [EXTENSION]" \
        in capsys.readouterr().out


# -- cometlocal schema -------------------------------------------------------------------------


def test_schema_describes_the_registered_kinds(suite: Path, capsys) -> None:
    assert main(["schema", "-o", "s.json"]) == 0
    assert "conftest.py:11: warning: kind 'click' is a built-in kind" in capsys.readouterr().err
    schema = json.loads((suite / "s.json").read_text())
    assert schema["$defs"]["ext.HoldArgs"]["properties"]["ms"]["minimum"] == 0
    rules = schema["$defs"]["ActionSpec"]["allOf"]
    assert rules[0]["if"] == {"properties": {"kind": {"const": "x_hold"}}, "required": ["kind"]}
    assert rules[0]["then"]["properties"]["args"]["$ref"] == "#/$defs/ext.HoldArgs"
    assert {"type": "string", "enum": ["x_hold"], "description": "an extension action kind registered here"} \
        in schema["$defs"]["ActionSpec"]["properties"]["kind"]["anyOf"]
    condition = schema["$defs"]["ExtensionCondition"]
    assert condition["allOf"][0]["then"]["properties"]["args"]["$ref"] == "#/$defs/ext.NoArgs"
    assert condition["properties"]["kind"]["anyOf"][0]["enum"] == ["x_row"]
    step_schema = {"$defs": schema["$defs"], "$ref": "#/$defs/ActionSpec"}
    validator = jsonschema.Draft202012Validator(step_schema)
    errors = list(validator.iter_errors({"id": "h", "kind": "x_hold", "args": {"ms": -1}}))
    assert [list(e.absolute_path) for e in errors] == [["args", "ms"]]
    assert not list(validator.iter_errors({"id": "h", "kind": "team.other", "args": {"any": 1}}))  # the pattern stays


def test_schema_without_extensions_is_the_default(suite: Path) -> None:
    assert main(["schema", "--no-extensions", "-o", "a.json"]) == 0
    assert json.loads((suite / "a.json").read_text()) == plan_json_schema()
    (suite / "conftest.py").unlink()
    assert main(["schema", "-o", "b.json"]) == 0
    assert (suite / "a.json").read_text() == (suite / "b.json").read_text()
    assert with_kinds(plan_json_schema(), KindRegistry()) == plan_json_schema()


def test_the_published_schemas_get_no_kinds(suite: Path) -> None:
    assert main(["schema", "--format-version", "v1.2", "-o", "old.json"]) == 0
    assert "ext.HoldArgs" not in (suite / "old.json").read_text()


# -- cometlocal mcp: a proposal is validated with the server's kinds ----------------------------


class Hold(BaseModel):
    ms: int = Field(ge=0)


def registry() -> KindRegistry:
    kinds = KindRegistry()
    kinds.action("x_hold", perform=lambda ctx: None, args=Hold, target="required")
    kinds.condition("x_row", check=lambda ctx: (True, None))
    return kinds


def test_a_proposal_with_an_extension_kind_is_validated_with_the_active_registry() -> None:
    step_ = {"id": "h", "kind": "x_hold", "target": {"type": "testid", "id": "b"}, "args": {"ms": -5},
             "criticality": "normal", "timeout_ms": 3000, "preconditions": [{"kind": "host_in_allowlist"}],
             "postconditions": [{"kind": "x_row"}]}
    unknown = validate_action_spec(step_)
    assert [(p.key_path, p.rule) for p in unknown] == [("kind", "EXTENSION"), ("postconditions[0].kind", "EXTENSION")]
    with using(registry()):
        problems = validate_action_spec(step_)
        assert [(p.key_path, p.rule) for p in problems] == [("args.ms", "EXTENSION")]
        accepted = validate_action_spec({**step_, "args": {"ms": 5}})
    assert not isinstance(accepted, list) and accepted.kind == "x_hold" and accepted.args.given() == {"ms": 5}


def test_the_agent_session_makes_its_registry_active(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_cometlocal.agent.agent_session import AgentSession

    kinds = registry()
    seen: list[KindRegistry] = []
    for name in ("_start", "_propose", "_save_plan", "_end"):
        monkeypatch.setattr(AgentSession, name, lambda self, *a, **k: seen.append(active()) or {"ok": True})
    session = AgentSession(tmp_path, browsers=object(), extensions=kinds)  # type: ignore[arg-type]
    session.start("http://127.0.0.1:8000")
    session.propose({"id": "x", "kind": "x_hold"})
    session.save_plan("a.actions.yaml", "a")
    session.end()
    assert seen == [kinds] * 4 and active() is not kinds


def test_propose_describes_the_registered_kinds() -> None:
    from pytest_cometlocal.agent.server import PROPOSE_DESCRIPTION, build_server, extension_description

    assert extension_description(None) == extension_description(KindRegistry()) == ""
    text = extension_description(registry())
    assert "x_hold (action; args: ms)" in text and "x_row (condition)" in text
    server, shutdown = build_server(Path("."), extensions=registry())
    try:
        import asyncio
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1) as pool:  # a thread of its own: this worker's may have a loop running
            tools = {t.name: t for t in pool.submit(lambda: asyncio.run(server.list_tools())).result()}
        assert tools["propose"].description == PROPOSE_DESCRIPTION + text
    finally:
        shutdown()


# -- cometlocal import ---------------------------------------------------------------------------


def test_import_never_writes_an_extension_kind(suite: Path) -> None:
    recording = suite / "rec.py"
    recording.write_text(textwrap.dedent('''\
        from playwright.sync_api import Playwright, sync_playwright


        def run(playwright: Playwright) -> None:
            browser = playwright.chromium.launch(headless=False)
            context = browser.new_context()
            page = context.new_page()
            page.goto("http://127.0.0.1:8000/hold")
            page.get_by_test_id("hold").x_hold()
            page.get_by_role("button", name="Save").click()
            context.close()
            browser.close()


        with sync_playwright() as playwright:
            run(playwright)
        '''))
    out = suite / "plans" / "rec.actions.yaml"
    assert main(["import", str(recording), "-o", str(out)]) == 1  # the x_hold() call cannot be imported
    assert main(["import", str(recording), "-o", str(out), "--partial"]) == 0  # so it is left out
    steps = yaml.safe_load(out.read_text())["steps"]
    assert [s["kind"] for s in steps] == ["navigate", "click"]
    assert not any(is_extension_kind(s["kind"]) or "args" in s for s in steps)


# -- the run manifest, verify, show, diff -------------------------------------------------------


def valid_plan(tmp_path: Path, kinds: KindRegistry | None) -> ValidPlan:
    text = PLAN.replace("NAME", "p").replace("STEPS", "  - id: go\n    kind: click\n    target: {type: testid, id: go}\n")
    ctx = ValidationContext(root=tmp_path, plan_path=tmp_path / "p.actions.yaml", env={}, extensions=kinds)
    (result,) = validate_text(text, ctx, file="p.actions.yaml")
    assert isinstance(result, ValidPlan)
    return result


def new_run(tmp_path: Path, kinds: KindRegistry | None) -> Path:
    from pytest_cometlocal.executor.session import RunRecord, create_run_folder

    eff = effective_settings(valid_plan(tmp_path, kinds), env={})
    run = create_run_folder(eff, tmp_path / "out", RunRecord.of_plan(eff))
    run.finish("passed")
    return run.path


def test_the_manifest_lists_the_kinds_of_the_plans_registry(tmp_path: Path) -> None:
    with_kinds_ = json.loads((new_run(tmp_path, registry()) / "run_manifest.json").read_text())
    assert with_kinds_["extensions"] == [{"name": "x_hold", "type": "action", "path": "<code>"},
                                         {"name": "x_row", "type": "condition", "path": "<code>"}]
    without = json.loads((new_run(tmp_path, None) / "run_manifest.json").read_text())
    assert "extensions" not in without  # no extension loaded: no key, as in a run made before them


def test_verify_checks_the_extensions_shape(tmp_path: Path) -> None:
    from pytest_cometlocal.runs.verify import verify_run

    path = new_run(tmp_path, registry())
    before = verify_run(path).problems
    manifest = json.loads((path / "run_manifest.json").read_text())
    manifest["extensions"] = [{"name": "x_hold", "type": "action", "package": "acme", "version": "1.0"},
                              {"name": "click", "type": "step", "path": "conftest.py"}, "x_row",
                              {"name": "x_hold", "type": "action", "colour": "red"}]
    (path / "run_manifest.json").write_text(json.dumps(manifest))
    added = [p for p in verify_run(path).problems if p not in before]
    assert added == [
        "run_manifest.json: extensions[1]: name 'click' is not an extension kind (x_<name> or <team>.<name>)",
        "run_manifest.json: extensions[1]: type 'step' is not action or condition",
        "run_manifest.json: extensions[2] is not an object",
        "run_manifest.json: extensions[3]: kind 'x_hold' is listed twice",
        "run_manifest.json: extensions[3]: neither a package nor a path says where the kind comes from",
        "run_manifest.json: extensions[3]: unknown key(s) colour",
    ]


def with_extensions(run: Path, kinds: list[dict]) -> Path:
    manifest = json.loads((run / "run_manifest.json").read_text())
    manifest["extensions"] = kinds
    (run / "run_manifest.json").write_text(json.dumps(manifest))
    return run


HOLD_1 = {"name": "x_hold", "type": "action", "package": "acme-ext", "version": "1.0"}
ROW = {"name": "x_row", "type": "condition", "path": "tests/conftest.py"}


def test_show_lists_a_runs_extensions(tmp_path: Path, capsys) -> None:
    run = with_extensions(write_run(tmp_path / "A", [step("open")]), [HOLD_1, ROW])
    assert main(["show", str(run)]) == 0
    assert "  extensions: x_hold (action, acme-ext 1.0), x_row (condition, tests/conftest.py)" \
        in capsys.readouterr().out
    assert main(["show", str(write_run(tmp_path / "B", [step("open")]))]) == 0
    assert "extensions" not in capsys.readouterr().out


def test_diff_notes_an_extension_added_removed_or_of_another_version(tmp_path: Path, capsys) -> None:
    a = with_extensions(write_run(tmp_path / "A", [step("open")]), [HOLD_1, {**ROW, "name": "x_gone"}])
    b = with_extensions(write_run(tmp_path / "B", [step("open")]), [{**HOLD_1, "version": "1.1"}, ROW])
    assert main(["diff", str(a), str(b)]) == 0  # the steps match: a note, not a divergence
    out = capsys.readouterr().out
    assert ("note: the runs used different extensions: x_gone only in A (tests/conftest.py); x_hold acme-ext 1.0 in "
            "A, acme-ext 1.1 in B; x_row only in B (tests/conftest.py): a difference may be the extension's, "
            "not the page's") in out
    assert "but they used different extensions (note above)" in out
    assert main(["diff", "--json", str(a), str(b)]) == 0
    assert json.loads(capsys.readouterr().out)["extensions_changed"] == [
        "x_gone only in A (tests/conftest.py)", "x_hold acme-ext 1.0 in A, acme-ext 1.1 in B",
        "x_row only in B (tests/conftest.py)"]
    c = write_run(tmp_path / "C", [step("open")])
    d = with_extensions(write_run(tmp_path / "D", [step("open")]), [])
    assert main(["diff", "--json", str(c), str(d)]) == 0  # no key and an empty list read the same
    assert json.loads(capsys.readouterr().out)["extensions_changed"] == []


def test_diff_of_output_folders_notes_the_extensions_per_plan(tmp_path: Path, capsys) -> None:
    with_extensions(write_run(tmp_path / "A" / "r1", [step("open")]), [HOLD_1])
    write_run(tmp_path / "A" / "r2", [step("open")], name="other")
    with_extensions(write_run(tmp_path / "B" / "r1", [step("open")]), [{**HOLD_1, "version": "2.0"}])
    write_run(tmp_path / "B" / "r2", [step("open")], name="other")
    assert main(["diff", str(tmp_path / "A"), str(tmp_path / "B")]) == 0
    assert "the runs used different extensions: x_hold acme-ext 1.0 in A, acme-ext 2.0 in B" in capsys.readouterr().out
