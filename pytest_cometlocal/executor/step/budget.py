"""Policy counters and the retry rule: the anti-loop, step-budget and retry decisions, with no browser.

The executor asks before every step; a halt is returned as data (reason and
numbers) and turned into POLICY_HALT by the caller, so the counting rules are
unit-tested on their own. ``RetryRule`` is the one place that says whether a
failed attempt is retryable and what follows it: a recovery, a retry, or the
end of the step.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pytest_cometlocal.contract.model.actionspec import NEVER_RETRIED_KINDS, SIDE_EFFECT_KINDS
from pytest_cometlocal.contract.model.policy import Policy

# What follows a failed attempt.
NextMove = Literal["recover", "retry", "fail"]


class _Attempt(Protocol):  # the parts of a StepAttempt the rule reads
    @property
    def spec(self) -> Any: ...
    @property
    def attempt(self) -> int: ...
    @property
    def recovery(self) -> bool: ...


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


@dataclass(frozen=True)
class RetryRule:
    """Which failures are retried or recovered from: the policy's ``retry_on`` and the plan's recovery."""

    policy: Policy
    recovery_on: tuple[str, ...]

    def retryable(self, attempt: _Attempt, code: str, verdict: bool | None = None) -> bool:
        """The error's ``retryable``: ``verdict`` False (a crash, a halt, a stuck page) is final.

        Otherwise a failure of a non-critical step whose code is in ``retry_on``
        (never for ``wait_for`` and ``assert``: see ``retries``), or in the
        recovery's ``on_error`` outside a recovery step, is retryable.
        """
        if verdict is not None:
            return verdict
        return attempt.spec.criticality != "critical" and (
            self._in_retry_on(attempt, code) or (code in self.recovery_on and not attempt.recovery))

    def retries(self, attempt: _Attempt, code: str, retryable: bool) -> bool:
        """A retryable failure in ``retry_on`` with retries left.

        ``wait_for`` and ``assert`` are never retried: they have no side effect to
        do again, and waiting again is only a longer timeout, which the step sets.
        """
        return (retryable and self._in_retry_on(attempt, code)
                and attempt.attempt <= self.policy.retries_per_action)

    def _in_retry_on(self, attempt: _Attempt, code: str) -> bool:
        return code in self.policy.retry_on and attempt.spec.kind not in NEVER_RETRIED_KINDS

    def next_move(self, attempt: _Attempt, code: str, retryable: bool, recoveries: int) -> NextMove:
        """Recovery first (outside recovery steps, rounds left), then a retry, else the step fails."""
        if (retryable and not attempt.recovery and code in self.recovery_on
                and recoveries < self.policy.recovery_max):
            return "recover"
        return "retry" if self.retries(attempt, code, retryable) else "fail"
