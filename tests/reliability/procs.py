"""Finding this suite's own Chromium processes, and nobody else's.

Other test runs may share the machine, so processes are never picked by name
alone: either by ancestry (descendants of a pid) or by an environment tag that
the test put into the environment of the pytest it started (Chromium inherits
it).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path


def _read(pid: int, name: str) -> bytes:
    try:
        return (Path("/proc") / str(pid) / name).read_bytes()
    except OSError:
        return b""


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _ppid(pid: int) -> int | None:
    stat = _read(pid, "stat")
    if not stat:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    return int(stat.rsplit(b")", 1)[1].split()[1])


def descendants(root: int) -> list[int]:
    """Every live process below ``root``."""
    children: dict[int, list[int]] = {}
    for pid in _pids():
        parent = _ppid(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def command_line(pid: int) -> list[str]:
    """``pid``'s arguments; [] once it is gone. A Chromium child rewrites its title: one string of
    space-separated arguments, not NUL-separated ones, so both separators split."""
    return _read(pid, "cmdline").decode(errors="replace").replace("\0", " ").split()


def is_chromium(pid: int) -> bool:
    cmd = _read(pid, "cmdline")
    exe = cmd.split(b"\0", 1)[0]
    return b"chrom" in exe.lower() and _read(pid, "stat").split(b" ")[2:3] != [b"Z"]


def chromium_renderers(root: int) -> list[int]:
    """The renderer processes of the Chromiums below ``root`` (killing one crashes its pages)."""
    return [pid for pid in descendants(root) if is_chromium(pid) and b"--type=renderer" in _read(pid, "cmdline")]


def tagged_chromium(tag: str) -> list[int]:
    """Live Chromium processes whose environment holds ``COMETLOCAL_TEST_TAG=<tag>``."""
    needle = f"COMETLOCAL_TEST_TAG={tag}".encode()
    return [pid for pid in _pids() if is_chromium(pid) and needle in _read(pid, "environ").split(b"\0")]


def kill(pids: list[int], sig: int = signal.SIGKILL) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
