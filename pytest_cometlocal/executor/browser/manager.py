"""One Playwright and one Chromium for a whole session, relaunched only when it has died.

``BrowserManager`` launches the Chromium that ``chromium.find_chromium``
finds, with ``chromium.LAUNCH_ARGS``, or reaches a remote one through
``remote.py``. No pytest here: the pytest layer's fixtures hold one manager
per session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.browser.channels import mark_flagged
from pytest_cometlocal.executor.browser.chromium import LAUNCH_ARGS, display_problem, find_chromium, launch_problem
from pytest_cometlocal.executor.browser.remote import RemoteTarget, connect_browser
from pytest_cometlocal.executor.errors import BrowserLaunchFailed, RemoteBrowserUnavailable

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright


class BrowserManager:
    """One Playwright and one Chromium per session, relaunched only when it has died.

    ``browser()`` returns the running Chromium, or launches a new one when there
    is none yet or the last one is no longer connected (it crashed or was
    killed). With ``remote`` (a Playwright server or a CDP endpoint) it connects
    instead of launching, and reconnects when the connection is lost. An
    endpoint that was never reached is not tried again for every caller: the
    first failure is kept. Usable without pytest (the plugin's session fixture
    holds one).
    """

    def __init__(self, launch_kwargs: dict[str, Any], explicit_path: str | None, testid_attribute: str = "data-testid",
                 playwright: Playwright | None = None, remote: RemoteTarget | None = None):
        self.launch_kwargs = launch_kwargs
        self.explicit_path = explicit_path
        self.remote = remote
        self._remote_failure: str | None = None
        self._launch_failure: str | None = None  # a headed launch that found no display: not retried
        self.testid_attribute = testid_attribute
        # Playwright's sync API allows one instance per thread: a caller that already
        # has one (pytest-playwright's session `playwright`) passes it in, and it is
        # shared instead of starting a second one; it is then not stopped here.
        self._playwright = playwright
        self._owns_playwright = playwright is None
        self._configured = False
        self._browser: Browser | None = None
        self.launches = 0

    def browser(self) -> Browser:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright

        if self._browser is not None and self._browser.is_connected():
            return self._browser
        if self._playwright is None:
            self._playwright = sync_playwright().start()
        if not self._configured:
            self._configured = True
            if self.testid_attribute != "data-testid":
                self._playwright.selectors.set_test_id_attribute(self.testid_attribute)
        if self.remote is not None:
            return self._connect()
        headless = bool(self.launch_kwargs.get("headless", True))
        problem = self._launch_failure or display_problem(headless)
        if problem:
            raise BrowserLaunchFailed(problem)
        # A channel (pytest-playwright's --browser-channel: chrome, msedge...) names its own binary.
        channel_only = bool(self.launch_kwargs.get("channel")) and not self.explicit_path
        path = None if channel_only else find_chromium(self._playwright, self.explicit_path)
        kwargs = dict(self.launch_kwargs)
        kwargs["args"] = LAUNCH_ARGS + list(kwargs.get("args") or [])
        if path:
            kwargs["executable_path"] = path
        try:
            self._browser = self._playwright.chromium.launch(**kwargs)
        except PlaywrightError as exc:
            self._launch_failure = launch_problem(headless, str(exc))  # the same for every later caller
            if self._launch_failure is None:
                raise
            raise BrowserLaunchFailed(self._launch_failure) from None
        if not any(str(arg).startswith("--webrtc-ip-handling-policy") for arg in self.launch_kwargs.get("args") or []):
            mark_flagged(self._browser)  # a user's own policy, later on the line, would win over ours
        self.launches += 1
        return self._browser

    def _connect(self) -> Browser:

        assert self.remote is not None
        if self._remote_failure is not None:
            raise RemoteBrowserUnavailable(self._remote_failure + " (not retried in this session)")
        try:
            self._browser = connect_browser(self._playwright, self.remote, self.launch_kwargs)
        except RemoteBrowserUnavailable as exc:
            if not self.launches:  # never reached: every later caller would wait for the same failure
                self._remote_failure = str(exc)
            raise
        self.launches += 1
        return self._browser

    def close(self) -> None:
        """Close the browser and stop the Playwright this manager started; never raises
        for a browser or driver that is already gone."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            if self._browser is not None and self._browser.is_connected():
                self._browser.close()
        except PlaywrightError:  # died between the check and the close
            pass
        finally:
            self._browser = None
            if self._playwright is not None and self._owns_playwright:
                try:
                    self._playwright.stop()
                except Exception:  # a driver that is already gone fails in more ways than Playwright's Error
                    pass
            self._playwright = None
