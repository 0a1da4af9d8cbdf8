"""BrowserManager (executor layer, no pytest): one Chromium per session, relaunched only when dead.

Fakes stand in for Playwright here; tests/plugin/test_browser_manager.py runs a real Chromium.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pytest_cometlocal.executor.browser.manager import BrowserManager
from pytest_cometlocal.executor.browser.chromium import LAUNCH_ARGS
from pytest_cometlocal.executor.browser.remote import PLAYWRIGHT_SERVER, RemoteTarget, connect_browser
from pytest_cometlocal.executor.errors import RemoteBrowserUnavailable


class FakeBrowser:
    def __init__(self) -> None:
        self.connected = True
        self.closed = 0

    def is_connected(self) -> bool:
        return self.connected

    def close(self) -> None:
        self.closed += 1
        self.connected = False


class FakeChromium:
    def __init__(self, executable: str | None, connect_error: BaseException | None = None) -> None:
        self.executable_path = executable
        self.launched: list[dict[str, Any]] = []
        self.connects = 0
        self.connect_error = connect_error
        self.browsers: list[FakeBrowser] = []

    def launch(self, **kwargs: Any) -> FakeBrowser:
        self.launched.append(kwargs)
        self.browsers.append(FakeBrowser())
        return self.browsers[-1]

    def connect(self, endpoint: str, **kwargs: Any) -> FakeBrowser:
        self.connects += 1
        if self.connect_error is not None:
            raise self.connect_error
        self.browsers.append(FakeBrowser())
        return self.browsers[-1]


class FakePlaywright:
    def __init__(self, chromium: FakeChromium) -> None:
        self.chromium = chromium
        self.stopped = 0

    def stop(self) -> None:
        self.stopped += 1


def test_one_browser_until_it_dies_then_a_new_one(tmp_path) -> None:
    chrome = tmp_path / "chrome"
    chrome.write_text("")
    chromium = FakeChromium(None)
    manager = BrowserManager({"headless": True, "args": ["--lang=de"]}, str(chrome), playwright=FakePlaywright(chromium))
    first = manager.browser()
    assert manager.browser() is first and manager.launches == 1
    assert chromium.launched == [{"headless": True, "args": LAUNCH_ARGS + ["--lang=de"], "executable_path": str(chrome)}]
    first.connected = False  # crashed
    second = manager.browser()
    assert second is not first and manager.launches == 2 and len(chromium.launched) == 2


def test_close_leaves_a_shared_playwright_running_and_tolerates_a_dead_browser(tmp_path) -> None:
    chrome = tmp_path / "chrome"
    chrome.write_text("")
    playwright = FakePlaywright(FakeChromium(None))
    manager = BrowserManager({}, str(chrome), playwright=playwright)
    browser = manager.browser()

    def dies_while_closing() -> None:
        raise PlaywrightError("Target page, context or browser has been closed")

    browser.close = dies_while_closing  # type: ignore[method-assign]
    manager.close()
    assert playwright.stopped == 0  # not ours: pytest-playwright's session Playwright


def test_a_never_reached_endpoint_is_not_tried_again() -> None:
    chromium = FakeChromium(None, connect_error=PlaywrightError("connect ECONNREFUSED 127.0.0.1:9"))
    target = RemoteTarget(PLAYWRIGHT_SERVER, "ws://127.0.0.1:9/")
    manager = BrowserManager({}, None, playwright=FakePlaywright(chromium), remote=target)
    with pytest.raises(RemoteBrowserUnavailable, match="cannot connect to Playwright server ws://127.0.0.1:9/: connect ECONNREFUSED"):
        manager.browser()
    with pytest.raises(RemoteBrowserUnavailable, match="not retried in this session"):
        manager.browser()
    assert chromium.connects == 1


def test_connect_recognises_playwright_errors_by_their_public_classes() -> None:
    assert issubclass(PlaywrightTimeoutError, PlaywrightError)
    target = RemoteTarget(PLAYWRIGHT_SERVER, "ws://user:s3cret@127.0.0.1:9/?token=abc")
    timeout = FakePlaywright(FakeChromium(None, connect_error=PlaywrightTimeoutError(
        "BrowserType.connect: Timeout 30000ms exceeded.\nCall log:\n  - ws://user:s3cret@127.0.0.1:9/?token=abc")))
    with pytest.raises(RemoteBrowserUnavailable) as excinfo:
        connect_browser(timeout, target, {})
    assert str(excinfo.value) == "cannot connect to Playwright server ws://127.0.0.1:9/: Timeout 30000ms exceeded."
    # Anything that is not Playwright's error is a fault, not an unreachable endpoint: it is not hidden.
    bug = KeyError("bug")
    with pytest.raises(KeyError) as raised:
        connect_browser(FakePlaywright(FakeChromium(None, connect_error=bug)), target, {})
    assert raised.value is bug
