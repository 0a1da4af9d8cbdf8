"""(v1.4) Plans on a matrix of browsers, through inner pytest sessions against the demo portal.

One session on ``--cometlocal-browser chromium --cometlocal-browser firefox -n 2`` holds every plan
(each Firefox launch costs seconds): a plan on both browsers, one pinned to Chromium, one with an
accessibility audit (refused on Firefox at setup), and a negative plan expecting the audit's
POSTCONDITION_FAILED. One more runs pytest-playwright's ``--browser firefox``. The default session
(no option) is collected only: its ids are the old ones.

Firefox tests skip with one line where there is no Firefox or this Playwright cannot drive it, and
fail instead under ``COMETLOCAL_REQUIRE_FIREFOX=1`` (CI).
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from tests.support import DEFAULTS, PORTAL_CONFTEST, write

pytestmark = pytest.mark.browser

FIREFOX = os.environ.get("COMETLOCAL_FIREFOX", "/usr/bin/firefox-esr")
TIMEOUT = 400  # the inner session's hard limit (two workers each launch Chromium and Firefox)
PAIR_FAILS = "cannot drive Firefox"  # the manager's one line for a Playwright/Firefox pair that does not work

BOTH = "name: both\n" + DEFAULTS + """\
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
    postconditions: [{kind: title_contains, args: {text: Sign in}}]
"""
PINNED = "name: pinned\nbrowser: {name: chromium}\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
"""
AUDIT = "name: audit\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - id: check
    kind: navigate
    target: {type: url, url: /login}
    postconditions: [{kind: accessibility_clean}]
