"""The one reader of run folders: trace.jsonl and the manifests, folded into typed records.

Everything that reads a run back goes through here: ``cometlocal verify``
(runs/verify.py), ``show`` and its suggested targets (runs/show.py), ``diff``
(runs/diff.py), the retries a report shows (plugin/retries.py) and the
evidence Allure attaches (plugin/allure_report.py). Three levels, each built
on the one below, so a trace line is parsed once whoever asks:

- the file: :func:`read_trace` splits ``trace.jsonl`` into :class:`TraceLine`
  (its text, its JSON, or why it is not JSON), which verify checks line by line;
- the events: a line that is a JSON object with an ``event_type`` is an
  :class:`Event`, its fields typed leniently (a hand-made or damaged trace
  still reads); verify validates the lines against TraceEvent v1 itself;
  :func:`read_events` parses only the lines that name the events asked for;
- the run: :func:`read_run` folds the events into steps (:class:`StepRecord`),
  attempts (:class:`Attempts`) and errors, next to the run manifest
  (:class:`RunRecord`); :func:`read_evidence` lists the evidence manifest.

A trace whose last line was cut by a crash is read up to that line (the
``truncated`` flag says so): a crashed run is exactly the one worth reading.
Lines are split at ``\\n`` only: the writer keeps text such as U+2028 as it is,
and a line break of another kind is part of a line. Pure Python, no browser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Mapping

from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST, RUN_MANIFEST, TRACE
from pytest_cometlocal.runs.errors import RunFileError, RunFolderError
from pytest_cometlocal.runs.events import Event
from pytest_cometlocal.runs.steps import ATTEMPT_EVENTS, Attempts, StepRecord, attempts_of, steps_of

__all__ = ["Event", "EvidenceEntry", "RunRecord", "Trace", "TraceLine", "find_runs", "read_attempts", "read_events",
           "read_evidence", "read_json", "read_run", "read_trace"]


@dataclass(frozen=True)
class TraceLine:
    """One line of trace.jsonl: its text, its JSON (``data``) or why it is not JSON (``problem``), its event."""

    number: int
    text: str
    data: Any = None
    problem: str | None = None  # the JSON parser's message, first line
    event: Event | None = None  # None when the line is not JSON, or JSON but not an event


@dataclass(frozen=True)
class Trace:
    """A trace.jsonl as read: its lines, and the events among them in order."""

    path: Path
    lines: tuple[TraceLine, ...]
    terminated: bool  # the file ends with a newline (an empty file too)
    events: tuple[Event, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "events", tuple(line.event for line in self.lines if line.event is not None))

    @property
    def truncated(self) -> bool:
        """The last line was cut by a crash: it has no newline."""
        return not self.terminated

    @property
    def unreadable_lines(self) -> int:
        """Lines that are not events, blank lines and the crash's half line left aside."""
        last = len(self.lines)
        return sum(1 for line in self.lines if line.event is None and line.text.strip()
                   and not (line.number == last and self.truncated))

    @property
    def finished(self) -> bool:
        return bool(self.events) and self.events[-1].event_type == "run_finished"

    @property
    def errors(self) -> tuple[dict[str, Any], ...]:
        """The errors the run raised (``error_raised``), in order."""
        return tuple(error for e in self.events if e.event_type == "error_raised" and (error := e.error))

    @property
    def attempts(self) -> Attempts:
        return attempts_of(self.events)


