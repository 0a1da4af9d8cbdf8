"""trace.jsonl: one event per line, append-only, seq without gaps.

Every line goes to the operating system in one ``write`` as it is emitted
(unbuffered, O_APPEND), so a run killed at any point, the pytest process
included, keeps every line it wrote whole. ``close`` fsyncs. Lines are
redacted before they are written.

One write is not enough on its own: Linux copies a write into the file one
page at a time and stops at a page boundary when the process is being killed,
so SIGKILL can cut a line that straddles one. A line is therefore padded with
spaces (JSON whitespace, before its newline) up to the page's end when less
than LINE_ROOM bytes of that page would be left: every line then starts with
at least LINE_ROOM bytes before the next boundary, and a line no longer than
that never straddles one. A longer line (an error with large details) still
can; ``cometlocal verify`` reports such a cut line.

A line that cannot be written whole (a full disk) is cut off again, so the
file still ends with a complete line; the writer then raises
OutputWriteFailed and the event does not count (its seq is not used).
"""

from __future__ import annotations

import json
import mmap
import os
from pathlib import Path
from typing import Any, Callable, Iterable

from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError, StateSignature, TraceEvent
from pytest_cometlocal.executor.runfolder.clock import MonotonicClock
from pytest_cometlocal.executor.errors import OutputWriteFailed
from pytest_cometlocal.executor.runfolder.redactor import Redactor

_OPTIONAL = ("action_spec", "result", "error", "evidence_refs", "metadata")

PAGE = mmap.PAGESIZE
LINE_ROOM = 2048  # a line this long or shorter never straddles a page boundary (module docstring)


def padded(line: bytes, offset: int) -> bytes:
    """``line`` (no newline) as written at ``offset``: with its newline, padded to the page's end when
    less than LINE_ROOM bytes of the page would be left after it."""
    left = -(offset + len(line) + 1) % PAGE
    return line + b" " * left + b"\n" if left < LINE_ROOM else line + b"\n"


class TraceWriter:
    """Appends TraceEvent v1 lines for one run."""

    def __init__(self, path: Path, run_id: str, redactor: Redactor | None = None,
                 listeners: Iterable[Callable[[TraceEvent], None]] = ()):
        self.path = path
        self.run_id = run_id
        self.redactor = redactor or Redactor()
        self.clock = MonotonicClock()
        self.seq = 0
        self.closed = False
        self.listeners = tuple(listeners)  # called with each TraceEvent after it is written (reporters)
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self._size = os.fstat(self._fd).st_size
        except OSError as exc:
            raise OutputWriteFailed(path, exc) from None

    @property
    def next_seq(self) -> int:
        """The seq the next event will get (errors record it before they are emitted)."""
        return self.seq + 1

    def emit(
        self,
        event_type: str,
        step_id: str | None = None,
        *,
        before: StateSignature | None = None,
        after: StateSignature | None = None,
        action_spec: dict[str, Any] | None = None,
        result: dict[str, Any] | None = None,
        error: ExecutorError | None = None,
        evidence_refs: Iterable[EvidenceRef] = (),
        metadata: dict[str, Any] | None = None,
    ) -> TraceEvent:
        if self.closed:
            raise RuntimeError("trace is closed")
        event = TraceEvent(
            run_id=self.run_id,
            seq=self.seq + 1,
            ts_utc=self.clock.now(),
            event_type=event_type,
            step_id=step_id,
            state_signature_before=before,
            state_signature_after=after,
            action_spec=action_spec,
            result=result,
            error=error,
            evidence_refs=list(evidence_refs),
            metadata=metadata or {},
        )
        data = event.model_dump(mode="json")
        for key in _OPTIONAL:
            if data.get(key) in (None, [], {}) and key != "metadata":
                data.pop(key, None)
        line = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        if self.redactor:
            line = self.redactor.text(line)
        self._append(padded(line.encode("utf-8"), self._size))
        self.seq += 1
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:  # a reporter must never break the audit trail
                pass
        return event

    def _append(self, data: bytes) -> None:
        """Write one whole line straight to the file (unbuffered), or none of it."""
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as exc:
            try:
                os.ftruncate(self._fd, self._size)
            except OSError:
                pass
            raise OutputWriteFailed(self.path, exc) from None
        self._size += len(data)

    def __del__(self) -> None:  # a writer dropped without close() must not leak its descriptor
        if not getattr(self, "closed", True):
            self.closed = True
            try:
                os.close(self._fd)
            except OSError:
                pass

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            os.fsync(self._fd)
        except OSError as exc:
            raise OutputWriteFailed(self.path, exc) from None
        finally:
            os.close(self._fd)
