"""Every typed error the executor raises is built here, with its evidence pack.

``Failures.fail`` is the one factory of a step's ExecutorError: it writes the
evidence (DOM snapshots, and the full page and screenshots where the code
asks for them and the page can still be looked at; the executor's own partial
snapshot when the page could not be read), names what could not be taken in
``details.evidence_gaps`` (evidence_gaps.py), emits evidence_captured
and masks secrets in every field; for a failed target it adds suggested
replacement targets, never applied (suggestions.py). ``Failures.reject`` types a planner's
invalid proposal; ``record_invalid_plan`` gives a plan that failed validation
a complete run folder without a browser.
"""

from __future__ import annotations

from pathlib import Path
from dataclasses import dataclass
from typing import Any

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.policy import Policy
from pytest_cometlocal.contract.model.problems import Problem
from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError, FailedCondition, StateSignature
from pytest_cometlocal.contract.validate.validated import InvalidPlan
from pytest_cometlocal.executor.runfolder.clock import utc_now_iso
from pytest_cometlocal.executor.errors import ExecutorFailure, first_line
from pytest_cometlocal.executor.page.observation import Observation
from pytest_cometlocal.executor.step.observer import Observer
from pytest_cometlocal.executor.page.events import PageEvents
from pytest_cometlocal.executor.step.budget import Halt, PolicyState
from pytest_cometlocal.executor.results import ExecutorSettings, StepAttempt
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST
from pytest_cometlocal.executor.step.evidence_gaps import Gaps, executor_snapshot, picture_reason
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.step.evidence import write_dom, write_html, write_screenshot
from pytest_cometlocal.executor.suggest.places import TargetPlaces
from pytest_cometlocal.executor.suggest.suggester import with_suggestions
from pytest_cometlocal.executor.step.action_failure import unresponsive
from pytest_cometlocal.executor.page.settle import stop_loading
from pytest_cometlocal.executor.page.watchdog import FAILURE_EVIDENCE_MS, CallTimedOut, PageWatch, bound

# Codes whose evidence is the whole page (html and screenshots) whatever the stage.
_EXTENDED_CODES = (ErrorCode.OVERLAY_BLOCKING, ErrorCode.AUTH_FAILED, ErrorCode.DOWNLOAD_FAILED)
# Codes after which the page cannot be looked at again.
PAGE_GONE = (ErrorCode.BROWSER_CRASHED, ErrorCode.PAGE_UNRESPONSIVE)


