"""SIGKILL at random moments: every line of every trace parses.

A killed run loses the events after the kill, never one it was writing. The
kernel's share of that promise is narrow: it copies a ``write`` into the file
one page at a time and, for a process being killed, stops at the next page
boundary, so SIGKILL can cut a line that straddles one. executor/runfolder/trace_writer.py
pads lines so that none of up to ``LINE_ROOM`` bytes ever straddles one.

Each test starts one child, a fork server: it imports everything once, then
forks a worker for each kill, so a kill costs a fork rather than a Python
start. The test kills the worker (never the server) and checks its run folder:
every line parses, and ``verify_run`` finds nothing wrong but the missing
``run_finished`` of a cut run. Every wait for a child is bounded, and the
server and its workers are killed at the end.

- Without a browser, workers emit events of up to LINE_ROOM bytes as fast as
  they can, so most kills land in or next to a ``write``. With lines written
  unpadded, 0.3 to 2.3 % of the workers killed here were left with a line cut
  at a page boundary (three runs of 300 to 600 on a loaded 2-core machine);
  padded, none of 900.
- With a browser, workers run a long plan against the demo portal in one
  shared Chromium (over CDP), the way a real run is killed.

The kill counts are CI's (``tests.support.soak``); ``COMETLOCAL_SOAK=1`` runs
the full soak (150 writer kills, 30 plan kills).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import selectors
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Iterator

import pytest

from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.executor.browser.chromium import LAUNCH_ARGS, system_chromium
from pytest_cometlocal.executor.runfolder.trace_writer import LINE_ROOM
from tests.support import DEFAULTS, LOGIN, defaults, soak

ROOT = Path(__file__).resolve().parents[2]
NOT_FINISHED = "trace.jsonl: last event is "  # a killed run has no run_finished: expected

# The fork server: the setup runs once; then it reads commands from stdin. "start <output> <seed> <n>"
# forks n workers that each run work(output / str(i), seed + i) and prints their pids on one line;
# "wait <pid>..." waits for those workers to end and prints their waitpid statuses.
SERVER = r"""
import os, random, signal, sys
from pathlib import Path
{setup}
for request in sys.stdin:
    command, *args = request.split()
    if command == "start":
        pids = []
        for i in range(int(args[2])):
            pid = os.fork()
            if pid == 0:
                try:
                    work(Path(args[0]) / str(i), int(args[1]) + i)
                finally:
                    os._exit(0)
            pids.append(pid)
        print(*pids, flush=True)
    else:
        print(*(os.waitpid(int(pid), 0)[1] for pid in args), flush=True)
"""

WRITER_SETUP = r"""
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.executor.runfolder.folder import RunFolder

def work(output, seed):
    rng = random.Random(seed)
    run = RunFolder.create(output, "killed", mode="live", policy=Policy(), allowlist=(), plan_info={"name": "killed"})
    run.trace.emit("run_started")
    while True:
        run.trace.emit("observation_captured", "step", metadata={"text": "x" * rng.randint(*map(int, sys.argv[1:3]))})
"""

PLAN_SETUP = r"""
from playwright.sync_api import sync_playwright
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_path
from pytest_cometlocal.executor.session import run_plan

path = Path(sys.argv[1])
(plan,) = validate_path(path, ValidationContext(root=path.parent, plan_path=path))
eff = effective_settings(plan, default_base_url=sys.argv[2])

def work(output, seed):
    # Ready (Playwright started, the browser reached) while the previous worker runs; runs on SIGUSR1.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})  # before any thread starts: they inherit it
    playwright = sync_playwright().start()
    browser = playwright.chromium.connect_over_cdp(sys.argv[3])
    output.mkdir(parents=True)
    (output / "ready").touch()
    signal.sigwait({signal.SIGUSR1})
    run_plan(browser, plan, output, eff)
