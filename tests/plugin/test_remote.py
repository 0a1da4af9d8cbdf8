"""Remote browsers: plans run through a real ``playwright run-server`` and a real CDP endpoint.

The servers are started here on loopback (free ports). Every inner run has
COMETLOCAL_CHROMIUM pointing nowhere, so a plan that passed cannot have used a
locally launched Chromium: a local launch would end in ChromiumNotFound.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest

from pytest_cometlocal.executor.browser.chromium import LAUNCH_ARGS, system_chromium
from pytest_cometlocal.executor.browser.remote import launch_options_header, pick_endpoint, public_endpoint, split_endpoints
from tests.support import DEFAULTS, PORTAL_CONFTEST, OutsideServer, plan, write

# The Chromium the Playwright server launches (it has no downloadable browser of its own here).
REMOTE_CHROMIUM = os.environ.get("COMETLOCAL_CHROMIUM") or system_chromium()

def passing(name: str) -> str:
    return plan("- {id: open, kind: navigate, target: {type: url, url: /login}, postconditions: [{kind: title_contains, args: {text: Sign in}}]}\n",
                name)


def _wait_for_line(path: Path, pattern: str, proc: subprocess.Popen, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = re.search(pattern, path.read_text(errors="replace")) if path.exists() else None
        if match:
            return match.group(1)
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[:3]} exited with {proc.returncode}: {path.read_text(errors='replace')[-2000:]}")
        time.sleep(0.05)
    raise RuntimeError(f"no {pattern!r} from {proc.args[:3]} within {timeout} s")


def _stop(proc: subprocess.Popen) -> None:
    """Stop the process group this module started (the server's node driver is a child)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@contextlib.contextmanager
def playwright_server() -> Iterator[str]:
    """``playwright run-server`` on 127.0.0.1, a free port; yields its ws:// endpoint."""
    with tempfile.TemporaryDirectory(prefix="pw-server-") as tmp:
        log = Path(tmp) / "server.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1", "--port", "0", "--unsafe"],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )
        try:
            yield _wait_for_line(log, r"Listening on (ws://\S+)", proc)
        finally:
            _stop(proc)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    if REMOTE_CHROMIUM is None:
        pytest.skip("no system Chromium for the Playwright server to launch")
    with playwright_server() as url:
        yield url


@pytest.fixture
def no_local_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMETLOCAL_CHROMIUM", "/nonexistent/cometlocal-test/chromium")
    for name in ("COMETLOCAL_CONNECT", "COMETLOCAL_CDP", "COMETLOCAL_REMOTE_CHROMIUM", "COMETLOCAL_GUARD_HOST"):
        monkeypatch.delenv(name, raising=False)


def remote_chromium_args() -> list[str]:
    # One argument: pytest takes a separate existing path for a rootdir candidate.
    return [f"--cometlocal-remote-chromium={REMOTE_CHROMIUM}"]


def manifests(pytester: pytest.Pytester) -> list[dict]:
    return [json.loads((r / "run_manifest.json").read_text()) for r in sorted((pytester.path / "cometlocal-runs").iterdir())]


# -- no browser: endpoint lists, pool picking, what reaches the artifacts ---------------------


def test_endpoint_pool_is_shared_by_worker_number() -> None:
    pool = split_endpoints("ws://a:3000/, ws://b:3000/\nws://c:3000/")
    assert pool == ("ws://a:3000/", "ws://b:3000/", "ws://c:3000/")
    assert [pick_endpoint(pool, f"gw{n}") for n in range(5)] == [pool[0], pool[1], pool[2], pool[0], pool[1]]
    assert pick_endpoint(pool, None) == pool[0] and pick_endpoint(pool, "master") == pool[0]
    assert public_endpoint("wss://qa:t0ken@grid.example:443/pw?token=abc#x") == "wss://grid.example:443/pw"
    assert public_endpoint("ws://[::1]:3000/") == "ws://[::1]:3000/"


def test_launch_options_header_carries_our_flags_then_the_users() -> None:
    header = json.loads(launch_options_header({"headless": False, "slow_mo": 50, "args": ["--lang=es-ES"]},
                                              "/opt/chromium/chrome")["x-playwright-launch-options"])
    assert header == {"headless": False, "args": LAUNCH_ARGS + ["--lang=es-ES"], "executablePath": "/opt/chromium/chrome"}
    assert "executablePath" not in json.loads(launch_options_header({"headless": True})["x-playwright-launch-options"])


