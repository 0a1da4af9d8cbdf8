"""Issue 14's "done when" for the recorder: a codegen recording of a login and a navigation
on a real admin application (Django's admin) imports into a plan that passes there under
pytest, with the password turned into a secret.

The recording (recordings/admin_login.py) is written as codegen writes it for this admin:
codegen's click before each fill, a Tab press, locators without ``exact`` (Playwright's
substring match, kept as is) and one with ``exact=True`` ("Save" alone would also match
"Save and add another"), and checks added by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from tests.django_admin import PASSWORD, django_admin

pytest.importorskip("django", reason="Django is not installed: pip install -e '.[test]' installs it")

RECORDING = Path(__file__).with_name("recordings") / "admin_login.py"
STEPS = ["open_admin_login", "fill_username", "fill_password", "click_log_in", "click_groups", "click_add_group",
         "fill_name", "click_save"]


@pytest.mark.browser
def test_a_recorded_admin_login_imports_into_a_plan_that_passes_there(pytester: pytest.Pytester, tmp_path_factory,
                                                                      monkeypatch, capsys):
    with django_admin(tmp_path_factory.mktemp("django")) as url:
        recorded = pytester.path / "admin_login.py"
        recorded.write_text(RECORDING.read_text().replace("http://127.0.0.1:8000", url))
        monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
        plan = pytester.path / "plans" / "admin_login.actions.yaml"
        plan.parent.mkdir()
        assert main(["import", str(recorded), "-o", str(plan), "--secret", "password=ADMIN_PASSWORD"]) == 0
        text = plan.read_text()
        assert PASSWORD not in text and PASSWORD not in "".join(capsys.readouterr())
        assert "value: ${secrets.password}" in text and "password: {env: ADMIN_PASSWORD}" in text
        assert "target: {type: role, role: button, name: Save, exact: true}" in text
        result = pytester.runpytest_subprocess("plans", "-p", "no:cacheprovider", timeout=240)
    result.assert_outcomes(passed=1)
    (trace,) = (pytester.path / "cometlocal-runs").glob("*/trace.jsonl")
    assert PASSWORD not in trace.read_text()
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    done = [e["step_id"] for e in events if e["event_type"] == "postconditions_checked"]
    assert done == STEPS
