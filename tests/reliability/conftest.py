"""Fixtures of the reliability suite.

The executor fixtures (one Chromium, the demo portal, an outside server that
counts hits, ``run``) are tests/conftest.py's. Modules that start inner pytest
runs use its ``lean_inner_runs`` (``pytest.mark.usefixtures``); modules whose
in-process work could hang use ``hard_limit``.
"""

from __future__ import annotations

import faulthandler
import os
import subprocess
from pathlib import Path

import pytest

from tests.reliability.faultserver import FaultServer


# A test that hangs in this process is ended with every thread's stack on stderr,
# so the run fails at once (xdist reports the worker's crash) instead of waiting
# for CI's limit. Far above what a test takes; no wall-clock limit per example.
HARD_LIMIT_S = 600


@pytest.fixture
def hard_limit():
    faulthandler.dump_traceback_later(HARD_LIMIT_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def fault_server():
    server = FaultServer()
    yield server
    server.close()


class _Mounts:
    """mount(path, size="64k", readonly=False): a tiny tmpfs; unmount(path); all unmounted at teardown.

    Skips the test when mounting is not permitted here (no root, no
    CAP_SYS_ADMIN in a container): the tests that use it have a fallback twin.
    """

    def __init__(self) -> None:
        self.mounted: list[Path] = []

    def __call__(self, path: Path, size: str = "64k", readonly: bool = False) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            pytest.skip("mounting a tmpfs needs root")
        options = f"size={size},mode=0777" + (",ro" if readonly else "")
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                              capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        self.mounted.append(path)
        return path

    def unmount(self, path: Path) -> None:
        if path in self.mounted:
            self.mounted.remove(path)
            subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)


@pytest.fixture
def mount_tmpfs():
    mounts = _Mounts()
    yield mounts
    for path in reversed(list(mounts.mounted)):
        mounts.unmount(path)
