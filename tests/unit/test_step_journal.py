"""The step journal keeps a step's events in the documented order; every kind is one table row.

Browser-free: the journal writes to a recording trace, attempts are built
from validated steps. The tables are checked against the contract's kinds,
so a kind added to the contract without its row (or a row without its kind)
fails here, not in a run.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_cometlocal.contract.model.actionspec import (
    ACTION_KINDS, KINDS, NEVER_RETRIED_KINDS, SIDE_EFFECT_KINDS, STATE_KINDS, ActionSpec)
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.conditions import CONDITION_KINDS
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.executor.errors import ExecutorFailure
from pytest_cometlocal.executor.page.conditions import EVALUATORS
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST as MANIFEST
from pytest_cometlocal.executor.errors import Stop
from pytest_cometlocal.executor.results import RUN_STATUSES, StepAttempt
from pytest_cometlocal.executor.step.actions import ACTIONS, ActionRow
from pytest_cometlocal.executor.step.budget import RetryRule
from pytest_cometlocal.executor.step.journal import ATTEMPT_ORDER, EventOutOfOrder, StepJournal

DOCS = Path(__file__).resolve().parents[2] / "docs" / "executor.md"


class RecordingTrace:
    """Stands in for the TraceWriter: keeps (event_type, step_id, metadata)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str | None, dict[str, Any]]] = []

    def emit(self, event_type: str, step_id: str | None = None, **fields: Any) -> None:
        self.events.append((event_type, step_id, fields.get("metadata") or {}))

    @property
    def names(self) -> list[str]:
        return [name for name, _, _ in self.events]


def attempt_of(kind: str = "click", attempt: int = 1, criticality: str = "normal") -> StepAttempt:
    target = {"type": "url", "url": "/"} if kind == "navigate" else {"type": "testid", "id": "go"}
    spec = ActionSpec.model_validate({
        "id": "s1", "kind": kind, "criticality": criticality, "target": target, "timeout_ms": 1000,
        "preconditions": [{"kind": "url_matches", "args": {"pattern": "."}}],
        "postconditions": [{"kind": "url_matches", "args": {"pattern": "."}}],
        **({"value": "x"} if kind == "fill" else {}),
    })
    step = StepAttempt(spec, 0, "step_000", attempt, False)
    step.before = SimpleNamespace(signature=None)  # type: ignore[assignment]
    return step


def failure(code: ErrorCode = ErrorCode.TARGET_NOT_FOUND) -> ExecutorFailure:
    return ExecutorFailure(SimpleNamespace(error_code=code, message="failed"))  # type: ignore[arg-type]


def passing_step(journal: StepJournal) -> None:
    journal.observation_captured({})
    journal.proposal_received("plan", None)
    journal.proposal_accepted()
    journal.action_compiled()
    journal.conditions_warned("pre", [{"kind": "url_matches"}])
    journal.preconditions_checked({"resolved": "get_by_test_id('go')"})
    journal.action_started()
    journal.inspection_started("a.pdf")
    journal.inspection_finished(SimpleNamespace(), {"status": "ok"})  # type: ignore[arg-type]
    journal.action_executed({"duration_ms": 1})
    journal.conditions_warned("post", [{"kind": "url_matches"}])
    journal.download_failed("did not finish")
    journal.postconditions_checked("post", None)
    journal.evidence_captured()


def test_a_passing_attempt_writes_its_events_in_the_documented_order():
    trace = RecordingTrace()
    journal = StepJournal(trace)  # type: ignore[arg-type]
    with journal.attempt(attempt_of()):
        passing_step(journal)
    assert trace.names == [
        "observation_captured", "proposal_received", "proposal_accepted", "action_compiled",
        "preconditions_checked", "preconditions_checked", "action_started", "inspection_started",
        "inspection_finished", "action_executed", "postconditions_checked", "evidence_captured",
        "postconditions_checked", "evidence_captured"]
    assert trace.events[-1][2] == {"manifest_uri": MANIFEST}
    assert trace.events[-3][2] == {"download_error": "did not finish"}


@pytest.mark.parametrize("late, early", [
    ("preconditions_checked", "action_started"),
    ("proposal_received", "action_compiled"),
    ("action_started", "action_executed"),
    ("observation_captured", "observation_captured"),
])
def test_an_event_before_one_already_written_is_refused(late: str, early: str):
    calls = {
        "observation_captured": lambda j: j.observation_captured({}),
        "proposal_received": lambda j: j.proposal_received("plan", None),
        "action_compiled": lambda j: j.action_compiled(),
        "preconditions_checked": lambda j: j.preconditions_checked(None),
        "action_started": lambda j: j.action_started(),
        "action_executed": lambda j: j.action_executed({}),
    }
    trace = RecordingTrace()
    journal = StepJournal(trace)  # type: ignore[arg-type]
    with pytest.raises(EventOutOfOrder, match=f"{late} after {early}"):
        with journal.attempt(attempt_of()):
            calls[early](journal)
            calls[late](journal)
    assert trace.names == [early]


