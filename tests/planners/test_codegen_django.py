"""Issue 14's "done when" for the recorder: a codegen recording of a login and a navigation
on a real admin application (Django's admin) imports into a plan that passes there under
pytest, with the password turned into a secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from tests.django_admin import PASSWORD, django_admin

pytest.importorskip("django", reason="Django is not installed: pip install -e '.[test]' installs it")

RECORDING = Path(__file__).with_name("recordings") / "admin_login.py"


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
        result = pytester.runpytest_subprocess("plans", "-p", "no:cacheprovider", timeout=240)
    result.assert_outcomes(passed=1)
    traces = list((pytester.path / "cometlocal-runs").glob("*/trace.jsonl"))
    assert len(traces) == 1
    trace = traces[0].read_text()
    assert PASSWORD not in trace
    assert '"step_id": "click_groups"' in trace or '"step_id":"click_groups"' in trace
