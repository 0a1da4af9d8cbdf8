"""tests/browser_guard.py: the ``browser`` marker is given by fixture, and a run that
selects no browser test cannot start one (so ``pytest -m "not browser"`` proves it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser_guard import NO_CHROMIUM

REPO = Path(__file__).resolve().parents[2]

INNER = f"""
import os
import subprocess
import sys

import pytest

NO_CHROMIUM = {NO_CHROMIUM!r}


@pytest.fixture
def chromium():  # a stand-in with the name of the suite's browser fixture
    return None


def test_with_the_browser_fixture(chromium):
    assert os.environ.get("COMETLOCAL_CHROMIUM") != NO_CHROMIUM  # runs only when browser tests are selected


@pytest.mark.browser
def test_marked():
    assert os.environ.get("COMETLOCAL_CHROMIUM") != NO_CHROMIUM


def test_unmarked_session_browser():
    from pytest_cometlocal.executor.browser.manager import BrowserManager

    manager = BrowserManager({{"headless": True}}, None)
    try:
        manager.browser()
    finally:
        manager.close()


def test_unmarked_playwright_launch():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        playwright.chromium.launch(executable_path="/usr/bin/true")


def test_unmarked_child_process():
    code = "from pytest_cometlocal.executor.browser.chromium import find_chromium; print(find_chromium(None))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1]
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, lean_inner_runs: None, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # This run may itself be browser-free (its own guard then set COMETLOCAL_CHROMIUM): start clean.
    monkeypatch.delenv("COMETLOCAL_CHROMIUM", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("COLUMNS", "1000")  # whole short-summary lines
    pytester.makepyfile(test_inner=INNER)
    return pytester


def test_a_browser_free_run_makes_every_browser_start_fail_loudly(inner: pytest.Pytester) -> None:
    result = inner.runpytest_subprocess("-p", "tests.browser_guard", "-m", "not browser", "-p", "no:randomly", "-rf")
    # The test using the browser fixture was marked by the guard, so -m deselected it with the marked one.
    result.assert_outcomes(failed=3, deselected=2)
    result.stdout.fnmatch_lines([
        f"FAILED test_inner.py::test_unmarked_session_browser - *ChromiumNotFound: Chromium not found at '{NO_CHROMIUM}'*",
        "FAILED test_inner.py::test_unmarked_playwright_launch - *.BrowserInBrowserFreeRun: BrowserType.launch() in a run "
        "that selected no test marked 'browser': mark the test that starts a browser with @pytest.mark.browser",
        f"FAILED test_inner.py::test_unmarked_child_process - AssertionError: *ChromiumNotFound: Chromium not found at '{NO_CHROMIUM}'*",
    ])


def test_a_run_with_browser_tests_is_not_guarded(inner: pytest.Pytester) -> None:
    result = inner.runpytest_subprocess("-p", "tests.browser_guard", "-m", "browser", "-p", "no:randomly", "-v")
    result.assert_outcomes(passed=2, deselected=3)
    result.stdout.fnmatch_lines_random(["*::test_with_the_browser_fixture PASSED*", "*::test_marked PASSED*"])
