"""Checking a run folder after the fact: ``cometlocal verify``.

``verify`` re-derives everything a run folder claims: every trace line parses
and matches TraceEvent v1, seq has no gap, run_started opens and run_finished
closes the run, timestamps never go back, every evidence file exists with the
manifest's sha256 and size, nothing unlisted sits in evidence/, and every
error's evidence refs resolve. An entry without a file (``uri`` null) must be
a withheld download, with its original_sha256, size and evidence gap; a
masked one must say what it was masked from. Every step record (``action_spec``)
is of a known format (``schema_version`` v1, v1.1 or v1.2; none in runs recorded
before v1.1 counts as v1), and one the manifest's ``format_versions`` lists
when it has them. (v1.2) A request step's http exchange is JSON with its request
and response. Pure Python: no browser, no pytest.

The files are read by :mod:`pytest_cometlocal.runs.reader`, at its line level:
verify checks each trace line, where the other readers only want the events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_cometlocal.contract.model.actionspec import FORMAT_VERSIONS
from pytest_cometlocal.contract.model.records import TraceEvent
from pytest_cometlocal.contract.run_folder import (
    EVIDENCE_DIR, EVIDENCE_MANIFEST, RUN_MANIFEST, TMP_SUFFIX, TRACE, sha256_file,
)
from pytest_cometlocal.runs.errors import RunFileError
from pytest_cometlocal.runs.extensions import extension_problems
from pytest_cometlocal.runs.reader import read_json, read_trace

MANIFEST_FIELDS = ("run_id", "started_at", "execution_profile", "execution_mode", "policy_defaults",
                   "app_version", "platform", "domain_allowlist", "redaction_policy")


@dataclass
class Verification:
    run_dir: Path
    problems: list[str] = field(default_factory=list)
    events: int = 0
    files: int = 0
    withheld: int = 0  # listed without a file: downloads that held a secret
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, message: str) -> None:
        self.problems.append(message)


def _load_json(path: Path, result: Verification) -> Any:
    try:
        return read_json(path)
    except RunFileError as exc:
        result.add(f"{path.name}: missing" if exc.missing else f"{path.name}: not valid JSON ({exc.reason})")
    return None


def _pending_batch(run_dir: Path, manifest: dict[str, Any], unlisted: list[str]) -> set[str]:
    """The unlisted files that the last evidence batch moved in before a kill stopped it.

    A batch moves its files into evidence/ and then replaces the manifest by
    the complete new one, written first as ``evidence_manifest.json.tmp``
    (executor/runfolder/evidence_store.py). A SIGKILL between the two leaves exactly this:
    the ``.tmp`` manifest parses, begins with every entry of the manifest in
    place, and lists each unlisted file after them with its sha256. Such files
    count as listed. Anything else unlisted stays a problem.
    """
    if not unlisted:
        return set()
    try:
        new = read_json(run_dir / (EVIDENCE_MANIFEST + TMP_SUFFIX))
        old_files, new_files = manifest.get("files", []), new["files"]
    except (RunFileError, TypeError, KeyError):
        return set()
    if not isinstance(new_files, list) or new_files[:len(old_files)] != old_files:
        return set()
    added = {e.get("uri"): e for e in new_files[len(old_files):] if isinstance(e, dict)}
    return {uri for uri in unlisted
            if uri in added and sha256_file(run_dir / uri) == added[uri].get("sha256")
            and (run_dir / uri).stat().st_size == added[uri].get("size_bytes", (run_dir / uri).stat().st_size)}


def _masked_ok(entry: dict[str, Any]) -> bool:
    """A download stored masked says so whole: ``masked: true``, the count, the hash of what came."""
    count = entry.get("masked_count")
    return (entry.get("masked") is True and isinstance(count, int) and count >= 1
            and _is_sha256(entry.get("original_sha256")))


def _is_sha256(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _check_withheld(entry: dict[str, Any], result: Verification) -> None:
    """An entry without a file (``uri`` null): a withheld download, listed with its hash, size and gap."""
    gaps = (entry.get("details") or {}).get("evidence_gaps")
    if (entry.get("sha256") is not None or not _is_sha256(entry.get("original_sha256"))
            or not isinstance(entry.get("size_bytes"), int) or not isinstance(gaps, list) or not gaps
            or not all(isinstance(g, dict) and g.get("kind") and g.get("reason") for g in gaps)):
        result.add(f"{EVIDENCE_MANIFEST}: an entry of kind {entry.get('kind')!r} (step {entry.get('step_id')!r}) "
                   "has no uri and is not a withheld file (original_sha256, size_bytes, details.evidence_gaps)")
        return
    result.withheld += 1


def _check_exchange(path: Path, uri: str, result: Verification) -> None:
    """(v1.2) A request step's ``evidence/http/<tag>.json``: JSON with its request (method, url) and response."""
    try:
        doc = read_json(path)
    except RunFileError as exc:
        result.add(f"{uri}: not valid JSON ({exc.reason})")
        return
    request = doc.get("request") if isinstance(doc, dict) else None
    if not isinstance(request, dict) or not {"method", "url"} <= set(request) or "response" not in doc:
        result.add(f"{uri}: an http exchange without its request (method, url) and response")


