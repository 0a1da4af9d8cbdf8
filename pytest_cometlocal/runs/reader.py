"""The one reader of run folders: trace.jsonl and the manifests, folded into typed records.

Everything that reads a run back goes through here: ``cometlocal verify``
(runs/verify.py), ``show`` and its suggested targets (runs/show.py), ``diff``
(runs/diff.py), the retries a report shows (plugin/retries.py) and the
evidence Allure attaches (plugin/reporting/allure_report.py). Three levels, each built
on the one below, so a trace line is parsed once whoever asks:

- the file: :func:`read_trace` splits ``trace.jsonl`` into :class:`TraceLine`
  (its text, its JSON, or why it is not JSON), which verify checks line by line;
- the events: a line that is a JSON object with an ``event_type`` is an
  :class:`Event`, its fields typed leniently (a hand-made or damaged trace
  still reads); verify validates the lines against TraceEvent v1 itself;
  :func:`read_events` parses only the lines that name the events asked for;
- the run: :func:`read_run` folds the events into steps (:class:`StepRecord`),
  attempts (:class:`Attempts`) and errors, next to the run manifest
  (:class:`StoredRun`); :func:`read_evidence` lists the evidence manifest.
- the folders: :func:`find_runs` lists the run folders that paths name (run
  folders, or output folders such as the shards' of one CI run), once each.

A trace whose last line was cut by a crash is read up to that line (the
``truncated`` flag says so): a crashed run is exactly the one worth reading.
Lines are split at ``\\n`` only: the writer keeps text such as U+2028 as it is,
and a line break of another kind is part of a line. Pure Python, no browser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Mapping, Sequence

from pytest_cometlocal.contract.expectation import recorded_expectation_met
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST, RUN_MANIFEST, TRACE
from pytest_cometlocal.runs.errors import RunFileError, RunFolderError
from pytest_cometlocal.runs.events import Event
from pytest_cometlocal.runs.steps import ATTEMPT_EVENTS, Attempts, StepRecord, attempts_of, steps_of

__all__ = ["Event", "EvidenceEntry", "StoredRun", "Trace", "TraceLine", "ended_as_expected", "find_runs", "is_run_folder",
           "plan_identity",
           "read_attempts", "read_events", "read_evidence", "read_json", "read_manifest", "read_run", "read_trace",
           "run_extensions", "run_settings", "run_stubs", "runs_in"]


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
class StoredRun:
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
    def status(self) -> str | None:
        """The manifest's ``status`` (passed, failed, halted, stopped, blocked, interrupted, internal_error);
        None for a run that never finished, or a manifest that holds no text there."""
        return _text(self.manifest, "status")

    @property
    def error_code(self) -> str | None:
        """The manifest's ``error_code``: the code of the error the run ended with (None: none)."""
        return _text(self.manifest, "error_code")

    @property
    def failed_step(self) -> str | None:
        """The manifest's ``failed_step``: the id of the step the run failed at (None: none, or outside a step)."""
        return _text(self.manifest, "failed_step")

    @property
    def plan(self) -> dict[str, Any]:
        plan = self.manifest.get("plan")
        return plan if isinstance(plan, dict) else {}

    @property
    def base_url(self) -> str | None:
        profile = self.manifest.get("execution_profile")
        return profile.get("base_url") if isinstance(profile, dict) else None

    @property
    def settings(self) -> dict[str, Any]:
        """(v1.2) The run's browser settings and clock, as the manifest records them: ``{browser?, clock?}``,
        empty for a run whose plan set none (:func:`run_settings`)."""
        return run_settings(self.manifest)

    @property
    def stubs(self) -> dict[str, Any]:
        """(v1.2) The run's routes (the manifest's, masked), the requests they answered or aborted (each
        request_stubbed event's metadata, with its ``step``) and ``routes_unused`` (run_finished's); ``{}``
        for a run whose plan had no routes (:func:`run_stubs`)."""
        return run_stubs(self.manifest, self.trace.events)

    @property
    def extensions(self) -> list[dict[str, Any]]:
        """(extensions) The extension kinds the run could use, as its manifest lists them
        (:func:`run_extensions`); ``[]`` for a run without any, or one recorded before extensions."""
        return run_extensions(self.manifest)

    @property
    def ended_as_expected(self) -> bool:
        """A negative plan's run that ended with the error its ``expect`` asks for: pytest passed it."""
        return ended_as_expected(self.manifest, self.errors)

    def plan_identity(self) -> dict[str, Any]:
        """The plan as it is named: file, name, and the row of a parametrized plan.

        The line is left out on purpose: a plan edited between two builds moves,
        and those are the two runs worth comparing.
        """
        return plan_identity(self.manifest)

    def summary(self) -> dict[str, Any]:
        return {"path": str(self.path), "run_id": self.manifest.get("run_id"),
                "status": self.status, "error_code": self.error_code,
                "failed_step": self.failed_step, "started_at": self.manifest.get("started_at"),
                "base_url": self.base_url, "events": self.events, "truncated": self.truncated,
                "finished": self.finished}


def _text(manifest: Mapping[str, Any], key: str) -> str | None:
    value = manifest.get(key)
    return value if isinstance(value, str) else None


