"""When poll looks again (executor/page/conditions.py): its growing pause, or the moment a condition
that waits for quiet names.

The page is a stand-in that only pauses (``wait_for_timeout``): what is tested is poll's own
schedule, a pure decision. The conditions are the real ``network_idle`` on a real NetworkTracker.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from pytest_cometlocal.contract.model.conditions import NetworkIdle
from pytest_cometlocal.executor.page.conditions import CheckContext, poll
from pytest_cometlocal.executor.page.locators import next_look_in
from pytest_cometlocal.executor.page.events import NetworkTracker


class PausingPage:
    """Only what poll's pause calls: each pause is slept and recorded (ms)."""

    def __init__(self) -> None:
        self.pauses: list[float] = []

    def wait_for_timeout(self, ms: float) -> None:
        self.pauses.append(ms)
        time.sleep(ms / 1000)


def context(page: PausingPage, tracker: NetworkTracker) -> CheckContext:
    return CheckContext(page=page, step=SimpleNamespace(target=None), base_url=None, allowlist=(),  # type: ignore[arg-type]
                        toast_selector="", overlay_selectors=(), network=tracker)


def test_the_next_look_is_the_growing_pause_unless_every_missing_condition_named_its_moment() -> None:
    now = time.monotonic()
    assert next_look_in([1, 2], {1: now + 5}, 0.04) == 0.04  # one of the two named nothing
    assert next_look_in([1], {}, 0.2) == 0.2
    assert 0.25 < next_look_in([1, 2], {1: now + 0.1, 2: now + 0.3}, 0.02) <= 0.3  # the later of the two
    assert next_look_in([1], {1: now - 1}, 0.2) == 0.0  # a moment already past: look now


def test_network_idle_is_looked_at_again_at_its_quiet_moment_not_a_pause_later() -> None:
    tracker = NetworkTracker()
    tracker.last_change = time.monotonic() - 0.1  # the last request ended 100 ms ago; idle needs 500
    page = PausingPage()
    ctx = context(page, tracker)
    (result,) = poll([NetworkIdle(kind="network_idle")], ctx, "post", timeout_ms=5_000)
    assert result.ok
    assert ctx.looks == 2  # growing pauses (20, 40, 80, 160, 200 ms) would have taken six
    # One pause, to the quiet moment: up to 400 ms (less the time the first look took), never the
    # growing schedule's first 20 ms. The lower bound leaves a loaded machine 200 ms for that look.
    assert len(page.pauses) == 1 and 200 < page.pauses[0] <= 400


def test_a_request_in_flight_names_no_moment_and_poll_keeps_its_growing_pause() -> None:
    tracker = NetworkTracker()
    tracker.started()  # never ends
    page = PausingPage()
    ctx = context(page, tracker)
    (result,) = poll([NetworkIdle(kind="network_idle")], ctx, "post", timeout_ms=400)
    assert not result.ok and result.observed == {"inflight": 1}
    assert page.pauses[:4] == pytest.approx([20, 40, 80, 160], abs=1)