"""

# A long plan through the demo portal: sign in, then pages, forms and checks.
LONG_PLAN = LOGIN.replace("name: login", "name: long").replace(DEFAULTS, defaults(timeout_ms=10000)) + textwrap.indent(textwrap.dedent("""\
      - {id: reports, kind: navigate, target: {type: url, url: /reports}}
      - {id: form, kind: navigate, target: {type: url, url: /form}}
      - {id: dashboard, kind: navigate, target: {type: url, url: /dashboard}}
      - {id: duplicates, kind: navigate, target: {type: url, url: /duplicates}}
      - {id: disabled, kind: navigate, target: {type: url, url: /disabled}}
      - {id: home, kind: navigate, target: {type: url, url: /}}
    """), "  ")


class ForkServer:
    """The child that forks the workers; every read from it is bounded, and it is killed at the end."""

    def __init__(self, setup: str, args: list[str], timeout: float):
        self.timeout = timeout
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER.format(setup=setup), *args], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def readline(self) -> str:
        if not self.selector.select(timeout=self.timeout):
            raise AssertionError(f"the fork server did not answer within {self.timeout} s")
        line = self.proc.stdout.readline().decode().strip()
        assert line, f"the fork server ended with {self.proc.wait(timeout=10)}"
        return line

    def command(self, *words: object) -> list[int]:
        self.proc.stdin.write((" ".join(map(str, words)) + "\n").encode())
        self.proc.stdin.flush()
        return [int(word) for word in self.readline().split()]

    def start(self, output: Path, seed: int, count: int = 1) -> list[int]:
        """Fork ``count`` workers, writing under output/0, output/1, ...; their pids."""
        return self.command("start", output, seed, count)

    def wait(self, pids: list[int]) -> list[int]:
        """The workers' statuses (waitpid's), once they have all ended."""
        return self.command("wait", *pids)

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the server and any worker still alive
        self.proc.wait(timeout=10)
        self.selector.close()


def kill_workers(server: ForkServer, pids: list[int]) -> list[int]:
    for pid in pids:
        os.kill(pid, signal.SIGKILL)  # not reaped before the wait below: never a stranger's pid
    return server.wait(pids)


def check_trace(run_dir: Path, where: str) -> list[dict]:
    """Every line of the trace parses and the folder verifies, but for the missing run_finished; its events."""
    raw = (run_dir / "trace.jsonl").read_bytes()
    assert raw.endswith(b"\n"), f"{where}: the last line was cut: {raw[-200:]!r}"
    events = [json.loads(line) for line in raw.splitlines()]
    problems = [p for p in verify_run(run_dir).problems if not p.startswith(NOT_FINISHED)]
    assert problems == [], f"{where}: {problems}"
    return events


def run_folders(output: Path, count: int, deadline: float) -> list[Path]:
    """The run folders of ``count`` workers (output/<i>/<run id>), once each trace has its first event."""
    while time.monotonic() < deadline:
        found = [path.parent for path in output.glob("*/*/trace.jsonl") if path.stat().st_size]
        if len(found) == count:
            return sorted(found)
        time.sleep(0.01)
    raise AssertionError(f"not every worker opened its run folder: {sorted(output.rglob('trace.jsonl'))}")


KILLS = soak(40, 150)  # each kills WRITERS workers at once
WRITERS = 2  # one a core: the kills land while both are writing


def test_sigkill_while_trace_lines_are_written_never_cuts_a_line(tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    text = (LINE_ROOM // 2, LINE_ROOM - 400)  # the event around the text takes less than 400 bytes (asserted below)
    server = ForkServer(WRITER_SETUP, [str(n) for n in text], timeout=60)
    lines = 0
    try:
        for k in range(KILLS):
            output = tmp_path / f"out{k}"
            pids = server.start(output, seed + WRITERS * k, WRITERS)
            run_dirs = run_folders(output, WRITERS, time.monotonic() + 30)
            time.sleep(rng.uniform(0, 0.02))
            assert kill_workers(server, pids) == [signal.SIGKILL] * WRITERS  # killed while writing, not ended by an error
            for run_dir in run_dirs:
                raw = (run_dir / "trace.jsonl").read_bytes()
                assert max(len(line.rstrip(b" \n")) for line in raw.splitlines()) < LINE_ROOM  # without the padding
                lines += len(check_trace(run_dir, f"seed {seed}, kill {k}"))
            shutil.rmtree(output)  # keep the disk use flat
    finally:
        server.close()
    assert lines > KILLS * WRITERS * 10  # the kills landed among the writes


@pytest.fixture
def cdp_chromium(tmp_path: Path) -> Iterator[str]:
    """A Chromium on 127.0.0.1 with a DevTools endpoint (its ws:// URL), shared by the workers."""
    chromium = os.environ.get("COMETLOCAL_CHROMIUM") or system_chromium()
    if chromium is None or not Path(chromium).exists():
        pytest.skip("no system Chromium to start with --remote-debugging-port")
    log = tmp_path / "chromium.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([chromium, "--headless", "--no-sandbox", "--remote-debugging-address=127.0.0.1",
                                 "--remote-debugging-port=0", f"--user-data-dir={tmp_path / 'profile'}", *LAUNCH_ARGS,
                                 "about:blank"], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not (found := re.search(r"DevTools listening on (ws://\S+)", log.read_text(errors="replace"))):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
            time.sleep(0.05)
        yield found.group(1)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


PLAN_KILLS = soak(10, 30)


def wait_for(path: Path, deadline: float) -> None:
    while not path.exists():
        assert time.monotonic() < deadline, f"no {path}"
        time.sleep(0.01)


@pytest.mark.browser
def test_sigkill_at_random_moments_of_a_long_plan_leaves_only_whole_lines(tmp_path: Path, portal, cdp_chromium: str) -> None:
    plan_path = tmp_path / "long.actions.yaml"
    plan_path.write_text(LONG_PLAN, encoding="utf-8")
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    server = ForkServer(PLAN_SETUP, [str(plan_path), portal.url, cdp_chromium], timeout=120)

    def prepare(name: str) -> tuple[Path, list[int]]:
        return tmp_path / name, server.start(tmp_path / name, seed)

    def go(output: Path, pids: list[int]) -> Path:
        wait_for(output / "0" / "ready", time.monotonic() + 60)
        os.kill(pids[0], signal.SIGUSR1)
        return run_folders(output, 1, time.monotonic() + 60)[0]

    try:
        # One run to its end: the plan passes, and the kills are spread over its length.
        whole, upcoming = prepare("whole"), prepare("out0")
        run_dir = go(*whole)
        started = time.monotonic()
        assert server.wait(whole[1]) == [0]
        length = time.monotonic() - started
        assert verify_run(run_dir).ok, verify_run(run_dir).problems
        assert json.loads((run_dir / "run_manifest.json").read_text(encoding="utf-8"))["status"] == "passed"
        cut = 0
        for k in range(PLAN_KILLS):
            current, upcoming = upcoming, (prepare(f"out{k + 1}") if k + 1 < PLAN_KILLS else None)
            run_dir = go(*current)
            time.sleep(rng.uniform(0, length))
            kill_workers(server, current[1])
            events = check_trace(run_dir, f"seed {seed}, kill {k}")
            cut += events[-1]["event_type"] != "run_finished"
    finally:
        server.close()
    assert cut >= PLAN_KILLS // 2  # most kills landed during the plan
