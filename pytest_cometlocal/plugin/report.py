"""Failure text of a plan item: the code first, then what a QA engineer needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..contract.records import ExecutorError
from ..contract.validator import ValidPlan


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def failure_text(plan: ValidPlan, error: ExecutorError, run_dir: Path | None) -> str:
    step = error.action_id
    line = plan.source.step_marks.get(step) if step else None
    where = f"{plan.source.file}:{line.line}" if line else f"{plan.source.file}:{plan.source.mark.line}"
    head = f"{error.error_code.value} at step '{step}' ({error.action_kind}, {error.criticality}) — {where}" if step else \
        f"{error.error_code.value} — {where}"
    lines = [head, f"  {error.message}"]
    for fc in error.failed_conditions:
        args = _short(fc.args) if fc.args else ""
        what = "assert check" if fc.phase == "assert" else f"{fc.phase}condition"
        lines.append(f"  failed {what} {fc.kind} {args} observed: {_short(fc.observed)}")
    details = error.details
    for key in ("count_observed", "matches_sample", "host", "allowlist", "auth_signal", "overlay_selector",
                "overlay_text", "policy_reason", "critical_reason", "net_error", "timeout_ms", "file_ref", "attempts"):
        if key in details and details[key] not in (None, [], {}):
            lines.append(f"  {key}: {_short(details[key])}")
    if error.cause:
        lines.append(f"  cause: {_short(error.cause, 300)}")
    if run_dir is not None:
        lines.append(f"  run folder: {run_dir}")
    return "\n".join(lines)
