"""Issue 26's "done when" for the recorder: a codegen recording that presses Enter, checks a
checkbox, hovers a menu and double-clicks a toolbar button on the demo portal's v1.1 pages
(/spa/search, /spa/toggles, /spa/menu) imports into a plan that passes there, every step.

The recording (recordings/spa_widgets.py) passes in Playwright as it is; the plan is what
``cometlocal import`` writes for it, run by the executor against the portal this test serves.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cometlocal.planners.importer import import_script
from tests.planners.test_codegen_v11 import SPA, SPA_IDS

pytestmark = pytest.mark.browser


def test_a_recording_with_enter_check_hover_and_a_double_click_passes_on_the_spa_pages(run, portal, tmp_path: Path):
    imported = import_script(SPA, tmp_path / "spa_widgets.actions.yaml", base_url=portal.url)
    assert imported.unmapped == [] and imported.steps == len(SPA_IDS)
    result = run(imported.text)
    assert result.result.status == "passed", result.error and result.error.message
    done = [e["step_id"] for e in result.events if e["event_type"] == "postconditions_checked"]
    assert done == SPA_IDS
