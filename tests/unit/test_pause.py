"""plugin/pause.py's pure parts: why nothing pauses, and how one pause ends (Enter, EOF, a closed window).

The terminal is a real pipe: what a user (or CI's closed stdin) gives it is written into it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from pytest_cometlocal.plugin.pause import CLOSED, ENTER, EOF, refusal, wait_for_line


@pytest.mark.parametrize(("facts", "reason"), [
    ({"worker": True}, "no terminal under pytest-xdist workers (-n)"),
    ({"xdist": True}, "no terminal under pytest-xdist workers (-n)"),
    ({"headed": False}, "the browser is headless: add --cometlocal-headed"),
    ({"display": "neither DISPLAY nor WAYLAND_DISPLAY is set"}, "no display to show the browser on (neither DISPLAY"),
])
def test_each_reason_not_to_pause_is_one_line(facts: dict, reason: str) -> None:
    said = refusal(**{"worker": False, "xdist": False, "headed": True, "display": None, **facts})
    assert said is not None and said.startswith(reason) and "\n" not in said


def test_a_headed_browser_with_a_display_and_a_terminal_pauses() -> None:
    assert refusal(worker=False, xdist=False, headed=True, display=None) is None


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        try:
            os.close(fd)
        except OSError:
            pass


def test_enter_ends_the_pause(pipe: tuple[int, int]) -> None:
    read, write = pipe
    os.write(write, b"\n")
    assert wait_for_line(read, None) == ENTER


def test_a_closed_stdin_ends_the_pause_and_typing_without_enter_does_not(pipe: tuple[int, int]) -> None:
    read, write = pipe
    os.write(write, b"abc")  # no line end: still waiting, until the input closes
    os.close(write)
    assert wait_for_line(read, None) == EOF


def test_a_closed_window_ends_the_pause_while_the_terminal_is_silent(pipe: tuple[int, int]) -> None:
    read, _write = pipe
    looks: list[int] = []

    def window_open() -> bool:
        return len(looks) < 3  # the window closes while the pause waits

    assert wait_for_line(read, window_open, looks.append) == CLOSED
    assert len(looks) == 3  # the browser was given time between looks; the terminal never answered
