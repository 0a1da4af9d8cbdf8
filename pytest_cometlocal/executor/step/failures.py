"""Every typed error the executor raises is built here, with its evidence pack.

``Failures.fail`` makes a step's ExecutorError in two steps: the evidence
pack is taken (``evidence.FailureEvidence``: DOM snapshots, the full page and
screenshots where the code asks for them and the page can still be looked at,
the executor's partial snapshot when it cannot, the gaps in
``details.evidence_gaps``), and the journal writes its evidence_captured;
then ``build_error`` makes the error from the fault, the pack and the retry
rule's verdict, with secrets masked in every field. A failed target gets
suggested replacement targets, never applied (suggest/suggester.py).
``Failures.reject`` types a planner's invalid proposal; ``invalid_plan_error`` is the error of a plan
that failed validation (its run folder without a browser: session.record_invalid_plan).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_cometlocal.contract.failure_lines import halt_line
from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.problems import Problem
from pytest_cometlocal.contract.model.records import ExecutorError, FailedCondition
from pytest_cometlocal.contract.validate.validated import InvalidPlan
from pytest_cometlocal.executor.runfolder.clock import utc_now_iso
from pytest_cometlocal.executor.errors import ExecutorFailure, OutputWriteFailed
from pytest_cometlocal.executor.step.budget import Halt
from pytest_cometlocal.executor.results import Fault, StepAttempt
from pytest_cometlocal.executor.step.context import StepContext
from pytest_cometlocal.executor.step.evidence import PAGE_GONE, FailureEvidence
from pytest_cometlocal.executor.runfolder.evidence_gaps import Gaps, executor_snapshot
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.suggest.suggester import with_suggestions
from pytest_cometlocal.executor.step.action_failure import unresponsive
from pytest_cometlocal.executor.page.settle import stop_loading

__all__ = ["PAGE_GONE", "Failures", "Fault", "build_error", "invalid_plan_error"]


def build_error(attempt: StepAttempt, fault: Fault, pack: FailureEvidence, retryable: bool,
                run_id: str, seq: int, redact: Redactor) -> ExecutorError:
    """The typed error of a failed attempt: pure, from the fault and its evidence pack."""
    spec = attempt.spec
    return ExecutorError(
        error_code=fault.code,
        stage=fault.stage,
        severity=fault.severity,
        message=redact.text(fault.message),
        retryable=retryable,
        run_id=run_id,
        seq=seq,
        step_index=attempt.index,
        action_id=spec.id,
        action_kind=spec.kind,
        criticality=spec.criticality,
        state_before=attempt.before.signature if attempt.before else None,
        state_after=pack.after.signature if pack.after else None,
        evidence_refs=pack.refs,
        created_at=utc_now_iso(),
        cause=redact.text(fault.cause) if fault.cause else None,
        details=redact.tree(fault.details or {}),
        failed_conditions=[FailedCondition(**redact.tree(fc.model_dump())) for fc in (fault.failed_conditions or [])],
    )


# Faults a route's regex giving up cannot have caused: the page or the run's own files broke.
_BROKEN = frozenset({ErrorCode.BROWSER_CRASHED, ErrorCode.PAGE_UNRESPONSIVE, ErrorCode.OUTPUT_WRITE_FAILED})


def _gave_up(fault: Fault, key_path: str, exc: Exception) -> Fault:
    """``fault`` as INVALID_ACTIONSPEC, rule REGEX at ``key_path``: a plan regex gave up matching (issue 46)."""
    return replace(fault, code=ErrorCode.INVALID_ACTIONSPEC, message=f"{key_path}: {exc}", failed_conditions=None,
                   details={"violated_rules": ["REGEX"], "validation_errors": [
                       {"key_path": key_path, "message": str(exc), "rule": "REGEX"}]},
                   retryable=False, severity="error")


class Failures:
    """Builds the typed errors of one executor's steps, each with its evidence pack."""

    def __init__(self, ctx: StepContext):
        self.ctx = ctx

    def fail(self, attempt: StepAttempt, code: ErrorCode, stage: str, message: str, **facts: Any) -> ExecutorFailure:
        """The typed error of a failed attempt, with its evidence pack; ``facts``: the other fields of a Fault."""
        return self.for_fault(attempt, Fault(code, stage, message, **facts))

    def pattern_gave_up(self, attempt: StepAttempt, stage: str, key_path: str, exc: Exception) -> ExecutorFailure:
        """A plan regex outside the conditions (a route's, an auth signal's, switch_page's) that gave up
        matching (contract/patterns.py): the plan cannot run as written, rule REGEX at its key path."""
        return self.for_fault(attempt, _gave_up(Fault(ErrorCode.INVALID_ACTIONSPEC, stage, ""), key_path, exc))

    def for_fault(self, attempt: StepAttempt, fault: Fault) -> ExecutorFailure:
        """Take the evidence pack, write its evidence_captured, then build the error (retryable as RetryRule says).

        A route whose regex gave up meanwhile is the cause of what followed (its request went unanswered,
        a navigation waited on it): the step ends with that, unless the page itself broke."""
        ctx, spec = self.ctx, attempt.spec
        if fault.code not in _BROKEN and ctx.stubs is not None and (found := ctx.stubs.gave_up()) is not None:
            fault = _gave_up(fault, *found)
        pack = FailureEvidence.capture(ctx, attempt, fault)
        attempt.evidence.extend(pack.refs)
        ctx.journal.failure_evidence(fault.code, pack.refs, pack.after.signature if pack.after else None)
        details = pack.gaps.into(fault.details)
        source = ctx.settings.step_sources.get(spec.id)
        if source and len(source) > 1:  # a step of a step group: the plan line and the group lines
            details = {**(details or {}), "source": list(source)}
        code = fault.code.value
        retryable = ctx.retry.retryable(attempt, code, fault.retryable)
        cause = fault.cause
        if pack.write_failed is not None:
            cause = (cause or "") + f" (evidence write failed: {pack.write_failed})"
        fault = replace(fault, details=details, cause=cause)
        attempt.failure = self._built(attempt, fault, pack, retryable)  # decided: what follows only adds to it
        if pack.alive and fault.observe_after:  # replacement targets for a failed target: shown, never applied
            details = with_suggestions(ctx.page, ctx.places, attempt, fault.code, details, fault.failed_conditions,
                                       ctx.retry.retries(attempt, code, retryable), ctx.run.redactor)
            if details is not fault.details:
                attempt.failure = self._built(attempt, replace(fault, details=details), pack, retryable)
        return attempt.failure

    def _built(self, attempt: StepAttempt, fault: Fault, pack: FailureEvidence, retryable: bool) -> ExecutorFailure:
        run = self.ctx.run
        return ExecutorFailure(build_error(attempt, fault, pack, retryable, run.run_id, run.trace.next_seq,
                                           run.redactor))

    def output_write_failed(self, exc: OutputWriteFailed, spec: ActionSpec | None, index: int | None) -> ExecutorError:
        """OUTPUT_WRITE_FAILED: the run folder stopped taking files (the engine frees its reserve first)."""
        step_id = spec.id if spec else None
        message = self.ctx.run.redactor.text(f"cannot write the run's artifacts: {exc.strerror}: {exc.path}")
        state = self.ctx.observer.last.signature if self.ctx.observer.last else None
        ref = self.ctx.run.evidence.add_json("state_signature", "state/output_write_failed.json", {
            "state_before": state.model_dump(mode="json") if state else None,
            "last_url": state.url if state else None,
            "reason": message,
        }, step_id=step_id)
        return ExecutorError(
            error_code=ErrorCode.OUTPUT_WRITE_FAILED, stage="evidence", severity="critical", message=message,
            retryable=False, run_id=self.ctx.run.run_id, seq=self.ctx.run.trace.next_seq, step_index=index, action_id=step_id,
            action_kind=spec.kind if spec else None, criticality=spec.criticality if spec else None,
            state_before=state, evidence_refs=[ref], created_at=utc_now_iso(),
            cause=self.ctx.run.redactor.text(str(exc)),
            details={"path": self.ctx.run.redactor.text(str(exc.path)), "errno": exc.errno, "strerror": exc.strerror},
        )

    def page_stopped(self, attempt: StepAttempt, what: str, waited_ms: int, *,
                     probed: bool = False) -> ExecutorFailure:
        """A call got no answer in time: a stuck page, a dying one, or one that never settles.

        A pending navigation is stopped first: while one is pending, the page
        answers nothing, stuck or not. ``probed``: the caller has already found
        that the page runs no script, so it is not asked again.
        """
        if attempt.failure is not None:  # its failure was decided before the watchdog fired (for_fault)
            return attempt.failure
        answered = False
        if not probed:
            stop_loading(self.ctx.page)
            answered = self.ctx.watch.answers()
        if self.ctx.events.crashed or (not answered and self.ctx.watch.wait_for_crash()):
            return self.crashed(attempt, what, f"{what}: the page crashed while the executor waited for it")
        verdict = unresponsive({"during": what, "waited_ms": waited_ms, "probe": "answered" if answered else "no answer",
                                "timeout_ms": attempt.spec.timeout_ms})
        return self.fail(attempt, verdict.code, "execution", verdict.message, details=verdict.details,
                         retryable=False, observe_after=verdict.observe_after)

    def tampered(self, attempt: StepAttempt, what: str, problem: str) -> ExecutorFailure:
        """PAGE_UNRESPONSIVE, probe ``malformed answer``: the page broke one of the executor's scripts
        (it replaced a built-in they use), so it cannot be observed; as a stuck page, never retried and
        closed after (docs/executor.md, "A page that tampers with the executor's scripts")."""
        if attempt.failure is not None:  # decided before (for_fault)
            return attempt.failure
        return self.fail(attempt, ErrorCode.PAGE_UNRESPONSIVE, "execution",
                         f"the page gave no usable answer to the {what}: {problem}",
                         details={"during": what, "probe": "malformed answer", "problem": problem},
                         retryable=False, observe_after=False)

    def crashed(self, attempt: StepAttempt, during: str, cause: str) -> ExecutorFailure:
        self.ctx.events.crashed = True
        if attempt.failure is not None:  # decided before the crash; the run knows of the crash (events.crashed)
            return attempt.failure
        return self.fail(attempt, ErrorCode.BROWSER_CRASHED, "execution", "the page or browser crashed",
                         details={"during": during}, cause=cause, retryable=False)

    def halt(self, attempt: StepAttempt, halt: Halt) -> ExecutorFailure:
        details = {"policy_reason": halt.reason, "policy_thresholds": self.ctx.policy.thresholds(), **halt.details}
        message = halt_line(halt.reason, halt.details, self.ctx.policy.policy)  # the key, its value, how to raise it
        return self.fail(attempt, ErrorCode.POLICY_HALT, "policy", message,
                         details=details, severity="critical", retryable=False)

    def reject(self, raw: Any, problems: list[Problem]) -> ExecutorFailure:
        """A planner's proposal that failed validation: the page is not touched."""
        error = self.bare_error(
            ErrorCode.INVALID_ACTIONSPEC, "proposal_validation",
            f"proposal rejected: {problems[0].key_path or 'step'}: {problems[0].message}",
            details={"validation_errors": [p.as_dict() for p in problems],
                     "violated_rules": sorted({p.rule for p in problems})},
            action_id=raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None,
            action_kind=raw.get("kind") if isinstance(raw, dict) and isinstance(raw.get("kind"), str) else None,
            target=raw.get("target") if isinstance(raw, dict) else None,
        )
        self.ctx.journal.proposal_refused(error)
        return ExecutorFailure(error)

    def bare_error(self, code: ErrorCode, stage: str, message: str, *, details: dict[str, Any] | None = None,
                   action_id: str | None = None, action_kind: str | None = None, target: Any = None) -> ExecutorError:
        """An error with no step observation (proposal rejections): the report, and the page as the executor knows it.

        A rejected proposal never touches the page: its partial snapshot is the
        executor's own (the URL, the proposed target, the last observation).
        """
        seq = self.ctx.run.trace.next_seq
        evidence = self.ctx.run.evidence
        with evidence.batch():
            refs = [evidence.add_json("validation_report", f"proposals/proposal_{seq:05d}.json",
                                      {"message": message, **(details or {})}),
                    evidence.add_json("dom_snapshot_partial", f"dom/proposal_{seq:05d}_executor.json", executor_snapshot(
                        self.ctx.page.url, target, None, self.ctx.observer.last, f"not observed: {message}"))]
        gaps = Gaps()
        gaps.add("state_signature", "a rejected proposal is not run: the page is not observed for it")
        return ExecutorError(
            error_code=code, stage=stage, severity="error", message=self.ctx.run.redactor.text(message), retryable=False,
            run_id=self.ctx.run.run_id, seq=seq, step_index=None, action_id=action_id,
            action_kind=action_kind, criticality=None, state_before=None, evidence_refs=refs,
            created_at=utc_now_iso(), details=self.ctx.run.redactor.tree(gaps.into(details) or {}),
        )


# -- a plan that failed validation ---------------------------------------------


def invalid_plan_error(invalid: InvalidPlan, run_id: str, seq: int, evidence_refs: list) -> ExecutorError:
    problems = [p.as_dict() for p in invalid.problems]
    first = invalid.problems[0] if invalid.problems else None
    message = f"plan failed validation: {len(problems)} problem(s)"
    if first is not None:
        message += f"; first: {first.key_path or 'document'}: {first.message}"
    return ExecutorError(
        error_code=ErrorCode.INVALID_ACTIONSPEC, stage="proposal_validation", severity="error", message=message,
        retryable=False, run_id=run_id, seq=seq, step_index=None, action_id=None, action_kind=None, criticality=None,
        state_before=None, evidence_refs=evidence_refs, created_at=utc_now_iso(),
        details={"validation_errors": problems, "violated_rules": invalid.violated_rules,
                 "steps": list(invalid.problem_steps), "evidence_gaps": [
                     {"kind": kind, "reason": "no page: the plan failed validation before a browser was used"}
                     for kind in ("dom_snapshot_partial", "state_signature")]},
    )
