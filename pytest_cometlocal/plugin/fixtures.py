"""Fixtures a plan item uses; each can be overridden in a user's conftest.py."""

from __future__ import annotations

from typing import Protocol

import pytest

from ..contract.validator import ValidPlan


class PlanRunner(Protocol):
    """Runs one validated plan for one item.

    Returns an ExecutorError (or None on success) and the run folder; the
    item turns that into a pytest outcome. May call ``pytest.skip``.
    """

    def __call__(self, plan: ValidPlan, item: pytest.Item): ...


def _validation_only(plan: ValidPlan, item: pytest.Item):
    pytest.skip(
        f"cometlocal: plan '{plan.name}' is valid ({len(plan.plan.steps)} steps); "
        "running plans in a browser is not available in this version"
    )


@pytest.fixture
def cometlocal_runner() -> PlanRunner:
    """What runs a valid plan. Until the browser executor lands, it skips with
    a reason that says so; plans are still fully validated at collection."""
    return _validation_only
