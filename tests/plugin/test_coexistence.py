"""Installed beside pytest-playwright, pytest-base-url and pytest-rerunfailures."""

from __future__ import annotations

import json

import pytest

from tests.support import DEFAULTS, PORTAL_CONFTEST, write

pytest.importorskip("pytest_playwright")
pytest.importorskip("pytest_base_url")
pytest.importorskip("pytest_rerunfailures")

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _all_plugins_on(lean_inner_runs: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:cacheprovider")


def test_plans_and_pytest_playwright_tests_share_one_session(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    pytester.makepyfile(test_page="""
        def test_page_fixture(page, demo_portal):
            page.goto(demo_portal.url + "/login")
            assert page.title() == "Sign in"
    """)
    write(pytester, "a.actions.yaml", "name: plan\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}, postconditions: [{kind: title_contains, args: {text: Sign in}}]}
""")
    env_browser = ["--browser", "chromium", "--browser-channel", "chromium"]
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-v", *env_browser)
    # pytest-playwright's own test needs its own Chromium build, which may not be installed:
    # what matters here is that the plan runs beside it in one process. (v1.4) --browser chooses the
    # plans' browsers too: the id names it, as pytest-playwright's own ids do.
    result.stdout.fnmatch_lines(["*a.actions.yaml::plan[[]chromium[]] PASSED*"])
    assert "Sync API inside the asyncio loop" not in result.stdout.str()


def test_ini_base_url_stays_below_the_plans_own_with_pytest_base_url(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nbase_url = http://127.0.0.1:9\n")
    write(pytester, "a.actions.yaml", "name: own base\nbase_url: http://127.0.0.1:1\n" + DEFAULTS + """\
steps:
  - {id: check, kind: assert, postconditions: [{kind: url_is, args: {url: about:blank}}]}
""")
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-v")
    result.assert_outcomes(passed=1)
    runs = list((pytester.path / "cometlocal-runs").iterdir())

    profile = json.loads((runs[0] / "run_manifest.json").read_text())["execution_profile"]
    assert profile["base_url"] == "http://127.0.0.1:1"  # the plan's, not the ini's copied into --base-url


def test_rerun_gets_its_own_run_folder(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "a.actions.yaml", "name: flaky\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: gone, kind: click, timeout_ms: 200, target: {type: testid, id: gone}}
""")
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--reruns", "1")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1 and outcomes.get("rerun") == 1
    assert len(list((pytester.path / "cometlocal-runs").iterdir())) == 2
