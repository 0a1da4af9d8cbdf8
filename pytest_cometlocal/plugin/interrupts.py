"""SIGTERM ends a session the way Ctrl-C does, so the running plan still closes its trace.

CI runners and process managers stop a job with SIGTERM. Python's default
action for it ends the process at once: the plan that was running would
leave a trace without ``run_finished`` and a manifest saying ``running``.
During the session this plugin turns SIGTERM into KeyboardInterrupt (as
SIGINT already is), so the executor writes ``run_finished`` with status
``interrupted`` and pytest exits with its code for an interrupted session, 2.

The handler is installed only over Python's default one and in the main
thread, so a handler of the user's, of another plugin or of a host program
is left alone; the previous handler comes back when the session ends.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

import pytest


class Terminated(KeyboardInterrupt):
    """SIGTERM received: handled like Ctrl-C."""


_KEY = pytest.StashKey[Any]()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Terminated("SIGTERM")


def pytest_sessionstart(session: pytest.Session) -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
        session.config.stash[_KEY] = signal.SIG_DFL


def pytest_unconfigure(config: pytest.Config) -> None:
    previous = config.stash.get(_KEY, None)
    if previous is not None and signal.getsignal(signal.SIGTERM) is _on_sigterm:
        signal.signal(signal.SIGTERM, previous)
