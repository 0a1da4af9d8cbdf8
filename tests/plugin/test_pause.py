"""``--cometlocal-step`` and ``--cometlocal-pause-on-failure`` (plugin/pause.py), in a real headed Chromium.

The headed run shows its browser on an Xvfb of its own (Debian's ``xvfb``; scripts/setup-env.sh
installs it) and is answered through its stdin, line by line, as a user at the terminal would:
pytest's capture is on, so the plugin must take the terminal back to read it. Every read has a
hard deadline: a pause that never ends fails the test instead of hanging it.
"""

from __future__ import annotations

import http.server
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import plan, serve, write

DEADLINE_S = 90

PAGE = b"<title>Pause</title><h1>Pause here</h1><button data-testid='go'>Go</button>"
TWO_STEPS = plan("""\
    - {id: open, kind: navigate, timeout_ms: 20000, target: {type: url, url: /page}}
    - {id: find, kind: click, target: {type: testid, id: missing}}
    """, "paused", extra="policy: {retries_per_action: 0}\n", timeout_ms=1500)


@pytest.fixture(scope="module")
def xvfb() -> Iterator[str]:
    """A display of this module's own (``Xvfb -displayfd`` picks a free number and says it)."""
    binary = shutil.which("Xvfb")
    if binary is None or not sys.platform.startswith("linux"):
        pytest.skip("needs Debian's xvfb (Xvfb), which scripts/setup-env.sh installs with apt-get")
    read, write_end = os.pipe()
    proc = subprocess.Popen([binary, "-displayfd", str(write_end), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    try:
        with os.fdopen(read) as said:
            number = said.readline().strip()  # Xvfb writes it once it accepts connections
        if not number:
            pytest.skip("Xvfb did not start")
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, list[str]]]:
    """The page the plan opens, and the paths the browser asked for (in order)."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            asked.append(self.path)
            body = PAGE if self.path == "/page" else b"not here"
            self.send_response(200 if self.path == "/page" else 404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    for url in serve(Handler):
        yield url, asked


class Session:
    """An inner pytest process whose output is read line by line, each read with a deadline."""

    def __init__(self, proc: subprocess.Popen[bytes]):
        self.proc = proc
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def until(self, text: str) -> list[str]:
        """The lines up to the first that holds ``text``; a failure (not a hang) if it never comes."""
        got: list[str] = []
        end = time.monotonic() + DEADLINE_S
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                self.proc.kill()
                pytest.fail(f"no line with {text!r} within {DEADLINE_S} s (a hang); output:\n" + "\n".join(self.seen))
            if line is None:
                pytest.fail(f"the run ended without a line with {text!r}; output:\n" + "\n".join(self.seen))
            self.seen.append(line)
            got.append(line)
            if text in line:
                return got

    def answer(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()


@pytest.mark.browser
def test_step_by_step_then_paused_at_the_failure_until_stdin_closes(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xvfb: str, site: tuple[str, list[str]]) -> None:
    url, asked = site
    monkeypatch.setenv("DISPLAY", xvfb)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    write(pytester, "paused.actions.yaml", TWO_STEPS.replace("name: paused\n", f"name: paused\nbase_url: {url}\n"))
    proc = pytester.popen([sys.executable, "-m", "pytest", "--cometlocal-headed", "--cometlocal-step",
                           "--cometlocal-pause-on-failure"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    session = Session(proc)
    try:
        session.until("next step 'open' (1 of 2): navigate")
        session.until("press Enter to run it")
        time.sleep(0.5)  # room for a run that does not wait to show itself
        assert asked == [] and proc.poll() is None  # waiting: the browser has not opened the page
        session.answer(b"\n")
        session.until("next step 'find' (2 of 2): click testid=missing")
        assert [path for path in asked if path != "/favicon.ico"] == ["/page"]  # the first step ran, and only it
        session.answer(b"\n")
        shown = session.until("press Enter here, or close the browser window, to go on")
        assert any("paused at the failure of paused.actions.yaml::paused" in line for line in shown)
        assert any(line.startswith("TARGET_NOT_FOUND at step 'find'") for line in shown)  # the failure, printed
        time.sleep(0.5)
        assert proc.poll() is None  # paused: the item has not ended, its browser is still open
        assert proc.stdin is not None
        proc.stdin.close()  # EOF, as in CI: the pause ends, and no later one starts
        session.until("the terminal's input is closed (EOF): not pausing any more")
        session.until("1 failed")
        assert proc.wait(timeout=DEADLINE_S) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_nothing_pauses_where_nobody_can_answer_and_one_line_says_why(pytester: pytest.Pytester,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Headless, or under pytest-xdist's workers (no terminal): one line, once, and the run goes on."""
    monkeypatch.setenv("DISPLAY", ":0")  # a value is enough: no browser starts without plans
    write(pytester, "test_nothing.py", "def test_ok():\n    pass\n")
    headless = pytester.runpytest("--cometlocal-pause-on-failure", "--cometlocal-step")
    headless.assert_outcomes(passed=1)
    said = [line for line in headless.outlines if "not pausing" in line]
    assert said == ["cometlocal: --cometlocal-pause-on-failure, --cometlocal-step: not pausing: "
                    "the browser is headless: add --cometlocal-headed to pause"]
    workers = pytester.runpytest("--cometlocal-headed", "--cometlocal-pause-on-failure", "-n", "1")
    workers.assert_outcomes(passed=1)
    said = [line for line in workers.outlines if "not pausing" in line]
    assert said == ["cometlocal: --cometlocal-pause-on-failure: not pausing: "
                    "no terminal under pytest-xdist workers (-n): run with -n 0 to pause"]
