"""The ``browser`` marker: given to every test that starts a browser (Chromium or Firefox), and enforced.

A pytest plugin (tests/conftest.py registers it; an inner session loads it with
``-p tests.browser_guard``).

Given: a test is marked ``browser`` when one of its fixtures, directly or
through other fixtures, is in ``BROWSER_FIXTURES`` (the suite's ``chromium``,
``firefox`` and ``browser_manager``, pytest-playwright's ``browser``/``browser_type``).
``browser_manager`` picks its browser with ``request.getfixturevalue``, which the
fixture closure cannot see, so it is listed itself. A test that starts a browser
another way (an inner pytest session that runs plans) says so itself with
``pytestmark = pytest.mark.browser`` or ``@pytest.mark.browser``.

Enforced: when no selected test carries the marker (``-m "not browser"``, or
``-k``/paths that pick only browser-free tests), nothing in the session may
start a browser, and anything that tries fails naming the cause:

- ``COMETLOCAL_CHROMIUM`` points at ``NO_CHROMIUM``, a path that does not
  exist: the plugin's Chromium lookup (``executor.browser.chromium.find_chromium``,
  which the session's ``BrowserManager`` calls before every launch) raises
  ``ChromiumNotFound`` naming it, in this process and in every process it
  starts (pytester subprocesses, ``subprocess`` runs of pytest);
  ``COMETLOCAL_FIREFOX`` points at ``NO_FIREFOX`` the same way
  (``executor.browser.firefox.find_firefox`` raises ``FirefoxNotFound``);
- in this process, Playwright's launch and connect calls raise
  ``BrowserInBrowserFreeRun``, whatever path or endpoint they are given.

So ``pytest -m "not browser"`` passing is the proof that no test without the
marker starts a browser.
"""

from __future__ import annotations

import pytest

BROWSER_FIXTURES = frozenset({"chromium", "firefox", "browser_manager", "browser", "browser_type"})
NO_CHROMIUM = "/nonexistent/browser-free-run/a-test-without-the-browser-marker-wants-chromium"
NO_FIREFOX = "/nonexistent/browser-free-run/a-test-without-the-browser-marker-wants-firefox"
PLAYWRIGHT_CALLS = ("launch", "launch_persistent_context", "connect", "connect_over_cdp")


class BrowserInBrowserFreeRun(RuntimeError):
    """A test without the ``browser`` marker tried to start or reach a browser."""


def starts_a_browser(item: pytest.Item) -> bool:
    return bool(BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ())))


def pytest_configure(config: pytest.Config) -> None:
    if not any(line.split(":")[0].strip() == "browser" for line in config.getini("markers")):  # an inner session
        config.addinivalue_line("markers", "browser: starts a real browser (deselect with -m 'not browser')")


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if starts_a_browser(item) and item.get_closest_marker("browser") is None:
            item.add_marker(pytest.mark.browser)


def pytest_collection_finish(session: pytest.Session) -> None:
    if not any(item.get_closest_marker("browser") for item in session.items):
        forbid_browsers(session.config)


def _refuse(call: str):
    def refused(*_args, **_kwargs):
        raise BrowserInBrowserFreeRun(
            f"BrowserType.{call}() in a run that selected no test marked 'browser': "
            "mark the test that starts a browser with @pytest.mark.browser")

    return refused


def forbid_browsers(config: pytest.Config) -> None:
    """Make every browser start in this session (and in the processes it starts) fail; undone at its end."""
    from playwright.async_api import BrowserType as AsyncBrowserType
    from playwright.sync_api import BrowserType

    patch = pytest.MonkeyPatch()
    config.add_cleanup(patch.undo)
    patch.setenv("COMETLOCAL_CHROMIUM", NO_CHROMIUM)
    patch.setenv("COMETLOCAL_FIREFOX", NO_FIREFOX)
    for cls in (BrowserType, AsyncBrowserType):
        for call in PLAYWRIGHT_CALLS:
            patch.setattr(cls, call, _refuse(call))
