"""``expect``: when is a raised error the one a negative plan asked for?

Shared by the pytest outcome and ``cometlocal validate`` so both agree on
which invalid plans are invalid *as expected*.
"""

from __future__ import annotations

from typing import Iterable

from pytest_cometlocal.contract.model.plan import Expect


def expectation_met(expect: Expect, error_code: str | None, action_id: str | None, problem_steps: Iterable[str] = ()) -> bool:
    """True when ``error_code`` is the expected code, raised at ``expect.step`` if one is given.

    For INVALID_ACTIONSPEC there is no single failing step; the expectation
    holds when any validation problem lies in the expected step.
    """
    if error_code != expect.error_code:
        return False
    if expect.step is None:
        return True
    return action_id == expect.step or expect.step in set(problem_steps)
