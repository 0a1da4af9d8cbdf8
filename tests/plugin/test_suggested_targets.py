"""Suggested targets where people read failures: the pytest failure text, Allure, ``cometlocal show``.

The example suite's stale-target plan (example_plans/negative/stale_target.actions.yaml)
without its ``expect``, against the demo portal: the failure shows the target
on the page now, as YAML ready to paste; pasted into the plan, it passes
(the walkthrough of docs/getting-started.md, "Fixing a plan from a suggestion").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from pytest_cometlocal.cli import main as cometlocal
from tests.support import PORTAL_CONFTEST, write

STALE_PLAN = Path(__file__).resolve().parents[2] / "example_plans" / "negative" / "stale_target.actions.yaml"
NOW = {"type": "role", "role": "button", "name": "Send request", "exact": True}


@pytest.mark.browser
def test_the_failure_shows_suggested_targets_to_paste_and_the_pasted_one_passes(
        pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    text = re.sub(r"(?m)^expect:.*\n", "", STALE_PLAN.read_text(encoding="utf-8"))
    plan = write(pytester, "stale.actions.yaml", text)
    result = pytester.runpytest_subprocess("--alluredir", "allure-results", "-p", "no:randomly")
    result.assert_outcomes(failed=1)

    # The failure text: a "suggested targets:" block whose target line pastes as it is.
    lines = result.stdout.lines
    heading = lines.index("  suggested targets:")
    pasted = [line for line in lines[heading:heading + 6] if line.strip().startswith("target:")]
    assert pasted and yaml.safe_load(pasted[0]) == {"target": NOW}, lines[heading:heading + 6]
    assert 'button "Send request"' in pasted[0]

    # Allure: in the failure's message, and as an attachment of its own.
    (res,) = [json.loads(p.read_text()) for p in (pytester.path / "allure-results").glob("*-result.json")]
    assert res["statusDetails"]["message"].startswith("TARGET_NOT_FOUND: ")
    assert pasted[0].strip() in res["statusDetails"]["message"]
    (attachment,) = [a for a in res["attachments"] if a["name"] == "suggested targets"]
    assert attachment["type"] == "text/plain"
    assert pasted[0].strip() in (pytester.path / "allure-results" / attachment["source"]).read_text()

    # cometlocal show: the run's timeline, then the same block.
    (run_dir,) = (pytester.path / "cometlocal-runs").iterdir()
    capsys.readouterr()
    assert cometlocal(["show", str(run_dir)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert "  suggested targets:" in shown and pasted[0] in shown

    # The walkthrough: paste the suggestion in place of the stale target, and the plan passes.
    stale_line = "target: {type: role, role: button, name: Send, exact: true}"
    assert stale_line in text
    plan.write_text(text.replace(stale_line, pasted[0].split("  #")[0].strip()), encoding="utf-8")
    fixed = pytester.runpytest_subprocess("-p", "no:randomly", str(plan))
    fixed.assert_outcomes(passed=1)
