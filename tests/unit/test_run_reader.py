"""The one reader of run folders (runs/reader.py): typed records from a folder the executor's own writers wrote.

The folder is written with RunFolder, its TraceWriter and its EvidenceStore, as
a run writes it (no browser): a step passed after a retry, and one failed for
good with suggested targets. What the reader gives back is what verify,
show, diff and the retries in reports rely on.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.model.records import ExecutorError, TraceEvent
from pytest_cometlocal.contract.model.suggestion import suggestion_lines
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST, RUN_MANIFEST, TRACE, sha256_file
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.runs.errors import RunFileError, RunFolderError
from pytest_cometlocal.runs.reader import read_attempts, read_evidence, read_json, read_run, read_trace
from pytest_cometlocal.runs.steps import Attempts
from pytest_cometlocal.runs.show import show_run
from pytest_cometlocal.runs.verify import verify_run
from tests.unit import package_source

SUGGESTED = [{"target": {"type": "testid", "id": "save-changes"}, "matched": "button \"Save changes\"",
              "score": 0.9, "why": "the name is close"}]


def write_run(root: Path, text: str = "x") -> Path:
    run = RunFolder.create(root, "reader", mode="live", policy=Policy(), allowlist=(),
                           plan_info={"name": "reader", "file": "r.actions.yaml"})
    trace, evidence = run.trace, run.evidence
    trace.emit("run_started")
    # "open" fails once, is retried and passes.
    trace.emit("observation_captured", "open", metadata={"attempt": 1, "recovery": False, "text": text})
    trace.emit("proposal_received", "open", action_spec={"id": "open", "kind": "click"})
    first = evidence.add_json("dom_snapshot_partial", "dom/open_before.json", {"n": 1}, step_id="open")
    trace.emit("evidence_captured", "open", evidence_refs=[first], metadata={"for_error": "TARGET_NOT_FOUND"})
    trace.emit("retry_scheduled", "open", metadata={"attempt": 1, "next_attempt": 2})
    trace.emit("observation_captured", "open", metadata={"attempt": 2, "recovery": False})
    trace.emit("postconditions_checked", "open", metadata={"ok": True})
    # "save" fails for good, with a suggested target.
    trace.emit("observation_captured", "save", metadata={"attempt": 1, "recovery": False})
    trace.emit("proposal_received", "save", action_spec={"id": "save", "kind": "click"})
    ref = evidence.add_json("dom_snapshot_partial", "dom/save_before.json", {"n": 2}, step_id="save")
    trace.emit("evidence_captured", "save", evidence_refs=[ref], metadata={"for_error": "TARGET_NOT_FOUND"})
    error = ExecutorError(error_code=ErrorCode.TARGET_NOT_FOUND, stage="precondition", severity="error",
                          message="target resolution returned 0 matches; requires exactly 1", retryable=False,
                          run_id=run.run_id, seq=trace.next_seq, step_index=1, action_id="save", action_kind="click",
                          criticality="normal", state_before=None, evidence_refs=[ref],
                          created_at="2026-11-25T00:00:00Z",
                          details={"suggestions": SUGGESTED})
    trace.emit("error_raised", "save", error=error)
    trace.emit("run_finished", metadata={"status": "failed"})
    run.finish("failed", error_code="TARGET_NOT_FOUND", failed_step="save")
    return run.path


def test_a_run_folder_reads_as_typed_records(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    assert verify_run(path).ok, verify_run(path).problems  # a well-formed run folder
    run = read_run(path)
    assert (run.events, run.truncated, run.unreadable_lines, run.finished) == (12, False, 0, True)
    assert run.manifest["status"] == "failed" and run.plan_identity() == {"file": "r.actions.yaml", "name": "reader"}

    open_, save = run.steps
    assert (open_.step_id, open_.kind, open_.outcome, open_.attempts, open_.retries, open_.errors) == \
        ("open", "click", "passed", 2, 1, ("TARGET_NOT_FOUND",))
    assert (save.step_id, save.outcome, save.error_code, save.attempts) == ("save", "failed", "TARGET_NOT_FOUND", 1)
    assert [e.event_type for e in save.events] == ["observation_captured", "proposal_received", "evidence_captured",
                                                    "error_raised"]
    assert run.attempts == Attempts(attempts=3, retries=1, recoveries=0, recovered=(("open", 2),))
    assert [e["error_code"] for e in run.errors] == ["TARGET_NOT_FOUND"]

    # The line level, which verify checks: every line parsed once, numbered, each a TraceEvent v1.
    trace = read_trace(path / TRACE)
    assert [line.number for line in trace.lines] == list(range(1, 13))
    assert all(line.problem is None and TraceEvent.model_validate(line.data) for line in trace.lines)
    assert [e.number for e in trace.events] == list(range(1, 13))

    entries = read_evidence(path)
    assert [(e.kind, e.uri, e.step_id) for e in entries] == [
        ("dom_snapshot_partial", "evidence/dom/open_before.json", "open"),
        ("dom_snapshot_partial", "evidence/dom/save_before.json", "save")]
    assert all(e.sha256 == sha256_file(path / e.uri) for e in entries)


def test_show_and_its_suggestions_come_from_the_reader(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    text = show_run(path)
    assert [line.split()[-3] for line in text.splitlines() if line.endswith(" ms")] == ["open", "save"]
    assert re.search(r"^    FAILED TARGET_NOT_FOUND +save +\d+ ms$", text, re.M)
    assert "  error: TARGET_NOT_FOUND at step save (precondition): target resolution returned 0 matches" in text
    suggested = suggestion_lines({"suggestions": SUGGESTED})
    assert suggested and text.splitlines()[-len(suggested):] == suggested  # the folder read once
    assert read_attempts(path / TRACE) == read_run(path).attempts


def test_a_torn_last_line_is_read_up_to_the_line_before(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    raw = (path / TRACE).read_bytes()
    (path / TRACE).write_bytes(raw[: len(raw.rstrip(b" \n")) - 10])  # cut inside run_finished
    run = read_run(path)
    assert (run.events, run.truncated, run.unreadable_lines, run.finished) == (11, True, 0, False)
    assert run.trace.lines[-1].number == 12 and run.trace.lines[-1].problem and run.trace.lines[-1].event is None
    assert [s.outcome for s in run.steps] == ["passed", "failed"]
    assert "(the trace ends without run_finished: the run was cut off)" in show_run(path)


def test_lines_are_split_at_newlines_only(tmp_path: Path) -> None:
    """The writer keeps U+2028 and NEL as they are (ensure_ascii=False): they are text inside a line, not breaks."""
    path = write_run(tmp_path, text="one\u2028two\x85three\u2029four")
    assert verify_run(path).ok, verify_run(path).problems
    run = read_run(path)
    assert (run.events, run.unreadable_lines) == (12, 0)
    assert run.steps[0].events[0].metadata["text"] == "one\u2028two\x85three\u2029four"


def test_a_missing_manifest_is_a_typed_error(tmp_path: Path) -> None:
    path = write_run(tmp_path)
    (path / RUN_MANIFEST).unlink()
    with pytest.raises(RunFolderError, match=re.escape(f"not a run folder (no {RUN_MANIFEST}): {path}")) as caught:
        read_run(path)
    assert isinstance(caught.value, CometLocalError)
    (path / EVIDENCE_MANIFEST).unlink()
    with pytest.raises(RunFileError) as missing:
        read_evidence(path)
    assert missing.value.missing and missing.value.path == path / EVIDENCE_MANIFEST
    (path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(RunFileError) as broken:
        read_json(path / "broken.json")
    assert not broken.value.missing and broken.value.reason.startswith("Expecting property name")
    assert read_attempts(path / "no-trace.jsonl") is None


def test_the_file_names_of_a_run_folder_are_written_once() -> None:
    """Only contract/run_folder.py spells them; everything else names them from there."""
    package = package_source.PACKAGE
    literals = re.compile(r"""["'](trace\.jsonl|run_manifest\.json|evidence_manifest\.json)["']""")
    spelled = sorted(str(f.path.relative_to(package)) for f in package_source.python_files() if literals.search(f.text))
    assert spelled == ["contract/run_folder.py"]


def write_refused_run(root: Path) -> Path:
    """A run whose context the browser refused: one error_raised of no step, as executor.setup_failure writes."""
    run = RunFolder.create(root, "refused", mode="live", policy=Policy(), allowlist=(),
                           plan_info={"name": "refused", "file": "r.actions.yaml"})
    run.trace.emit("run_started")
    ref = run.evidence.add_json("validation_report", "context_refused.json", {"during": "new_context"})
    run.trace.emit("evidence_captured", evidence_refs=[ref])
    error = ExecutorError(error_code=ErrorCode.BROWSER_CRASHED, stage="execution", severity="error",
                          message="the browser context could not be made (new_context): gone", retryable=False,
                          run_id=run.run_id, seq=run.trace.next_seq, step_index=None, action_id=None,
                          action_kind=None, criticality=None, state_before=None, evidence_refs=[ref],
                          created_at="2026-11-25T00:00:00Z", details={"during": "new_context"})
    run.trace.emit("error_raised", error=error)
    run.trace.emit("run_finished", metadata={"status": "failed"})
    run.finish("failed", error_code="BROWSER_CRASHED", failed_step=None)
    return run.path


def test_show_names_an_error_of_no_step_as_before_the_first_step(tmp_path: Path) -> None:
    path = write_refused_run(tmp_path)
    assert verify_run(path).ok, verify_run(path).problems
    text = show_run(path)
    assert "  error: BROWSER_CRASHED before the first step (execution): the browser context could not be made" in text
    assert "None" not in text.split("  error:", 1)[1].splitlines()[0]
