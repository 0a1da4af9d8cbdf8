"""A step's element, resolved once per attempt, or the typed reason it could not be.

The step's alternatives are polled in U4 order until one matches exactly one
element (locators.resolve); the ResolvedTarget it gives (target, locator,
description, DOM context) is what the action, the conditions on the step's
own target and the "before" snapshot use. No match is TARGET_NOT_FOUND,
several TARGET_NOT_UNIQUE; looks that got no answer on a page that no longer
runs scripts are PAGE_UNRESPONSIVE, not a missing element.
"""

from __future__ import annotations

from typing import Any

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import PageUnresponsive
from pytest_cometlocal.executor.step.failures import Failures
from pytest_cometlocal.executor.page.locators import resolve
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.step.context import StepContext

U4_ORDER = list(T.U4_ORDER)


def resolve_step_target(ctx: StepContext, attempt: StepAttempt, failures: Failures) -> dict[str, Any] | None:
    """Resolve the step's target once for this attempt; returns what preconditions_checked records."""
    spec = attempt.spec
    if not spec.alternatives:  # (v1.1) an optional target left out (scroll's): nothing to resolve
        return None
    resolution = resolve(ctx.page, spec.alternatives, spec.timeout_ms)
    metadata = {"attempts": [a.as_dict() for a in resolution.attempts], "rounds": resolution.rounds}
    if resolution.resolved is not None:
        attempt.target = resolution.resolved
        return {"resolved": resolution.resolved.description, **metadata}
    if resolution.unanswered and not ctx.watch.answers():
        raise PageUnresponsive("target resolution", spec.timeout_ms, "no answer")
    target = (spec.target.model_dump(mode="json") if not isinstance(spec.target, list)
              else [t.model_dump(mode="json") for t in spec.target])
    details = {
        "target": target,
        "target_resolution_order": U4_ORDER,
        "count_observed": resolution.max_count,
        "attempts": [a.as_dict() for a in resolution.attempts[-len(spec.alternatives):]],
    }
    if resolution.max_count > 1:
        details["matches_sample"] = resolution.sample
        raise failures.fail(attempt, ErrorCode.TARGET_NOT_UNIQUE, "precondition",
                        f"target resolution returned {resolution.max_count} matches; requires exactly 1",
                        details=details)
    raise failures.fail(attempt, ErrorCode.TARGET_NOT_FOUND, "precondition",
                        "target resolution returned 0 matches; requires exactly 1", details=details)