@dataclass
class Failures:
    page: Any
    run: RunFolder
    settings: ExecutorSettings
    events: PageEvents
    observer: Observer
    policy: PolicyState
    watch: PageWatch
    places: TargetPlaces  # where earlier steps found their targets (for suggestions)

    def fail(self, attempt: StepAttempt, code: ErrorCode, stage: str, message: str, *,
             details: dict[str, Any] | None = None, failed_conditions: list[FailedCondition] | None = None,
             cause: str | None = None, severity: str = "error", retryable: bool | None = None,
             observe_after: bool = True, extended: bool | None = None) -> ExecutorFailure:
        """Build the typed error of a failed attempt, with its evidence pack."""
        spec = attempt.spec
        evidence = self.run.evidence
        after: Observation | None = None
        refs: list[EvidenceRef] = []
        state_before: StateSignature | None = attempt.before.signature if attempt.before else None
        alive = not self.events.crashed and code not in PAGE_GONE
        # Why a piece of the pack could not be taken: named in details.evidence_gaps.
        gone = None if alive else self._gone_reason(code, message)
        reasons: dict[str, str | None] = {"after": gone or (None if observe_after else f"not observed: {message}")}
        fallback = "not taken"
        # Every failure shows the page: the screenshots before and at the failure (the
        # "after" observation), whatever the stage. The full HTML as the errors contract
        # asks: critical steps, execution and postcondition failures, a few codes.
        with_html = extended if extended is not None else (
            spec.criticality == "critical" or stage in ("execution", "postcondition") or code in _EXTENDED_CODES)
        try:
            with evidence.batch():  # the whole pack, listed with one manifest rewrite
                try:
                    with bound("evidence of the failure", FAILURE_EVIDENCE_MS, isolated=True):
                        # What is already in hand first: a bound running out later cannot lose it.
                        if attempt.before is not None:
                            refs.append(write_dom(evidence, attempt, "before", attempt.before))
                        refs += write_screenshot(evidence, attempt, "before", attempt.before)
                        if alive and observe_after:
                            try:
                                after = self.observer.observe(full=True)
                            except Exception as exc:
                                after = None
                                reasons["after"] = f"the page could not be observed after the failure: {first_line(exc)}"
                        if after is not None:
                            refs.append(write_dom(evidence, attempt, "after", after))
                            refs += write_screenshot(evidence, attempt, "after", after)
                        if alive and with_html:
                            refs += write_html(self.page, evidence, attempt, missing=reasons)
                except CallTimedOut as exc:  # the page stopped answering meanwhile: what was written stays
                    fallback = str(exc)
        except OSError as exc:
            # The file that failed is not in refs; when the end of the batch
            # failed too, none of the batch is listed: keep what the manifest has.
            refs = [ref for ref in refs if evidence.listed(ref)]
            cause = (cause or "") + f" (evidence write failed: {exc.strerror})"
            fallback = f"evidence write failed: {exc.strerror}"
        gaps = Gaps()
        if not any(ref.kind == "dom_snapshot_partial" for ref in refs):
            # Even a page that cannot be asked anything leaves a partial snapshot:
            # what the executor knows of it without the renderer.
            refs.append(evidence.add_json("dom_snapshot_partial", f"dom/{attempt.tag}_executor.json", executor_snapshot(
                self.page.url, spec.model_dump(mode="json", exclude_none=True).get("target"),
                attempt.target.context if attempt.target else None, self.observer.last,
                gone or (f"not observed: {message}" if not observe_after else fallback)), step_id=spec.id))
        if state_before is None:
            gaps.add("state_signature", f"no observation before the step: {gone or message}")
        before_reason = picture_reason(attempt.before) if attempt.before else f"not observed: {gone or message}"
        after_reason = reasons.get("after") or picture_reason(after, full=True)
        gaps.screenshots(refs, {"before": before_reason, "after": after_reason}, fallback)
        if with_html and not any(ref.kind == "html_full" for ref in refs):
            gaps.add("html_full", gone or reasons.get("html_full") or fallback)
        details = gaps.into(details)
        attempt.evidence.extend(refs)
        self.run.trace.emit("evidence_captured", spec.id, before=state_before, after=after.signature if after else None,
                            evidence_refs=refs, metadata={"manifest_uri": EVIDENCE_MANIFEST, "for_error": code.value})
        source = self.settings.step_sources.get(spec.id)
        if source and len(source) > 1:  # a step of a step group: the plan line and the group lines
            details = {**(details or {}), "source": list(source)}
        is_retryable = retryable if retryable is not None else (
            spec.criticality != "critical"
            and (code.value in self.settings.policy.retry_on
                 or (code.value in self.settings.recovery_on and not attempt.recovery)))
        if alive and observe_after:  # replacement targets for a failed target: shown, never applied
            policy = self.settings.policy
            will_retry = is_retryable and code.value in policy.retry_on and attempt.attempt <= policy.retries_per_action
            details = with_suggestions(self.page, self.places, attempt, code, details, failed_conditions, will_retry,
                                       self.run.redactor)
        redact = self.run.redactor
        error = ExecutorError(
            error_code=code,
            stage=stage,
            severity=severity,
            message=redact.text(message),
            retryable=is_retryable,
            run_id=self.run.run_id,
            seq=self.run.trace.next_seq,
            step_index=attempt.index,
            action_id=spec.id,
            action_kind=spec.kind,
            criticality=spec.criticality,
            state_before=state_before,
            state_after=after.signature if after else None,
            evidence_refs=refs,
            created_at=utc_now_iso(),
            cause=redact.text(cause) if cause else None,
            details=redact.tree(details or {}),
            failed_conditions=[FailedCondition(**redact.tree(fc.model_dump())) for fc in (failed_conditions or [])],
        )
        return ExecutorFailure(error)

    def output_write_failed(self, exc: Any, spec: Any, index: int | None) -> ExecutorError:
        """OUTPUT_WRITE_FAILED: the run folder stopped taking files (the engine frees its reserve first)."""
        step_id = spec.id if spec else None
        message = self.run.redactor.text(f"cannot write the run's artifacts: {exc.strerror}: {exc.path}")
        state = self.observer.last.signature if self.observer.last else None
        ref = self.run.evidence.add_json("state_signature", "state/output_write_failed.json", {
            "state_before": state.model_dump(mode="json") if state else None,
            "last_url": state.url if state else None,
            "reason": message,
        }, step_id=step_id)
        return ExecutorError(
            error_code=ErrorCode.OUTPUT_WRITE_FAILED, stage="evidence", severity="critical", message=message,
            retryable=False, run_id=self.run.run_id, seq=self.run.trace.next_seq, step_index=index, action_id=step_id,
            action_kind=spec.kind if spec else None, criticality=spec.criticality if spec else None,
            state_before=state, evidence_refs=[ref], created_at=utc_now_iso(),
            cause=self.run.redactor.text(str(exc)),
            details={"path": self.run.redactor.text(str(exc.path)), "errno": exc.errno, "strerror": exc.strerror},
        )

    def page_stopped(self, attempt: StepAttempt, what: str, waited_ms: int, *,
                     probed: bool = False) -> ExecutorFailure:
        """A call got no answer in time: a stuck page, a dying one, or one that never settles.

        A pending navigation is stopped first: while one is pending, the page
        answers nothing, stuck or not. ``probed``: the caller has already found
        that the page runs no script, so it is not asked again.
        """
        answered = False
        if not probed:
            stop_loading(self.page)
            answered = self.watch.answers()
        if self.events.crashed or (not answered and self.watch.wait_for_crash()):
            return self.crashed(attempt, what, f"{what}: the page crashed while the executor waited for it")
        verdict = unresponsive({"during": what, "waited_ms": waited_ms, "probe": "answered" if answered else "no answer",
                                "timeout_ms": attempt.spec.timeout_ms})
        return self.fail(attempt, verdict.code, "execution", verdict.message, details=verdict.details,
                         retryable=False, observe_after=verdict.observe_after)

    def _gone_reason(self, code: ErrorCode, message: str) -> str:
        """Why a page that died or stopped answering gives no more evidence."""
        if self.events.crashed or code == ErrorCode.BROWSER_CRASHED:
            return f"page crashed: {message}"
        return f"page unresponsive: {message}"

    def crashed(self, attempt: StepAttempt, during: str, cause: str) -> ExecutorFailure:
        self.events.crashed = True
        return self.fail(attempt, ErrorCode.BROWSER_CRASHED, "execution", "the page or browser crashed",
                         details={"during": during}, cause=cause, retryable=False)

    def halt(self, attempt: StepAttempt, halt: Halt) -> ExecutorFailure:
        details = {"policy_reason": halt.reason, "policy_thresholds": self.policy.thresholds(), **halt.details}
        return self.fail(attempt, ErrorCode.POLICY_HALT, "policy", f"policy halt: {halt.reason}",
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
        trace = self.run.trace
        trace.emit("proposal_received", error.action_id, metadata={"proposal_source": "planner"})
        trace.emit("proposal_rejected", error.action_id, error=error)
        trace.emit("error_raised", error.action_id, error=error)
        return ExecutorFailure(error)

    def bare_error(self, code: ErrorCode, stage: str, message: str, *, details: dict[str, Any] | None = None,
                   action_id: str | None = None, action_kind: str | None = None, target: Any = None) -> ExecutorError:
        """An error with no step observation (proposal rejections): the report, and the page as the executor knows it.

        A rejected proposal never touches the page: its partial snapshot is the
        executor's own (the URL, the proposed target, the last observation).
        """
        seq = self.run.trace.next_seq
        evidence = self.run.evidence
        with evidence.batch():
            refs = [evidence.add_json("validation_report", f"proposals/proposal_{seq:05d}.json",
                                      {"message": message, **(details or {})}),
                    evidence.add_json("dom_snapshot_partial", f"dom/proposal_{seq:05d}_executor.json", executor_snapshot(
                        self.page.url, target, None, self.observer.last, f"not observed: {message}"))]
        gaps = Gaps()
        gaps.add("state_signature", "a rejected proposal is not run: the page is not observed for it")
        return ExecutorError(
            error_code=code, stage=stage, severity="error", message=self.run.redactor.text(message), retryable=False,
            run_id=self.run.run_id, seq=seq, step_index=None, action_id=action_id,
            action_kind=action_kind, criticality=None, state_before=None, evidence_refs=refs,
            created_at=utc_now_iso(), details=self.run.redactor.tree(gaps.into(details) or {}),
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


def record_invalid_plan(invalid: InvalidPlan, output: Path, mode: str = "live") -> tuple[RunFolder, ExecutorError]:
    """Write the run folder of an invalid plan (no browser, a full audit trail) and return it with its typed error.

    The run folder gets run_manifest.json, a trace (run_started,
    proposal_rejected, evidence_captured, error_raised, run_finished) and the
    validation report as the error's evidence.
    """
    run = RunFolder.create(
        output, invalid.item_name, mode=mode, policy=Policy(), allowlist=(),
        plan_info={"file": invalid.source.file, "name": invalid.name, "line": invalid.source.mark.line,
                   "doc_index": invalid.source.doc_index},
    )
    try:
        run.trace.emit("run_started", metadata={"execution_mode": mode, "plan": invalid.name})
        report = {
            "schema_version": "v1",
            "plan": invalid.name,
            "file": invalid.source.file,
            "violated_rules": invalid.violated_rules,
            "problems": [p.as_dict() | {"text": p.format()} for p in invalid.problems],
        }
        ref = run.evidence.add_json("validation_report", "validation_report.json", report)
        # The error is created before it is emitted, so it records the seq of its first event.
        error = invalid_plan_error(invalid, run.run_id, run.trace.next_seq, [ref])
        run.trace.emit("proposal_rejected", error=error, metadata={"problem_count": len(invalid.problems)})
        run.trace.emit("evidence_captured", evidence_refs=[ref], metadata={"manifest_uri": EVIDENCE_MANIFEST})
        run.trace.emit("error_raised", error=error)
        run.trace.emit("run_finished", metadata={"status": "failed", "error_code": error.error_code.value})
    finally:
        run.finish("failed", error_code=ErrorCode.INVALID_ACTIONSPEC.value)
    return run, error
