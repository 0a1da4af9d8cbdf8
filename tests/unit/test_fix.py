"""``cometlocal fix`` without a browser: edits in the file's style, locating, one patch that ``git apply`` takes.

Run folders here are written by hand (a manifest and the trace events fix reads:
``proposal_received`` with its source lines, ``error_raised`` with suggestions),
so every case is exact and fast; tests/integration/test_fix_django.py runs the
real thing against Django's admin.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.fixing.edit import apply, edits_to
from pytest_cometlocal.fixing.nodes import Text, compose, step_at
from tests.support import defaults

ROLE_SAVE = {"type": "role", "role": "button", "name": "Save", "exact": True}
ROLE_STORE = {"type": "role", "role": "button", "name": "Store", "exact": True}

GROUP = """\
# signs in
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - id: log_in
    kind: click
    target:
      type: role
      role: button
      name: Sign in   # the old name
      exact: true
"""

SUITE_DEFAULTS = "base_url: http://127.0.0.1:8000\n" + defaults(timeout_ms=3000)

PLAN = """\
name: {name}
parametrize: {{who: [a, b]}}
steps:
  - use: ../groups/login.steps.yaml
  - id: save
    kind: click
    target: {{type: role, role: button, name: 'Save', exact: true}}  # keep me
"""


def run_folder(out: Path, name: str, plan: dict[str, Any], step_id: str, source: list[str], target: Any,
               suggestions: list[dict[str, Any]], code: str = "TARGET_NOT_FOUND") -> Path:
    """A failed run folder with what fix reads: the manifest and two trace events."""
    run = out / name
    run.mkdir(parents=True)
    manifest = {"run_id": name, "status": "failed", "error_code": code, "failed_step": step_id, "plan": plan,
                "started_at": "2026-01-01T00:00:00Z"}
    (run / "run_manifest.json").write_text(json.dumps(manifest))
    error = {"error_code": code, "action_id": step_id, "details": {"target": target, "suggestions": suggestions}}
    events = [{"event_type": "proposal_received", "step_id": step_id, "seq": 1,
               "metadata": {"source": source}},
              {"event_type": "error_raised", "step_id": step_id, "seq": 2, "error": error}]
    (run / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return run


def suggestion(target: dict[str, Any], score: float = 0.6, **more: Any) -> dict[str, Any]:
    return {"target": target, "score": score, "why": "close to the old name", **more}


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    (root / "groups").mkdir(parents=True)
    (root / "plans").mkdir()
    (root / "groups" / "login.steps.yaml").write_text(GROUP)
    (root / "cometlocal.yaml").write_text(SUITE_DEFAULTS)
    for name in ("one", "two"):
        (root / "plans" / f"{name}.actions.yaml").write_text(PLAN.format(name=name))
    return root


def failed_runs(root: Path) -> Path:
    """Every row of both plans failed twice the same way: on the group's button, or on their own."""
    out = root / "cometlocal-runs"
    sign_in = {"type": "role", "role": "button", "name": "Sign in", "exact": True}
    log_in = dict(sign_in, name="Log in")
    for plan in ("one", "two"):
        for row in ("a", "b"):
            ident = {"file": f"plans/{plan}.actions.yaml", "name": plan, "row_id": row,
                     "nodeid": f"plans/{plan}.actions.yaml::{plan}[{row}]"}
            if plan == "one":
                run_folder(out, f"r-{plan}-{row}", ident, "login.log_in",
                           [f"plans/{plan}.actions.yaml:4", "groups/login.steps.yaml:4"], sign_in,
                           [suggestion(log_in, 0.5)])
            else:
                run_folder(out, f"r-{plan}-{row}", ident, "save", [f"plans/{plan}.actions.yaml:5"], ROLE_SAVE,
                           [suggestion(ROLE_STORE, 0.7)])
    return out


def fix(root: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(root)
    return main(["fix", *args])


def git_apply(root: Path, patch: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=30)
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=root, check=True, timeout=30)
    subprocess.run(["git", "apply", str(patch)], cwd=root, check=True, timeout=30)


def edit(text: str, line: int, change: dict[str, Any]) -> str:
    t = Text.of(text.encode())
    step = step_at(compose(t), line)
    from pytest_cometlocal.fixing.nodes import value_of

    return apply(t.text, edits_to(step, {**value_of(step), **change}, t))


def test_a_renamed_name_in_a_block_mapping_changes_that_value_only_comment_kept() -> None:
    out = edit(GROUP, 4, {"target": {"type": "role", "role": "button", "name": "Log in", "exact": True}})
    assert out == GROUP.replace("name: Sign in   # the old name", "name: Log in   # the old name")


