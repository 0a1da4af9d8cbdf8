"""From an executor outcome to a pytest outcome, as the plan format's table says.

Pure functions, so the rules (``expect`` matching, failure text) are unit
tested without pytest's machinery.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pytest_cometlocal.contract.expectation import expectation_met
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.plan import Expect
from pytest_cometlocal.contract.model.records import ExecutorError
from pytest_cometlocal.contract.validate.validated import InvalidPlan

MAX_PROBLEMS_SHOWN = 25


Outcome = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True)
class Verdict:
    """What the item reports. A failure (or skip) caused by an error carries its code,
    which its message starts with and its exception class is chosen from; a failed
    expectation with no error to blame (the plan passed) has none."""

    outcome: Outcome
    message: str = ""
    code: ErrorCode | None = None


def judge(expect: Expect | None, error: ExecutorError | None, failure_text: str = "") -> Verdict:
    """Apply ``expect`` to what happened."""
    if expect is None:
        return Verdict("passed") if error is None else Verdict("failed", failure_text, error.error_code)
    code = expect.error_code
    where = f" at step '{expect.step}'" if expect.step else ""
    if error is None:
        return Verdict("failed", f"expected {code}{where}, but the plan passed with no error")
    actual_where = f" at step '{error.action_id}'" if error.action_id else ""
    if error.error_code != code:
        # The actual code comes first, so triage by code (Allure categories) still works.
        return Verdict(
            "failed",
            f"{error.error_code.value}: expected {code}{where}, got {error.error_code.value}{actual_where}\n{failure_text}".rstrip(),
            error.error_code,
        )
    if not expectation_met(expect, error.error_code.value, error.action_id, error.details.get("steps", ())):
        return Verdict(
            "failed",
            f"expected {code}{where}, got it{actual_where or ' outside that step'}\n{failure_text}".rstrip(),
        )
    return Verdict("passed")


def invalid_plan_text(invalid: InvalidPlan, run_dir: Path | None) -> str:
    """The failure text of an invalid plan: code first, then one line per problem."""
    n = len(invalid.problems)
    lines = [f"INVALID_ACTIONSPEC: plan '{invalid.name}' is not valid ({n} problem{'s' if n != 1 else ''})"]
    for problem in invalid.problems[:MAX_PROBLEMS_SHOWN]:
        lines.append(f"  {problem.format()}  [{problem.rule}]")
    if n > MAX_PROBLEMS_SHOWN:
        lines.append(f"  ... and {n - MAX_PROBLEMS_SHOWN} more (see evidence/validation_report.json)")
    if run_dir is not None:
        lines.append(f"  run folder: {run_dir}")
    return "\n".join(lines)
