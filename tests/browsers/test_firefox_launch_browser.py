"""A real Firefox through ``BrowserManager(browser_name="firefox")``: launched, guarded, and the pair probe.

Skipped with one line when no Firefox is found or when this Playwright cannot
drive it (the pair probe says so: Playwright 1.65 with Firefox ESR 153); with
``COMETLOCAL_REQUIRE_FIREFOX=1`` (CI) those are failures instead.

The suite's ``firefox`` (tests/conftest.py) shares the session Chromium's Playwright
(the sync API allows one instance per thread).

The mismatch test runs a Playwright that cannot drive the installed Firefox
in a subprocess: this interpreter when its Playwright is such one (1.65.x),
or the interpreter named by ``COMETLOCAL_MISMATCH_PYTHON`` (for example the
1.65.2 venv while this one has 1.64.1). When that Playwright can drive the
Firefox, there is no mismatch to show and the test is skipped.
"""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cometlocal.executor.browser.channels import guards_in_force
from pytest_cometlocal.executor.browser.firefox import find_firefox
from pytest_cometlocal.executor.browser.network_guard import BLOCK_HEADER, NetworkGuard
from pytest_cometlocal.executor.errors import FirefoxNotFound
from pytest_cometlocal.executor.session import guarded_context
from tests.browsers import firefox_not_here

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SUBPROCESS_TIMEOUT_S = 180  # a Firefox launch took 5.6-6.1 s on this machine, unloaded


@pytest.fixture(scope="module")
def site() -> Iterator[int]:
    """A page on 127.0.0.1:<port>; the same server answers as localhost."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>ok</title><h1 id=h>served</h1>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def test_firefox_is_launched_and_recorded(firefox) -> None:
    manager = firefox
    browser = manager.browser()
    assert manager.launches >= 1 and manager.browser() is browser  # launched once; relaunched only after a crash
    assert browser.browser_type.name == "firefox"
    assert manager.version and manager.version[0].isdigit()
    assert manager.profile["browser"] == "firefox" and manager.profile["browser_version"] == manager.version
    assert manager.firefox is not None and manager.profile.get("browser_channel") == manager.firefox.channel


def test_a_page_loads_and_localhost_goes_through_the_guard(firefox, site) -> None:
    """127.0.0.1 is allowed and bypasses the proxy; ``localhost`` is not allowed and must get the guard's
    403 (without the pref network.proxy.allow_hijacking_localhost Firefox sends it around the guard: 200)."""
    manager = firefox

    def visit() -> dict[str, Any]:
        with NetworkGuard(["127.0.0.1"]) as guard, guarded_context(manager.browser(), guard) as context:
            page = context.new_page()
            allowed = page.goto(f"http://127.0.0.1:{site}/")
            text = page.text_content("#h")
            blocked = page.goto(f"http://localhost:{site}/")
            candidates = page.evaluate("""async () => {
                const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:203.0.113.1:3478'}]});
                pc.createDataChannel('x');
                await pc.setLocalDescription(await pc.createOffer());
                await new Promise(r => setTimeout(r, 1500));
                const sdp = pc.localDescription.sdp;
                pc.close();
                return sdp.split('\\n').filter(l => l.startsWith('a=candidate')).length;
            }""")
            return {"allowed": allowed.status, "text": text, "blocked": blocked.status,
                    "block_header": blocked.headers.get(BLOCK_HEADER.lower()),
                    "recorded": [(b.host, b.url) for b in guard.blocked], "candidates": candidates,
                    "guards": guards_in_force(context, "launch")}

    seen = visit()
    assert (seen["allowed"], seen["text"]) == (200, "served")
    assert seen["blocked"] == 403 and seen["block_header"] == "localhost"
    assert ("localhost", f"http://localhost:{site}/") in seen["recorded"]
    assert seen["candidates"] == 0  # media.peerconnection.ice.proxy_only: no ICE candidate, no UDP
    assert seen["guards"] == {"proxy": True, "webrtc_launch_flag": "set", "webrtc_page_script": True,
                              "webrtc_launch_setting": "media.peerconnection.ice.proxy_only",
                              "localhost_through_proxy": "set"}


MISMATCH_SCRIPT = """
import sys
from pytest_cometlocal.executor.browser.manager import BrowserManager
from pytest_cometlocal.executor.errors import BrowserLaunchFailed

manager = BrowserManager({"headless": True}, None, browser_name="firefox")
try:
    browser = manager.browser()
    print("PAIR WORKS", browser.version)
    code = 0
except BrowserLaunchFailed as exc:  # what the plugin's cometlocal_browser fixture catches
    print(str(exc))
    code = 3
finally:
    manager.close()
sys.exit(code)
"""


def _playwright_version(python: str) -> str:
    out = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('playwright'))"],
                         capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


def test_an_incompatible_playwright_gets_one_line_naming_both_versions() -> None:
    try:
        find_firefox()
    except FirefoxNotFound as exc:
        firefox_not_here(str(exc))
    python = os.environ.get("COMETLOCAL_MISMATCH_PYTHON") or sys.executable
    version = _playwright_version(python)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([python, "-c", MISMATCH_SCRIPT], capture_output=True, text=True, env=env,
                          timeout=SUBPROCESS_TIMEOUT_S, cwd=REPO)
    if done.returncode == 0 and done.stdout.startswith("PAIR WORKS"):
        pytest.skip(f"Playwright {version} ({python}) drives this Firefox: no mismatch to show "
                    "(set COMETLOCAL_MISMATCH_PYTHON to an interpreter with playwright 1.65)")
    assert done.returncode == 3, (done.stdout, done.stderr[-2000:])
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    line = lines[0]
    assert line.startswith(f"Playwright {version} cannot drive Firefox "), line
    assert "emulation.setMediaFeaturesOverride" in line and 'pip install "playwright<1.65"' in line