def test_guard_listens_on_the_configured_host_and_names_it_in_the_proxy_setting() -> None:
    import urllib.request

    from pytest_cometlocal.executor.browser.network_guard import BLOCK_HEADER, NetworkGuard

    with NetworkGuard(["127.0.0.1"], host="127.0.0.2") as guard:
        assert guard.proxy_settings()["server"] == f"http://127.0.0.2:{guard.port}"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": guard.proxy_settings()["server"]}))
        with pytest.raises(urllib.error.HTTPError) as blocked:
            opener.open("http://outside.invalid/x", timeout=10)
        assert blocked.value.code == 403 and blocked.value.headers[BLOCK_HEADER] == "outside.invalid"
        with socket.socket() as s, pytest.raises(ConnectionRefusedError):  # nothing on the default address
            s.connect(("127.0.0.1", guard.port))
        assert [b.host for b in guard.blocked] == ["outside.invalid"]


SHOW_SETTINGS = """
from pytest_cometlocal.plugin.options import settings

def test_show(pytestconfig):
    opts = settings(pytestconfig)
    print("\\nREMOTE", opts.remote and (opts.remote.connection, opts.remote.endpoint, opts.remote.executable_path))
    print("GUARD", opts.guard_host)
"""


def test_option_beats_environment_beats_ini(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeini("[pytest]\ncometlocal_connect = ws://ini:1/\ncometlocal_remote_chromium = /ini/chrome\n"
                     "cometlocal_guard_host = 10.0.0.9\n")
    pytester.makepyfile(SHOW_SETTINGS)
    # PYTEST_XDIST_WORKER too: this suite run with -n 2 would make the in-process run
    # "worker gw1", which picks the second endpoint of a pool.
    for name in ("COMETLOCAL_CONNECT", "COMETLOCAL_CDP", "COMETLOCAL_REMOTE_CHROMIUM", "COMETLOCAL_GUARD_HOST",
                 "PYTEST_XDIST_WORKER"):
        monkeypatch.delenv(name, raising=False)

    def shown(*args: str) -> list[str]:
        result = pytester.runpytest_inprocess("-s", *args)
        result.assert_outcomes(passed=1)
        return [line for line in result.outlines if line.startswith(("REMOTE", "GUARD"))]

    assert shown() == ["REMOTE ('playwright-server', 'ws://ini:1/', '/ini/chrome')", "GUARD 10.0.0.9"]
    monkeypatch.setenv("COMETLOCAL_CONNECT", "ws://env:2/")
    monkeypatch.setenv("COMETLOCAL_GUARD_HOST", "10.0.0.8")
    assert shown() == ["REMOTE ('playwright-server', 'ws://env:2/', '/ini/chrome')", "GUARD 10.0.0.8"]
    assert shown("--cometlocal-connect", "ws://opt:3/,ws://opt:4/", "--cometlocal-guard-host", "::1") == [
        "REMOTE ('playwright-server', 'ws://opt:3/', '/ini/chrome')", "GUARD ::1"]
    monkeypatch.setenv("COMETLOCAL_CONNECT", "")  # empty: launch locally despite the ini
    assert shown()[0] == "REMOTE None"
    monkeypatch.setenv("COMETLOCAL_CDP", "http://cdp:9222")
    assert shown()[0] == "REMOTE ('cdp', 'http://cdp:9222', None)"


@pytest.mark.parametrize("args, message", [
    (["--cometlocal-connect", "ws://a:1/", "--cometlocal-cdp", "http://b:2"], "*--cometlocal-connect (Playwright servers) and --cometlocal-cdp (CDP endpoints) exclude each other*"),
    (["--cometlocal-connect", "http://a:1/?token=s3cret"], "*'http://a:1/' is not a playwright-server endpoint: expected a URL ws://host:port/ or wss://host:port/*"),
    (["--cometlocal-guard-host", "0.0.0.0"], "*cometlocal_guard_host '0.0.0.0' is a wildcard*"),
])
def test_conflicting_or_malformed_settings_are_usage_errors(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    pytester.makepyfile(SHOW_SETTINGS)
    result = pytester.runpytest_inprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "s3cret" not in result.stderr.str()


# -- through a Playwright server -------------------------------------------------------------


@pytest.mark.browser
def test_plan_runs_in_the_servers_browser_and_the_manifest_says_so(pytester: pytest.Pytester, server: str,
                                                                   no_local_chromium: None) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "a.actions.yaml", passing("remote pass"))
    with_token = server.replace("ws://", "ws://qa:pw-s3cret@") + "?token=tok-s3cret"
    result = pytester.runpytest_subprocess("--cometlocal-connect", with_token, *remote_chromium_args(),
                                           "--cometlocal-tracing", "on")
    result.assert_outcomes(passed=1)
    (manifest,) = manifests(pytester)
    assert manifest["execution_profile"]["connection"] == "playwright-server"
    assert manifest["execution_profile"]["endpoint"] == server  # ws://127.0.0.1:<port>/, no user, no token
    # The WebRTC flag was sent, but only the server knows whether it honoured it (tests/reliability/test_channels.py).
    assert manifest["guards"] == {"proxy": True, "webrtc_launch_flag": "requested", "webrtc_page_script": True}
    run_dir = next((pytester.path / "cometlocal-runs").iterdir())
    evidence = json.loads((run_dir / "evidence_manifest.json").read_text())
    assert [f["kind"] for f in evidence["files"]].count("playwright_trace") == 1  # tracing works over the connection
    for path in [p for p in pytester.path.rglob("*") if p.is_file()]:
        assert b"s3cret" not in path.read_bytes(), path
    assert "s3cret" not in result.stdout.str() + result.stderr.str()


ESCAPES_CONFTEST = """
import os
import pytest
from pytest_cometlocal.demo.portal import DemoPortal

@pytest.fixture(scope="session")
def demo_portal():
    with DemoPortal(outside_url=os.environ["OUTSIDE_URL"] + "/landing") as portal:
        yield portal

@pytest.fixture
def cometlocal_base_url(demo_portal):
    return demo_portal.url
"""


@pytest.mark.browser
def test_allowlist_is_enforced_by_the_guard_for_a_remote_browser(pytester: pytest.Pytester, server: str,
                                                                 no_local_chromium: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    outside = OutsideServer()  # "localhost": not on the allowlist; counts what reaches it
    try:
        monkeypatch.setenv("OUTSIDE_URL", outside.url)
        pytester.makeconftest(ESCAPES_CONFTEST)
        write(pytester, "escape.actions.yaml", "name: escape\nexpect: {error_code: DOMAIN_BLOCKED, step: leave}\n" + DEFAULTS + f"""\
steps:
  - {{id: leave, kind: navigate, target: {{type: url, url: "/redirect?to={outside.url}/r1"}}}}
""")
        write(pytester, "iframe.actions.yaml", "name: iframe\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /iframe-outside}, postconditions: [{kind: network_idle}]}
""")
        # The guard on another address than the default: the browser is told that one.
        result = pytester.runpytest_subprocess("--cometlocal-connect", server, *remote_chromium_args(),
                                               "--cometlocal-guard-host=127.0.0.2", "-p", "no:randomly")
        result.assert_outcomes(passed=2)
        assert outside.hits == []  # neither the redirect nor the iframe reached the outside host
    finally:
        outside.server.shutdown()
    runs = {json.loads((r / "run_manifest.json").read_text())["plan"]["name"]: r
            for r in (pytester.path / "cometlocal-runs").iterdir()}
    events = [json.loads(line) for line in (runs["iframe"] / "trace.jsonl").read_text().splitlines()]
    executed = next(e for e in events if e["event_type"] == "action_executed")
    # Only the guard knows about a blocked subframe request: the remote browser went through it.
    # A browser may retry a refused request (a proxied navigation often is): each attempt is listed.
    assert {b["host"] for b in executed["metadata"]["blocked_requests"]} == {"localhost"}
    escape = [json.loads(line) for line in (runs["escape"] / "trace.jsonl").read_text().splitlines()]
    error = next(e for e in escape if e["event_type"] == "error_raised")
    details = error["error"]["details"]
    assert details["host"] == "localhost" and {b["host"] for b in details["blocked_requests"]} == {"localhost"}
    assert list((runs["escape"] / "evidence").rglob("*.png")), "screenshots of the failure were captured remotely"


@pytest.mark.browser
def test_download_and_upload_cross_the_connection(pytester: pytest.Pytester, server: str, no_local_chromium: None) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    (pytester.path / "uploads").mkdir()
    (pytester.path / "uploads" / "remote-invoice.txt").write_text("invoice 42\n")
    write(pytester, "download.actions.yaml", "name: download\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
  - {id: password, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
  - {id: sign_in, kind: click, target: {type: testid, id: login-submit}, postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]}
  - id: export
    kind: click
    target: {type: role, role: link, name: Export CSV, exact: true}
    postconditions: [{kind: download_started, args: {filename: "report\\\\.csv$"}}]
""")
    write(pytester, "upload.actions.yaml", "name: upload\nuploads_root: uploads\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /form}}
  - id: attach
    kind: upload
    target: {type: css, selector: "input[type=file]"}
    file_ref: remote-invoice.txt
    postconditions: [{kind: upload_completed, args: {text: Uploaded remote-invoice.txt}}]
""")
    result = pytester.runpytest_subprocess("--cometlocal-connect", server, *remote_chromium_args(), "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    runs = {json.loads((r / "run_manifest.json").read_text())["plan"]["name"]: r
            for r in (pytester.path / "cometlocal-runs").iterdir()}
    evidence = json.loads((runs["download"] / "evidence_manifest.json").read_text())
    (download,) = [f for f in evidence["files"] if f["kind"] == "download"]
    saved = (runs["download"] / download["uri"]).read_text()
    assert saved.startswith("id,amount") and download["metadata"]["suggested_filename"] == "report.csv"
    events = [json.loads(line) for line in (runs["upload"] / "trace.jsonl").read_text().splitlines()]
    inspected = next(e for e in events if e["event_type"] == "inspection_finished")
    assert inspected["metadata"]["status"] == "ok"


@pytest.mark.browser
def test_xdist_workers_share_a_pool_given_by_the_environment(pytester: pytest.Pytester, server: str,
                                                            no_local_chromium: None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    for i in range(2):
        write(pytester, f"p{i}.actions.yaml", passing(f"pooled {i}"))
    with playwright_server() as second:
        monkeypatch.setenv("COMETLOCAL_CONNECT", f"{server},{second}")
        monkeypatch.setenv("COMETLOCAL_REMOTE_CHROMIUM", REMOTE_CHROMIUM)
        result = pytester.runpytest_subprocess("-n", "2")
        result.assert_outcomes(passed=2)
    used = {m["platform"]["worker"]: m["execution_profile"]["endpoint"] for m in manifests(pytester)}
    assert used == {"gw0": server, "gw1": second}


@pytest.mark.browser
def test_unreachable_server_is_a_one_line_setup_error_naming_it(pytester: pytest.Pytester, no_local_chromium: None) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "a.actions.yaml", passing("first") + "---\n" + passing("second"))
    started = time.monotonic()
    result = pytester.runpytest_subprocess("--cometlocal-connect", f"ws://127.0.0.1:{port}/?token=s3cret", "-p", "no:randomly")
    assert time.monotonic() - started < 60
    result.assert_outcomes(errors=2)
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "*_ ERROR at setup of plan: first _*",
        f"cannot connect to Playwright server ws://127.0.0.1:{port}/: *ECONNREFUSED*",
        "*_ ERROR at setup of plan: second _*",
        f"cannot connect to Playwright server ws://127.0.0.1:{port}/: * (not retried in this session)",
        "*= short test summary info =*",
    ], consecutive=True)
    assert "Traceback" not in out and "s3cret" not in out and "ChromiumNotFound" not in out


# -- over CDP --------------------------------------------------------------------------------


@pytest.fixture
def cdp_chromium(tmp_path: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    if REMOTE_CHROMIUM is None:
        pytest.skip("no system Chromium to start with --remote-debugging-port")
    log = tmp_path / "chromium.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [REMOTE_CHROMIUM, "--headless", "--no-sandbox", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", f"--user-data-dir={tmp_path / 'profile'}", *LAUNCH_ARGS, "about:blank"],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        yield proc, _wait_for_line(log, r"DevTools listening on (ws://\S+)", proc)
    finally:
        _stop(proc)


@pytest.mark.browser
def test_plans_run_over_cdp_with_the_guard(pytester: pytest.Pytester, cdp_chromium: tuple[subprocess.Popen, str],
                                           no_local_chromium: None) -> None:
    proc, devtools = cdp_chromium
    http_endpoint = "http://127.0.0.1:%d/" % int(re.search(r":(\d+)/", devtools).group(1))
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "a.actions.yaml", passing("over cdp") + "---\nname: iframe over cdp\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /iframe-outside}, postconditions: [{kind: network_idle}]}
""")
    result = pytester.runpytest_subprocess("--cometlocal-cdp", http_endpoint, "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    for manifest in manifests(pytester):
        assert manifest["execution_profile"]["connection"] == "cdp"
        assert manifest["execution_profile"]["endpoint"] == http_endpoint
        assert manifest["guards"] == {"proxy": True, "webrtc_launch_flag": "absent", "webrtc_page_script": True}
    iframe = next(r for r in (pytester.path / "cometlocal-runs").iterdir() if "-iframe-over-cdp-" in r.name)
    events = [json.loads(line) for line in (iframe / "trace.jsonl").read_text().splitlines()]
    executed = next(e for e in events if e["event_type"] == "action_executed")
    # The portal's outside iframe (outside.invalid) was refused by the guard, not by DNS.
    assert {b["host"] for b in executed["metadata"]["blocked_requests"]} == {"outside.invalid"}
    assert proc.poll() is None, "the session disconnected from a browser it did not start, without closing it"
