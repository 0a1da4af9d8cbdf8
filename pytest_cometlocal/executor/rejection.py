"""Recording a plan that failed validation: no browser, but a full audit trail.

The run folder gets run_manifest.json, a trace (run_started,
proposal_rejected, evidence_captured, error_raised, run_finished) and the
validation report as the error's evidence, so an invalid plan is as
auditable as a failed one.
"""

from __future__ import annotations

from pathlib import Path

from ..contract.codes import ErrorCode
from ..contract.policy import Policy
from ..contract.records import ExecutorError
from ..contract.validator import InvalidPlan
from .clock import utc_now_iso
from .runfolder import RunFolder


def invalid_plan_error(invalid: InvalidPlan, run_id: str, seq: int, evidence_refs: list) -> ExecutorError:
    problems = [p.as_dict() for p in invalid.problems]
    first = invalid.problems[0] if invalid.problems else None
    message = f"plan failed validation: {len(problems)} problem(s)"
    if first is not None:
        message += f"; first: {first.key_path or 'document'}: {first.message}"
    return ExecutorError(
        error_code=ErrorCode.INVALID_ACTIONSPEC,
        stage="proposal_validation",
        severity="error",
        message=message,
        retryable=False,
        run_id=run_id,
        seq=seq,
        step_index=None,
        action_id=None,
        action_kind=None,
        criticality=None,
        state_before=None,
        evidence_refs=evidence_refs,
        created_at=utc_now_iso(),
        details={
            "validation_errors": problems,
            "violated_rules": invalid.violated_rules,
            "steps": list(invalid.problem_steps),
        },
    )


def record_invalid_plan(invalid: InvalidPlan, output: Path, mode: str = "live") -> tuple[RunFolder, ExecutorError]:
    """Write the run folder of an invalid plan and return it with its typed error."""
    run = RunFolder.create(
        output,
        invalid.item_name,
        mode=mode,
        policy=Policy(),
        allowlist=(),
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
        run.trace.emit("evidence_captured", evidence_refs=[ref], metadata={"manifest_uri": "evidence_manifest.json"})
        run.trace.emit("error_raised", error=error)
        run.trace.emit("run_finished", metadata={"status": "failed", "error_code": error.error_code.value})
    finally:
        run.finish("failed", error_code=ErrorCode.INVALID_ACTIONSPEC.value)
    return run, error
