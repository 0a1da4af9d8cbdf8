"""A step's element, resolved once per attempt, or the typed reason it could not be.

The step's alternatives are polled in U4 order until one matches exactly one
element (locators.resolve); the ResolvedTarget it gives (target, locator,
description, DOM context) is what the action, the conditions on the step's
own target and the "before" snapshot use. No match is TARGET_NOT_FOUND,
several TARGET_NOT_UNIQUE; looks that got no answer on a page that no longer
runs scripts are PAGE_UNRESPONSIVE, not a missing element. A drag's ``to``
(v1.1) is resolved the same way, in the time the step's own target left; its
failures say ``details.which: "to"`` (and the drag's own target's ``"target"``).
"""

from __future__ import annotations

import time
from typing import Any

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import PageUnresponsive
from pytest_cometlocal.executor.step.failures import Failures
from pytest_cometlocal.executor.page.locators import ResolvedTarget, resolve
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.step.context import StepContext

U4_ORDER = list(T.U4_ORDER)


def resolve_step_target(ctx: StepContext, attempt: StepAttempt, failures: Failures) -> dict[str, Any] | None:
    """Resolve the step's target (and a drag's ``to``) once for this attempt; returns what preconditions_checked
    records, None for a step without a target (a ``press`` acts on what has focus)."""
    spec = attempt.spec
    if not spec.alternatives:
        return None
    started = time.monotonic()
    # Only a step with a second element (v1.1's drag) says which of the two failed: v1 details stay as they were.
    which = {"which": "target"} if spec.to is not None else {}
    attempt.target, metadata = _resolve(ctx, attempt, failures, spec.target, spec.timeout_ms, which)
    if spec.to is not None:
        left_ms = max(0, spec.timeout_ms - int((time.monotonic() - started) * 1000))
        attempt.to_target, to = _resolve(ctx, attempt, failures, spec.to, left_ms, {"which": "to"})
        metadata["to"] = to
    return metadata


def _resolve(ctx: StepContext, attempt: StepAttempt, failures: Failures, spec_target: Any, timeout_ms: int,
             which: dict[str, str]) -> tuple[ResolvedTarget, dict[str, Any]]:
    """One target of the step (its own, or ``to``) resolved, with its record; or the step's typed failure."""
    alternatives = spec_target if isinstance(spec_target, list) else [spec_target]
    resolution = resolve(ctx.page, alternatives, timeout_ms)
    metadata = {"attempts": [a.as_dict() for a in resolution.attempts], "rounds": resolution.rounds}
    if resolution.resolved is not None:
        return resolution.resolved, {"resolved": resolution.resolved.description, **metadata}
    if resolution.unanswered and not ctx.watch.answers():
        raise PageUnresponsive("target resolution", attempt.spec.timeout_ms, "no answer")
    details = {
        **which,
        "target": [t.model_dump(mode="json") for t in alternatives] if isinstance(spec_target, list)
        else spec_target.model_dump(mode="json"),
        "target_resolution_order": U4_ORDER,
        "count_observed": resolution.max_count,
        "attempts": [a.as_dict() for a in resolution.attempts[-len(alternatives):]],
    }
    name = "`to`" if which.get("which") == "to" else "target"
    if resolution.max_count > 1:
        details["matches_sample"] = resolution.sample
        raise failures.fail(attempt, ErrorCode.TARGET_NOT_UNIQUE, "precondition",
                            f"{name} resolution returned {resolution.max_count} matches; requires exactly 1",
                            details=details)
    raise failures.fail(attempt, ErrorCode.TARGET_NOT_FOUND, "precondition",
                        f"{name} resolution returned 0 matches; requires exactly 1", details=details)
