"""Issue 46 item 7: vars given for every plan of a run (``--cometlocal-var``, ini ``cometlocal_vars``,
``cometlocal validate --var``), their precedence, and where each var came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.errors import RunVarError
from pytest_cometlocal.contract.load.run_vars import RunVar, layered, parse_run_vars
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validated import ValidationContext
from pytest_cometlocal.contract.validate.validator import validate_text
from pytest_cometlocal.runs.show import var_lines
from tests.support import only_valid

# Four levels: d is set by the row, the plan and the run; c by the plan and the run; b and a by the run only.
PLAN = """\
name: precedence
base_url: http://127.0.0.1:8000
vars: {c: plan-c, d: plan-d}
parametrize: [{id: r, d: row-d}]
defaults: {criticality: normal, timeout_ms: 1000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
steps:
  - id: open
    kind: navigate
    target: {type: url, url: "/${vars.a}/${vars.b}/${vars.c}/${vars.d}"}
"""
RUN_VARS = layered({"a": RunVar("ini-a", "ini"), "b": RunVar("ini-b", "ini")},
                   {"b": RunVar("cli-b", "cli"), "c": RunVar("cli-c", "cli"), "d": RunVar("cli-d", "cli")})


def test_parse_takes_name_value_and_the_last_of_a_name() -> None:
    found = parse_run_vars(["impl=react", "url=http://a/?x=1", "empty=", "impl=vue"], "cli", "--cometlocal-var")
    assert found == {"impl": RunVar("vue", "cli"), "url": RunVar("http://a/?x=1", "cli"), "empty": RunVar("", "cli")}


@pytest.mark.parametrize("entry, says", [
    ("impl", "--cometlocal-var: 'impl' is not NAME=VALUE"),
    ("1impl=x", "--cometlocal-var: '1impl' is not a var name"),
    ("im-pl=x", "--cometlocal-var: 'im-pl' is not a var name"),
    ("=x", "--cometlocal-var: '' is not a var name"),
    ("a=${secrets.pw}", "--cometlocal-var: a: var values cannot contain ${...} references"),
])
def test_a_bad_entry_is_a_typed_error_naming_the_option(entry: str, says: str) -> None:
    with pytest.raises(RunVarError) as info:
        parse_run_vars([entry], "cli", "--cometlocal-var")
    assert str(info.value).startswith(says)


def test_the_row_wins_over_the_plan_which_wins_over_the_command_line_over_the_ini_file(tmp_path: Path) -> None:
    ctx = ValidationContext(root=tmp_path, plan_path=tmp_path / "p.actions.yaml", run_vars=RUN_VARS)
    plan = only_valid(validate_text(PLAN, ctx))
    assert plan.plan.steps[0].target.url == "/ini-a/cli-b/plan-c/row-d"
    assert plan.var_sources == {"a": "ini", "b": "cli", "c": "plan", "d": "row"}
    sources = effective_settings(plan, env={}).configuration()["sources"]
    assert sources["vars"] == {"a": "ini", "b": "cli", "c": "plan", "d": "row"}  # what the run manifest records


def test_without_run_vars_an_unknown_var_is_still_a_problem(tmp_path: Path) -> None:
    ctx = ValidationContext(root=tmp_path, plan_path=tmp_path / "p.actions.yaml")
    (result,) = validate_text(PLAN, ctx)
    assert [p.rule for p in result.problems] == ["INTERPOLATION"]
    assert "unknown var 'a'" in result.problems[0].message


def test_a_plan_without_vars_records_no_var_sources(tmp_path: Path) -> None:
    text = PLAN.replace("vars: {c: plan-c, d: plan-d}\n", "").replace("parametrize: [{id: r, d: row-d}]\n", "")
    text = text.replace("/${vars.a}/${vars.b}/${vars.c}/${vars.d}", "/x")
    plan = only_valid(validate_text(text, ValidationContext(root=tmp_path, plan_path=tmp_path / "p.actions.yaml")))
    assert "vars" not in effective_settings(plan, env={}).configuration()["sources"]


def test_show_says_where_each_var_came_from() -> None:
    manifest = {"configuration": {"sources": {"base_url": "plan", "vars": {"a": "ini", "b": "cli", "d": "row"}}}}
    assert var_lines(manifest) == ["  vars: a (ini), b (cli), d (row)"]
    assert var_lines({"configuration": {"sources": {"base_url": "plan"}}}) == []
    assert var_lines({}) == []


def test_validate_takes_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p.actions.yaml").write_text(PLAN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "p.actions.yaml"]) == 1  # a and b are set by no one
    capsys.readouterr()
    assert main(["validate", "--format", "json", "--var", "a=1", "--var", "b=2", "--var", "c=3",
                 "p.actions.yaml"]) == 0
    entry = json.loads(capsys.readouterr().out)["plans"][0]
    assert entry["effective"]["sources"]["vars"] == {"a": "cli", "b": "cli", "c": "plan", "d": "row"}
    assert main(["validate", "--var", "oops", "p.actions.yaml"]) == 2
    err = capsys.readouterr().err
    assert "--var: 'oops' is not NAME=VALUE" in err and "Traceback" not in err


def test_show_prints_the_var_sources_of_a_run_folder(tmp_path: Path) -> None:
    from pytest_cometlocal.contract.model.plan import Policy
    from pytest_cometlocal.executor.runfolder.folder import RunFolder
    from pytest_cometlocal.runs.show import show_run

    configuration = {"sources": {"base_url": "plan", "vars": {"impl": "cli", "user": "row"}}, "effective": {}}
    run = RunFolder.create(tmp_path, "vars", mode="live", policy=Policy(), allowlist=(),
                           plan_info={"name": "vars", "file": "v.actions.yaml"}, extra={"configuration": configuration})
    run.trace.emit("run_started")
    run.trace.emit("run_finished", metadata={"status": "passed"})
    run.finish("passed")
    assert "  vars: impl (cli), user (row)" in show_run(run.path).splitlines()


def test_the_suite_config_vars_are_the_lowest_layer(tmp_path: Path) -> None:
    """Five levels: the suite config's vars lie under the ini file's, the command line's, the plan's and the row's."""
    from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder

    (tmp_path / "cometlocal.yaml").write_text("vars: {s: suite-s, a: suite-a, d: suite-d}\n", encoding="utf-8")
    plan_path = tmp_path / "p.actions.yaml"
    plan_path.write_text(PLAN.replace("/${vars.a}/", "/${vars.s}/${vars.a}/"), encoding="utf-8")
    ctx = ValidationContext(root=tmp_path, plan_path=plan_path, run_vars=RUN_VARS,
                            suite_config=SuiteConfigFinder(tmp_path).for_plan(plan_path))
    plan = only_valid(validate_text(plan_path.read_text(encoding="utf-8"), ctx))
    assert plan.plan.steps[0].target.url == "/suite-s/ini-a/cli-b/plan-c/row-d"
    assert plan.var_sources == {"s": "suite", "a": "ini", "b": "cli", "c": "plan", "d": "row"}
    assert plan.plan.vars == {"c": "plan-c", "d": "plan-d"}  # the suite's vars are not merged into the plan's key


def test_a_bad_suite_config_var_is_located_in_the_config_file(tmp_path: Path) -> None:
    from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder

    (tmp_path / "cometlocal.yaml").write_text("base_url: http://127.0.0.1:8000\nvars:\n  ok: 1\n  bad: ${vars.ok}\n",
                                              encoding="utf-8")
    plan_path = tmp_path / "p.actions.yaml"
    plan_path.write_text(PLAN, encoding="utf-8")
    ctx = ValidationContext(root=tmp_path, plan_path=plan_path, run_vars=RUN_VARS,
                            suite_config=SuiteConfigFinder(tmp_path).for_plan(plan_path))
    (result,) = validate_text(plan_path.read_text(encoding="utf-8"), ctx)
    assert [(p.file, p.mark.line, p.key_path, p.rule) for p in result.problems] == [
        ("cometlocal.yaml", 4, "vars.bad", "INTERPOLATION")]
