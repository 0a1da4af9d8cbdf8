"""CPU time of a command and of every process it starts, Chromium's included.

    python -m benchmarks.cputree OUT.json -- CMD [ARG...]

``resource.getrusage(RUSAGE_CHILDREN)`` around ``subprocess.run`` misses most of
Chromium: Playwright kills the browser's process group, and the zygote, GPU and
renderer processes, orphaned, are reaped by PID 1, so their CPU time is added to
no one we can read. This wrapper makes itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): every orphaned descendant is re-parented to
it, it reaps them all (waiting up to ``--linger`` seconds after the command ends,
then killing what is left), and ``RUSAGE_CHILDREN`` then holds the user and system
time of the whole process tree. It writes ``{"returncode", "user_s", "sys_s",
"wall_s", "stragglers_killed"}`` to OUT.json; stdout and stderr are the command's.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def _reap_all(linger: float) -> int:
    """Reap every remaining descendant; after ``linger`` seconds kill them. Returns how many were killed."""
    deadline = time.monotonic() + linger
    killed = 0
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return killed
        if pid:
            continue
        if time.monotonic() > deadline:
            for child in _children():
                try:
                    os.kill(child, signal.SIGKILL)
                    killed += 1
                except OSError:
                    pass
            deadline = time.monotonic() + 5
        time.sleep(0.05)


def _children() -> list[int]:
    me = os.getpid()
    out = []
    try:
        with open(f"/proc/{me}/task/{me}/children", encoding="ascii") as fh:
            out = [int(p) for p in fh.read().split()]
    except OSError:
        pass
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    out_path, cmd = argv[0], argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno() or errno.EPERM))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd)
    returncode = proc.wait()
    wall = time.perf_counter() - start
    killed = _reap_all(float(os.environ.get("CPUTREE_LINGER_S", "15")))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump({"returncode": returncode, "user_s": after.ru_utime - before.ru_utime,
                   "sys_s": after.ru_stime - before.ru_stime, "wall_s": wall, "stragglers_killed": killed}, fh)
    return returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
