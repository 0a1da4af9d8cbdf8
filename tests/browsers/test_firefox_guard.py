"""The ``browser`` marker covers Firefox too (tests/browser_guard.py), and the env pin says why (issue 49).

A browser-free run (``-m "not browser"``) poisons ``COMETLOCAL_FIREFOX`` as it poisons
``COMETLOCAL_CHROMIUM``: a Firefox started by a test without the marker fails naming the
cause, in the session and in a child process. The tests using the suite's ``firefox`` or
``browser_manager`` fixtures are marked by the guard. No browser starts here.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.browser_guard import NO_FIREFOX

REPO = Path(__file__).resolve().parents[2]

INNER = f"""
import os
import subprocess
import sys

import pytest

NO_FIREFOX = {NO_FIREFOX!r}


@pytest.fixture
def firefox():  # stand-ins with the names of the suite's browser fixtures
    return None


@pytest.fixture
def browser_manager():
    return None


def test_with_the_firefox_fixture(firefox):
    assert os.environ.get("COMETLOCAL_FIREFOX") != NO_FIREFOX


def test_with_the_browser_manager_fixture(browser_manager):
    assert os.environ.get("COMETLOCAL_FIREFOX") != NO_FIREFOX


def test_unmarked_session_firefox():
    from pytest_cometlocal.executor.browser.manager import BrowserManager

    manager = BrowserManager({{"headless": True}}, None, browser_name="firefox")
    try:
        manager.browser()
    finally:
        manager.close()


def test_unmarked_child_process_firefox():
    code = "from pytest_cometlocal.executor.browser.firefox import find_firefox; print(find_firefox())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1]
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, lean_inner_runs: None, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for name in ("COMETLOCAL_CHROMIUM", "COMETLOCAL_FIREFOX"):  # this run may itself be browser-free
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("COLUMNS", "1000")
    pytester.makepyfile(test_inner=INNER)
    return pytester


def test_a_browser_free_run_stops_every_firefox_naming_the_cause(inner: pytest.Pytester) -> None:
    result = inner.runpytest_subprocess("-p", "tests.browser_guard", "-m", "not browser", "-p", "no:randomly", "-rf")
    result.assert_outcomes(failed=2, deselected=2)  # the two fixture users were marked, then deselected
    result.stdout.fnmatch_lines([
        f"FAILED test_inner.py::test_unmarked_session_firefox - *FirefoxNotFound: Firefox not found at '{NO_FIREFOX}'*",
        f"FAILED test_inner.py::test_unmarked_child_process_firefox - AssertionError: *FirefoxNotFound: "
        f"Firefox not found at '{NO_FIREFOX}'*",
    ])


def test_the_firefox_fixtures_mark_their_tests_browser(inner: pytest.Pytester) -> None:
    result = inner.runpytest_subprocess("-p", "tests.browser_guard", "-m", "browser", "-p", "no:randomly", "-v")
    result.assert_outcomes(passed=2, deselected=2)


def test_the_test_pin_is_inside_the_users_firefox_extra() -> None:
    """scripts/constraints-test.txt pins the Playwright the tests run; the ``firefox`` extra bounds the users';
    setup-env.sh installs with the pin, and CI requires Firefox."""
    pins = dict(re.findall(r"^([\w-]+)==([\d.]+)$", (REPO / "scripts/constraints-test.txt").read_text(), re.M))
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    (bound,) = [r for r in extras["firefox"] if r.startswith("playwright")]
    ceiling = tuple(int(p) for p in re.fullmatch(r"playwright<([\d.]+)", bound).group(1).split("."))
    assert tuple(int(p) for p in pins["playwright"].split("."))[:2] < ceiling, (pins, bound)
    assert '-c "$ROOT/scripts/constraints-test.txt"' in (REPO / "scripts/setup-env.sh").read_text()
    assert "export COMETLOCAL_REQUIRE_FIREFOX=1" in (REPO / ".ci/run").read_text()