def verify_run(run_dir: Path) -> Verification:
    """Check one run folder against the trace and evidence contracts: its manifest, its evidence, its trace."""
    result = Verification(run_dir)
    run_id, formats = _check_manifest(run_dir, result)
    listed = _check_evidence(run_dir, result)
    events = _trace_events(run_dir, result)
    if events is not None:
        _check_trace(events, run_id, formats, listed, result)
    return result


def _check_manifest(run_dir: Path, result: Verification) -> tuple[Any, set[str] | None]:
    """run_manifest.json has its fields: its run_id, and the plan formats it lists (``_manifest_formats``)."""
    manifest = _load_json(run_dir / RUN_MANIFEST, result)
    if isinstance(manifest, dict):
        for key in MANIFEST_FIELDS:
            if key not in manifest:
                result.add(f"{RUN_MANIFEST}: missing field {key}")
    for problem in extension_problems(manifest):  # (extensions) the kinds the run could use (runs/extensions.py)
        result.add(problem)
    run_id = manifest.get("run_id") if isinstance(manifest, dict) else None
    return run_id, _manifest_formats(manifest, result)


def _check_evidence(run_dir: Path, result: Verification) -> dict[str, dict[str, Any]]:
    """Each file the evidence manifest lists is in evidence/ with its hash and size, each file there is
    listed (or of a batch a kill cut short); returns the listed entries by uri."""
    listed: dict[str, dict[str, Any]] = {}
    evidence = _load_json(run_dir / EVIDENCE_MANIFEST, result)
    if not isinstance(evidence, dict):
        return listed
    for entry in evidence.get("files", []):
        uri = entry.get("uri", "")
        if uri is None:
            _check_withheld(entry, result)
            continue
        listed[uri] = entry
        _check_listed_file(run_dir, uri, entry, result)
    if result.withheld:
        result.notes.append(f"{result.withheld} file(s) withheld, listed with their hash but not stored "
                            "(details.evidence_gaps)")
    evidence_dir = run_dir / EVIDENCE_DIR
    if evidence_dir.is_dir():
        unlisted = [path.relative_to(run_dir).as_posix() for path in sorted(evidence_dir.rglob("*"))
                    if path.is_file() and path.relative_to(run_dir).as_posix() not in listed]
        pending = _pending_batch(run_dir, evidence, unlisted)
        if pending:
            result.files += len(pending)
            result.notes.append(f"{len(pending)} evidence file(s) of a batch cut short by a kill: listed, "
                                f"with matching sha256, by the complete {EVIDENCE_MANIFEST}.tmp")
        for rel in unlisted:
            if rel not in pending:
                result.add(f"{rel}: in evidence/ but not in the manifest")
    return listed


def _check_listed_file(run_dir: Path, uri: str, entry: dict[str, Any], result: Verification) -> None:
    """One listed file: under evidence/, present, with the manifest's sha256 and size (and masking record)."""
    if entry.get("masked") is not None and not _masked_ok(entry):
        result.add(f"{EVIDENCE_MANIFEST}: {uri!r} is masked without its original_sha256 and masked_count")
    path = run_dir / uri
    if not uri.startswith(EVIDENCE_DIR + "/") or ".." in Path(uri).parts:
        result.add(f"{EVIDENCE_MANIFEST}: {uri!r} is outside evidence/")
        return
    if not path.is_file():
        result.add(f"{uri}: listed in the manifest but missing")
        return
    result.files += 1
    if sha256_file(path) != entry.get("sha256"):
        result.add(f"{uri}: sha256 does not match the manifest (modified after the run)")
    elif entry.get("size_bytes") is not None and path.stat().st_size != entry["size_bytes"]:
        result.add(f"{uri}: size does not match the manifest")
    elif entry.get("kind") == "http_exchange":
        _check_exchange(path, uri, result)