def test_a_failure_ends_the_attempt_and_nothing_of_it_follows():
    trace = RecordingTrace()
    journal = StepJournal(trace)  # type: ignore[arg-type]
    with pytest.raises(EventOutOfOrder, match="action_started after its failure"):
        with journal.attempt(attempt_of()):
            journal.observation_captured({})
            journal.failure_evidence(ErrorCode.TARGET_NOT_FOUND, [], None)
            journal.action_started()
    assert trace.names == ["observation_captured", "evidence_captured"]
    assert trace.events[-1][2]["for_error"] == "TARGET_NOT_FOUND"


def test_the_bracket_refuses_an_attempt_that_ends_without_its_evidence():
    journal = StepJournal(RecordingTrace())  # type: ignore[arg-type]
    with pytest.raises(EventOutOfOrder, match="passed without its evidence_captured"):
        with journal.attempt(attempt_of()):
            journal.observation_captured({})
    with pytest.raises(EventOutOfOrder, match="ended by ExecutorFailure without"):
        with journal.attempt(attempt_of()):
            raise failure()
    with pytest.raises(EventOutOfOrder, match="ended by Stop without"):
        with journal.attempt(attempt_of("stop")):
            raise Stop()
    # A failure with its evidence, and a stop after its evidence, go through as they are.
    with pytest.raises(ExecutorFailure):
        with journal.attempt(attempt_of()):
            journal.failure_evidence(ErrorCode.TARGET_NOT_FOUND, [], None)
            raise failure()
    with pytest.raises(Stop):
        with journal.attempt(attempt_of("stop")):
            journal.observation_captured({})
            journal.evidence_captured()
            raise Stop()


def test_step_level_events_are_refused_inside_an_attempt_and_attempts_do_not_nest():
    journal = StepJournal(RecordingTrace())  # type: ignore[arg-type]
    error = SimpleNamespace(error_code=ErrorCode.TARGET_NOT_FOUND, stage="precondition", details={},
                            state_before=None, state_after=None)
    with pytest.raises(EventOutOfOrder, match="retry_scheduled inside attempt"):
        with journal.attempt(attempt_of()):
            with journal.retry(attempt_of(), error, 10):  # type: ignore[arg-type]
                pass
    with pytest.raises(EventOutOfOrder, match="opened inside attempt"):
        with journal.attempt(attempt_of()):
            with journal.attempt(attempt_of(attempt=2)):
                pass
    with pytest.raises(EventOutOfOrder, match="outside an attempt"):
        journal.action_started()
    with pytest.raises(EventOutOfOrder, match="inspection_finished without inspection_started"):
        with journal.attempt(attempt_of("upload")):
            journal.inspection_finished(SimpleNamespace(), {})  # type: ignore[arg-type]


def test_a_retry_and_a_failed_step_write_their_events_in_order():
    trace = RecordingTrace()
    journal = StepJournal(trace)  # type: ignore[arg-type]
    error = SimpleNamespace(error_code=ErrorCode.POLICY_HALT, stage="policy",
                            details={"policy_reason": "max_steps"}, state_before=None, state_after=None,
                            action_id="s1")
    with journal.retry(attempt_of(), error, 10):  # type: ignore[arg-type]
        trace.emit("waited")
    journal.step_failed("s1", error)  # type: ignore[arg-type]
    assert trace.names == ["retry_scheduled", "waited", "backoff_applied", "policy_halt", "error_raised"]
    assert trace.events[0][2] == {"attempt": 1, "next_attempt": 2, "error_code": "POLICY_HALT", "delay_ms": 10}
    assert trace.events[3][2] == {"policy": {"reason": "max_steps"}}


