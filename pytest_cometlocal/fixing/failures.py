"""What a failed run says about its stale target: which step, where it is written, what to put instead.

Read through the one reader of run folders (runs/reader.py). A run is fixable
when its error carries ``details.suggestions``: a target that matched nothing
or several (``TARGET_NOT_FOUND``, ``TARGET_NOT_UNIQUE``; a drag's ``to`` with
``details.which: "to"``), or an ``element_*`` condition whose target did. Where
the step is written comes from the trace: ``proposal_received.metadata.source``
(the plan line, then the step-group lines for a group's step), repeated in an
error's ``details.source``. A negative plan's run that ended with the error its
``expect`` asks for needs no fix (the manifest records the ``expect``).
Everything else a run is, is a one-line reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.runs.errors import RunFolderError
from pytest_cometlocal.runs.reader import StoredRun, read_run

__all__ = ["EndedAsExpected", "Failure", "NotFixable", "failure_of", "read_failure"]

TARGET_CODES = frozenset({"TARGET_NOT_FOUND", "TARGET_NOT_UNIQUE"})
PHASE_KEYS = {"pre": ("preconditions",), "post": ("postconditions",), "assert": ("postconditions", "conditions")}


class NotFixable(CometLocalError):
    """A run that gets no fix; the message is one line saying why."""


class NothingToFix(NotFixable):
    """A run that did not fail: it passed, stopped as its plan asked, or was blocked by a dry run."""


class EndedAsExpected(NothingToFix):
    """A negative plan's run that failed with the error its ``expect`` asks for: pytest passed it."""


# Run statuses that are not failures (RunStatus): counted, never listed as unfixed.
NOT_FAILED = frozenset({"passed", "stopped", "blocked"})


@dataclass(frozen=True)
class Failed:
    """Which value of the step failed: ``target``, ``to``, or the ``target`` of a condition (``condition``
    is then ``(list key candidates, condition kind, its target as recorded)``)."""

    key: str
    condition: tuple[tuple[str, ...], str, Any] | None = None

    def describe(self) -> str:
        return self.key if self.condition is None else f"the target of its {self.condition[1]} condition"


@dataclass(frozen=True)
class Failure:
    """One failed run with suggested targets: what failed, where it is written, and with which settings it ran."""

    run: Path
    plan: dict[str, Any]                    # the manifest's plan: file, name, nodeid, row_id
    code: str
    step_id: str
    source: tuple[str, ...]                 # "file:line" of the plan, then of each step group
    failed: Failed
    target: Any                             # the failed target as the run used it
    suggestions: tuple[dict[str, Any], ...]
    manifest: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def nodeid(self) -> str | None:
        return self.plan.get("nodeid")

    @property
    def label(self) -> str:
        row = self.plan.get("row_id")
        return f"'{self.plan.get('name')}{f'[{row}]' if row is not None else ''}' ({self.plan.get('file')})"

    @property
    def written_at(self) -> tuple[str, int]:
        """The file and line the step is written at: the innermost of ``source``."""
        file, _, line = self.source[-1].rpartition(":")
        return file, int(line)


def read_failure(run: Path) -> Failure:
    """The run folder's fixable failure; NotFixable (one line) otherwise."""
    try:
        record = read_run(run)
    except RunFolderError as exc:
        raise NotFixable(str(exc)) from None
    return failure_of(record)


def _source(record: StoredRun, step_id: str, details: dict[str, Any]) -> tuple[str, ...]:
    for step in record.steps:
        if step.step_id == step_id:
            for event in step.events:
                lines = event.metadata.get("source") if event.event_type == "proposal_received" else None
                if isinstance(lines, list) and lines:
                    return tuple(str(x) for x in lines)
    lines = details.get("source")
    return tuple(str(x) for x in lines) if isinstance(lines, list) else ()


def _failed(error: dict[str, Any], details: dict[str, Any]) -> tuple[Failed, Any]:
    code = error.get("error_code")
    if code in TARGET_CODES:
        which = details.get("which") or "target"
        if which not in ("target", "to"):
            raise NotFixable(f"{code} on a dropdown's option: no target to replace")
        return Failed(which), details.get("target")
    for fc in details.get("failed_conditions") or error.get("failed_conditions") or []:
        observed = fc.get("observed") if isinstance(fc.get("observed"), dict) else {}
        kind = str(fc.get("kind", ""))
        if kind.startswith("element_") and kind != "element_count_equals" and observed.get("count") != 1:
            raw = (fc.get("args") or {}).get("target")
            if raw is None:
                return Failed("target"), None
            return Failed("target", (PHASE_KEYS.get(fc.get("phase"), ()), kind, raw)), raw
    raise NotFixable(f"{code}: no failed target to replace")


def failure_of(record: StoredRun) -> Failure:
    """The fixable failure of one read run; NotFixable (one line) for a run that passed or has no suggestions."""
    status = record.status
    if status in NOT_FAILED:
        raise NothingToFix(f"{status}: nothing to fix")
    if status != "failed" or not record.errors:
        raise NotFixable(f"{status or 'unfinished'}: nothing to fix")
    if record.ended_as_expected:
        raise EndedAsExpected(f"{record.error_code}, as its plan expects: nothing to fix")
    error = record.errors[-1]
    details = error.get("details") if isinstance(error.get("details"), dict) else {}
    code = str(error.get("error_code"))
    suggestions = tuple(s for s in details.get("suggestions") or () if isinstance(s, dict) and "target" in s)
    if not suggestions:
        raise NotFixable(f"{code} at step '{error.get('action_id')}' has no suggested targets")
    step_id = error.get("action_id")
    source = _source(record, step_id, details) if step_id else ()
    if not source:
        raise NotFixable(f"{code}: the run does not record where step '{step_id}' is written")
    failed, target = _failed(error, details)
    plan = record.plan
    return Failure(record.path, dict(plan), code, step_id, source, failed, target, suggestions, record.manifest)
