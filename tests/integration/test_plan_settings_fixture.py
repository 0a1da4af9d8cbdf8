"""The plugin's ``cometlocal_plan_settings`` fixture is ``contract.settings.effective_settings``:
an inner pytest session shows the ini ``base_url`` and ``--base-url`` reaching a plan item."""

from __future__ import annotations

from tests.support import VALID_PLAN


def test_the_plan_settings_fixture_uses_it(pytester):
    """The runtime's settings are this function's: ``--base-url`` and the ini ``base_url`` reach a plan item."""
    pytester.makeini("[pytest]\nbase_url = http://ini.test:5\n")
    pytester.makeconftest("""
import pytest
from pytest_cometlocal.contract.settings import effective_settings

@pytest.fixture
def cometlocal_runner(cometlocal_plan_settings, request):
    eff = cometlocal_plan_settings
    print(f"\\nSETTINGS {eff.base_url} {eff.base_url_source} {','.join(eff.allowlist)}")
    pytest.skip("settings only")
""")
    plan = VALID_PLAN.replace("base_url: http://127.0.0.1:8000\n", "")
    pytester.path.joinpath("p.actions.yaml").write_text(plan, encoding="utf-8")
    out = pytester.runpytest("-s", "-p", "no:randomly").stdout.str()
    assert "SETTINGS http://ini.test:5 default ini.test" in out
    out = pytester.runpytest("-s", "-p", "no:randomly", "--base-url", "http://cli.test:6").stdout.str()
    assert "SETTINGS http://cli.test:6 cli cli.test" in out
