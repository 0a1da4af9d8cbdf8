"""The WebRTC guards' pure parts: what the manifest says, and what a page's report may record.

The page script itself runs in tests/reliability/test_channels.py, against a
real UDP listener; here a recorder stands in for the context, to call the
binding the way a (possibly hostile) page could.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_cometlocal.executor.browser.channels import BINDING, WEBRTC_FLAGS, guard_channels, guards_in_force, mark_flagged
from pytest_cometlocal.executor.browser.chromium import LAUNCH_ARGS
from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
from pytest_cometlocal.executor.scripts import PLACEHOLDER


class Browser:
    pass


class Context:
    def __init__(self, browser: Any = None) -> None:
        self.browser = browser
        self.bindings: dict[str, Any] = {}
        self.scripts: list[str] = []

    def expose_binding(self, name: str, callback: Any) -> None:
        self.bindings[name] = callback

    def add_init_script(self, script: str) -> None:
        self.scripts.append(script)


def test_every_launch_has_the_webrtc_flags() -> None:
    assert "--webrtc-ip-handling-policy=disable_non_proxied_udp" in WEBRTC_FLAGS
    assert set(WEBRTC_FLAGS) <= set(LAUNCH_ARGS)


def test_manifest_guards_say_where_the_flag_comes_from_and_whether_the_script_was_given() -> None:
    launched, other = Browser(), Browser()
    mark_flagged(launched)
    guarded = Context(launched)
    guard_channels(guarded, NetworkGuard(["127.0.0.1"]))
    assert guards_in_force(guarded, "launch") == {"proxy": True, "webrtc_launch_flag": "set", "webrtc_page_script": True}
    # A context that never got the page script is not reported as guarded by it.
    assert guards_in_force(Context(launched), "launch") == {"proxy": True, "webrtc_launch_flag": "set",
                                                           "webrtc_page_script": False}
    assert guards_in_force(Context(other), "playwright-server")["webrtc_launch_flag"] == "requested"
    assert guards_in_force(Context(other), "cdp")["webrtc_launch_flag"] == "absent"
    assert guards_in_force(Context(other), None)["webrtc_launch_flag"] == "unknown"
    assert guards_in_force(None, "launch") == {"proxy": True, "webrtc_launch_flag": "unknown", "webrtc_page_script": False}


def test_a_pages_report_records_only_outside_hosts_of_known_kinds() -> None:
    guard = NetworkGuard(["127.0.0.1", "*.example.com"])
    context = Context()
    guard_channels(context, guard)
    report = context.bindings[BINDING]
    report(None, "ICE", "ice:127.0.0.2:3478", "127.0.0.2")
    report(None, "STUN", "stun:127.0.0.1:3478", "127.0.0.1")  # allowed: a page cannot fake a refusal of it
    report(None, "TURN", "turn:a.example.com", "a.example.com")
    report(None, "SCRIPT", "x", "outside.test")  # not a kind the script sends
    report(None, "ICE", {"url": 1}, "outside.test")
    report(None, "WEBTRANSPORT", "https://outside.test/" + "x" * 2000, "outside.test")
    report(None)
    assert [(b.method, b.url[:40], b.host) for b in guard.blocked] == [
        ("ICE", "ice:127.0.0.2:3478", "127.0.0.2"), ("WEBTRANSPORT", "https://outside.test/" + "x" * 19, "outside.test")]
    assert len(guard.blocked[1].url) == 500


def test_the_page_script_carries_the_allowlist_as_json() -> None:
    context = Context()
    guard_channels(context, NetworkGuard(['a"b', "127.0.0.1"]))
    (script,) = context.scripts
    assert "const ALLOW = " + json.dumps(['a"b', "127.0.0.1"]) + ";" in script
    assert json.dumps(BINDING) in script and not PLACEHOLDER.search(script)


def test_the_page_script_gets_the_entries_as_the_browser_writes_hosts() -> None:
    context = Context()  # Chromium's hostname of http://127.1/ is 127.0.0.1: the script compares with that
    guard_channels(context, NetworkGuard(["127.1", "[0:0::1]", "*.Example.COM", "Allowed.example."]))
    assert "const ALLOW = " + json.dumps(["127.0.0.1", "::1", "*.example.com", "allowed.example"]) + ";" in context.scripts[0]


def test_a_launch_with_the_users_own_webrtc_policy_is_not_recorded_as_ours(tmp_path) -> None:
    from pytest_cometlocal.executor.browser.manager import BrowserManager
    from tests.unit.test_browser_manager import FakeChromium, FakePlaywright

    chrome = tmp_path / "chrome"
    chrome.write_text("")
    ours = BrowserManager({}, str(chrome), playwright=FakePlaywright(FakeChromium(None))).browser()
    theirs = BrowserManager({"args": ["--webrtc-ip-handling-policy=default"]}, str(chrome),
                            playwright=FakePlaywright(FakeChromium(None))).browser()
    assert guards_in_force(Context(ours), "launch")["webrtc_launch_flag"] == "set"
    assert guards_in_force(Context(theirs), "launch")["webrtc_launch_flag"] == "unknown"