def plan_identity(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The plan a run manifest names: ``{file, name}``, and ``row_id`` for a row of a parametrized plan
    (:meth:`StoredRun.plan_identity`)."""
    plan = manifest.get("plan")
    plan = plan if isinstance(plan, dict) else {}
    identity = {"file": plan.get("file"), "name": plan.get("name")}
    if plan.get("row_id") is not None:
        identity["row_id"] = plan.get("row_id")
    return identity


def run_settings(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """(v1.2) ``configuration.effective``'s ``browser`` and ``clock`` (recorded only when set), each with its
    source (``configuration.sources``) under ``sources``; ``{}`` for a run without them or an older manifest."""
    conf = manifest.get("configuration")
    conf = conf if isinstance(conf, Mapping) else {}
    effective, sources = conf.get("effective"), conf.get("sources")
    effective = effective if isinstance(effective, Mapping) else {}
    sources = sources if isinstance(sources, Mapping) else {}
    found = {key: dict(effective[key]) for key in ("browser", "clock") if isinstance(effective.get(key), Mapping)}
    if found:
        found["sources"] = {key: sources.get(key) for key in found}
    return found


def run_extensions(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """(extensions) The manifest's ``extensions``: ``[{name, type, package, version} | {name, type, path}]``,
    read leniently (entries that are not objects with a name are left out; verify names them)."""
    kinds = manifest.get("extensions")
    return [dict(k) for k in kinds if isinstance(k, Mapping) and isinstance(k.get("name"), str)] \
        if isinstance(kinds, list) else []


def run_stubs(manifest: Mapping[str, Any], events: Sequence[Event]) -> dict[str, Any]:
    """(v1.2) ``{routes, stubbed, routes_unused}`` of a run (:meth:`StoredRun.stubs`), read leniently."""
    conf = manifest.get("configuration")
    effective = conf.get("effective") if isinstance(conf, Mapping) else None
    routes = effective.get("routes") if isinstance(effective, Mapping) else None
    stubbed = [{**e.metadata, "step": e.step_id} for e in events if e.event_type == "request_stubbed"]
    unused = next((e.metadata.get("routes_unused") for e in reversed(events) if e.event_type == "run_finished"), None)
    if not isinstance(routes, list) and not stubbed:
        return {}
    return {"routes": routes if isinstance(routes, list) else [], "stubbed": stubbed,
            "routes_unused": unused if isinstance(unused, list) else []}


def ended_as_expected(manifest: Mapping[str, Any], errors: Sequence[Mapping[str, Any]] = ()) -> bool:
    """The run failed with the error its plan's ``expect`` (recorded in the manifest's ``plan``) asks for,
    as the pytest outcome judges it: an expected error, not a failure. ``errors`` (the trace's) give the
    steps an invalid plan's problems lie in; a run whose plan expects nothing is never expected."""
    plan = manifest.get("plan")
    if manifest.get("status") != "failed" or not isinstance(plan, Mapping):
        return False
    details = errors[-1].get("details") if errors else None
    steps = details.get("steps") if isinstance(details, Mapping) else None
    return recorded_expectation_met(plan, manifest.get("error_code"), manifest.get("failed_step"),
                                    [str(s) for s in steps] if isinstance(steps, list) else ())


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


def read_run(path: Path) -> StoredRun:
    """Read one run folder; raise :class:`RunFolderError` when it is not one."""
    manifest = _read_manifest(path)
    try:
        trace = read_trace(path / TRACE)
    except RunFileError as exc:
        raise RunFolderError(f"cannot read {exc.path}: {exc.reason}") from None
    return StoredRun(path=path, manifest=manifest, trace=trace, steps=steps_of(trace.events))


def read_manifest(path: Path) -> dict[str, Any]:
    """A run folder's run_manifest.json, read alone (no trace); :class:`RunFolderError` when it is not a run folder."""
    return _read_manifest(path)


def is_run_folder(path: Path) -> bool:
    """``path`` holds a trace or a run manifest: a run folder (perhaps a damaged one), not an output folder."""
    return (path / TRACE).exists() or (path / RUN_MANIFEST).exists()


def runs_in(path: Path) -> list[Path]:
    """The run folders one path names: itself when it is a run folder, else the run folders in it (an output
    folder), sorted. :class:`RunFolderError`, one line naming the path, when it does not exist, is a file, or
    holds no run folder (with a hint when a ``cometlocal-runs`` folder in it does)."""
    if is_run_folder(path):
        return [path]
    if not path.exists():
        raise RunFolderError(f"no such run folder or output folder: {path}")
    if not path.is_dir():
        raise RunFolderError(f"not a run folder or output folder (not a folder): {path}")
    try:
        found = sorted(p for p in path.iterdir() if p.is_dir() and (p / RUN_MANIFEST).exists())
    except OSError as exc:
        raise RunFolderError(f"cannot list {path}: {exc.strerror or exc}") from None
    if not found:
        hint = path / "cometlocal-runs"
        more = f" (did you mean {hint}?)" if hint.is_dir() and any(hint.glob(f"*/{RUN_MANIFEST}")) else ""
        raise RunFolderError(f"no run folders under {path}{more}")
    return found


def find_runs(paths: Sequence[Path]) -> list[Path]:
    """The run folders of several paths (run folders or output folders, such as the shards' of one CI run),
    in the order given, each once however often it is named; :class:`RunFolderError` for the first path
    that names none (:func:`runs_in`)."""
    runs: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        for run in runs_in(path):
            key = run.resolve()
            if key not in seen:
                seen.add(key)
                runs.append(run)
    return runs
