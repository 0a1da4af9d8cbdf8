"""Where trace lines fall in the file: none of up to LINE_ROOM bytes crosses a page boundary.

SIGKILL can cut a ``write`` where it crosses a page boundary of the file
(executor/runfolder/trace_writer.py); tests/reliability/test_trace_kill.py kills writers. Here,
without a kill: the padding that keeps lines within a page, that it is JSON
whitespace every reader accepts, and that ``verify`` still reports a line cut
the way older versions could leave one.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.model.records import TraceEvent
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.runfolder.trace_writer import LINE_ROOM, PAGE, TraceWriter, padded
from pytest_cometlocal.runs.reader import read_run


def write_events(path: Path, sizes: list[int]) -> bytes:
    writer = TraceWriter(path, "r")
    for size in sizes:
        writer.emit("observation_captured", "s", metadata={"text": "x" * size})
    writer.close()
    return path.read_bytes()


def test_no_line_of_up_to_line_room_bytes_crosses_a_page_boundary(tmp_path: Path) -> None:
    rng = random.Random(0)
    sizes = [rng.randint(0, LINE_ROOM - 200) for _ in range(300)] + [3 * PAGE] + [rng.randint(0, LINE_ROOM - 200) for _ in range(50)]
    raw = write_events(tmp_path / "t.jsonl", sizes)
    offset, short, padded_lines = 0, 0, 0
    for line in raw.splitlines(keepends=True):
        body = line.rstrip(b" \n")
        assert line == body + b" " * (len(line) - len(body) - 1) + b"\n"  # the padding: spaces before the newline
        TraceEvent.model_validate(json.loads(line))
        if len(body) < LINE_ROOM:
            short += 1
            assert offset // PAGE == (offset + len(line) - 1) // PAGE, f"line at {offset} crosses a page boundary"
        padded_lines += len(line) > len(body) + 1
        offset += len(line)
    assert short == len(sizes) - 1 and padded_lines > 0
    assert len(raw) < 1.5 * sum(len(line.rstrip(b" \n")) + 1 for line in raw.splitlines())  # what the padding costs


def test_a_line_is_padded_only_when_less_than_line_room_would_be_left() -> None:
    assert padded(b"{}", 0) == b"{}\n"
    assert padded(b"{}", PAGE - LINE_ROOM - 3) == b"{}\n"  # exactly LINE_ROOM left
    assert padded(b"{}", PAGE - LINE_ROOM - 2) == b"{}" + b" " * (LINE_ROOM - 1) + b"\n"  # ends at the boundary
    assert padded(b"{}", PAGE - 3) == b"{}\n"  # ends right at the boundary
    long = b"{" + b"x" * (2 * PAGE - 100) + b"}"
    assert len(padded(long, 0)) == 2 * PAGE  # longer than a page: the page it ends in is filled too


def test_every_reader_of_the_project_reads_padded_lines(tmp_path: Path) -> None:
    run = RunFolder.create(tmp_path, "padded", mode="live", policy=Policy(), allowlist=(), plan_info={"name": "padded"})
    run.trace.emit("run_started")
    for i in range(40):
        run.trace.emit("observation_captured", f"s{i}", metadata={"text": "x" * 900})
    run.trace.emit("run_finished", metadata={"status": "passed"})
    run.finish("passed")
    raw = (run.path / "trace.jsonl").read_bytes()
    assert b" \n" in raw  # some lines are padded
    result = verify_run(run.path)
    assert result.ok and result.events == 42, result.problems
    record = read_run(run.path)  # cometlocal show / diff
    assert (record.events, record.truncated, record.unreadable_lines, record.finished) == (42, False, 0, True)
    assert [step.step_id for step in record.steps] == [f"s{i}" for i in range(40)]


def test_verify_reports_a_line_cut_by_an_older_version(tmp_path: Path) -> None:
    """Before the padding, SIGKILL could leave half a line at a page boundary: verify says so, clearly."""
    run = RunFolder.create(tmp_path, "old", mode="live", policy=Policy(), allowlist=(), plan_info={"name": "old"})
    run.trace.emit("run_started")
    run.trace.emit("observation_captured", "s", metadata={"text": "x" * 1000})
    run.trace.close()
    trace = run.path / "trace.jsonl"
    lines = [line.rstrip(b" \n") for line in trace.read_bytes().splitlines()]  # as an older version wrote them
    trace.write_bytes(lines[0] + b"\n" + lines[1][:-200])  # cut inside the text, as in the issue
    column = lines[1].index(b'"xxx') + 1
    assert verify_run(run.path).problems == [
        "trace.jsonl: last line is not terminated (truncated write)",
        f"trace.jsonl:2: not a valid JSON line (Unterminated string starting at: line 1 column {column} (char {column - 1}))",
        "trace.jsonl: last event is run_started, not run_finished (truncated or still running)",
    ]
