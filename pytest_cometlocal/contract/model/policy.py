"""Policy v1: the counters and limits that keep a run from looping silently."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.codes import ErrorCodeName


class Policy(ContractModel):
    """v1 defaults; a plan's ``policy`` overrides any of them."""

    retries_per_action: Annotated[int, Field(ge=0, le=20)] = 2
    recovery_max: Annotated[int, Field(ge=0, le=20)] = 3
    same_state_revisits: Annotated[int, Field(ge=1, le=1000)] = 2
    hard_cap_steps: Annotated[int, Field(ge=1, le=100_000)] = 60
    backoff_ms: Annotated[list[Annotated[int, Field(ge=0, le=600_000)]], Field(min_length=1)] = [300, 1000, 2000]
    retry_on: list[ErrorCodeName] = ["NAVIGATION_TIMEOUT", "OVERLAY_BLOCKING"]
    allow_stop: bool = False

    def backoff_for(self, attempt: int) -> int:
        """Delay before retry number ``attempt`` (1-based); the last value repeats."""
        return self.backoff_ms[min(attempt, len(self.backoff_ms)) - 1]
