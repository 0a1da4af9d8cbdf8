"""Policy counters: the anti-loop and step-budget decisions, with no browser.

The executor asks before every step; a halt is returned as data (reason and
numbers) and turned into POLICY_HALT by the caller, so the counting rules are
unit-tested on their own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pytest_cometlocal.contract.model.actionspec import SIDE_EFFECT_KINDS
from pytest_cometlocal.contract.model.policy import Policy


@dataclass(frozen=True)
class Halt:
    reason: str  # "max_steps" | "same_state_revisit" | "stop_not_allowed"
    details: dict[str, Any]


class PolicyState:
    """Counters of one run."""

    def __init__(self, policy: Policy):
        self.policy = policy
        self.steps_taken = 0
        self.revisits: Counter[str] = Counter()

    def thresholds(self) -> dict[str, Any]:
        p = self.policy
        return {
            "retries_per_action": p.retries_per_action,
            "recovery_max": p.recovery_max,
            "same_state_revisits": p.same_state_revisits,
            "hard_cap_steps": p.hard_cap_steps,
            "backoff_ms": list(p.backoff_ms),
        }

    def observation_metadata(self, state_key: str) -> dict[str, Any]:
        """What every observation_captured event records under metadata.policy."""
        return {
            "steps_taken": self.steps_taken,
            "hard_cap_steps": self.policy.hard_cap_steps,
            "same_state_revisit_count": self.revisits[state_key],
            "same_state_revisit_threshold": self.policy.same_state_revisits,
        }

    def check_step_budget(self) -> Halt | None:
        """Before any step starts (recovery steps included)."""
        if self.steps_taken >= self.policy.hard_cap_steps:
            return Halt(
                "max_steps",
                {"steps_taken": self.steps_taken, "hard_cap_steps": self.policy.hard_cap_steps},
            )
        return None

    def count_step(self) -> None:
        self.steps_taken += 1

    def count_revisit(self, kind: str, state_key: str, first_attempt: bool, recovery: bool) -> Halt | None:
        """Count a side-effecting first attempt started from ``state_key``; halt when over the threshold."""
        if kind not in SIDE_EFFECT_KINDS or not first_attempt or recovery:
            return None
        self.revisits[state_key] += 1
        count = self.revisits[state_key]
        if count > self.policy.same_state_revisits:
            return Halt(
                "same_state_revisit",
                {"state_key": state_key, "count": count, "threshold": self.policy.same_state_revisits},
            )
        return None
