"""``cometlocal verify`` catches tampering and truncation; ``show`` reads a run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_cometlocal.runs.show import show_run
from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.cli import main
from pytest_cometlocal.executor.session import record_invalid_plan
from tests.support import only_problems


@pytest.fixture
def run_dir(validate, tmp_path: Path) -> Path:
    invalid = only_problems(validate("name: broken\nsteps:\n  - {id: a, kind: clik}\n"))
    run, _error = record_invalid_plan(invalid, tmp_path / "out")
    return run.path


def test_intact_run_verifies(run_dir: Path, capsys) -> None:
    result = verify_run(run_dir)
    assert result.ok, result.problems
    assert result.events == 5 and result.files == 1
    assert main(["verify", str(run_dir.parent)]) == 0
    assert "1 run folders: 1 verified, 0 failed" in capsys.readouterr().out


def test_modified_evidence_file_is_caught(run_dir: Path, capsys) -> None:
    report = run_dir / "evidence" / "validation_report.json"
    report.write_text(report.read_text().replace("broken", "fine!!"))
    result = verify_run(run_dir)
    assert result.problems == ["evidence/validation_report.json: sha256 does not match the manifest (modified after the run)"]
    assert main(["verify", str(run_dir)]) == 1
    assert "sha256 does not match" in capsys.readouterr().out


def test_truncated_trace_is_caught(run_dir: Path) -> None:
    trace = run_dir / "trace.jsonl"
    data = trace.read_bytes()
    trace.write_bytes(data[: len(data.rstrip(b" \n")) - 40])  # cut inside the last line's event, not its padding
    problems = verify_run(run_dir).problems
    assert len(problems) == 3, problems
    assert problems[0] == "trace.jsonl: last line is not terminated (truncated write)"
    assert problems[1].startswith("trace.jsonl:5: not a valid JSON line (Unterminated string starting at: ")
    assert problems[2] == "trace.jsonl: last event is error_raised, not run_finished (truncated or still running)"


def test_removed_line_is_a_seq_gap(run_dir: Path) -> None:
    trace = run_dir / "trace.jsonl"
    lines = trace.read_text().splitlines(keepends=True)
    trace.write_text("".join(lines[:2] + lines[3:]))
    assert verify_run(run_dir).problems == ["trace.jsonl: seq 4 where 3 was expected (gap or reorder)"]


def test_unlisted_and_missing_evidence_are_caught(run_dir: Path) -> None:
    (run_dir / "evidence" / "extra.txt").write_text("planted")
    shutil.move(run_dir / "evidence" / "validation_report.json", run_dir / "moved.json")
    problems = verify_run(run_dir).problems
    assert "evidence/extra.txt: in evidence/ but not in the manifest" in problems
    assert "evidence/validation_report.json: listed in the manifest but missing" in problems


def test_event_that_is_not_a_trace_event_is_caught(run_dir: Path) -> None:
    trace = run_dir / "trace.jsonl"
    lines = trace.read_text().splitlines()
    event = json.loads(lines[1])
    event["event_type"] = "made_up"
    lines[1] = json.dumps(event)
    trace.write_text("\n".join(lines) + "\n")
    assert any(p.startswith("trace.jsonl:2: not a TraceEvent v1 (event_type") for p in verify_run(run_dir).problems)


def test_show_prints_the_error(run_dir: Path) -> None:
    text = show_run(run_dir)
    assert "status: failed" in text and "INVALID_ACTIONSPEC" in text and "violated_rules" in text


def test_usage_error_without_runs(tmp_path: Path, capsys) -> None:
    assert main(["verify", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"cometlocal: error: no run folders under {tmp_path}\n"
