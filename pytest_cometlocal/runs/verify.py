"""Checking and reading run folders after the fact: ``cometlocal verify`` and ``cometlocal show``.

``verify`` re-derives everything a run folder claims: every trace line parses
and matches TraceEvent v1, seq has no gap, run_started opens and run_finished
closes the run, timestamps never go back, every evidence file exists with the
manifest's sha256 and size, nothing unlisted sits in evidence/, and every
error's evidence refs resolve. An entry without a file (``uri`` null) must be
a withheld download, with its original_sha256, size and evidence gap; a
masked one must say what it was masked from. Pure Python: no browser, no pytest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_cometlocal.contract.model.records import TraceEvent
from pytest_cometlocal.executor.runfolder.evidence_store import MANIFEST, sha256_file

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
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        result.add(f"{path.name}: missing")
    except (OSError, ValueError) as exc:
        result.add(f"{path.name}: not valid JSON ({exc})")
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
        new = json.loads((run_dir / (MANIFEST + ".tmp")).read_text(encoding="utf-8"))
        old_files, new_files = manifest.get("files", []), new["files"]
    except (OSError, ValueError, TypeError, KeyError):
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
        result.add(f"{MANIFEST}: an entry of kind {entry.get('kind')!r} (step {entry.get('step_id')!r}) has no uri "
                   "and is not a withheld file (original_sha256, size_bytes, details.evidence_gaps)")
        return
    result.withheld += 1


def verify_run(run_dir: Path) -> Verification:
    """Check one run folder against the trace and evidence contracts."""
    result = Verification(run_dir)
    manifest = _load_json(run_dir / "run_manifest.json", result)
    if isinstance(manifest, dict):
        for key in MANIFEST_FIELDS:
            if key not in manifest:
                result.add(f"run_manifest.json: missing field {key}")
    run_id = manifest.get("run_id") if isinstance(manifest, dict) else None

    listed: dict[str, dict[str, Any]] = {}
    evidence = _load_json(run_dir / MANIFEST, result)
    if isinstance(evidence, dict):
        for entry in evidence.get("files", []):
            uri = entry.get("uri", "")
            if uri is None:
                _check_withheld(entry, result)
                continue
            listed[uri] = entry
            if entry.get("masked") is not None and not _masked_ok(entry):
                result.add(f"{MANIFEST}: {uri!r} is masked without its original_sha256 and masked_count")
            path = run_dir / uri
            if not uri.startswith("evidence/") or ".." in Path(uri).parts:
                result.add(f"{MANIFEST}: {uri!r} is outside evidence/")
                continue
            if not path.is_file():
                result.add(f"{uri}: listed in the manifest but missing")
                continue
            result.files += 1
            if sha256_file(path) != entry.get("sha256"):
                result.add(f"{uri}: sha256 does not match the manifest (modified after the run)")
            elif entry.get("size_bytes") is not None and path.stat().st_size != entry["size_bytes"]:
                result.add(f"{uri}: size does not match the manifest")
        if result.withheld:
            result.notes.append(f"{result.withheld} file(s) withheld, listed with their hash but not stored "
                                "(details.evidence_gaps)")
        evidence_dir = run_dir / "evidence"
        if evidence_dir.is_dir():
            unlisted = [path.relative_to(run_dir).as_posix() for path in sorted(evidence_dir.rglob("*"))
                        if path.is_file() and path.relative_to(run_dir).as_posix() not in listed]
            pending = _pending_batch(run_dir, evidence, unlisted)
            if pending:
                result.files += len(pending)
                result.notes.append(f"{len(pending)} evidence file(s) of a batch cut short by a kill: listed, "
                                    f"with matching sha256, by the complete {MANIFEST}.tmp")
            for rel in unlisted:
                if rel not in pending:
                    result.add(f"{rel}: in evidence/ but not in the manifest")

    trace_path = run_dir / "trace.jsonl"
    if not trace_path.is_file():
        result.add("trace.jsonl: missing")
        return result
    raw = trace_path.read_bytes()
    if raw and not raw.endswith(b"\n"):
        result.add("trace.jsonl: last line is not terminated (truncated write)")
    events: list[dict[str, Any]] = []
    for number, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        try:
            data = json.loads(line)
            TraceEvent.model_validate(data)
        except ValidationError as exc:  # before ValueError: it is one
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            result.add(f"trace.jsonl:{number}: not a TraceEvent v1 ({where}: {first['msg']})")
            continue
        except ValueError as exc:
            result.add(f"trace.jsonl:{number}: not a valid JSON line ({str(exc).splitlines()[0][:120]})")
            continue
        events.append(data)
    result.events = len(events)
    if not events:
        result.add("trace.jsonl: no events")
        return result
    for expected, event in enumerate(events, 1):
        if event["seq"] != expected:
            result.add(f"trace.jsonl: seq {event['seq']} where {expected} was expected (gap or reorder)")
            break
    if run_id is not None and any(e["run_id"] != run_id for e in events):
        result.add("trace.jsonl: events of another run_id")
    stamps = [e["ts_utc"] for e in events]
    if any(b < a for a, b in zip(stamps, stamps[1:])):
        result.add("trace.jsonl: ts_utc goes backwards")
    if events[0]["event_type"] != "run_started":
        result.add(f"trace.jsonl: first event is {events[0]['event_type']}, not run_started")
    if events[-1]["event_type"] != "run_finished":
        result.add(f"trace.jsonl: last event is {events[-1]['event_type']}, not run_finished (truncated or still running)")
    for event in events:
        refs = list(event.get("evidence_refs") or [])
        if event.get("error"):
            refs += event["error"].get("evidence_refs") or []
        for ref in refs:
            entry = listed.get(ref.get("uri"))
            if entry is None:
                result.add(f"trace.jsonl: seq {event['seq']} refers to {ref.get('uri')}, not in the manifest")
            elif entry.get("sha256") != ref.get("sha256"):
                result.add(f"trace.jsonl: seq {event['seq']} hash of {ref.get('uri')} differs from the manifest")
    return result


def find_runs(paths: list[Path]) -> list[Path]:
    """A run folder, or a folder of run folders (the output folder)."""
    runs: list[Path] = []
    for path in paths:
        if (path / "trace.jsonl").exists() or (path / "run_manifest.json").exists():
            runs.append(path)
        elif path.is_dir():
            runs.extend(sorted(p for p in path.iterdir() if p.is_dir() and (p / "run_manifest.json").exists()))
    return runs


def _short(value: Any, limit: int = 140) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def show_run(run_dir: Path) -> str:
    """A readable timeline of one run: steps, durations, outcomes, the error with its details."""
    manifest = json.loads((run_dir / "run_manifest.json").read_text(encoding="utf-8"))
    lines = [
        f"run {manifest.get('run_id')}  plan: {manifest.get('plan', {}).get('name')}  "
        f"mode: {manifest.get('execution_mode')}  status: {manifest.get('status')}",
        f"  started {manifest.get('started_at')}  finished {manifest.get('finished_at')}",
        f"  allowlist: {', '.join(manifest.get('domain_allowlist') or []) or '(none)'}",
    ]
    events = []
    for line in (run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            lines.append("  (unreadable trace line)")
    first_ts: dict[str, str] = {}
    last_ts: dict[str, str] = {}
    order: list[str] = []
    status: dict[str, str] = {}
    for e in events:
        step = e.get("step_id")
        if not step:
            continue
        if step not in first_ts:
            first_ts[step] = e["ts_utc"]
            order.append(step)
            status[step] = "running"
        last_ts[step] = e["ts_utc"]
        kind = e["event_type"]
        if kind in ("postconditions_checked", "assert_checked") and status[step] == "running":
            status[step] = "ok"
        elif kind == "evidence_captured" and status[step] == "running" and not (e.get("metadata") or {}).get("for_error"):
            status[step] = "ok"
        elif kind in ("error_raised", "policy_halt"):
            status[step] = "FAILED " + (e.get("error") or {}).get("error_code", "")
        elif kind == "retry_scheduled":
            status[step] = "retrying"
        elif kind == "proposal_rejected":
            status[step] = "REJECTED"
    from datetime import datetime

    def ms(a: str, b: str) -> int:
        return int((datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds() * 1000)

    lines.append("  steps:")
    for step in order:
        lines.append(f"    {status[step]:<28} {step:<28} {ms(first_ts[step], last_ts[step]):>6} ms")
    error = next((e["error"] for e in reversed(events) if e["event_type"] == "error_raised" and e.get("error")), None)
    if error:
        lines.append(f"  error: {error['error_code']} at step {error.get('action_id')} ({error.get('stage')}): {error.get('message')}")
        for fc in error.get("failed_conditions") or []:
            lines.append(f"    failed {fc['phase']}condition {fc['kind']} {_short(fc.get('args'))} observed {_short(fc.get('observed'))}")
        for key, value in (error.get("details") or {}).items():
            lines.append(f"    {key}: {_short(value)}")
        for ref in error.get("evidence_refs") or []:
            lines.append(f"    evidence: {ref['kind']:<22} {ref['uri']}")
    if events and events[-1]["event_type"] != "run_finished":
        lines.append("  (the trace ends without run_finished: the run was cut off)")
    return "\n".join(lines)
