"""One inner session shared by several tests of a module (an inner session costs seconds to start).

``once(key, run)`` runs it in the first asking test and keeps what it returned for the others of the
process. A failure is kept, not rerun: every later test fails with one line that says so.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import pytest

T = TypeVar("T")
_FAILED = object()
_KEPT: dict[str, object] = {}


def once(key: str, run: Callable[[], T]) -> T:
    """What ``run()`` returned the first time ``key`` was asked for in this process."""
    if key not in _KEPT:
        _KEPT[key] = _FAILED  # stays if run() fails: the later tests are not charged another session
        _KEPT[key] = run()
    found = _KEPT[key]
    if found is _FAILED:
        pytest.fail(f"the shared session {key!r} failed in an earlier test", pytrace=False)
    return found  # type: ignore[return-value]
