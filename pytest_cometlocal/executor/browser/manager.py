"""One Playwright and one browser for a whole session, relaunched only when it has died.

``BrowserManager`` launches the Chromium that ``chromium.find_chromium``
finds, with ``chromium.launch_args`` (LAUNCH_ARGS and the user's), or reaches a remote one through
``remote.py``. With ``browser_name="firefox"`` it launches the Firefox that
``firefox.find_firefox`` finds, with ``firefox.FIREFOX_PREFS``, and checks at
once that this Playwright can drive it (``firefox.probe_pair``); with
``"webkit"`` it launches Playwright's own WebKit (untested: no WebKit build can
be installed on the project's machines). No pytest here: the pytest layer's
fixtures hold one manager per session (per browser name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.browser.channels import CHROMIUM_FLAG, FIREFOX_PREF, mark_flagged
from pytest_cometlocal.executor.browser.chromium import display_problem, find_chromium, launch_args, launch_problem
from pytest_cometlocal.executor.browser.firefox import (FirefoxFound, find_firefox, firefox_launch_kwargs,
                                                        firefox_launch_problem, probe_pair)
from pytest_cometlocal.executor.browser.remote import RemoteTarget, connect_browser
from pytest_cometlocal.executor.errors import BrowserLaunchFailed, BrowserPairMismatch, RemoteBrowserUnavailable

BROWSER_NAMES = ("chromium", "firefox", "webkit")
_TITLES = {"chromium": "Chromium", "firefox": "Firefox", "webkit": "WebKit"}
# Keyword arguments of BrowserType.launch that WebKit understands (Chromium's args and channel are not passed on).
_WEBKIT_LAUNCH_KEYS = ("slow_mo", "timeout", "env", "proxy", "downloads_path", "traces_dir",
                       "handle_sigint", "handle_sigterm", "handle_sighup")

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright


class BrowserManager:
    """One Playwright and one browser per session, relaunched only when it has died.

    ``browser()`` returns the running browser, or launches a new one when there
    is none yet or the last one is no longer connected (it crashed or was
    killed). With ``remote`` (a Playwright server or a CDP endpoint) it connects
    instead of launching, and reconnects when the connection is lost. An
    endpoint that was never reached is not tried again for every caller: the
    first failure is kept. Usable without pytest (the plugin's session fixture
    holds one).

    ``browser_name`` (``"chromium"``, the default, ``"firefox"`` or ``"webkit"``)
    says which browser. ``launch_kwargs`` are the session's (the plugin's
    ``cometlocal_launch_args``): Chromium gets them all; Firefox and WebKit only
    the keys that mean the same to them (``headless``, ``slow_mo``, ``timeout``,
    ``env``, ``proxy``, ...), never Chromium's ``args`` or ``channel``.
    ``explicit_path`` is the binary of *this* browser (``--cometlocal-chromium``
    for Chromium, ``--cometlocal-firefox`` for Firefox; ignored for WebKit).

    Firefox: ``firefox.find_firefox`` (Playwright's own build, else a system
    ``firefox-esr`` through WebDriver BiDi), launched with ``FIREFOX_PREFS``,
    then the pair probe: a Playwright that cannot drive that Firefox raises
    ``BrowserPairMismatch`` (a ``BrowserLaunchFailed``) with one line naming
    both versions; the browser is closed and the line kept, so no later caller
    launches again. A Firefox that is not found raises ``FirefoxNotFound``
    (also a ``BrowserLaunchFailed``). WebKit: ``playwright.webkit.launch`` with
    Playwright's own build; untested here, and no WebRTC launch setting (the
    manifest's ``webrtc_launch_flag`` says ``unknown``).

    ``version`` and ``profile`` say which browser ran, for the run manifest.
    """

    def __init__(self, launch_kwargs: dict[str, Any], explicit_path: str | None, testid_attribute: str = "data-testid",
                 playwright: Playwright | None = None, remote: RemoteTarget | None = None,
                 browser_name: str = "chromium"):
        if browser_name not in BROWSER_NAMES:
            raise ValueError(f"unknown browser {browser_name!r}: expected one of {', '.join(BROWSER_NAMES)}")
        self.browser_name = browser_name
        self.launch_kwargs = launch_kwargs
        self.explicit_path = explicit_path
        self.remote = remote
        self._remote_failure: str | None = None
        self._launch_failure: str | None = None  # a headed launch that found no display, a pair mismatch: not retried
        self._pair_failed = False  # the kept failure is the pair probe's (BrowserPairMismatch)
        self.testid_attribute = testid_attribute
        # Playwright's sync API allows one instance per thread: a caller that already
        # has one (pytest-playwright's session `playwright`) passes it in, and it is
        # shared instead of starting a second one; it is then not stopped here.
        self._playwright = playwright
        self._owns_playwright = playwright is None
        self._configured = False
        self._browser: Browser | None = None
        self._version: str | None = None
        self.firefox: FirefoxFound | None = None  # the Firefox last launched (path, channel, where it was found)
        self.launches = 0

    @property
    def version(self) -> str | None:
        """The version of the browser last launched or reached (``browser.version``: ``"153.8.0"``
        for Firefox ESR 153), None before the first one."""
        return self._version

    @property
    def profile(self) -> dict[str, Any]:
        """The browser for the run manifest's execution profile: ``{"browser": name, "browser_version":
        version}`` (the version None before a launch), plus ``"browser_channel"`` for a Firefox driven
        through WebDriver BiDi (``"moz-firefox"``)."""
        profile: dict[str, Any] = {"browser": self.browser_name, "browser_version": self._version}
        if self.firefox is not None and self.firefox.channel and self.remote is None:
            profile["browser_channel"] = self.firefox.channel
        return profile

    def browser(self) -> Browser:
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
        if self._launch_failure:
            raise (BrowserPairMismatch if self._pair_failed else BrowserLaunchFailed)(self._launch_failure)
        problem = display_problem(headless, browser=_TITLES[self.browser_name])
        if problem:
            raise BrowserLaunchFailed(problem)
        if self.browser_name == "firefox":
            self._browser = self._launch_firefox(headless)
        elif self.browser_name == "webkit":
            self._browser = self._launch_webkit(headless)
        else:
            self._browser = self._launch_chromium(headless)
        self._version = getattr(self._browser, "version", None)
        self.launches += 1
        return self._browser

    def _launch_chromium(self, headless: bool) -> Browser:
        from playwright.sync_api import Error as PlaywrightError

        assert self._playwright is not None
        # A channel (pytest-playwright's --browser-channel: chrome, msedge...) names its own binary.
        channel_only = bool(self.launch_kwargs.get("channel")) and not self.explicit_path
        path = None if channel_only else find_chromium(self._playwright, self.explicit_path)
        kwargs = dict(self.launch_kwargs)
        kwargs["args"] = launch_args(kwargs.get("args") or [])
        if path:
            kwargs["executable_path"] = path
        try:
            browser = self._playwright.chromium.launch(**kwargs)
        except PlaywrightError as exc:
            self._launch_failure = launch_problem(headless, str(exc))  # the same for every later caller
            if self._launch_failure is None:
                raise
            raise BrowserLaunchFailed(self._launch_failure) from None
        if not any(str(arg).startswith("--webrtc-ip-handling-policy") for arg in self.launch_kwargs.get("args") or []):
            mark_flagged(browser, CHROMIUM_FLAG)  # a user's own policy, later on the line, would win over ours
        return browser

    def _launch_firefox(self, headless: bool) -> Browser:
        from playwright.sync_api import Error as PlaywrightError

        assert self._playwright is not None
        found = find_firefox(self.explicit_path, playwright=self._playwright)
        self.firefox = found
        try:
            browser = self._playwright.firefox.launch(**firefox_launch_kwargs(found, headless, self.launch_kwargs))
        except PlaywrightError as exc:
            self._launch_failure = firefox_launch_problem(headless, str(exc), found)
            if self._launch_failure is None:
                raise
            raise BrowserLaunchFailed(self._launch_failure) from None
        self._probe(browser, found.protocol)
        mark_flagged(browser, FIREFOX_PREF)
        return browser

    def _launch_webkit(self, headless: bool) -> Browser:
        assert self._playwright is not None
        kwargs = {key: self.launch_kwargs[key] for key in _WEBKIT_LAUNCH_KEYS if self.launch_kwargs.get(key) is not None}
        return self._playwright.webkit.launch(headless=headless, **kwargs)

    def _probe(self, browser: Browser, protocol: str) -> None:
        """The pair probe: on a mismatch, close ``browser``, keep the line (no relaunch) and raise it."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            probe_pair(browser, protocol)
        except BrowserPairMismatch as exc:
            self._launch_failure = str(exc)
            self._pair_failed = True
            try:
                browser.close()
            except PlaywrightError:
                pass
            raise

    def _connect(self) -> Browser:

        assert self.remote is not None
        if self._remote_failure is not None:
            if self._pair_failed:
                raise BrowserPairMismatch(self._remote_failure)
            raise RemoteBrowserUnavailable(self._remote_failure + " (not retried in this session)")
        try:
            browser = connect_browser(self._playwright, self.remote, self.launch_kwargs, browser_name=self.browser_name)
        except RemoteBrowserUnavailable as exc:
            if not self.launches:  # never reached: every later caller would wait for the same failure
                self._remote_failure = str(exc)
            raise
        if self.browser_name == "firefox":
            try:
                self._probe(browser, "remote")
            except BrowserPairMismatch as exc:
                self._remote_failure = str(exc)
                raise
        self._browser = browser
        self._version = getattr(browser, "version", None)
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