def _chunks(path: Path) -> tuple[list[bytes], bool]:
    """The file's lines as bytes, split at ``\\n``, and whether it ends with one."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        missing = isinstance(exc, (FileNotFoundError, IsADirectoryError))
        raise RunFileError(path, exc.strerror or str(exc), missing=missing) from None
    chunks = raw.split(b"\n")
    if chunks[-1] == b"":
        chunks.pop()  # the newline that ends the last line (or the empty file)
    return chunks, not raw or raw.endswith(b"\n")


def _line(number: int, chunk: bytes) -> TraceLine:
    text = chunk.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError as exc:
        return TraceLine(number, text, problem=(str(exc) or type(exc).__name__).splitlines()[0])
    return TraceLine(number, text, data, event=Event.of(number, data))


def read_trace(path: Path) -> Trace:
    """Read a trace.jsonl, each line parsed once; :class:`RunFileError` when it cannot be read."""
    chunks, terminated = _chunks(path)
    return Trace(path, tuple(_line(number, chunk) for number, chunk in enumerate(chunks, 1)), terminated)


def read_events(path: Path, names: Collection[str]) -> tuple[Event, ...]:
    """Only the events named ``names``, in order: a line is parsed only when it names one of them.

    For a reader that runs after every plan item (the retries in reports): a
    long trace then costs little more than reading the file.
    """
    chunks, _ = _chunks(path)
    needles = tuple(name.encode("utf-8") for name in names)
    lines = (_line(number, chunk) for number, chunk in enumerate(chunks, 1) if any(n in chunk for n in needles))
    return tuple(line.event for line in lines if line.event is not None and line.event.event_type in names)


def read_attempts(trace: Path) -> Attempts | None:
    """The attempts a trace.jsonl records (plugin/retries.py); None when it cannot be read or has no step attempt."""
    try:
        counted = attempts_of(read_events(trace, ATTEMPT_EVENTS))
    except RunFolderError:
        return None
    return counted if counted.attempts else None


def read_json(path: Path) -> Any:
    """A JSON file of a run folder; :class:`RunFileError` (``missing``, or why it is not JSON) otherwise."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunFileError(path, "missing", missing=True) from None
    except (OSError, ValueError) as exc:
        raise RunFileError(path, str(exc)) from None


@dataclass(frozen=True)
class EvidenceEntry:
    """One file of evidence_manifest.json; ``uri`` is None for a file withheld (a download holding a secret)."""

    kind: str | None
    uri: str | None
    sha256: str | None
    step_id: str | None
    data: Mapping[str, Any]


def read_evidence(run_dir: Path) -> tuple[EvidenceEntry, ...]:
    """The entries of a run's evidence manifest, in order; :class:`RunFileError` when it cannot be read."""
    manifest = read_json(run_dir / EVIDENCE_MANIFEST)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, list):
        raise RunFileError(run_dir / EVIDENCE_MANIFEST, "no list of files")
    return tuple(EvidenceEntry(e.get("kind"), e.get("uri"), e.get("sha256"), e.get("step_id"), e)
                 for e in files if isinstance(e, dict))


@dataclass(frozen=True)
class RunRecord:
    """One run folder: its manifest's identity and status, its trace, and its steps in order of first appearance."""

    path: Path
    manifest: dict[str, Any]
    trace: Trace
    steps: tuple[StepRecord, ...]

    @property
    def events(self) -> int:
        return len(self.trace.events)

    @property
    def truncated(self) -> bool:
        return self.trace.truncated

    @property
    def unreadable_lines(self) -> int:
        return self.trace.unreadable_lines

    @property
    def finished(self) -> bool:
        return self.trace.finished

    @property
    def errors(self) -> tuple[dict[str, Any], ...]:
        return self.trace.errors

    @property
    def attempts(self) -> Attempts:
        return self.trace.attempts

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
    missing = [name for name in (RUN_MANIFEST, TRACE) if not (path / name).is_file()]
    if missing:
        raise RunFolderError(f"not a run folder (no {' or '.join(missing)}): {path}")
    try:
        manifest = read_json(path / RUN_MANIFEST)
    except RunFileError as exc:
        first = exc.reason.splitlines()[0] if exc.reason else "unreadable"
        raise RunFolderError(f"not a run folder ({RUN_MANIFEST} is not valid JSON: {first}): {path}") from None
    if not isinstance(manifest, dict):
        raise RunFolderError(f"not a run folder ({RUN_MANIFEST} is not a JSON object): {path}")
    return manifest


def read_run(path: Path) -> RunRecord:
    """Read one run folder; raise :class:`RunFolderError` when it is not one."""
    manifest = _read_manifest(path)
    try:
        trace = read_trace(path / TRACE)
    except RunFileError as exc:
        raise RunFolderError(f"cannot read {exc.path}: {exc.reason}") from None
    return RunRecord(path=path, manifest=manifest, trace=trace, steps=steps_of(trace.events))


def find_runs(paths: list[Path]) -> list[Path]:
    """A run folder, or a folder of run folders (the output folder)."""
    runs: list[Path] = []
    for path in paths:
        if (path / TRACE).exists() or (path / RUN_MANIFEST).exists():
            runs.append(path)
        elif path.is_dir():
            runs.extend(sorted(p for p in path.iterdir() if p.is_dir() and (p / RUN_MANIFEST).exists()))
    return runs
