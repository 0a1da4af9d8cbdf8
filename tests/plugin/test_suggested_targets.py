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


SECRET_SUBJECT = "toner-7Q9-secret"
REMOVED_PLAN = Path(__file__).resolve().parents[2] / "example_plans" / "negative" / "target_not_found.actions.yaml"


@pytest.mark.browser
def test_failures_with_suggestions_point_at_cometlocal_fix_in_the_text_the_summary_and_show(
        pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Two failures: a stale target with a suggestion (its subject typed from a secret), a removed button without.

    Only the first says ``cometlocal fix <run folder> --verify`` under its suggestions; the terminal summary
    counts one failure with suggested targets; ``cometlocal show`` and ``show --list`` list it (step, code, top
    target, score) with the same command. The secret is in none of these lines.
    """
    monkeypatch.setenv("SUBJECT", SECRET_SUBJECT)
    pytester.makeconftest(PORTAL_CONFTEST)
    stale = re.sub(r"(?m)^expect:.*\n", "", STALE_PLAN.read_text(encoding="utf-8"))
    stale = stale.replace("value: Printer toner", "value: \"${secrets.subject}\"").replace(
        "tags: [negative]", "tags: [negative]\nsecrets: {subject: {env: SUBJECT}}")
    write(pytester, "stale.actions.yaml", stale)
    write(pytester, "removed.actions.yaml", re.sub(r"(?m)^expect:.*\n", "", REMOVED_PLAN.read_text(encoding="utf-8")))
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert SECRET_SUBJECT not in out

    runs = {json.loads((d / "run_manifest.json").read_text())["plan"]["name"]: d
            for d in (pytester.path / "cometlocal-runs").iterdir()}
    stale_run, removed_run = runs["a stale target gets a suggested target"], runs["missing button is target not found"]
    lines = result.stdout.lines
    # The FAILURES section only: on CI (``CI`` or ``BUILD_NUMBER`` set) pytest repeats each whole failure
    # message in the short test summary, so the same line appears there a second time.
    summary_at = next(i for i, line in enumerate(lines) if "short test summary info" in line)
    lines = lines[:summary_at] + [line for line in lines[summary_at:] if not line.startswith("  ")]
    fix_lines = [line for line in lines if line.startswith("  fix it:")]
    assert fix_lines == [f"  fix it:     cometlocal fix {stale_run} --verify   "
                         "(a patch to review, checked by a re-run; never applied)"]
    heading = lines.index("  suggested targets:")
    assert lines.index(fix_lines[0]) > heading  # under the suggestions
    assert "1 failure has suggested targets: cometlocal fix cometlocal-runs --verify" in lines

    for argv in (["show", "cometlocal-runs"], ["show", "--list", "cometlocal-runs"]):
        capsys.readouterr()
        monkeypatch.chdir(pytester.path)
        assert cometlocal(argv) == 0
        shown = capsys.readouterr().out
        assert SECRET_SUBJECT not in shown
        tail = shown.splitlines()[-3:]
        assert tail[0] == "1 failed run has suggested targets:", tail
        assert tail[1].startswith(f"  {stale_run.relative_to(pytester.path)}  step 'send' TARGET_NOT_FOUND: "
                                  "{type: role, role: button, name: Send request, exact: true} (score "), tail
        assert str(removed_run.name) not in tail[1]
        assert tail[2].startswith("fix them: cometlocal fix cometlocal-runs --verify"), tail
