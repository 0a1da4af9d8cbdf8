"""What plan format v1.1 settles, browser-free: the retry rule for wait_for and assert, same-state
counting of the new kinds, the ActionSpec record's schema_version, the run manifest's
format_versions, what ``cometlocal verify`` accepts, and how show, diff and Allure word a step.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_cometlocal.contract.model.actionspec import (
    EXTENSION_KINDS, NEVER_RETRIED_KINDS, SIDE_EFFECT_KINDS, ActionSpec, describe_step,
)
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.conditions import describe_condition
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.run_folder import RUN_MANIFEST
from pytest_cometlocal.contract.validate.validator import validate_action_spec
from pytest_cometlocal.executor.errors import ExecutorFailure
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from tests.support import Sig
from pytest_cometlocal.executor.step.budget import PolicyState, RetryRule
from pytest_cometlocal.executor.step.journal import StepJournal
from pytest_cometlocal.plugin.reporting.allure_report import step_title
from pytest_cometlocal.runs.diff import diff_runs
from pytest_cometlocal.runs.show import show_run
from pytest_cometlocal.runs.verify import verify_run

CSS = {"type": "css", "selector": "#a"}
ALLOWED = [{"kind": "host_in_allowlist"}]


def spec(kind: str, **fields: Any) -> ActionSpec:
    """A validated step (the contract's own validation, as the executor receives it)."""
    if kind not in ("assert", "stop", "press", "scroll") and "target" not in fields:
        fields["target"] = {"type": "url", "url": "/"} if kind == "navigate" else CSS
    step = validate_action_spec({"id": fields.pop("id", "s"), "kind": kind, "criticality": "normal",
                                 "timeout_ms": 1000, "preconditions": ALLOWED, "postconditions": ALLOWED,
                                 **({"value": "x"} if kind in ("fill", "select") else {}),
                                 **({"file_ref": "a.txt"} if kind == "upload" else {}), **fields})
    assert isinstance(step, ActionSpec), step
    return step


def attempt(kind: str, number: int = 1, *, recovery: bool = False, criticality: str = "normal") -> Any:
    return SimpleNamespace(spec=SimpleNamespace(kind=kind, criticality=criticality), attempt=number, recovery=recovery)


# ---------------------------------------------------------------------------
# The retry rule: wait_for and assert are never retried by retry_on

RULE = RetryRule(Policy(retry_on=["NAVIGATION_TIMEOUT", "POSTCONDITION_FAILED"], retries_per_action=2,
                        recovery_max=1), ("POSTCONDITION_FAILED",))


@pytest.mark.parametrize("kind", sorted(NEVER_RETRIED_KINDS))
def test_wait_for_and_assert_are_never_retried(kind: str):
    assert NEVER_RETRIED_KINDS == {"wait_for", "assert"}
    first = attempt(kind)
    # A code only retry_on names: not retryable, the step fails at once.
    assert RULE.retryable(first, "NAVIGATION_TIMEOUT") is False
    assert not RULE.retries(first, "NAVIGATION_TIMEOUT", True)
    assert RULE.next_move(first, "NAVIGATION_TIMEOUT", False, recoveries=0) == "fail"
    # Recovery is not retry_on: a code in recovery.on_error still recovers, once, then fails (no retry).
    assert RULE.retryable(first, "POSTCONDITION_FAILED") is True
    assert RULE.next_move(first, "POSTCONDITION_FAILED", True, recoveries=0) == "recover"
    assert RULE.next_move(attempt(kind, 2), "POSTCONDITION_FAILED", True, recoveries=1) == "fail"


@pytest.mark.parametrize("kind", ["navigate", "click", "fill", *sorted(EXTENSION_KINDS)])
def test_every_other_kind_follows_retry_on(kind: str):
    first = attempt(kind)
    assert RULE.retryable(first, "NAVIGATION_TIMEOUT") is True
    assert RULE.next_move(first, "NAVIGATION_TIMEOUT", True, recoveries=0) == "retry"
    assert RULE.next_move(attempt(kind, 3), "NAVIGATION_TIMEOUT", True, recoveries=0) == "fail"  # retries spent
    assert RULE.retryable(attempt(kind, criticality="critical"), "NAVIGATION_TIMEOUT") is False


# ---------------------------------------------------------------------------
# Same-state revisits count the new side-effecting kinds

@pytest.mark.parametrize("kind", sorted(EXTENSION_KINDS))
def test_same_state_revisits_count_each_new_kind(kind: str):
    assert kind in SIDE_EFFECT_KINDS
    state = PolicyState(Policy(same_state_revisits=1))
    assert state.count_revisit(kind, Sig("k"), first_attempt=True, recovery=False) is None
    assert state.count_revisit(kind, Sig("k"), first_attempt=False, recovery=False) is None  # a retry: not counted
    assert state.count_revisit(kind, Sig("k"), first_attempt=True, recovery=True) is None  # a recovery step: not counted
    halt = state.count_revisit(kind, Sig("k"), first_attempt=True, recovery=False)
    assert halt is not None and halt.reason == "same_state_revisit"
    assert halt.details == {"state_key": Sig("k").state_key, "count": 2, "threshold": 1}


def test_a_v1_kind_and_a_new_kind_count_towards_the_same_state():
    state = PolicyState(Policy(same_state_revisits=2))
    for kind in ("click", "press"):
        assert state.count_revisit(kind, Sig("k"), True, False) is None
    for kind in ("wait_for", "assert", "stop"):
        assert state.count_revisit(kind, Sig("k"), True, False) is None
    assert state.count_revisit("scroll", Sig("k"), True, False).details["count"] == 3


# ---------------------------------------------------------------------------
# How a step and a condition are worded (show, diff, Allure, a wait_for's timeout)

@pytest.mark.parametrize("fields, text", [
    ({"kind": "press", "key": "Enter", "target": {"type": "label", "text": "Search", "exact": True}},
     'press Enter on label="Search"'),
    ({"kind": "press", "key": "Shift+Tab"}, "press Shift+Tab"),
    ({"kind": "drag", "target": {"type": "testid", "id": "a"}, "to": {"type": "testid", "id": "b"}},
     "drag testid=a to testid=b"),
    ({"kind": "drag", "target": {"type": "testid", "id": "a"}, "to": [{"type": "testid", "id": "b"}, CSS]},
     "drag testid=a to testid=b | css=#a"),
    ({"kind": "scroll", "target": {"type": "css", "selector": ".grid"}}, "scroll down in css=.grid"),
    ({"kind": "scroll", "direction": "up"}, "scroll up"),
    ({"kind": "hover", "target": {"type": "role", "role": "menuitem", "name": "File"}}, 'hover role=menuitem[name="File"]'),
    ({"kind": "check", "target": {"type": "label", "text": "Remember me", "exact": True}}, 'check label="Remember me"'),
    ({"kind": "uncheck", "target": CSS}, "uncheck css=#a"),
    ({"kind": "click", "target": CSS, "button": "right"}, "click css=#a (right button)"),
    ({"kind": "click", "target": CSS, "click_count": 2, "modifiers": ["Control", "Shift"]},
     "click css=#a (2 clicks, Control+Shift)"),
    ({"kind": "click", "target": CSS, "button": "left", "click_count": 1}, "click css=#a"),
    ({"kind": "click", "target": CSS}, "click css=#a"),
    ({"kind": "navigate", "target": {"type": "url", "url": "/login"}}, "navigate url=/login"),
    ({"kind": "assert"}, "assert"),
])
def test_describe_step_says_what_a_step_does(fields: dict, text: str):
    assert describe_step(spec(**fields)) == text


def test_describe_condition_names_its_element_and_arguments():
    step = spec("wait_for", target={"type": "css", "selector": "#done"},
                postconditions=[{"kind": "element_visible"},
                                {"kind": "element_text_contains", "args": {"target": {"type": "testid", "id": "n"},
                                                                            "text": "99"}},
                                {"kind": "network_idle"},
                                {"kind": "aria_snapshot_matches", "args": {"snapshot": "- list:\n  - listitem: " + "x" * 80}},
                                {"kind": "element_checked", "args": {"checked": False}}])
    assert [describe_condition(c, step.target) for c in step.postconditions] == [
        "element_visible (css=#done)",
        "element_text_contains (testid=n, text=99)",
        "network_idle",
        "aria_snapshot_matches (snapshot=- list: - listitem: " + "x" * 39 + "…)",
        "element_checked (css=#done, checked=False)",
    ]


def test_allure_titles_a_v11_step_by_what_it_does_and_a_v1_step_as_before():
    assert step_title(spec("click", id="go")) == "go · click · css=#a"
    assert step_title(spec("assert", id="check")) == "check · assert"
    assert step_title(spec("press", id="search", key="Enter", target={"type": "label", "text": "Search", "exact": True})) \
        == 'search · press Enter on label="Search"'
    assert step_title(spec("drag", id="move", target={"type": "testid", "id": "a"}, to={"type": "testid", "id": "b"})) \
        == "move · drag testid=a to testid=b"
    assert step_title(spec("scroll", id="down", target={"type": "css", "selector": ".grid"})) \
        == "down · scroll down in css=.grid"
    assert step_title(spec("click", id="menu", button="right")) == "menu · click css=#a (right button)"


# ---------------------------------------------------------------------------
# The trace: action_spec.schema_version, the manifest's format_versions, verify

def journal_step(journal: StepJournal, step: ActionSpec, index: int) -> None:
    """One attempt of ``step`` through the journal, up to a failure (no browser needed)."""
    attempt_ = StepAttempt(step, index, f"step_{index:03d}", 1, False)
    attempt_.before = SimpleNamespace(signature=None)  # type: ignore[assignment]
    with pytest.raises(ExecutorFailure):
        with journal.attempt(attempt_):
            journal.observation_captured({})
            journal.proposal_received("plan", None)
            journal.proposal_accepted()
            journal.action_compiled()
            journal.failure_evidence(ErrorCode.TARGET_NOT_FOUND, [], None)
            raise ExecutorFailure(SimpleNamespace(error_code=ErrorCode.TARGET_NOT_FOUND, message="failed"))  # type: ignore[arg-type]


def recorded_run(root: Path, steps: list[ActionSpec], format_versions: list[str] | None,
                 name: str = "v11") -> Path:
    run = RunFolder.create(root, name, mode="live", policy=Policy(), allowlist=(),
                           plan_info={"name": name, "file": f"{name}.actions.yaml"}, format_versions=format_versions)
    journal = StepJournal(run.trace)
    journal.run_started({})
    for index, step in enumerate(steps):
        journal_step(journal, step, index)
    journal.run_finished({"status": "failed"})
    run.finish("failed")
    return run.path


def specs_of(path: Path) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for line in (path / "trace.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("action_spec") is not None:
            out.setdefault(event["step_id"], []).append(event["action_spec"])
    return out


def test_an_action_spec_record_says_which_format_its_step_needs(tmp_path: Path):
    steps = [spec("click", id="old"), spec("press", id="new", key="Enter"),
             spec("click", id="keyed", click_count=2), spec("assert", id="cond", postconditions=[
                 {"kind": "element_focused", "args": {"target": CSS}}])]
    path = recorded_run(tmp_path, steps, ["v1", "v1.1"])
    records = specs_of(path)
    # proposal_received and action_compiled carry it, schema_version first, the step as validated after it.
    assert {sid: [r["schema_version"] for r in rs] for sid, rs in records.items()} == {
        "old": ["v1", "v1"], "new": ["v1.1", "v1.1"], "keyed": ["v1.1", "v1.1"], "cond": ["v1.1", "v1.1"]}
    assert list(records["new"][0])[:3] == ["schema_version", "id", "kind"] and records["new"][0]["key"] == "Enter"
    assert json.loads((path / RUN_MANIFEST).read_text())["format_versions"] == ["v1", "v1.1"]
    assert verify_run(path).ok, verify_run(path).problems


def edit_records(path: Path, change) -> None:
    trace = path / "trace.jsonl"
    lines = []
    for line in trace.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("action_spec") is not None:
            change(event["action_spec"])
        lines.append(json.dumps(event))
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_verify_refuses_an_unknown_format_and_one_the_manifest_does_not_list(tmp_path: Path):
    unknown = recorded_run(tmp_path / "a", [spec("click", id="go")], ["v1"])
    edit_records(unknown, lambda s: s.update(schema_version="v2"))
    problems = verify_run(unknown).problems
    assert problems == [f"trace.jsonl: seq {n} action_spec has schema_version 'v2', not a known plan format (v1, v1.1, v1.2, v1.3, v1.4)"
                        for n in (3, 5)], problems

    unlisted = recorded_run(tmp_path / "b", [spec("hover", id="menu")], ["v1"])
    assert verify_run(unlisted).problems == [
        f"trace.jsonl: seq {n} action_spec of format v1.1 is not in the manifest's format_versions ['v1']" for n in (3, 5)]

    bad_manifest = recorded_run(tmp_path / "c", [spec("click", id="go")], ["v1", "v3"])
    assert verify_run(bad_manifest).problems == [
        "run_manifest.json: format_versions ['v1', 'v3'] is not a list of known plan formats (v1, v1.1, v1.2, v1.3, v1.4)"]


def test_verify_accepts_a_run_recorded_before_v11(tmp_path: Path):
    """No format_versions in the manifest and no schema_version in the records: v1, as they were written."""
    old = recorded_run(tmp_path, [spec("click", id="go")], None)
    edit_records(old, lambda s: s.pop("schema_version"))
    assert "format_versions" not in json.loads((old / RUN_MANIFEST).read_text())
    assert verify_run(old).ok, verify_run(old).problems


def test_a_planners_run_lists_the_formats_of_the_steps_it_was_given(tmp_path: Path):
    run = RunFolder.create(tmp_path, "planner", mode="live", policy=Policy(), allowlist=(), plan_info={},
                           format_versions=())
    for version in ("v1.1", "v1", "v1.1"):
        run.uses_format(version)
    run.finish("passed")
    assert json.loads((run.path / RUN_MANIFEST).read_text())["format_versions"] == ["v1", "v1.1"]


def test_the_manifest_of_a_plan_lists_the_formats_of_its_steps_and_recovery_steps(validate):
    from pytest_cometlocal.contract.settings import effective_settings
    from pytest_cometlocal.executor.session import RunRecord
    from tests.support import only_valid, plan

    recovery = "recovery:\n  on_error: [OVERLAY_BLOCKING]\n  steps:\n    - {id: esc, kind: press, key: Escape}\n"
    v1_only = only_valid(validate(plan('- {id: go, kind: click, target: {type: css, selector: "#a"}}\n')))
    both = only_valid(validate(plan('- {id: go, kind: click, target: {type: css, selector: "#a"}}\n') + recovery))
    assert RunRecord.of_plan(effective_settings(v1_only, env={})).format_versions == ("v1",)
    assert RunRecord.of_plan(effective_settings(both, env={})).format_versions == ("v1", "v1.1")


def test_an_invalid_plans_manifest_lists_no_format(validate, tmp_path: Path):
    from pytest_cometlocal.executor.session import record_invalid_plan
    from tests.support import only_problems, plan

    invalid = only_problems(validate(plan("- {id: go, kind: press, key: Ctrl+A}\n")))
    run, _error = record_invalid_plan(invalid, tmp_path / "out")
    assert json.loads((run.path / RUN_MANIFEST).read_text())["format_versions"] == []
    assert verify_run(run.path).ok, verify_run(run.path).problems


# ---------------------------------------------------------------------------
# cometlocal show and diff

def test_show_says_what_each_step_does(tmp_path: Path):
    path = recorded_run(tmp_path, [spec("press", id="search", key="Enter",
                                        target={"type": "label", "text": "Search", "exact": True}),
                                   spec("drag", id="move", target={"type": "testid", "id": "a"},
                                        to={"type": "testid", "id": "b"}),
                                   spec("scroll", id="down", target={"type": "css", "selector": ".grid"}),
                                   spec("click", id="go", button="right", modifiers=["Shift"])], ["v1.1"])
    lines = show_run(path).splitlines()
    steps = lines[lines.index("  steps:") + 1:]
    whats = [steps[i + 1].strip() for i, line in enumerate(steps) if line.endswith(" ms")]
    assert whats == ['press Enter on label="Search"', "drag testid=a to testid=b", "scroll down in css=.grid",
                     "click css=#a (right button, Shift)"]


def test_diff_notes_a_step_that_does_something_else_in_the_other_run(tmp_path: Path):
    a = recorded_run(tmp_path / "a", [spec("press", id="search", key="Enter")], ["v1.1"])
    b = recorded_run(tmp_path / "b", [spec("press", id="search", key="Tab")], ["v1.1"])
    same = recorded_run(tmp_path / "c", [spec("press", id="search", key="Enter")], ["v1.1"])
    assert "step 'search' does not do the same in both runs: press Enter vs press Tab" in diff_runs(a, b).notes
    assert not any("does not do the same" in note for note in diff_runs(a, same).notes)
    assert diff_runs(a, same).steps[0].a.kind == "press"
