"""Firefox found and launched (executor/browser/firefox/, manager.py, remote.py): the pure parts, no browser.

The lookup order, a poisoned ``COMETLOCAL_FIREFOX``, the prefs and launch
keyword arguments, the pair probe's one line built from the error Playwright
1.65.2 really gives, and ``BrowserManager(browser_name="firefox")`` against
fakes. tests/browsers/test_firefox_launch_browser.py launches a real Firefox.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from pytest_cometlocal.executor.browser.firefox import launch as firefox_launch
from pytest_cometlocal.executor.browser.firefox import pair as firefox_pair
from pytest_cometlocal.executor.browser.channels import FIREFOX_PREF, guards_in_force, mark_flagged
from pytest_cometlocal.executor.browser.chromium import display_problem
from pytest_cometlocal.executor.browser.firefox import (
    BIDI_CHANNEL,
    FIREFOX_PREFS,
    FirefoxFound,
    find_firefox,
    firefox_launch_kwargs,
    firefox_launch_problem,
    pair_mismatch_message,
    probe_pair,
)
from pytest_cometlocal.executor.browser.manager import BrowserManager
from pytest_cometlocal.executor.browser.remote import CDP, PLAYWRIGHT_SERVER, RemoteTarget, connect_browser, launch_options_header
from pytest_cometlocal.executor.errors import (
    BrowserLaunchFailed,
    BrowserPairMismatch,
    CdpNeedsChromium,
    FirefoxNotFound,
    RemoteBrowserUnavailable,
)

# What Playwright 1.65.2 raises for every new context of Firefox ESR 153 (measured, design49 section 1).
MEASURED_165 = ("Browser.new_context: Protocol error (emulation.setMediaFeaturesOverride): unknown command\n"
                "Message: emulation.setMediaFeaturesOverride")
POISON = "/nonexistent/browser-free-run/a-test-without-the-browser-marker-wants-firefox"


@pytest.fixture
def no_system_firefox(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing on PATH, nothing in /usr/bin: only what a test puts there."""
    monkeypatch.setattr(firefox_launch.shutil, "which", lambda name: None)
    monkeypatch.setattr(firefox_launch, "SYSTEM_PATHS", ())


