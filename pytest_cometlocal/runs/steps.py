"""A run's events folded into what happened per step and how many attempts it took.

The trace records events, not steps; comparing two runs (``cometlocal diff``),
showing one (``cometlocal show``) and reporting its retries need, per step,
what happened to it: outcome, attempts, duration, and the state the page was
in before the step started and after it ended. These folds are pure: they
take the events :mod:`pytest_cometlocal.runs.reader` read, and read no file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from datetime import datetime
from typing import Any, Iterable

from pydantic import ValidationError

from pytest_cometlocal.contract.model.actionspec import ActionSpec, describe_step
from pytest_cometlocal.runs.events import Event

__all__ = ["ATTEMPT_EVENTS", "STATE_PARTS", "Attempts", "StepRecord", "attempts_of", "steps_of"]

#: The parts of a StateSignature that ``cometlocal diff`` compares, and the field each is read from.
STATE_PARTS: tuple[tuple[str, str], ...] = (
    ("url", "url"),
    ("title", "title_hash"),
    ("key_elements", "key_elements_hash"),
    ("visible_text", "visible_text_hash"),
    ("screenshot", "screenshot_hash"),
)

_PASSED_EVENTS = ("postconditions_checked", "assert_checked")
#: The events :func:`attempts_of` counts.
ATTEMPT_EVENTS = ("observation_captured", "retry_scheduled", "recovery_started", "error_raised")
_AROUND_ATTEMPTS = ("recovery_started", "recovery_finished", "retry_scheduled", "backoff_applied")


@dataclass(frozen=True)
class StepRecord:
    """What one step (all its attempts, recovery rounds included) did in one run.

    ``before`` is the page state the step's first attempt started from, ``after``
    the last state recorded after it (its final attempt's, or the failure's);
    ``events`` are the step's own, in order.
    """

    step_id: str
    events: tuple[Event, ...] = ()
    recovery: bool = False
    kind: str | None = None
    outcome: str = "incomplete"
    error_code: str | None = None
    errors: tuple[str, ...] = ()
    attempts: int = 0
    recoveries: int = 0
    retries: int = 0
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    action: dict[str, Any] | None = None  # the step as its first proposal_received carries it

    @cached_property
    def what(self) -> str | None:
        """What the step does (``press Enter on label="Search"``), from its trace record; None for a
        record that is not a step of a known format (``schema_version`` only says which format it is)."""
        if self.action is None:
            return None
        try:
            spec = ActionSpec.model_validate({k: v for k, v in self.action.items() if k != "schema_version"})
        except ValidationError:
            return None
        return describe_step(spec)

    @property
    def http_line(self) -> str | None:
        """(v1.2) A request step in one line, ``POST http://host/api/docs -> 201``, from its last sent call
        (``action_executed``); None for any other step, or a request that sent nothing."""
        if self.kind != "request":
            return None
        sent = [e.metadata for e in self.events if e.event_type == "action_executed" and "status" in e.metadata]
        if not sent:
            return None
        return f"{sent[-1].get('method')} {sent[-1].get('url')} -> {sent[-1].get('status')}"

    @property
    def first_ts(self) -> str | None:
        return self.events[0].ts_utc if self.events else None

    @property
    def last_ts(self) -> str | None:
        return next((e.ts_utc for e in reversed(self.events) if e.ts_utc), self.first_ts)

    @property
    def duration_ms(self) -> int | None:
        if not self.first_ts or not self.last_ts:
            return None
        try:
            delta = datetime.fromisoformat(self.last_ts) - datetime.fromisoformat(self.first_ts)
        except ValueError:
            return None
        return int(delta.total_seconds() * 1000)

    def as_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "error_code": self.error_code, "errors": list(self.errors),
                "attempts": self.attempts, "retries": self.retries, "recoveries": self.recoveries,
                "duration_ms": self.duration_ms, "kind": self.kind}


def _step(step_id: str, events: list[Event]) -> StepRecord:
    """Fold one step's events, in order, into its record."""
    outcome, code, kind, action = "incomplete", None, None, None
    errors: list[str] = []
    attempts = recoveries = retries = 0
    recovery = False
    before = after = None
    for event in events:
        name, meta = event.event_type, event.metadata
        if name == "observation_captured":
            attempts += 1
            recovery = recovery or bool(meta.get("recovery"))
            outcome = "incomplete"
            if before is None:
                before = event.signature("before")
        elif name == "proposal_received" and kind is None:
            spec = event.data.get("action_spec")
            kind = spec.get("kind") if isinstance(spec, dict) else None
            action = spec if isinstance(spec, dict) else None
        elif name == "proposal_rejected":
            outcome, code = "rejected", event.error_code or "INVALID_ACTIONSPEC"
        elif name in _PASSED_EVENTS and meta.get("ok", True) and not meta.get("warnings"):
            outcome = "passed"
        elif name == "evidence_captured" and meta.get("for_error"):
            outcome = "failed"
            errors.append(str(meta["for_error"]))
        elif name == "retry_scheduled":
            retries += 1
        elif name == "recovery_started":
            recoveries += 1
        elif name in ("error_raised", "policy_halt"):
            outcome, code = "failed", event.error_code
            if code and (not errors or errors[-1] != code):
                errors.append(code)
        if name not in _AROUND_ATTEMPTS and event.signature("after") is not None:
            after = event.signature("after")
    return StepRecord(step_id, tuple(events), recovery, kind, outcome, code, tuple(errors), attempts, recoveries,
                      retries, before, after, action)


def steps_of(events: Iterable[Event]) -> tuple[StepRecord, ...]:
    """The steps of a run, keyed by step id, in order of first appearance."""
    by_step: dict[str, list[Event]] = {}
    for event in events:
        if event.step_id is not None:
            by_step.setdefault(event.step_id, []).append(event)
    return tuple(_step(step_id, step_events) for step_id, step_events in by_step.items())


@dataclass(frozen=True)
class Attempts:
    """What the trace of one run says about its attempts."""

    attempts: int  # attempts of the plan's steps (recovery steps not counted)
    retries: int  # retry_scheduled events (recovery steps' retries included)
    recoveries: int  # recovery rounds
    recovered: tuple[tuple[str, int], ...]  # plan steps that passed after more than one attempt, with their attempts

    def flaky_text(self) -> str:
        return ", ".join(f"{step} ({n} attempts)" for step, n in self.recovered)


def attempts_of(events: Iterable[Event]) -> Attempts:
    """Count attempts, retries and recoveries.

    A step passed after more than one attempt when its last ``observation_captured``
    has ``attempt`` > 1 and the run raised no error at it.
    """
    attempts = retries = recoveries = 0
    last_attempt: dict[str | None, int] = {}
    failed: set[str] = set()
    for event in events:
        name, step = event.event_type, event.step_id
        if name == "observation_captured" and not event.metadata.get("recovery"):
            try:
                attempt = int(event.metadata.get("attempt", 1))
            except (TypeError, ValueError):
                continue  # a foreign line: `cometlocal verify` reports it, not this count
            attempts += 1
            last_attempt[step] = attempt
        elif name == "retry_scheduled":
            retries += 1
        elif name == "recovery_started":
            recoveries += 1
        elif name == "error_raised" and step:
            failed.add(step)
    recovered = tuple((step, n) for step, n in last_attempt.items() if step and n > 1 and step not in failed)
    return Attempts(attempts, retries, recoveries, recovered)