"""
NEGATIVE = AUDIT.replace("name: audit\n", "name: negative\nexpect: {error_code: POSTCONDITION_FAILED}\n")
PLANS = {"both.actions.yaml": BOTH, "pinned.actions.yaml": PINNED, "audit.actions.yaml": AUDIT,
         "negative.actions.yaml": NEGATIVE}


def firefox_or_skip() -> None:
    """Skip (one line) without a usable Firefox; under COMETLOCAL_REQUIRE_FIREFOX=1 fail instead."""
    problem = None
    if not Path(FIREFOX).exists():
        problem = f"no Firefox at {FIREFOX} (apt-get install -y firefox-esr)"
    elif tuple(int(p) for p in version("playwright").split(".")[:2]) >= (1, 65):
        problem = f"Playwright {version('playwright')} cannot drive Firefox ESR 153; run with playwright<1.65"
    if problem:
        skip_or_fail(problem)


def skip_or_fail(problem: str) -> None:
    if os.environ.get("COMETLOCAL_REQUIRE_FIREFOX") == "1":
        pytest.fail(f"COMETLOCAL_REQUIRE_FIREFOX=1: {problem}", pytrace=False)
    pytest.skip(problem)


@dataclass
class Session:
    output: str
    outcomes: dict[str, str]  # test id -> passed / failed / skipped
    properties: dict[str, dict[str, str]]  # test id -> JUnit properties
    manifests: dict[str, dict[str, Any]]  # node id -> run manifest


def _junit(path: Path) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    outcomes, properties = {}, {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        outcomes[name] = ("failed" if case.find("failure") is not None or case.find("error") is not None
                          else "skipped" if case.find("skipped") is not None else "passed")
        properties[name] = {p.get("name"): p.get("value") for p in case.iter("property")}
    return outcomes, properties


def _session(pytester: pytest.Pytester, *args: str) -> Session:
    pytester.makeconftest(PORTAL_CONFTEST)
    for name, text in PLANS.items():
        write(pytester, name, text)
    result = pytester.runpytest_subprocess("--junitxml=junit.xml", "-rA", *args, timeout=TIMEOUT)
    output = result.stdout.str() + result.stderr.str()
    if PAIR_FAILS in output:
        skip_or_fail(next(line for line in output.splitlines() if PAIR_FAILS in line).strip())
    outcomes, properties = _junit(pytester.path / "junit.xml")
    manifests = {}
    for path in (pytester.path / "cometlocal-runs").glob("*/run_manifest.json"):
        manifest = json.loads(path.read_text())
        manifests[manifest["plan"]["nodeid"]] = manifest
    return Session(output, outcomes, properties, manifests)


_MATRIX: list[Session] = []


@pytest.fixture
def matrix(pytester: pytest.Pytester) -> Session:
    """The one session on both browsers under ``-n 2`` (run once for the module's tests)."""
    firefox_or_skip()
    if not _MATRIX:
        _MATRIX.append(_session(pytester, "-n", "2", "-p", "no:randomly",
                                "--cometlocal-browser", "chromium", "--cometlocal-browser", "firefox"))
    return _MATRIX[0]


def test_one_plan_runs_on_both_browsers_under_xdist_each_recorded_as_its_browser(matrix: Session) -> None:
    assert matrix.outcomes["both[chromium]"] == "passed", matrix.output
    assert matrix.outcomes["both[firefox]"] == "passed", matrix.output
    versions = set()
    for browser in ("chromium", "firefox"):
        profile = matrix.manifests[f"both.actions.yaml::both[{browser}]"]["execution_profile"]
        assert profile["browser"] == browser and profile["browser_version"], profile
        props = matrix.properties[f"both[{browser}]"]
        assert props["cometlocal.browser"] == browser
        assert props["cometlocal.browser_version"] == profile["browser_version"]
        versions.add(profile["browser_version"])
    assert len(versions) == 2  # each manifest names its own browser's version


def test_a_plan_pinned_to_chromium_gets_no_firefox_item_and_the_summary_says_so(matrix: Session) -> None:
    assert matrix.outcomes["pinned[chromium]"] == "passed", matrix.output
    assert not any(name.startswith("pinned[firefox") for name in matrix.outcomes)
    assert "1 plan not run on firefox (browser.name)" in matrix.output


def test_an_audit_on_firefox_is_refused_at_setup_with_a_run_folder(matrix: Session) -> None:
    assert matrix.outcomes["audit[firefox]"] == "failed"
    manifest = matrix.manifests["audit.actions.yaml::audit[firefox]"]
    assert manifest["error_code"] == "PRECONDITION_FAILED" and manifest["execution_profile"]["browser"] == "firefox"
    assert "PRECONDITION_FAILED at step 'check'" in matrix.output
    assert 'failed precondition isolated_world_available: it did not hold — seen {"browser": "firefox"}' \
        in matrix.output
    assert matrix.properties["audit[firefox]"]["cometlocal.error_code"] == "PRECONDITION_FAILED"


def test_a_negative_plan_expecting_the_audits_failure_does_not_pass_on_the_refusal(matrix: Session) -> None:
    assert matrix.outcomes["negative[firefox]"] == "failed"
    assert "expected POSTCONDITION_FAILED, got PRECONDITION_FAILED at step 'check'" in matrix.output


def test_the_default_keeps_the_old_ids(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    for name, text in PLANS.items():
        write(pytester, name, text)
    result = pytester.runpytest_subprocess("--collect-only", "-q", timeout=120)
    ids = [line for line in result.stdout.lines if "::" in line]
    assert sorted(ids) == ["audit.actions.yaml::audit", "both.actions.yaml::both",
                           "negative.actions.yaml::negative", "pinned.actions.yaml::pinned"]
    assert "not run on" not in result.stdout.str()


def test_pytest_playwrights_browser_option_is_honoured(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    firefox_or_skip()
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:cacheprovider")  # pytest-playwright on
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "both.actions.yaml", BOTH)
    result = pytester.runpytest_subprocess("--junitxml=junit.xml", "-rA", "-p", "no:xdist", "--browser", "firefox",
                                           timeout=TIMEOUT)
    output = result.stdout.str() + result.stderr.str()
    if PAIR_FAILS in output:
        skip_or_fail(next(line for line in output.splitlines() if PAIR_FAILS in line).strip())
    outcomes, properties = _junit(pytester.path / "junit.xml")
    assert outcomes == {"both[firefox]": "passed"}, output
    assert properties["both[firefox]"]["cometlocal.browser"] == "firefox"
