"""(v1.2) A step's saves, taken once its postconditions hold: ``save:`` on a request, ``save_text:`` on
an assert or wait_for.

A request's values come from its last response (executor/http/saves.py); a
pointer or header that names nothing is POSTCONDITION_FAILED on this step,
its failed condition ``response_json`` / ``response_header`` with the
response it looked at. ``save_text`` stores the target's text as the text
conditions read it (page/texts.py); a target that is not one element then is
POSTCONDITION_FAILED too. The values go into the item's SavedValues and the
step's ``postconditions_checked`` / ``assert_checked`` event (``saved``),
masked there only where they hold a secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.executor.http import saves
from pytest_cometlocal.executor.http.exchange import observed
from pytest_cometlocal.executor.page.locators import resolve_now
from pytest_cometlocal.executor.page.texts import element_text
from pytest_cometlocal.executor.step.saved import SavedValues

if TYPE_CHECKING:
    from pytest_cometlocal.executor.results import StepAttempt
    from pytest_cometlocal.executor.step.failures import Failures


def keep_saves(failures: Failures, attempt: StepAttempt, phase: str) -> None:
    """Take the step's saves into the item's saved values; raise the typed failure of one it cannot take."""
    ctx, spec = failures.ctx, attempt.spec
    mask = ctx.run.redactor.text
    values: dict[str, str] = {}
    if spec.save and attempt.response is not None:
        values, missing = saves.take(attempt.response, spec.save)
        if missing is not None:
            seen = observed(attempt.response, mask, problem=missing.problem)
            raise failures.fail(attempt, ErrorCode.POSTCONDITION_FAILED, "postcondition",
                                f"save {missing.name}: {missing.problem} ({spec.save[missing.name]})",
                                details={"save": missing.name},
                                failed_conditions=[FailedCondition(kind=missing.kind, args=missing.args, phase="post",
                                                                   observed=seen)])
    if spec.save_text:
        values[spec.save_text] = _target_text(failures, attempt, phase)
    refused = SavedValues.refused(values)
    if refused is not None:
        raise failures.fail(attempt, ErrorCode.POSTCONDITION_FAILED, "postcondition",
                            f"save {refused}: a saved value cannot hold a ${{secrets.NAME}} reference",
                            details={"save": refused})
    ctx.saved.keep(values)
    # Masked as text before the trace encodes it: a secret inside a saved JSON text is escaped once there,
    # and would be escaped twice in the trace line, where no mask would know it.
    attempt.saved = {name: mask(value) for name, value in values.items()}


def _target_text(failures: Failures, attempt: StepAttempt, phase: str) -> str:
    """The text of the step's target, which must be exactly one element now."""
    ctx, spec = failures.ctx, attempt.spec
    if attempt.target is not None:
        locator = attempt.target.locator
    else:
        resolution = resolve_now(ctx.page, spec.alternatives)
        if resolution.resolved is None:
            counts = [a.count for a in resolution.attempts]
            raise failures.fail(attempt, ErrorCode.POSTCONDITION_FAILED, "postcondition",
                                f"save_text {spec.save_text}: the target is not one element",
                                details={"save": spec.save_text},
                                failed_conditions=[FailedCondition(kind="element_exists", args={}, phase=phase,
                                                                   observed={"counts": counts})])
        locator = resolution.resolved.locator
    return element_text(locator)
