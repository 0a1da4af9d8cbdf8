"""Allure results: steps per ActionSpec, error-code labels, attachments, categories."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support import DEFAULTS, PORTAL_CONFTEST, write


def results(alluredir: Path) -> dict[str, dict]:
    out = {}
    for path in alluredir.glob("*-result.json"):
        data = json.loads(path.read_text())
        out[data["name"]] = data
    return out


def step_names(steps: list[dict]) -> list[str]:
    return [s["name"] for s in steps]


@pytest.mark.browser
def test_allure_results_for_passing_failing_and_invalid_plans(pytester: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the short summary line is cut to the terminal's width
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "good.actions.yaml", "name: good\ndescription: signs in page\ntags: [smoke]\n"
          "browser: {locale: de-DE, viewport: {width: 800, height: 600}}\n"  # (v1.2) parameters when set
          "clock: {at: '2026-03-01T09:00:00+01:00'}\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: check, kind: assert, postconditions: [{kind: title_contains, args: {text: Sign in}}]}
""")
    write(pytester, "bad.actions.yaml", "name: bad\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: missing, kind: navigate, timeout_ms: 1500, target: {type: url, url: /reports}, postconditions: [{kind: title_contains, args: {text: Nowhere}}]}
  - {id: never, kind: click, target: {type: testid, id: login-submit}}
""")
    write(pytester, "invalid.actions.yaml", "name: invalid\nsteps: []\n")
    write(pytester, "audit.actions.yaml", "name: audit\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, timeout_ms: 500, target: {type: url, url: /a11y/signup}, postconditions: [{kind: accessibility_clean}]}
""")
    result = pytester.runpytest_subprocess("--alluredir", "allure-results", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=3)
    alluredir = pytester.path / "allure-results"
    res = results(alluredir)

    good = res["good"]
    assert good["status"] == "passed" and good["description"] == "signs in page"
    assert step_names(good["steps"]) == ["open · navigate · url=/login", "check · assert"]
    assert step_names(good["steps"][0]["steps"]) == ["preconditions", "action", "postconditions"]
    assert step_names(good["steps"][1]["steps"]) == ["preconditions", "action", "assert checks"]
    assert all(s["status"] == "passed" for s in good["steps"])
    assert {"name": "tag", "value": "smoke"} in good["labels"]
    params = {p["name"]: p["value"] for p in good["parameters"]}
    assert params["mode"].strip("'") == "live" and "127.0.0.1" in params["base_url"]
    assert {k: v.strip("'") for k, v in params.items() if "." in k} == {
        "browser.locale": "de-DE", "browser.viewport": "800x600", "clock.at": "2026-03-01T09:00:00+01:00"}
    good_attachments = {a["name"] for a in good["attachments"]}
    assert {"trace.jsonl", "run_manifest.json", "evidence_manifest.json"} <= good_attachments

    bad = res["bad"]
    assert not any("." in p["name"] for p in bad["parameters"])  # a plan without settings: none
    assert bad["status"] == "failed"  # an executor failure is failed, not broken
    assert bad["statusDetails"]["message"].startswith("POSTCONDITION_FAILED: at step 'missing'")
    labels = {(label["name"], label["value"]) for label in bad["labels"]}
    assert ("error_code", "POSTCONDITION_FAILED") in labels and ("failed_step", "missing") in labels
    statuses = [(s["name"].split(" ")[0], s["status"]) for s in bad["steps"]]
    assert statuses == [("open", "passed"), ("missing", "failed"), ("never", "skipped")]
    assert bad["steps"][1]["statusDetails"]["message"].startswith("POSTCONDITION_FAILED: ")  # steps too
    names = {a["name"] for a in bad["attachments"]}
    assert any(n.startswith("dom_snapshot_partial") for n in names)
    assert any(n.startswith("html_full") for n in names)
    # The failing step's pictures: full size at the failure, the reduced frame before it.
    shots = {a["name"]: a["type"] for a in bad["attachments"] if a["type"].startswith("image/")}
    assert shots == {"screenshot: step_001_after.png": "image/png", "screenshot: step_001_before.jpg": "image/jpeg"}
    for attachment in bad["attachments"]:
        assert (alluredir / attachment["source"]).is_file()

    # (v1.2 audits) a failed accessibility_clean: its violations, one line per rule, as `cometlocal show` has them.
    (violations,) = [a for a in res["audit"]["attachments"] if a["name"] == "accessibility violations"]
    lines = (alluredir / violations["source"]).read_text().splitlines()
    assert lines[0] == "violations: 2 rule(s)" and any(line.startswith("  label (critical): ") for line in lines)

    invalid = res["invalid"]
    assert invalid["status"] == "failed"
    assert ("error_code", "INVALID_ACTIONSPEC") in {(label["name"], label["value"]) for label in invalid["labels"]}

    categories = json.loads((alluredir / "categories.json").read_text())
    assert {c["name"] for c in categories} >= {"POSTCONDITION_FAILED", "INVALID_ACTIONSPEC", "plugin or infrastructure fault"}
    output = result.stdout.str()
    assert ("FAILED bad.actions.yaml::bad - POSTCONDITION_FAILED at step 'missing' (navigate, normal) — "
            "bad.actions.yaml:9") in result.stdout.lines
    assert "pytest_cometlocal.plugin.reporting.errors" not in output + json.dumps(res)


def test_allure_messages_without_a_browser_start_with_the_code_or_expected(pytester: pytest.Pytester) -> None:
    """An invalid plan and an expected error that was not raised: their categories match their messages."""
    pytester.makeconftest("""
import pytest

@pytest.fixture
def cometlocal_runner():
    return lambda plan, item: None
""")
    (pytester.path / "invalid.actions.yaml").write_text("name: invalid\nsteps: []\n")
    (pytester.path / "negative.actions.yaml").write_text(
        "name: negative\nexpect: {error_code: TARGET_NOT_FOUND}\n" + DEFAULTS
        + "steps:\n  - {id: open, kind: navigate, target: {type: url, url: http://127.0.0.1:1/}}\n")
    result = pytester.runpytest_subprocess("--alluredir", "allure-results")
    result.assert_outcomes(failed=2)
    res = results(pytester.path / "allure-results")
    invalid = res["invalid"]["statusDetails"]["message"]
    negative = res["negative"]["statusDetails"]["message"]
    assert invalid.startswith("INVALID_ACTIONSPEC: plan 'invalid' is not valid (1 problem)")
    assert negative == "expected TARGET_NOT_FOUND, but the plan passed with no error"
    assert res["invalid"]["status"] == res["negative"]["status"] == "failed"
    categories = json.loads((pytester.path / "allure-results" / "categories.json").read_text())
    regex = {c["name"]: c.get("messageRegex") for c in categories}
    assert re.match(regex["INVALID_ACTIONSPEC"], invalid) and re.match(regex["expected error not raised"], negative)
    assert {"PAGE_UNRESPONSIVE", "OUTPUT_WRITE_FAILED"} <= set(regex)