def test_a_flow_mapping_keeps_its_quotes_and_style() -> None:
    text = PLAN.format(name="p")
    assert edit(text, 5, {"target": ROLE_STORE}) == text.replace("name: 'Save'", "name: 'Store'")


def test_a_target_of_another_type_is_written_anew_in_the_same_style() -> None:
    text = "steps:\n  - {id: f, kind: fill, target: {type: label, text: 'Group name:', exact: true}, value: x}\n"
    out = edit(text, 2, {"target": {"type": "css", "selector": "#id_name"}})
    assert out == text.replace("{type: label, text: 'Group name:', exact: true}", '{type: css, selector: "#id_name"}')
    block = "steps:\n  - id: f\n    kind: fill\n    target:\n      type: label\n      text: Group name\n      exact: true\n"
    out = edit(block, 2, {"target": {"type": "css", "selector": "#id_name"}})
    assert out == "steps:\n  - id: f\n    kind: fill\n    target:\n      type: css\n      selector: \"#id_name\"\n"


def test_a_list_of_alternatives_becomes_the_one_target_after_its_key() -> None:
    text = "steps:\n  - id: s\n    kind: click\n    target:\n      - {type: testid, id: s}\n      - {type: css, selector: '#s'}\n    timeout_ms: 2000\n"
    out = edit(text, 2, {"target": ROLE_SAVE})
    assert out == ("steps:\n  - id: s\n    kind: click\n    target: {type: role, role: button, name: Save, exact: true}\n"
                   "    timeout_ms: 2000\n")


def test_crlf_and_a_byte_order_mark_survive() -> None:
    text = "\ufeffsteps:\r\n  - id: s\r\n    kind: click\r\n    target: {type: testid, id: old}\r\n"
    out = edit(text, 2, {"target": {"type": "testid", "id": "new"}, "metadata": {"target_rationale": "r"}})
    assert out == "\ufeffsteps:\r\n  - id: s\r\n    kind: click\r\n    target: {type: testid, id: new}\r\n    metadata: {target_rationale: r}\r\n"


