"""Reading one run folder as a list of steps, for ``cometlocal diff``.

The trace records events, not steps; comparing two runs needs, per step, what
happened to it: outcome, attempts, duration, and the state the page was in
before the step started and after it ended. This module derives that from
``run_manifest.json`` and ``trace.jsonl`` only (pure Python, no browser), and
refuses a folder that is not a run with a one-line :class:`RunFolderError`.

A trace whose last line was cut by a crash is read up to that line (the
``truncated`` flag says so): a crashed run is exactly the one worth comparing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

#: The parts of a StateSignature that ``cometlocal diff`` compares, and the field each is read from.
STATE_PARTS: tuple[tuple[str, str], ...] = (
    ("url", "url"),
    ("title", "title_hash"),
    ("key_elements", "key_elements_hash"),
    ("visible_text", "visible_text_hash"),
    ("screenshot", "screenshot_hash"),
)

_PASSED_EVENTS = ("postconditions_checked", "assert_checked")


class RunFolderError(Exception):
    """A path that cannot be read as a run folder; the message is one line for the terminal."""


@dataclass
class StepRecord:
    """What one step (all its attempts, recovery rounds included) did in one run.

    ``before`` is the page state the step's first attempt started from, ``after``
    the last state recorded after it (its final attempt's, or the failure's).
    """

    step_id: str
    recovery: bool = False
    kind: str | None = None
    outcome: str = "incomplete"
    error_code: str | None = None
    errors: list[str] = field(default_factory=list)
    attempts: int = 0
    recoveries: int = 0
    retries: int = 0
    first_ts: str | None = None
    last_ts: str | None = None
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None

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


@dataclass
class RunRecord:
    """One run folder: its manifest's identity and status, and its steps in order of first appearance."""

    path: Path
    manifest: dict[str, Any]
    steps: list[StepRecord]
    events: int
    truncated: bool = False
    unreadable_lines: int = 0
    finished: bool = True

    @property
    def plan(self) -> dict[str, Any]:
        plan = self.manifest.get("plan")
        return plan if isinstance(plan, dict) else {}

    @property
    def base_url(self) -> str | None:
        profile = self.manifest.get("execution_profile")
        return profile.get("base_url") if isinstance(profile, dict) else None

    def plan_identity(self) -> dict[str, Any]:
        """The plan as it is named: file, name, and the row of a parametrized plan.

        The line is left out on purpose: a plan edited between two builds moves,
        and those are the two runs worth comparing.
        """
        identity = {"file": self.plan.get("file"), "name": self.plan.get("name")}
        if self.plan.get("row_id") is not None:
            identity["row_id"] = self.plan.get("row_id")
        return identity

    def summary(self) -> dict[str, Any]:
        return {"path": str(self.path), "run_id": self.manifest.get("run_id"),
                "status": self.manifest.get("status"), "error_code": self.manifest.get("error_code"),
                "failed_step": self.manifest.get("failed_step"), "started_at": self.manifest.get("started_at"),
                "base_url": self.base_url, "events": self.events, "truncated": self.truncated,
                "finished": self.finished}


def _read_manifest(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise RunFolderError(f"no such run folder: {path}")
    if not path.is_dir():
        raise RunFolderError(f"not a run folder (not a folder): {path}")
    missing = [name for name in ("run_manifest.json", "trace.jsonl") if not (path / name).is_file()]
    if missing:
        raise RunFolderError(f"not a run folder (no {' or '.join(missing)}): {path}")
    try:
        manifest = json.loads((path / "run_manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RunFolderError(f"not a run folder (run_manifest.json is not valid JSON: {first}): {path}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("plan"), dict):
        raise RunFolderError(f"not a run folder (run_manifest.json names no plan): {path}")
    return manifest


def _read_events(path: Path) -> tuple[list[dict[str, Any]], bool, int]:
    """The trace's events, whether its last line was cut, and how many other lines did not parse."""
    try:
        raw = (path / "trace.jsonl").read_bytes()
    except OSError as exc:
        raise RunFolderError(f"cannot read {path / 'trace.jsonl'}: {exc.strerror or exc}") from None
    lines = raw.decode("utf-8", errors="replace").splitlines()
    truncated = bool(raw) and not raw.endswith(b"\n")
    events: list[dict[str, Any]] = []
    unreadable = 0
    for number, line in enumerate(lines, 1):
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict) or not isinstance(event.get("event_type"), str):
            if number == len(lines) and truncated:
                continue  # the crash's half line: noted by `truncated`
            if line.strip():
                unreadable += 1
            continue
        events.append(event)
    return events, truncated, unreadable


def _sig(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _steps(events: list[dict[str, Any]]) -> list[StepRecord]:
    """Fold the events into steps, keyed by step id, in order of first appearance."""
    steps: dict[str, StepRecord] = {}
    for event in events:
        step_id = event.get("step_id")
        if not isinstance(step_id, str) or not step_id:
            continue
        kind = event["event_type"]
        meta = event.get("metadata") if isinstance(event.get("metadata"), dict) else {}
        step = steps.get(step_id)
        if step is None:
            step = steps[step_id] = StepRecord(step_id)
            step.first_ts = event.get("ts_utc")
        step.last_ts = event.get("ts_utc") or step.last_ts
        if kind == "observation_captured":
            step.attempts += 1
            step.recovery = step.recovery or bool(meta.get("recovery"))
            step.outcome = "incomplete"
            if step.before is None:
                step.before = _sig(event.get("state_signature_before"))
        elif kind == "proposal_received" and step.kind is None:
            spec = event.get("action_spec")
            step.kind = spec.get("kind") if isinstance(spec, dict) else None
        elif kind == "proposal_rejected":
            step.outcome, step.error_code = "rejected", _code(event) or "INVALID_ACTIONSPEC"
        elif kind in _PASSED_EVENTS and meta.get("ok", True) and not meta.get("warnings"):
            step.outcome = "passed"
        elif kind == "evidence_captured" and meta.get("for_error"):
            step.outcome = "failed"
            step.errors.append(str(meta["for_error"]))
        elif kind == "retry_scheduled":
            step.retries += 1
        elif kind == "recovery_started":
            step.recoveries += 1
        elif kind in ("error_raised", "policy_halt"):
            step.outcome, step.error_code = "failed", _code(event)
            if step.error_code and (not step.errors or step.errors[-1] != step.error_code):
                step.errors.append(step.error_code)
        if kind not in ("recovery_started", "recovery_finished", "retry_scheduled", "backoff_applied"):
            after = _sig(event.get("state_signature_after"))
            if after is not None:
                step.after = after
    return list(steps.values())


def _code(event: dict[str, Any]) -> str | None:
    error = event.get("error")
    return error.get("error_code") if isinstance(error, dict) else None


def read_run(path: Path) -> RunRecord:
    """Read one run folder; raise :class:`RunFolderError` when it is not one."""
    manifest = _read_manifest(path)
    events, truncated, unreadable = _read_events(path)
    finished = bool(events) and events[-1].get("event_type") == "run_finished"
    return RunRecord(path=path, manifest=manifest, steps=_steps(events), events=len(events),
                     truncated=truncated, unreadable_lines=unreadable, finished=finished)
