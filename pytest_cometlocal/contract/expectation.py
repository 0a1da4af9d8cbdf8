"""``expect``: when is a raised error the one a negative plan asked for?

Shared by the pytest outcome, ``cometlocal validate`` and the readers of run
folders (``show``, ``fix``), so all agree on which failures a negative plan
asked for. A run manifest records the plan's ``expect`` (:func:`expect_record`)
so a run folder read alone still tells an expected error from a real failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.plan import Expect

__all__ = ["expect_record", "expectation_met", "recorded_expectation_met"]


def expectation_met(expect: Expect, error_code: str | None, action_id: str | None, problem_steps: Iterable[str] = ()) -> bool:
    """True when ``error_code`` is the expected code, raised at ``expect.step`` if one is given.

    For INVALID_ACTIONSPEC there is no single failing step; the expectation
    holds when any validation problem lies in the expected step.
    """
    return _met(expect.error_code, expect.step, error_code, action_id, problem_steps)


def _met(code: str, step: str | None, error_code: str | None, action_id: str | None,
         problem_steps: Iterable[str]) -> bool:
    if error_code != code:
        return False
    return step is None or action_id == step or step in set(problem_steps)


def expect_record(expect: Expect | None) -> dict[str, Any]:
    """The ``expect`` entry of a run manifest's ``plan`` (empty for a plan that expects no error)."""
    return {} if expect is None else {"expect": {"error_code": expect.error_code, "step": expect.step}}


def recorded_expectation_met(plan: Mapping[str, Any], error_code: str | None, action_id: str | None,
                             problem_steps: Iterable[str] = ()) -> bool:
    """:func:`expectation_met` for the ``expect`` a run manifest's ``plan`` records; False without one."""
    expect = plan.get("expect")
    if not isinstance(expect, Mapping) or not isinstance(expect.get("error_code"), str):
        return False
    step = expect.get("step")
    return _met(expect["error_code"], step if isinstance(step, str) else None, error_code, action_id, problem_steps)