def test_a_group_step_and_parametrized_rows_give_one_hunk_each_and_git_apply_takes_the_patch(
        suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = failed_runs(suite)
    before = {p: p.read_bytes() for p in suite.rglob("*.yaml")}
    assert fix(suite, str(out), "-o", "fixes.patch", monkeypatch=monkeypatch) == 0
    patch = (suite / "fixes.patch").read_text()
    assert {p: p.read_bytes() for p in suite.rglob("*.yaml")} == before  # fix never writes a plan
    assert patch.count("diff --git a/groups/login.steps.yaml") == 1 and patch.count("+      name: Log in") == 1
    assert patch.count("diff --git a/plans/two.actions.yaml") == 1 and patch.count("name: 'Store'") == 1
    assert "diff --git a/plans/one.actions.yaml" not in patch
    assert "score 0.5: close to the old name" in patch and "not verified" in patch
    git_apply(suite, suite / "fixes.patch")
    changed = {p for p in suite.rglob("*.yaml") if p.read_bytes() != before[p]}
    assert changed == {suite / "groups/login.steps.yaml", suite / "plans/two.actions.yaml"}
    lines = lambda p: [(a, b) for a, b in zip(before[p].decode().splitlines(), p.read_text().splitlines()) if a != b]
    assert lines(suite / "plans/two.actions.yaml") == [
        ("    target: {type: role, role: button, name: 'Save', exact: true}  # keep me",
         "    target: {type: role, role: button, name: 'Store', exact: true}  # keep me")]
    assert main(["validate", str(suite / "plans")]) == 0


def test_an_nth_fix_adds_its_rationale_to_the_step_and_names_it_in_the_header(
        suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nth = {"type": "nth", "base": ROLE_SAVE, "index": 1}
    ident = {"file": "plans/one.actions.yaml", "name": "one", "nodeid": "plans/one.actions.yaml::one[a]"}
    run_folder(suite / "out", "r1", ident, "save", ["plans/one.actions.yaml:5"], ROLE_SAVE,
               [suggestion(nth, 0.5, rationale="the second Save: the form's, not the toolbar's")],
               code="TARGET_NOT_UNIQUE")
    assert fix(suite, "out", "-o", "fixes.patch", monkeypatch=monkeypatch) == 0
    patch = (suite / "fixes.patch").read_text()
    assert "#   nth rationale (metadata.target_rationale): the second Save: the form's, not the toolbar's" in patch
    git_apply(suite, suite / "fixes.patch")
    text = (suite / "plans/one.actions.yaml").read_text()
    assert "target: {type: nth, base: {type: role, role: button, name: Save, exact: true}, index: 1}  # keep me" in text
    assert "metadata: {target_rationale: \"the second Save: the form's, not the toolbar's\"}" in text
    assert main(["validate", str(suite / "plans")]) == 0


def test_a_plan_changed_since_the_run_gets_no_hunk(suite: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = failed_runs(suite)
    plan = suite / "plans/two.actions.yaml"
    plan.write_text(plan.read_text().replace("name: 'Save'", "name: 'Keep'"))
    assert fix(suite, str(out), monkeypatch=monkeypatch) == 1
    captured = capsys.readouterr()
    assert "diff --git a/plans/two.actions.yaml" not in captured.out
    assert "plans/two.actions.yaml:5: the target of step 'save' changed since the run" in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("change, reason", [
    (lambda p: p.write_text(p.read_text().replace("  - use", "\n  - use")), "(the file changed since the run)"),
    (lambda p: p.write_text(p.read_text().replace("name: 'Save'", "name: '${vars.who}'")), "written with ${...}"),
    (lambda p: p.unlink(), "no such file under"),
])
def test_what_cannot_be_fixed_safely_is_one_line(suite: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str], change, reason: str) -> None:
    out = failed_runs(suite)
    change(suite / "plans/two.actions.yaml")
    assert fix(suite, str(out), monkeypatch=monkeypatch) == 1
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err


def test_bad_input_is_a_usage_error_or_a_listed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert fix(tmp_path, "empty", monkeypatch=monkeypatch) == 2
    assert capsys.readouterr().err.strip() == "cometlocal: error: no run folders under empty"
    ident = {"file": "plans/x.actions.yaml", "name": "x"}
    run_folder(tmp_path / "out", "r", ident, "s", ["plans/x.actions.yaml:3"], ROLE_SAVE, [])
    assert fix(tmp_path, "out", monkeypatch=monkeypatch) == 1
    captured = capsys.readouterr()
    assert "TARGET_NOT_FOUND at step 's' has no suggested targets" in captured.err
    assert "diff --git" not in captured.out
    assert fix(tmp_path, "out", "--dry-run", monkeypatch=monkeypatch) == 2


@pytest.mark.parametrize("status", ["passed", "stopped", "blocked"])
def test_a_run_that_did_not_fail_is_counted_not_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str], status: str) -> None:
    """A plan that ended with its own `stop`, or a critical step blocked by a dry run, is not a failure."""
    ident = {"file": "plans/x.actions.yaml", "name": "x"}
    run = run_folder(tmp_path / "out", "r", ident, "s", ["plans/x.actions.yaml:3"], ROLE_SAVE, [])
    manifest = json.loads((run / "run_manifest.json").read_text())
    (run / "run_manifest.json").write_text(json.dumps({**manifest, "status": status}))
    assert fix(tmp_path, "out", monkeypatch=monkeypatch) == 0
    err = capsys.readouterr().err
    assert "(1 did not fail): 0 fixes, 0 without" in err and "nothing to fix" not in err


def test_help_says_verification_replays_side_effects(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fix", "--help"]) == 0
    assert "SIDE EFFECTS" in capsys.readouterr().out


if shutil.which("git") is None:  # pragma: no cover
    pytestmark = pytest.mark.skip(reason="git is needed to check the patch applies")


@pytest.mark.parametrize("runs_before", [1, 5])
def test_a_rerun_that_failed_on_timing_keeps_the_candidate_and_runs_again(tmp_path: Path, runs_before: int) -> None:
    """A slow navigation in one plan's rerun must not drop the group's fix that the other plans got past."""
    from types import SimpleNamespace

    from pytest_cometlocal.fixing import verify

    run = run_folder(tmp_path, "slow", {"nodeid": "plans/p.actions.yaml::p"}, "login.log_in",
                     ["plans/p.actions.yaml:3", "groups/login.steps.yaml:4"], ROLE_SAVE, [], code="NAVIGATION_TIMEOUT")
    key = ("groups/login.steps.yaml", 4, ("target",))
    state = verify._SiteState(SimpleNamespace(key=key), (suggestion(ROLE_STORE),), step_id="login.log_in")
    item = verify._Item(SimpleNamespace(run=run, label="'p' (plans/p.actions.yaml)"), [key], {key: "login.log_in"},
                        runs=runs_before)
    options = verify.VerifyOptions(tmp_path, tmp_path / "out")
    verification = verify._Verification([], None, options, None)  # type: ignore[arg-type]
    verification.sites[key] = state
    verification._judge(item, "failed", run)  # type: ignore[arg-type]
    unfixed = verification.unfixed
    assert state.index == 0 and state.locked_by is None  # the candidate stays
    if runs_before < verify.MAX_ROUNDS:
        assert not item.done and unfixed == []  # the next round reruns it
    else:
        assert item.done and "NAVIGATION_TIMEOUT at step 'login.log_in'" in unfixed[0].reason
