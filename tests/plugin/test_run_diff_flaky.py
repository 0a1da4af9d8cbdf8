"""``cometlocal diff`` on real runs: the demo's flaky plan run three times against one portal.

The portal's /flaky page shows "Continue" at once on odd loads and only after
10 s on even ones. Run 1 (load 1) passes straight through; run 2 (loads 2 and
3) needs its recovery; run 3 (loads 4 and 5) does the same as run 2. The diff
must name step 'open' as where runs 1 and 2 part (the page it left differs),
and find nothing between runs 2 and 3 but durations.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.demo.portal import DemoPortal

PLAN = Path(__file__).resolve().parents[2] / "example_plans" / "flaky" / "flaky_continue.actions.yaml"


def run_once(pytester: pytest.Pytester) -> Path:
    before = set((pytester.path / "runs").glob("*")) if (pytester.path / "runs").exists() else set()
    result = pytester.runpytest_subprocess("--cometlocal-output", "runs", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    (new,) = set((pytester.path / "runs").glob("*")) - before
    return new


def diff_json(capsys: pytest.CaptureFixture[str], a: Path, b: Path) -> tuple[int, dict]:
    code = main(["diff", "--json", str(a), str(b)])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.browser
def test_diff_finds_where_the_flaky_plan_diverged(pytester: pytest.Pytester, capsys) -> None:
    shutil.copy(PLAN, pytester.path / PLAN.name)
    with DemoPortal() as portal:
        pytester.makeconftest(f"""
import pytest

@pytest.fixture
def cometlocal_base_url():
    return {portal.url!r}
""")
        first, second, third = (run_once(pytester) for _ in range(3))
    capsys.readouterr()  # pytester's own output

    code, data = diff_json(capsys, first, second)
    assert code == 1
    assert [(s["step_id"], s["recovery"], s["reasons"]) for s in data["steps"]] == [
        ("open", False, ["after"]),
        ("continue", False, ["attempts", "before"]),
        ("reload", True, ["only_in_b"]),
    ]
    cont = data["steps"][1]
    assert (cont["a"]["attempts"], cont["b"]["attempts"]) == (1, 2)
    assert cont["b"]["outcome"] == "passed" and cont["b"]["errors"] == ["TARGET_NOT_FOUND"]
    assert cont["b"]["recoveries"] == 1
    first_divergence = data["first_divergence"]
    assert first_divergence["step_id"] == "open" and first_divergence["before"] == []
    # "Still loading" without a button against "Ready" with one: the text, the elements and the picture.
    assert first_divergence["after"] == ["key_elements", "visible_text", "screenshot"]

    assert main(["diff", str(first), str(second)]) == 1
    text = capsys.readouterr().out
    assert text.splitlines()[-1] == ("first divergence: step 'open': before: same; "
                                     "after: key_elements, visible_text, screenshot differ  (3 of 3 steps differ)")
    assert "passed after TARGET_NOT_FOUND" in text and "reload (recovery)" in text

    # Two runs that took the same path match: only their durations differ.
    code, data = diff_json(capsys, second, third)
    assert code == 0 and data["match"] is True, data["steps"]
    assert [s["b"]["attempts"] for s in data["steps"]] == [1, 2, 1]
