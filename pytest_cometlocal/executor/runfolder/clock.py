"""UTC timestamps that never go backwards within a run."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class MonotonicClock:
    """ISO UTC timestamps, strictly increasing even if the wall clock steps back."""

    def __init__(self) -> None:
        self._last: datetime | None = None

    def now(self) -> str:
        current = datetime.now(timezone.utc)
        if self._last is not None and current <= self._last:
            current = self._last + timedelta(microseconds=1)
        self._last = current
        return current.isoformat(timespec="microseconds")
