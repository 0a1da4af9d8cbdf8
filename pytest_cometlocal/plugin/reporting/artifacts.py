"""The lines of a failure's text that point at its artifacts: the Playwright trace (with the command that
opens it), the video and the screenshots, each as a path relative to the working folder, so a person can
open them from the terminal they read the failure in (issue 39)."""

from __future__ import annotations

from pathlib import Path

from pytest_cometlocal.contract.load.paths import shown_path
from pytest_cometlocal.contract.model.records import ExecutorError
from pytest_cometlocal.runs.errors import RunFolderError
from pytest_cometlocal.runs.reader import read_evidence

LABEL = "{:<12}"  # as the failure text's "run folder:" and "check it:" lines


def artifact_lines(run_dir: Path, error: ExecutorError) -> list[str]:
    """``trace:``, ``video:`` and ``screenshots:`` lines; none for a kind the run did not keep."""
    try:
        entries = [e for e in read_evidence(run_dir) if e.uri]
    except RunFolderError:
        return []
    failure_shots = {ref.uri for ref in error.evidence_refs if ref.kind == "screenshot"}
    traces = [shown_path(run_dir / e.uri) for e in entries if e.kind == "playwright_trace"]
    videos = [shown_path(run_dir / e.uri) for e in entries if e.kind == "video"]
    shots = [shown_path(run_dir / e.uri) for e in entries
             if e.kind == "screenshot" and (e.uri in failure_shots or (e.data.get("metadata") or {}).get("final"))]
    lines = [f"  {LABEL.format('trace:')}{path}   (open it: playwright show-trace {path})" for path in traces]
    lines += [f"  {LABEL.format('video:')}{path}" for path in videos]
    if shots:
        lines.append(f"  screenshots: {', '.join(shots)}")
    return lines