def test_the_docs_one_step_table_names_the_journal_methods_in_its_order():
    """docs/executor.md's table lists each journal method once, in ATTEMPT_ORDER's order."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## One step"):text.index("What each kind does")]
    methods = [m for row in section.splitlines() if row.startswith("| `")
               for m in re.findall(r"`journal\.(\w+)`", row)]
    # conditions_warned writes both "…_warned" places: its first row is the preconditions', its second the others'.
    warned = iter(["preconditions_warned", "postconditions_warned"])
    place = {"inspection_started": "inspection", "inspection_finished": "inspection", "download_failed": "download_failed"}
    named = [next(warned) if m == "conditions_warned" else place.get(m, m) for m in methods]
    assert set(named) == set(ATTEMPT_ORDER), methods
    places = [ATTEMPT_ORDER.index(name) for name in named]
    assert places == sorted(places), methods


def test_every_condition_kind_of_the_contract_is_one_row_of_the_evaluators():
    assert sorted(EVALUATORS) == sorted(CONDITION_KINDS)
    assert len(CONDITION_KINDS) == len(set(CONDITION_KINDS))
    assert all(callable(evaluate) for evaluate in EVALUATORS.values())


def test_every_action_kind_of_the_contract_is_one_row_of_the_actions():
    assert sorted(ACTIONS) == sorted(ACTION_KINDS)
    assert len(ACTION_KINDS) == len(set(ACTION_KINDS))
    # The flow's choices are the rows' (engine.py reads them, never the kind's name).
    assert {k for k, row in ACTIONS.items() if row.kind.resolves_target} == {
        "click", "fill", "select", "upload", "press", "hover", "check", "uncheck", "drag", "scroll",
        "focus", "blur", "dispatch_event"}  # v1.3
    assert [k for k, row in ACTIONS.items() if row.kind.ends_run] == ["stop"]
    assert [k for k, row in ACTIONS.items() if row.url_of is not None] == ["navigate", "request"]
    assert [k for k, row in ACTIONS.items() if row.kind.post_phase == "assert"] == ["assert"]


def test_the_contract_has_one_kinds_table_and_the_executor_reads_it():
    """Side effects, retries and the step flow's choices are one row per kind (contract KINDS)."""
    assert sorted(KINDS) == sorted(ACTION_KINDS)
    assert all(ACTIONS[kind].kind is row for kind, row in KINDS.items())
    # The executor's row adds how the kind is done, and nothing of the flow: that is read from ``row.kind``.
    assert [f.name for f in dataclasses.fields(ActionRow)] == ["perform", "kind", "url_of"]
    assert not [name for name, value in vars(ActionRow).items() if isinstance(value, property)]
    assert NEVER_RETRIED_KINDS == {k for k, row in KINDS.items() if not row.retried} == {"wait_for", "assert"}
    assert SIDE_EFFECT_KINDS == {k for k, row in KINDS.items() if row.side_effect}
    # (v1.3) the state kinds change the browser's cookies or storage, not the page: no same-state visit counted.
    assert set(ACTION_KINDS) - SIDE_EFFECT_KINDS == {"wait_for", "assert", "stop", *STATE_KINDS}


def test_the_retry_rule_recovers_first_then_retries_then_fails():
    policy = Policy(retry_on=["TARGET_NOT_FOUND"], retries_per_action=1, recovery_max=1)
    rule = RetryRule(policy, ("TARGET_NOT_FOUND",))
    first, second = attempt_of(), attempt_of(attempt=2)
    assert rule.retryable(first, "TARGET_NOT_FOUND") is True
    assert rule.retryable(first, "TARGET_NOT_FOUND", verdict=False) is False  # a final verdict stays final
    assert rule.retryable(attempt_of(criticality="critical"), "TARGET_NOT_FOUND") is False
    assert rule.retryable(first, "NAVIGATION_FAILED") is False
    assert rule.next_move(first, "TARGET_NOT_FOUND", True, recoveries=0) == "recover"
    assert rule.next_move(first, "TARGET_NOT_FOUND", True, recoveries=1) == "retry"
    assert rule.next_move(second, "TARGET_NOT_FOUND", True, recoveries=1) == "fail"
    assert rule.next_move(first, "TARGET_NOT_FOUND", False, recoveries=0) == "fail"
    assert rule.retries(first, "TARGET_NOT_FOUND", True) and not rule.retries(second, "TARGET_NOT_FOUND", True)


def test_run_statuses_are_the_documented_ones():
    text = DOCS.read_text(encoding="utf-8")
    documented = re.search(r"`status` \(([^)]*)\)", text)
    assert documented is not None
    assert set(re.findall(r"`([a-z_]+)`", documented.group(1))) == set(RUN_STATUSES)


def test_build_error_is_the_fault_and_its_pack_with_secrets_masked():
    from pytest_cometlocal.contract.model.records import EvidenceRef, FailedCondition
    from pytest_cometlocal.executor.results import Fault
    from pytest_cometlocal.executor.runfolder.redactor import Redactor
    from pytest_cometlocal.executor.step.evidence import FailureEvidence
    from pytest_cometlocal.executor.step.failures import build_error

    attempt = attempt_of("fill")
    attempt.before = None
    fault = Fault(ErrorCode.POSTCONDITION_FAILED, "postcondition", "value hunter2 not shown",
                  details={"typed": "hunter2"}, cause="saw hunter2",
                  failed_conditions=[FailedCondition(kind="element_value_equals", args={"value": "hunter2"},
                                                     phase="post", observed={"value": ""})])
    pack = FailureEvidence(refs=[EvidenceRef(kind="dom_snapshot_partial", uri="evidence/dom/step_000_executor.json",
                                             sha256="0" * 64, step_id="s1")])
    error = build_error(attempt, fault, pack, True, "run-1", 7, Redactor(["hunter2"]))
    assert error.evidence_refs == pack.refs
    assert (error.error_code, error.stage, error.seq, error.run_id, error.retryable) == (
        ErrorCode.POSTCONDITION_FAILED, "postcondition", 7, "run-1", True)
    assert (error.action_id, error.action_kind, error.state_before, error.state_after) == ("s1", "fill", None, None)
    assert "hunter2" not in error.model_dump_json()
