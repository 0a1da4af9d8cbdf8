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

from pytest_cometlocal.contract.extensions.registry import kind_row  # a built-in's row, or an extension's
from pytest_cometlocal.contract.model.plan import Policy

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


class _Signature(Protocol):  # the parts of a StateSignature the counters read
    @property
    def state_key(self) -> str: ...
    @property
    def dom_key(self) -> str: ...
    @property
    def screenshot_hash(self) -> str | None: ...
    @property
    def metadata(self) -> dict[str, Any]: ...


def _picture(state: _Signature) -> tuple[str, str] | None:
    """A state's picture as (how it was taken, its hash): pictures taken two ways are not compared."""
    if state.screenshot_hash is None:
        return None
    return str((state.metadata or {}).get("screenshot_method", "")), state.screenshot_hash


def _told_apart(a: tuple[str, str] | None, b: tuple[str, str] | None) -> bool:
    """Two pictures tell two states apart only when both exist, were taken the same way and differ."""
    return a is not None and b is not None and a[0] == b[0] and a != b


def _with(key: str, request: str | None) -> str:
    """The counters' key of a state: a request step's call after the page's key."""
    return key if request is None else f"{key}:{request}"


def counted(kind: str, first_attempt: bool, recovery: bool) -> bool:
    """Whether the state a step starts from is counted as a visit: a side-effecting step's first attempt."""
    return (row := kind_row(kind)) is not None and row.side_effect and first_attempt and not recovery


def still_loading(state: _Signature) -> bool:
    """A look of a document still being parsed when its wait ran out (``page/settle.py``, ``until_parsed``):
    not a state, so never counted as a visit (its signature's ``metadata.document_loading`` says so)."""
    loading = (state.metadata or {}).get("document_loading")
    return isinstance(loading, dict) and loading.get("parsed") is False


class PolicyState:
    """Counters of one run.

    Which visits are of the same state: with ``pictures_optional`` (the fast
    profile, where a state may have no picture) two states are the same when
    their DOM-derived parts are equal and, where both have a picture taken the
    same way (``metadata.screenshot_method``: a critical step's is hashed from
    its full-size PNG, another step's from a reduced frame), their pictures are
    equal; otherwise (v1) when their state keys are equal. (v1.2) A ``request``
    step's state is the page's and its call (``request``: ``http/client.py``,
    ``request_key``), as a request leaves the page as it was: distinct calls from
    one page are distinct states, the same call again is the same.
    """

    def __init__(self, policy: Policy, pictures_optional: bool = False):
        self.policy = policy
        self.steps_taken = 0
        self.revisits: Counter[str] = Counter()
        self.pictures_optional = pictures_optional
        self._visits: list[tuple[str, tuple[str, str] | None]] = []  # (DOM-derived key, picture) of each counted visit

    def visits_of(self, state: _Signature, request: str | None = None) -> int:
        """How many counted visits so far started from the same state as ``state`` (and ``request``)."""
        if not self.pictures_optional:
            return self.revisits[_with(state.state_key, request)]
        dom, picture = _with(state.dom_key, request), _picture(state)
        return sum(1 for d, p in self._visits if d == dom and not _told_apart(p, picture))

    def thresholds(self) -> dict[str, Any]:
        p = self.policy
        return {
            "retries_per_action": p.retries_per_action,
            "recovery_max": p.recovery_max,
            "same_state_revisits": p.same_state_revisits,
            "hard_cap_steps": p.hard_cap_steps,
            "backoff_ms": list(p.backoff_ms),
        }

    def observation_metadata(self, state: _Signature, request: str | None = None) -> dict[str, Any]:
        """What every observation_captured event records under metadata.policy (a request step's key too)."""
        return {
            "steps_taken": self.steps_taken,
            "hard_cap_steps": self.policy.hard_cap_steps,
            "same_state_revisit_count": self.visits_of(state, request),
            "same_state_revisit_threshold": self.policy.same_state_revisits,
            **({"request_key": request} if request is not None else {}),
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

    def count_revisit(self, kind: str, state: _Signature, first_attempt: bool, recovery: bool,
                      request: str | None = None) -> Halt | None:
        """Count a side-effecting first attempt started from ``state`` (a request step's: with its call,
        ``request``); halt when over the threshold."""
        if not counted(kind, first_attempt, recovery) or still_loading(state):
            return None
        count = self.visits_of(state, request) + 1
        self.revisits[_with(state.state_key, request)] += 1
        self._visits.append((_with(state.dom_key, request), _picture(state)))
        if count > self.policy.same_state_revisits:
            return Halt(
                "same_state_revisit",
                {"state_key": state.state_key, **({"request_key": request} if request is not None else {}),
                 "count": count, "threshold": self.policy.same_state_revisits},
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
        return code in self.policy.retry_on and kind_row(attempt.spec.kind).retried

    def next_move(self, attempt: _Attempt, code: str, retryable: bool, recoveries: int) -> NextMove:
        """Recovery first (outside recovery steps, rounds left), then a retry, else the step fails."""
        if (retryable and not attempt.recovery and code in self.recovery_on
                and recoveries < self.policy.recovery_max):
            return "recover"
        return "retry" if self.retries(attempt, code, retryable) else "fail"