def binary(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    return str(path)


class FakeFirefoxType:
    def __init__(self, executable: str | None = None, new_context_error: BaseException | None = None,
                 version: str = "153.8.0") -> None:
        self.executable_path = executable
        self.name = "firefox"
        self.launched: list[dict[str, Any]] = []
        self.connected: list[tuple[str, dict[str, Any]]] = []
        self.browsers: list[FakeBrowser] = []
        self.new_context_error = new_context_error
        self.version = version

    def launch(self, **kwargs: Any) -> "FakeBrowser":
        self.launched.append(kwargs)
        self.browsers.append(FakeBrowser(self))
        return self.browsers[-1]

    def connect(self, endpoint: str, **kwargs: Any) -> "FakeBrowser":
        self.connected.append((endpoint, kwargs))
        self.browsers.append(FakeBrowser(self))
        return self.browsers[-1]


class FakeContext:
    def __init__(self, browser: "FakeBrowser") -> None:
        self.browser = browser
        self.closed = False

    def close(self) -> None:
        self.closed = True


class FakeBrowser:
    def __init__(self, browser_type: FakeFirefoxType) -> None:
        self.browser_type = browser_type
        self.version = browser_type.version
        self.connected = True
        self.contexts: list[FakeContext] = []

    def is_connected(self) -> bool:
        return self.connected

    def new_context(self) -> FakeContext:
        if self.browser_type.new_context_error is not None:
            raise self.browser_type.new_context_error
        self.contexts.append(FakeContext(self))
        return self.contexts[-1]

    def close(self) -> None:
        self.connected = False


class FakePlaywright:
    def __init__(self, firefox: FakeFirefoxType) -> None:
        self.firefox = firefox
        self.chromium = None
        self.stopped = 0

    def stop(self) -> None:
        self.stopped += 1


# --- find_firefox: the lookup order -------------------------------------------------------------------------

def test_the_explicit_path_comes_first_then_the_environment(tmp_path, no_system_firefox) -> None:
    option, env_path = binary(tmp_path, "opt/firefox"), binary(tmp_path, "env/firefox")
    own = FakePlaywright(FakeFirefoxType(binary(tmp_path, "ms-playwright/firefox-1/firefox/firefox")))
    assert find_firefox(option, {"COMETLOCAL_FIREFOX": env_path}, own) == FirefoxFound(option, BIDI_CHANNEL, "option")
    assert find_firefox(None, {"COMETLOCAL_FIREFOX": env_path}, own) == FirefoxFound(env_path, BIDI_CHANNEL, "env")
    assert find_firefox("", {"COMETLOCAL_FIREFOX": ""}, own).source == "playwright"


def test_playwrights_own_build_before_a_system_firefox_and_without_a_channel(tmp_path, monkeypatch) -> None:
    own_path = binary(tmp_path, "ms-playwright/firefox-1490/firefox/firefox")
    system = binary(tmp_path, "usr/bin/firefox-esr")
    monkeypatch.setattr(firefox_launch.shutil, "which", lambda name: system if name == "firefox-esr" else None)
    found = find_firefox(None, {}, FakePlaywright(FakeFirefoxType(own_path)))
    assert found == FirefoxFound(own_path, None, "playwright") and found.protocol == "juggler"
    # Playwright's build is named but not downloaded: the system one, through BiDi.
    found = find_firefox(None, {}, FakePlaywright(FakeFirefoxType(str(tmp_path / "missing/firefox"))))
    assert found == FirefoxFound(system, BIDI_CHANNEL, "system") and found.protocol == "webdriver-bidi"
    # No Playwright to ask (a caller without one): straight to the system one.
    assert find_firefox(None, {}).source == "system"


def test_system_names_in_order_then_usr_bin(tmp_path, monkeypatch) -> None:
    esr, plain = binary(tmp_path, "a/firefox-esr"), binary(tmp_path, "b/firefox")
    on_path = {"firefox-esr": esr, "firefox": plain}
    monkeypatch.setattr(firefox_launch.shutil, "which", lambda name: on_path.get(name))
    assert find_firefox(None, {}).path == esr
    del on_path["firefox-esr"]
    assert find_firefox(None, {}).path == plain
    on_path.clear()
    fallback = binary(tmp_path, "usr/bin/firefox-esr")
    monkeypatch.setattr(firefox_launch, "SYSTEM_PATHS", (fallback,))
    assert find_firefox(None, {}) == FirefoxFound(fallback, BIDI_CHANNEL, "system")


def test_nothing_found_is_one_line_saying_what_was_tried_and_how_to_install(no_system_firefox) -> None:
    with pytest.raises(FirefoxNotFound) as raised:
        find_firefox(None, {}, FakePlaywright(FakeFirefoxType(None)))
    message = str(raised.value)
    assert "\n" not in message
    for tried in ("COMETLOCAL_FIREFOX", "Playwright's own build: not installed", "firefox-esr, firefox on PATH",
                  "`apt-get install -y firefox-esr`", "playwright install firefox"):
        assert tried in message
    assert isinstance(raised.value, BrowserLaunchFailed)  # the plugin's fixture fails items with the line


def test_a_poisoned_environment_path_stops_every_lookup(tmp_path, monkeypatch) -> None:
    """As tests/browser_guard.py poisons COMETLOCAL_CHROMIUM: a path that does not exist is refused naming
    it, even with a Firefox on PATH and Playwright's own build installed."""
    monkeypatch.setattr(firefox_launch.shutil, "which", lambda name: binary(tmp_path, "bin/firefox-esr") if "/" not in name else None)
    own = FakePlaywright(FakeFirefoxType(binary(tmp_path, "ms-playwright/firefox-1/firefox/firefox")))
    with pytest.raises(FirefoxNotFound, match=f"Firefox not found at '{POISON}' .*COMETLOCAL_FIREFOX"):
        find_firefox(None, {"COMETLOCAL_FIREFOX": POISON}, own)
    with pytest.raises(FirefoxNotFound, match="Firefox not found at '/nowhere/firefox'"):
        find_firefox("/nowhere/firefox", {}, own)


def test_the_environment_is_read_by_default(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMETLOCAL_FIREFOX", POISON)
    with pytest.raises(FirefoxNotFound, match="Firefox not found at"):
        find_firefox()


def test_an_explicit_playwright_build_gets_no_channel(tmp_path, no_system_firefox) -> None:
    juggler = binary(tmp_path, "cache/ms-playwright/firefox-1490/firefox/firefox")
    assert find_firefox(juggler, {}) == FirefoxFound(juggler, None, "option")


# --- prefs and launch keyword arguments -------------------------------------------------------------------

def test_the_three_measured_prefs() -> None:
    assert FIREFOX_PREFS == {"network.proxy.allow_hijacking_localhost": True,
                             "browser.sessionhistory.max_total_viewers": 0,
                             "media.peerconnection.ice.proxy_only": True}


def test_launch_kwargs_for_a_system_firefox_and_for_playwrights_own() -> None:
    system = FirefoxFound("/usr/bin/firefox-esr", BIDI_CHANNEL, "system")
    assert firefox_launch_kwargs(system, True) == {"headless": True, "executable_path": "/usr/bin/firefox-esr",
                                                   "channel": "moz-firefox", "firefox_user_prefs": FIREFOX_PREFS}
    own = FirefoxFound("/pw/ms-playwright/firefox-1/firefox/firefox", None, "playwright")
    kwargs = firefox_launch_kwargs(own, False)
    assert "channel" not in kwargs and kwargs["headless"] is False and kwargs["firefox_user_prefs"] == FIREFOX_PREFS


def test_launch_kwargs_keep_what_firefox_understands_and_the_guard_prefs_win() -> None:
    session = {"headless": True, "slow_mo": 50, "timeout": 9000, "channel": "chrome", "args": ["--lang=de"],
               "chromium_sandbox": True, "executable_path": "/usr/bin/chromium",
               "firefox_user_prefs": {"intl.accept_languages": "de", "network.proxy.allow_hijacking_localhost": False}}
    kwargs = firefox_launch_kwargs(FirefoxFound("/usr/bin/firefox-esr", BIDI_CHANNEL, "system"), True, session)
    assert kwargs == {"slow_mo": 50, "timeout": 9000, "headless": True, "executable_path": "/usr/bin/firefox-esr",
                      "channel": "moz-firefox",
                      "firefox_user_prefs": {"intl.accept_languages": "de", **FIREFOX_PREFS}}


def test_firefox_launch_problems_in_one_line() -> None:
    found = FirefoxFound("/opt/ff/firefox", BIDI_CHANNEL, "option")
    assert "needs a display" in firefox_launch_problem(False, "Error: no DISPLAY environment variable specified", found)
    gone = firefox_launch_problem(True, "BrowserType.launch: Executable doesn't exist at /opt/ff/firefox\n╔══╗", found)
    assert gone.startswith("Firefox at /opt/ff/firefox (from option) cannot be started: Executable doesn't exist")
    assert firefox_launch_problem(True, "BrowserType.launch: something else", found) is None
    assert display_problem(False, {}, "linux", browser="Firefox").startswith("a headed Firefox needs a display")
    assert display_problem(False, {}, "linux").startswith("a headed Chromium needs a display")


# --- the pair probe ---------------------------------------------------------------------------------------

def test_the_mismatch_line_names_both_versions_the_command_and_the_way_out() -> None:
    line = pair_mismatch_message(MEASURED_165, "1.65.2", "153.8.0")
    assert line == ("Playwright 1.65.2 cannot drive Firefox 153.8.0 through WebDriver BiDi: Firefox does not know "
                    "emulation.setMediaFeaturesOverride, which this Playwright sends for every context; "
                    'use `pip install "playwright<1.65"` (1.64.1 is tested with Firefox ESR 153) '
                    "or a Firefox that answers emulation.setMediaFeaturesOverride")
    assert "\n" not in line


def test_other_protocol_errors_of_the_family_and_errors_that_are_not() -> None:
    other = pair_mismatch_message("Browser.new_context: Protocol error (browsingContext.create): unsupported operation\n"
                                  "Message: x", "1.66.0", "140.0", protocol="juggler")
    assert other.startswith("Playwright 1.66.0 cannot drive Firefox 140.0: Firefox does not know browsingContext.create")
    odd = pair_mismatch_message("Protocol error (session.subscribe): invalid argument\nMessage: y", "1.66.0", "154.0")
    assert 'a new context fails with "Protocol error (session.subscribe): invalid argument"' in odd and "\n" not in odd
    assert pair_mismatch_message("Browser.new_context: Target page, context or browser has been closed", "1", "2") is None


def test_probe_pair_raises_one_line_from_the_fake_165_error(monkeypatch) -> None:
    monkeypatch.setattr(firefox_pair, "playwright_version", lambda: "1.65.2")
    browser = FakeBrowser(FakeFirefoxType(new_context_error=PlaywrightError(MEASURED_165)))
    with pytest.raises(BrowserPairMismatch) as raised:
        probe_pair(browser)
    assert str(raised.value).startswith("Playwright 1.65.2 cannot drive Firefox 153.8.0 through WebDriver BiDi")
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    # A working pair: the trial context is closed again.
    working = FakeBrowser(FakeFirefoxType())
    probe_pair(working)
    assert len(working.contexts) == 1 and working.contexts[0].closed
    # Not a protocol error: raised as it is.
    crash = PlaywrightError("Browser.new_context: Target page, context or browser has been closed")
    with pytest.raises(PlaywrightError) as raised_crash:
        probe_pair(FakeBrowser(FakeFirefoxType(new_context_error=crash)))
    assert raised_crash.value is crash


# --- BrowserManager(browser_name="firefox") ---------------------------------------------------------------

def test_the_manager_launches_firefox_with_the_prefs_and_records_it(tmp_path, no_system_firefox) -> None:
    path = binary(tmp_path, "firefox-esr")
    firefox = FakeFirefoxType()
    manager = BrowserManager({"headless": True, "slow_mo": 0, "args": ["--lang=de"]}, path,
                             playwright=FakePlaywright(firefox), browser_name="firefox")
    assert manager.version is None and manager.profile == {"browser": "firefox", "browser_version": None}
    browser = manager.browser()
    assert manager.browser() is browser and manager.launches == 1
    assert firefox.launched == [{"slow_mo": 0, "headless": True, "executable_path": path, "channel": "moz-firefox",
                                 "firefox_user_prefs": FIREFOX_PREFS}]  # not Chromium's args
    assert browser.contexts and browser.contexts[0].closed  # the pair probe's trial context
    assert manager.version == "153.8.0"
    assert manager.profile == {"browser": "firefox", "browser_version": "153.8.0", "browser_channel": "moz-firefox"}
    assert manager.firefox == FirefoxFound(path, BIDI_CHANNEL, "option")
    guards = guards_in_force(FakeContext(browser), "launch")  # type: ignore[arg-type]
    assert guards == {"proxy": True, "webrtc_launch_flag": "set", "webrtc_page_script": False,
                      "webrtc_launch_setting": "media.peerconnection.ice.proxy_only", "localhost_through_proxy": "set"}


def test_a_pair_mismatch_is_one_line_kept_for_the_session(tmp_path, monkeypatch, no_system_firefox) -> None:
    monkeypatch.setattr(firefox_pair, "playwright_version", lambda: "1.65.2")
    firefox = FakeFirefoxType(new_context_error=PlaywrightError(MEASURED_165))
    manager = BrowserManager({"headless": True}, binary(tmp_path, "firefox-esr"), playwright=FakePlaywright(firefox),
                             browser_name="firefox")
    with pytest.raises(BrowserPairMismatch, match=r"^Playwright 1\.65\.2 cannot drive Firefox 153\.8\.0") as first:
        manager.browser()
    assert not firefox.browsers[0].connected  # closed after the probe
    with pytest.raises(BrowserPairMismatch) as again:
        manager.browser()
    assert str(again.value) == str(first.value) and len(firefox.launched) == 1  # not launched again
    assert isinstance(first.value, BrowserLaunchFailed)  # the plugin's fixture: one line per item, no traceback


def test_a_firefox_that_is_not_found_is_a_launch_failure(no_system_firefox) -> None:
    manager = BrowserManager({}, POISON, playwright=FakePlaywright(FakeFirefoxType()), browser_name="firefox")
    with pytest.raises(FirefoxNotFound, match="Firefox not found at"):
        manager.browser()


def test_chromium_stays_the_default_and_unknown_names_are_refused() -> None:
    assert BrowserManager({}, None).browser_name == "chromium"
    with pytest.raises(ValueError, match="unknown browser 'safari'"):
        BrowserManager({}, None, browser_name="safari")


def test_webkit_gets_only_the_options_it_understands() -> None:
    webkit = FakeFirefoxType(version="26.0")
    playwright = FakePlaywright(FakeFirefoxType())
    playwright.webkit = webkit  # type: ignore[attr-defined]
    manager = BrowserManager({"headless": True, "slow_mo": 5, "args": ["--x"], "channel": "chrome"}, None,
                             playwright=playwright, browser_name="webkit")
    manager.browser()
    assert webkit.launched == [{"headless": True, "slow_mo": 5}]
    assert manager.profile == {"browser": "webkit", "browser_version": "26.0"}


# --- guards and remote ------------------------------------------------------------------------------------

def test_chromiums_guard_record_is_unchanged_and_firefoxs_names_its_pref() -> None:
    class Browser:
        pass

    chromium, firefox = Browser(), Browser()
    mark_flagged(chromium)
    mark_flagged(firefox, FIREFOX_PREF)
    assert guards_in_force(FakeContext(chromium), "launch") == {  # type: ignore[arg-type]
        "proxy": True, "webrtc_launch_flag": "set", "webrtc_page_script": False}
    assert guards_in_force(FakeContext(firefox), "launch")["webrtc_launch_setting"] == "media.peerconnection.ice.proxy_only"  # type: ignore[arg-type]
    # A remote Firefox: the prefs were only sent to the server.
    remote = FakeBrowser(FakeFirefoxType())
    assert guards_in_force(FakeContext(remote), "playwright-server") == {  # type: ignore[arg-type]
        "proxy": True, "webrtc_launch_flag": "requested", "webrtc_page_script": False,
        "webrtc_launch_setting": "media.peerconnection.ice.proxy_only", "localhost_through_proxy": "requested"}


def test_the_remote_header_for_firefox_carries_prefs_and_the_bidi_channel() -> None:
    import json

    header = json.loads(launch_options_header({"headless": True, "args": ["--lang=de"], "timeout": 5000},
                                              "/usr/bin/firefox-esr", "firefox")["x-playwright-launch-options"])
    assert header == {"timeout": 5000, "headless": True, "firefoxUserPrefs": FIREFOX_PREFS,
                      "executablePath": "/usr/bin/firefox-esr", "channel": "moz-firefox"}
    own = json.loads(launch_options_header({}, None, "firefox")["x-playwright-launch-options"])
    assert own == {"headless": True, "firefoxUserPrefs": FIREFOX_PREFS}  # the server's own Firefox: no channel


def test_remote_firefox_connects_through_firefox_and_cdp_refuses_it(monkeypatch) -> None:
    firefox = FakeFirefoxType()
    target = RemoteTarget(PLAYWRIGHT_SERVER, "ws://127.0.0.1:9/", executable_path="/usr/bin/chromium",
                          firefox_path="/usr/bin/firefox-esr")
    connect_browser(FakePlaywright(firefox), target, {"headless": True}, browser_name="firefox")  # type: ignore[arg-type]
    endpoint, kwargs = firefox.connected[0]
    assert endpoint == "ws://127.0.0.1:9/" and '"executablePath": "/usr/bin/firefox-esr"' in kwargs["headers"]["x-playwright-launch-options"]
    with pytest.raises(CdpNeedsChromium, match="reaches Chromium only, not firefox") as raised:
        connect_browser(FakePlaywright(firefox), RemoteTarget(CDP, "http://127.0.0.1:9222/"), {}, browser_name="firefox")  # type: ignore[arg-type]
    assert isinstance(raised.value, RemoteBrowserUnavailable)  # the plugin's fixture: one line


def test_the_manager_probes_a_remote_firefox_too(monkeypatch) -> None:
    monkeypatch.setattr(firefox_pair, "playwright_version", lambda: "1.65.2")
    firefox = FakeFirefoxType(new_context_error=PlaywrightError(MEASURED_165))
    manager = BrowserManager({}, None, playwright=FakePlaywright(firefox), browser_name="firefox",
                             remote=RemoteTarget(PLAYWRIGHT_SERVER, "ws://127.0.0.1:9/"))
    with pytest.raises(BrowserPairMismatch, match="cannot drive Firefox 153.8.0: Firefox does not know"):
        manager.browser()
    with pytest.raises(BrowserPairMismatch):
        manager.browser()
    assert len(firefox.connected) == 1