def _trace_events(run_dir: Path, result: Verification) -> list[dict[str, Any]] | None:
    """The trace's events, each line a TraceEvent v1 (the others reported); None when there are none."""
    try:
        trace = read_trace(run_dir / TRACE)
    except RunFileError as exc:
        result.add(f"{TRACE}: missing" if exc.missing else f"{TRACE}: cannot be read ({exc.reason})")
        return None
    if trace.truncated:
        result.add(f"{TRACE}: last line is not terminated (truncated write)")
    events: list[dict[str, Any]] = []
    for line in trace.lines:
        if line.problem is not None:
            result.add(f"{TRACE}:{line.number}: not a valid JSON line ({line.problem[:120]})")
            continue
        try:
            TraceEvent.model_validate(line.data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            result.add(f"{TRACE}:{line.number}: not a TraceEvent v1 ({where}: {first['msg']})")
            continue
        events.append(line.data)
    result.events = len(events)
    if not events:
        result.add(f"{TRACE}: no events")
        return None
    return events


def _check_trace(events: list[dict[str, Any]], run_id: Any, formats: set[str] | None,
                 listed: dict[str, dict[str, Any]], result: Verification) -> None:
    """The events are one run's, in order from run_started to run_finished, of the listed plan formats,
    and every evidence they refer to is listed with the same hash."""
    for expected, event in enumerate(events, 1):
        if event["seq"] != expected:
            result.add(f"{TRACE}: seq {event['seq']} where {expected} was expected (gap or reorder)")
            break
    if run_id is not None and any(e["run_id"] != run_id for e in events):
        result.add(f"{TRACE}: events of another run_id")
    stamps = [e["ts_utc"] for e in events]
    if any(b < a for a, b in zip(stamps, stamps[1:])):
        result.add(f"{TRACE}: ts_utc goes backwards")
    if events[0]["event_type"] != "run_started":
        result.add(f"{TRACE}: first event is {events[0]['event_type']}, not run_started")
    if events[-1]["event_type"] != "run_finished":
        result.add(f"{TRACE}: last event is {events[-1]['event_type']}, not run_finished (truncated or still running)")
    _check_formats(events, formats, result)
    for event in events:
        refs = list(event.get("evidence_refs") or [])
        if event.get("error"):
            refs += event["error"].get("evidence_refs") or []
        for ref in refs:
            entry = listed.get(ref.get("uri"))
            if entry is None:
                result.add(f"{TRACE}: seq {event['seq']} refers to {ref.get('uri')}, not in the manifest")
            elif entry.get("sha256") != ref.get("sha256"):
                result.add(f"{TRACE}: seq {event['seq']} hash of {ref.get('uri')} differs from the manifest")


def _manifest_formats(manifest: Any, result: Verification) -> set[str] | None:
    """The manifest's ``format_versions`` (None when it has none: a run recorded before v1.1)."""
    if not isinstance(manifest, dict) or "format_versions" not in manifest:
        return None
    listed = manifest["format_versions"]
    if not isinstance(listed, list) or any(v not in FORMAT_VERSIONS for v in listed):
        result.add(f"{RUN_MANIFEST}: format_versions {listed!r} is not a list of known plan formats "
                   f"({', '.join(FORMAT_VERSIONS)})")
        return None
    return set(listed)


def _check_formats(events: list[dict[str, Any]], listed: set[str] | None, result: Verification) -> None:
    """Each step record is of a known plan format, and of one the manifest lists."""
    for event in events:
        spec = event.get("action_spec")
        if not isinstance(spec, dict):
            continue
        version = spec.get("schema_version", "v1")
        if version not in FORMAT_VERSIONS:
            result.add(f"{TRACE}: seq {event['seq']} action_spec has schema_version {version!r}, "
                       f"not a known plan format ({', '.join(FORMAT_VERSIONS)})")
        elif listed is not None and version not in listed:
            result.add(f"{TRACE}: seq {event['seq']} action_spec of format {version} is not in the manifest's "
                       f"format_versions {sorted(listed)}")
