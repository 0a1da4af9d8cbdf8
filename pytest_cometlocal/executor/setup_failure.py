"""(v1.2) The run of a plan whose browser context could not be made: a complete run folder, no step.

A refusal (``browser.context_failure.ContextRefused``) happens before the
executor exists, so no step runs and no page is observed; the run still gets
what every run gets: run_manifest.json (with the plan's settings and the
error's code), and a trace that verifies (run_started, evidence_captured,
error_raised, run_finished), the refusal's report as the error's evidence.
A refusal pinned on a plan setting is INVALID_ACTIONSPEC with that setting's
rule, located at its key (file:line:col, the suite config's when it came
from there), as a load-time problem would be; else BROWSER_CRASHED.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.problems import Problem
from pytest_cometlocal.contract.browsers import CHROMIUM_ONLY, chromium_only_features, device_has_touch
from pytest_cometlocal.contract.model.plan import Plan
from pytest_cometlocal.contract.model.records import ExecutorError, FailedCondition
from pytest_cometlocal.contract.settings import EffectiveSettings
from pytest_cometlocal.contract.validate.settings_rules import locate_setting
from pytest_cometlocal.executor.errors import Refusal
from pytest_cometlocal.executor.runfolder.clock import utc_now_iso
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.step.journal import StepJournal

_NO_PAGE = "no page: the browser context could not be made, so no step ran"


BROWSER_FEATURES = "browser_features"  # the refusal's ``during``: the plan's features checked against the browser


@dataclass(frozen=True)
class BrowserFeatureRefusal(Refusal):
    """(v1.4) A refusal of a Chromium-only feature on ``browser``: ``condition`` failed, at ``where`` (``step``)."""

    feature: str = ""
    condition: str = ""
    where: str = ""
    step: str | None = None
    browser: str = ""
    step_index: int | None = None  # the step's index in ``steps`` (None: a plan key or a recovery step)
    kind: str | None = None
    criticality: str | None = None

    def failed_condition(self) -> FailedCondition:
        return FailedCondition(kind=self.condition, args={}, phase="pre", observed={"browser": self.browser})

    def details(self) -> dict[str, Any]:
        return {"browser": self.browser, "unavailable": self.condition, "feature": self.feature, "where": self.where,
                **({"step": self.step} if self.step else {})}


def browser_feature_refusal(plan: Plan | None, browser: str) -> BrowserFeatureRefusal | None:
    """The refusal of ``plan`` on ``browser`` for its first use of a feature only Chromium has, else None
    (always None on Chromium)."""
    if plan is None or browser == "chromium":
        return None
    uses = chromium_only_features(plan)
    if not uses:
        return None
    use = uses[0]
    step = next((s for s in plan.all_steps() if use.step is not None and s.id == use.step), None)
    index = use.loc[1] if use.loc[:1] == ("steps",) and step is not None else None
    more = f" (and {len(uses) - 1} more use{'s' if len(uses) > 2 else ''})" if len(uses) > 1 else ""
    cause = f"{use.describe()} needs Chromium: {use.why}; {browser} has no such thing{more}"
    return BrowserFeatureRefusal(ErrorCode.PRECONDITION_FAILED, BROWSER_FEATURES, cause, feature=str(use),
                                 condition=use.condition, where=use.where, step=use.step, browser=browser,
                                 step_index=index, kind=step.kind if step else None,
                                 criticality=step.criticality if step else None)


def device_refusal(device: str | None, browser: str, where: str = "--cometlocal-device") -> BrowserFeatureRefusal | None:
    """The refusal of a touch device given outside the plan (the command line's) on a browser without touch
    emulation, else None (always None on Chromium; a plan's own ``browser.device`` is ``browser_feature_refusal``'s)."""
    if device is None or browser == "chromium" or not device_has_touch(device):
        return None
    condition, why = CHROMIUM_ONLY["touch"]
    return BrowserFeatureRefusal(ErrorCode.PRECONDITION_FAILED, BROWSER_FEATURES,
                                 f"touch ({where} {device!r}) needs Chromium: {why}; {browser} has no such thing",
                                 feature="touch", condition=condition, where=where, browser=browser)


def refusal_problem(eff: EffectiveSettings, refusal: Refusal, data: bytes | None = None) -> Problem | None:
    """The refusal as a located problem of the plan (None when it is pinned on no key)."""
    if refusal.key is None or refusal.rule is None:
        return None
    file, mark = locate_setting(eff.plan.source, refusal.key, data)
    what = "the saved state" if refusal.key == "storage_state" else "it"
    return Problem(file, mark, refusal.key, f"the browser refused {what} when the run's context was made "
                   f"({refusal.during}): {refusal.cause}", refusal.rule)


def refusal_error(refusal: Refusal, problem: Problem | None, run: RunFolder, refs: list) -> ExecutorError:
    details: dict[str, Any] = {"during": refusal.during, "evidence_gaps": [
        {"kind": kind, "reason": _NO_PAGE} for kind in ("dom_snapshot_partial", "state_signature")]}
    if problem is not None:
        message = f"the browser refused the plan's {problem.key_path} ({refusal.during}): {refusal.cause}"
        details |= {"setting": problem.key_path, "validation_errors": [problem.as_dict()],
                    "violated_rules": [problem.rule]}
        stage = "proposal_validation"
    elif isinstance(refusal, BrowserFeatureRefusal):
        message = f"{refusal.feature} needs Chromium: {refusal.browser} cannot run it (failed condition {refusal.condition})"
        details |= refusal.details()
        stage = "execution"
    else:
        message = f"the browser context could not be made ({refusal.during}): {refusal.cause}"
        stage = "execution"
    feature = refusal if isinstance(refusal, BrowserFeatureRefusal) else None
    redact = run.redactor
    return ExecutorError(
        error_code=refusal.code, stage=stage, severity="error", message=redact.text(message), retryable=False,
        run_id=run.run_id, seq=run.trace.next_seq, step_index=feature and feature.step_index,
        action_id=feature and feature.step, action_kind=feature and feature.kind,
        criticality=feature and feature.criticality, state_before=None, evidence_refs=refs, created_at=utc_now_iso(),
        cause=redact.text(refusal.cause), details=redact.tree(details),
        failed_conditions=[feature.failed_condition()] if feature else [],
    )


def record_refusal(eff: EffectiveSettings, run: RunFolder, refusal: Refusal, data: bytes | None = None,
                   metadata: dict[str, Any] | None = None) -> ExecutorError:
    """Write into ``run`` (a new run folder: ``executor.session.create_run_folder``) the record of a run whose
    context was refused, finish it, and return the typed error.

    ``data``: the plan file's bytes as validated, for the setting's exact line; ``metadata``: run_started's
    (the item's node id). Raises OutputWriteFailed when the folder cannot be written.
    """
    journal = StepJournal(run.trace)
    problem = refusal_problem(eff, refusal, data)
    error: ExecutorError | None = None
    try:
        journal.run_started({"execution_mode": eff.mode, "plan": eff.plan.name, **(metadata or {})})
        report = {"schema_version": "v1", "plan": eff.plan.name, "during": refusal.during,
                  "error_code": refusal.code.value, "cause": refusal.cause,
                  "problems": [problem.as_dict() | {"text": problem.format()}] if problem else []}
        ref = run.evidence.add_json("validation_report", "context_refused.json", run.redactor.tree(report))
        journal.run_evidence([ref])
        error = refusal_error(refusal, problem, run, [ref])  # made just before it is emitted: its seq is error_raised's
        journal.error_raised(error)
        journal.run_finished({"status": "failed", "error_code": error.error_code.value, "steps_executed": 0})
    finally:
        run.finish("failed", error_code=(error.error_code if error else ErrorCode.BROWSER_CRASHED).value)
    return error
