"""One trace line that is an event, its fields typed leniently: what every fold of a run reads.

Its own module because both the reader (which makes events from lines) and the
folds of runs/steps.py (which take them) need it, and neither should import the
other for it. Lenient: a hand-made or damaged trace still reads; verify checks
lines against TraceEvent v1 on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["Event"]


@dataclass(frozen=True)
class Event:
    """One trace line that is an event, its fields as readers use them; ``data`` is the line as written."""

    number: int  # the line's number in trace.jsonl, from 1
    event_type: str
    step_id: str | None
    ts_utc: str | None
    metadata: Mapping[str, Any]
    data: Mapping[str, Any]

    @classmethod
    def of(cls, number: int, data: Any) -> Event | None:
        if not isinstance(data, dict) or not isinstance(data.get("event_type"), str):
            return None
        step_id, ts, meta = data.get("step_id"), data.get("ts_utc"), data.get("metadata")
        return cls(number, data["event_type"], step_id if isinstance(step_id, str) and step_id else None,
                   ts if isinstance(ts, str) else None, meta if isinstance(meta, dict) else {}, data)

    @property
    def error(self) -> dict[str, Any] | None:
        error = self.data.get("error")
        return error if isinstance(error, dict) else None

    @property
    def error_code(self) -> str | None:
        return (self.error or {}).get("error_code")

    def signature(self, which: str) -> dict[str, Any] | None:
        """The state signature ``before`` or ``after`` the event, when it has one."""
        value = self.data.get(f"state_signature_{which}")
        return value if isinstance(value, dict) else None
