"""Issue 35 (2.1-2.3, 2.8) without a browser: what fix, show and diff make of run folders written by hand.

A negative plan's run that failed as its ``expect`` asks is not a failure to
fix; ``--verify``'s inner pytest gets every option as one argument and the
copy's ini file; each invocation has a folder of its own; a rerun that failed
before the fixed step says so; ``show`` names a failed condition's phase and
keeps its columns for long step ids; ``diff`` says the plan changed; a headed
run with no display is one line. tests/integration/test_fix_ini_suite.py runs
the real thing.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.executor.browser.chromium import display_problem, launch_problem
from pytest_cometlocal.executor.session import record_invalid_plan
from pytest_cometlocal.fixing import verify
from pytest_cometlocal.plugin.reporting.report import step_columns
from pytest_cometlocal.runs.reader import ended_as_expected, read_run
from pytest_cometlocal.runs.show import show_run
from tests.support import DEFAULTS, only_problems, only_valid

SAVE = {"type": "role", "role": "button", "name": "Save", "exact": True}
SAVE_CHANGES = {"type": "role", "role": "button", "name": "Save changes", "exact": True}
PLAN = """\
name: {name}
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /}}}}
  - id: save
    kind: click
    target: {{type: role, role: button, name: Save, exact: true}}
"""


def run_folder(out: Path, name: str, *, expect: dict[str, Any] | None = None, code: str = "TARGET_NOT_FOUND",
               step: str = "save", sha: str | None = None, failed_conditions: list | None = None,
               steps: tuple[str, ...] = ("open", "save")) -> Path:
    """A run that failed at ``step`` with one suggestion, its plan expecting ``expect`` (or nothing)."""
    run = out / name
    run.mkdir(parents=True)
    plan = {"file": f"plans/{name}.actions.yaml", "name": name, "line": 1, "doc_index": 0,
            "nodeid": f"plans/{name}.actions.yaml::{name}"}
    plan.update({"expect": expect} if expect else {})
    plan.update({"sha256": sha} if sha else {})
    manifest = {"run_id": name, "status": "failed", "error_code": code, "failed_step": step, "plan": plan,
                "started_at": "2026-01-01T00:00:00Z"}
    (run / "run_manifest.json").write_text(json.dumps(manifest))
    events: list[dict[str, Any]] = []
    for sid in steps:
        events.append({"event_type": "proposal_received", "step_id": sid,
                       "metadata": {"source": [f"plans/{name}.actions.yaml:{3 if sid == 'open' else 4}"]},
                       "action_spec": {"id": sid, "kind": "click"}})
        if sid != step:
            events.append({"event_type": "postconditions_checked", "step_id": sid, "metadata": {"ok": True}})
    error = {"error_code": code, "action_id": step, "failed_conditions": failed_conditions or [],
             "details": {"target": SAVE, "suggestions": [{"target": SAVE_CHANGES, "score": 0.6, "why": "close"}]}}
    events.append({"event_type": "error_raised", "step_id": step, "error": error})
    events.append({"event_type": "run_finished", "metadata": {"status": "failed"}})
    (run / "trace.jsonl").write_text("".join(json.dumps({"seq": i, **e}) + "\n" for i, e in enumerate(events, 1)))
    return run


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "plans").mkdir()
    for name in ("neg", "other_step", "other_code", "plain"):
        (tmp_path / "plans" / f"{name}.actions.yaml").write_text(PLAN.format(name=name))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------------- 2.3: a negative plan's expected error


def test_a_run_that_failed_as_its_plan_expects_gets_no_fix_and_is_not_listed_as_failed(
        suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = suite / "runs"
    run_folder(out, "neg", expect={"error_code": "TARGET_NOT_FOUND", "step": "save"})
    assert main(["fix", "runs"]) == 0
    captured = capsys.readouterr()
    assert "diff --git" not in captured.out and "0 fixes in 0 files; 0 with no fix" in captured.out
    assert "1 runs (0 did not fail, 1 failed as their plan expects): 0 fixes, 0 without" in captured.err
    assert main(["show", "--list", "runs"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("expected TARGET_NOT_FOUND") and "fix them" not in listed and "failed" not in listed
    assert main(["show", "runs"]) == 0
    shown = capsys.readouterr().out
    assert "status: failed (TARGET_NOT_FOUND, as the plan expects)" in shown and "fix them" not in shown


@pytest.mark.parametrize("name, expect", [
    ("other_step", {"error_code": "TARGET_NOT_FOUND", "step": "open"}),  # the right code at another step
    ("other_code", {"error_code": "AUTH_FAILED", "step": None}),         # another code
    ("plain", None),                                                     # a plan that expects nothing
])
def test_a_failure_the_plan_did_not_ask_for_still_gets_its_fix(suite: Path, capsys: pytest.CaptureFixture[str],
                                                                name: str, expect: dict | None) -> None:
    run_folder(suite / "runs", name, expect=expect)
    assert main(["fix", "runs"]) == 0
    captured = capsys.readouterr()
    assert f"diff --git a/plans/{name}.actions.yaml" in captured.out and "name: Save changes" in captured.out
    assert main(["show", "--list", "runs"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("failed TARGET_NOT_FOUND") and "fix them: cometlocal fix runs --verify" in listed


def test_an_invalid_negative_plan_is_expected_by_the_step_its_problems_lie_in(validate, tmp_path: Path) -> None:
    """The real writer of an invalid plan's run folder records the plan's ``expect``; the reader applies it
    as the pytest outcome does (INVALID_ACTIONSPEC has no failed step: the problems' steps count)."""
    text = "name: broken\nexpect: {error_code: INVALID_ACTIONSPEC, step: a}\nsteps:\n  - {id: a, kind: clik}\n"
    run, _ = record_invalid_plan(only_problems(validate(text)), tmp_path / "out")
    record = read_run(run.path)
    assert record.plan["expect"] == {"error_code": "INVALID_ACTIONSPEC", "step": "a"}
    assert record.ended_as_expected
    other = dict(record.manifest, plan={**record.plan, "expect": {"error_code": "INVALID_ACTIONSPEC", "step": "b"}})
    assert not ended_as_expected(other, record.errors)
    assert not ended_as_expected(dict(record.manifest, status="passed"), record.errors)


# --------------------------------------------------------------------------- 2.1 / 2.2: the reruns of --verify


def test_the_reruns_get_each_option_as_one_argument_and_the_copys_ini_file(tmp_path: Path) -> None:
    manifest = {"configuration": {"sources": {"base_url": "cli", "profile": "cli"},
                                  "effective": {"base_url": "http://127.0.0.1:9", "profile": "fast"}}}
    assert verify._settings(manifest, True) == (
        "--base-url=http://127.0.0.1:9", "--cometlocal-profile=fast", "--cometlocal-dry-run")
    root = tmp_path / "copy"
    root.mkdir()
    (root / "tox.ini").write_text("[tox]\n")  # no [pytest]: not pytest's
    (root / "pytest.ini").write_text("[pytest]\nbase_url = http://127.0.0.1:9\n")
    scratch = SimpleNamespace(root=root, options=SimpleNamespace(pytest_args=()))
    args = verify._Scratch.base_args(scratch)  # type: ignore[arg-type]
    assert f"--config-file={root / 'pytest.ini'}" in args and f"--rootdir={root}" in args
    assert all(a.startswith("-") for a in args[args.index("-p") + 2:])  # no value stands apart, to be taken for a path
    scratch.options.pytest_args = ("-cother.ini",)
    assert not any(a.startswith(("--config-file", "--rootdir")) for a in verify._Scratch.base_args(scratch))  # type: ignore[arg-type]
    (root / "pytest.ini").unlink()
    assert verify.ini_file(root) is None
    (root / "tox.ini").write_text("[pytest]\naddopts = -q\n")
    assert verify.ini_file(root) == root / "tox.ini"


def test_each_invocation_gets_a_folder_of_its_own(tmp_path: Path) -> None:
    first, second = verify.invocation_folder(tmp_path / "fix-runs"), verify.invocation_folder(tmp_path / "fix-runs")
    assert first != second and first.parent == second.parent == tmp_path / "fix-runs"
    assert first.is_dir() and second.is_dir() and not any(second.iterdir())


@pytest.mark.parametrize("passed, failed, said", [
    (("open",), "save", "failed TARGET_NOT_FOUND at the fixed step 'save' itself, with no suggested target"),
    ((), "open", "failed NAVIGATION_FAILED at step 'open', before the fixed step(s) 'save': the fix was not tried"),
    ((), None, "failed INVALID_ACTIONSPEC before its first step, before the fixed step(s) 'save': the fix was not tried"),
    (("open", "save"), "done", "past the fixed step(s), then failed ASSERTION_FAILED at step 'done' with no suggested"),
])
def test_a_rerun_that_failed_says_how_far_it_got(passed: tuple[str, ...], failed: str | None, said: str) -> None:
    code = {"save": "TARGET_NOT_FOUND", "open": "NAVIGATION_FAILED", None: "INVALID_ACTIONSPEC"}.get(failed, "ASSERTION_FAILED")
    steps = [SimpleNamespace(step_id=s, outcome="passed") for s in passed]
    if failed:
        steps.append(SimpleNamespace(step_id=failed, outcome="failed"))
    record = SimpleNamespace(status="failed", error_code=code, failed_step=failed, steps=steps)
    item = SimpleNamespace(steps={("plans/p.actions.yaml", 5, ("target",)): "save"})
    assert verify._how_far(record, item).startswith(said)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- 2.8: show, the step lines, diff, headed


def test_show_names_the_phase_of_each_failed_condition(tmp_path: Path) -> None:
    conditions = [{"phase": phase, "kind": "element_visible", "args": {}, "observed": {"count": 0}}
                  for phase in ("pre", "post", "assert")]
    run = run_folder(tmp_path, "p", code="ASSERTION_FAILED", failed_conditions=conditions)
    text = show_run(run)
    assert "failed precondition element_visible" in text and "failed postcondition element_visible" in text
    assert "failed assert check element_visible" in text and "assertcondition" not in text


def test_show_keeps_its_columns_for_long_step_ids(tmp_path: Path) -> None:
    long = "the_renamed_save_button_is_clicked_at_last"
    run = run_folder(tmp_path, "p", steps=("open", long, "save"))
    lines = [line for line in show_run(run).splitlines() if line.endswith(" ms")]
    assert len(lines) == 3 and len({line.index(" ms") for line in lines}) == 1, lines
    assert len({line.index(sid) for line, sid in zip(lines, ("open", long, "save"))}) == 1


def test_the_terminal_step_lines_are_as_wide_as_the_plans_longest_step_id(validate) -> None:
    long = "a_step_id_of_thirty_four_characters"
    text = (f"name: p\nbase_url: http://127.0.0.1:9\n{DEFAULTS}steps:\n  - {{id: {long}, kind: navigate, "
            "target: {type: url, url: /}}\n  - {id: b, kind: wait_for, target: {type: testid, id: x}}\n")
    assert step_columns(only_valid(validate(text))) == (len(long), 9)
    assert step_columns(None) == (24, 9)


def test_diff_says_the_plan_changed_between_the_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = run_folder(tmp_path / "a", "p", sha="sha256:" + "1" * 64)
    b = run_folder(tmp_path / "b", "p", sha="sha256:" + "2" * 64)
    same = run_folder(tmp_path / "c", "p", sha="sha256:" + "1" * 64)
    old = run_folder(tmp_path / "d", "p")  # written before manifests recorded the plan's hash
    assert main(["diff", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "note: the plan changed between the runs: sha256 111111111111 in A, 222222222222 in B" in text
    assert text.rstrip().endswith("but the plan changed between the runs (note above)")
    main(["diff", str(a), str(b), "--json"])
    assert json.loads(capsys.readouterr().out)["plan_changed"] is True
    for other, flag in ((same, False), (old, None)):
        main(["diff", str(a), str(other), "--json"])
        report = json.loads(capsys.readouterr().out)
        assert report["plan_changed"] is flag and not any("plan changed" in n for n in report["notes"])
    run_folder(tmp_path / "a", "q", sha="sha256:" + "3" * 64)
    run_folder(tmp_path / "b", "q", sha="sha256:" + "3" * 64)
    main(["diff", str(tmp_path / "a"), str(tmp_path / "b")])
    notes = [line for line in capsys.readouterr().out.splitlines() if "plan changed" in line]
    assert notes == ["note: 'p' (plans/p.actions.yaml): the plan changed between the runs: sha256 111111111111 in A, "
                     "222222222222 in B (steps, step groups or settings were edited): a difference may be the plan's, "
                     "not the page's"]


@pytest.mark.parametrize("headless, env, platform, refused", [
    (False, {}, "linux", True),
    (False, {"DISPLAY": ":0"}, "linux", False),
    (False, {"WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
    (True, {}, "linux", False),
    (False, {}, "darwin", False),
])
def test_a_headed_browser_needs_a_display_on_linux(headless: bool, env: dict, platform: str, refused: bool) -> None:
    problem = display_problem(headless, env, platform)
    assert (problem is not None) == refused
    if problem:
        assert "\n" not in problem and "xvfb-run" in problem and "DISPLAY" in problem
    assert launch_problem(False, "Missing X server or $DISPLAY") is not None
    assert launch_problem(True, "Missing X server or $DISPLAY") is None
    assert launch_problem(False, "net::ERR_ABORTED") is None


def test_a_pytest_arg_that_is_not_an_option_is_a_usage_error(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A value given apart from its option would reach the inner pytest as a test path (2.1's class)."""
    run_folder(suite / "runs", "plain")
    code = main(["fix", "runs", "--verify", "--pytest-arg=--cometlocal-config", "--pytest-arg=ci.yaml"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("cometlocal: error: --pytest-arg 'ci.yaml' is not an option")
    assert not (suite / "cometlocal-fix-runs").exists()  # refused before anything ran
