"""Retries made visible: a plan that passed only after a retry or a recovery is flaky in Allure,
counted in the terminal summary, and every plan's JUnit properties say how many attempts it took.

The inner session serves pages that fail the first time they are loaded and work
from the second load on, so the retried step passes at its second attempt.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_cometlocal.runs.reader import read_attempts
from tests.support import DEFAULTS, FLAKY_SITE_CONFTEST, write

RETRY = "policy: {retry_on: [POSTCONDITION_FAILED], retries_per_action: 2, backoff_ms: [0]}\n"
READY = "postconditions: [{kind: title_contains, args: {text: Ready}}]"


def write_plans(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FLAKY_SITE_CONFTEST)
    write(pytester, "retried.actions.yaml", "name: retried\n" + RETRY + DEFAULTS + f"""\
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /late-title}}, {READY}}}
""")
    write(pytester, "recovered.actions.yaml", "name: recovered\n" + DEFAULTS + """\
recovery:
  on_error: [TARGET_NOT_FOUND]
  steps:
    - {id: reload, kind: navigate, target: {type: url, url: /late-button}}
steps:
  - {id: open, kind: navigate, target: {type: url, url: /late-button}}
  - {id: go, kind: click, timeout_ms: 800, target: {type: testid, id: go}}
""")
    write(pytester, "steady.actions.yaml", "name: steady\n" + RETRY + DEFAULTS + f"""\
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /steady}}, {READY}}}
  - {{id: again, kind: navigate, target: {{type: url, url: /steady}}, {READY}}}
""")
    write(pytester, "never.actions.yaml", "name: never\n" + RETRY + DEFAULTS + f"""\
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /never}}, {READY}}}
""")


def junit_properties(path: Path) -> dict[str, dict[str, str]]:
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        out[case.get("name")] = {p.get("name"): p.get("value") for p in case.iter("property")}
    return out


def allure_results(alluredir: Path) -> dict[str, dict]:
    return {data["name"]: data for data in (json.loads(p.read_text()) for p in alluredir.glob("*-result.json"))}


@pytest.mark.browser
def test_a_pass_after_a_retry_or_a_recovery_is_flaky_everywhere(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    write_plans(pytester)
    result = pytester.runpytest_subprocess("--alluredir", "allure-results", "--junitxml", "junit.xml",
                                           "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)

    # Terminal: one section counting the flaky passes, one line each, naming the step and its attempts.
    lines = result.stdout.lines
    header = [i for i, line in enumerate(lines) if "cometlocal: 2 passed after retries or recovery (flaky)" in line]
    assert len(header) == 1, result.stdout.str()
    section = lines[header[0] + 1: header[0] + 3]
    assert section == [
        "recovered.actions.yaml::recovered — go (2 attempts); 0 retries, 1 recovery",
        "retried.actions.yaml::retried — open (2 attempts); 1 retry, 0 recoveries",
    ] or section == [
        "retried.actions.yaml::retried — open (2 attempts); 1 retry, 0 recoveries",
        "recovered.actions.yaml::recovered — go (2 attempts); 0 retries, 1 recovery",
    ], "\n".join(lines[header[0]:])
    assert not any("steady.actions.yaml::steady —" in line or "never.actions.yaml::never —" in line for line in lines)

    # JUnit: attempts over the plan's steps (the recovery step not counted), retries, recoveries.
    props = junit_properties(pytester.path / "junit.xml")
    assert {k: props["retried"][k] for k in ("cometlocal.attempts", "cometlocal.retries", "cometlocal.recoveries",
                                              "cometlocal.flaky_steps")} == {
        "cometlocal.attempts": "2", "cometlocal.retries": "1", "cometlocal.recoveries": "0",
        "cometlocal.flaky_steps": "open (2 attempts)"}
    assert {k: props["recovered"][k] for k in ("cometlocal.attempts", "cometlocal.retries", "cometlocal.recoveries",
                                                "cometlocal.flaky_steps")} == {
        "cometlocal.attempts": "3", "cometlocal.retries": "0", "cometlocal.recoveries": "1",
        "cometlocal.flaky_steps": "go (2 attempts)"}
    assert props["steady"]["cometlocal.attempts"] == "2" and props["steady"]["cometlocal.retries"] == "0"
    assert "cometlocal.flaky_steps" not in props["steady"]
    # A plan that failed after its retries ran out took 3 attempts, and is not flaky: it failed.
    assert props["never"]["cometlocal.attempts"] == "3" and props["never"]["cometlocal.retries"] == "2"
    assert "cometlocal.flaky_steps" not in props["never"]
    assert props["never"]["cometlocal.error_code"] == "POSTCONDITION_FAILED"

    # Allure: statusDetails.flaky on the flaky passes only, with the label naming the steps.
    res = allure_results(pytester.path / "allure-results")
    for name, step in (("retried", "open"), ("recovered", "go")):
        assert res[name]["status"] == "passed"
        assert res[name]["statusDetails"]["flaky"] is True
        assert res[name]["statusDetails"]["message"] == f"passed after retries or recovery: {step} (2 attempts)"
        assert {"name": "flaky_steps", "value": f"{step} (2 attempts)"} in res[name]["labels"]
    assert res["steady"]["status"] == "passed" and not (res["steady"].get("statusDetails") or {}).get("flaky")
    assert res["never"]["status"] == "failed" and not res["never"]["statusDetails"].get("flaky")
    assert all(label["name"] != "flaky_steps" for name in ("steady", "never") for label in res[name]["labels"])


def test_read_attempts_counts_a_trace(tmp_path: Path) -> None:
    """Counting without a browser: attempts of plan steps only, retries, recovery rounds, and a step
    that failed for good is not a recovered one."""
    events = [
        ("observation_captured", "open", {"attempt": 1, "recovery": False}),
        ("retry_scheduled", "open", {"attempt": 1}),
        ("observation_captured", "open", {"attempt": 2, "recovery": False}),
        ("observation_captured", "go", {"attempt": 1, "recovery": False}),
        ("recovery_started", "go", {"round": 1}),
        ("observation_captured", "reload", {"attempt": 1, "recovery": True}),
        ("observation_captured", "go", {"attempt": 2, "recovery": False}),
        ("observation_captured", "last", {"attempt": 1, "recovery": False}),
        ("retry_scheduled", "last", {"attempt": 1}),
        ("observation_captured", "last", {"attempt": 2, "recovery": False}),
        ("error_raised", "last", {}),
    ]
    trace = tmp_path / "trace.jsonl"
    lines = [json.dumps({"event_type": kind, "step_id": step, "metadata": meta}) for kind, step, meta in events]
    trace.write_text("\n".join(lines) + '\n{"event_type": "observation_captu', encoding="utf-8")  # a torn last line
    counted = read_attempts(trace)
    assert counted is not None
    assert (counted.attempts, counted.retries, counted.recoveries) == (6, 2, 1)
    assert counted.recovered == (("open", 2), ("go", 2))
    assert counted.flaky_text() == "open (2 attempts), go (2 attempts)"
    assert read_attempts(tmp_path / "missing.jsonl") is None
    (tmp_path / "empty.jsonl").write_text('{"event_type": "run_started", "step_id": null}\n', encoding="utf-8")
    assert read_attempts(tmp_path / "empty.jsonl") is None
