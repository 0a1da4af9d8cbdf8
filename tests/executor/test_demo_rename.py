"""The demo portal after a release (``--variant renamed``, demo/variants.py), with the example plans as they are.

What the walkthrough of docs/triage.md ("Fixing twenty plans after a rename")
shows, in a real Chromium: the plans that named the renamed sign-in button
(directly, or through the shared step group), the reworded label and the
changed link text fail TARGET_NOT_FOUND, and the top suggestion of each is
the renamed element; the plan whose button was removed fails the same way
with no suggestion, and a note saying the element may have been removed.
The link is behind the sign-in in its plan, so that plan runs as the patch
leaves it after its first round (the button fixed), as ``cometlocal fix``
runs it again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validated import ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.validator import validate_text
from pytest_cometlocal.demo import DemoPortal
from pytest_cometlocal.executor.session import run_plan
from pytest_cometlocal.executor.suggest.suggester import FLOOR_NOTE

EXAMPLES = Path(__file__).resolve().parents[2] / "example_plans"
LOG_IN = {"type": "testid", "id": "login-button"}

CASES = [
    # (plan, text replaced first (as a first round of the patch would) or None, failed step, top suggestion)
    ("login.actions.yaml", None, "sign_in", LOG_IN),
    ("at_scale/sign_in.actions.yaml", None, "sign_in.submit", LOG_IN),
    ("form.actions.yaml", None, "country", {"type": "label", "text": "Your country", "exact": True}),
    ("download.actions.yaml", ("id: login-submit", "id: login-button"), "export",
     {"type": "role", "role": "link", "name": "Export report (CSV)", "exact": True}),
    ("spa/query.actions.yaml", None, "run_sql", None),
]


@pytest.fixture(scope="module")
def renamed_portal():
    with DemoPortal(outside_url="http://outside.example/landing", variant="renamed") as portal:
        yield portal


def run_example(chromium: Any, tmp_path: Path, url: str, name: str, replace: tuple[str, str] | None):
    """The example plan ``name`` (its suite config and step groups as pytest would find them), run once."""
    path = EXAMPLES / name
    text = path.read_bytes()
    if replace:
        text = text.replace(replace[0].encode(), replace[1].encode())
    suite = SuiteConfigFinder(EXAMPLES, None).for_plan(path)
    ctx = ValidationContext(root=EXAMPLES, plan_path=path, env={}, suite_config=suite)
    (plan,) = validate_text(text, ctx, file=name)
    assert isinstance(plan, ValidPlan), plan
    return run_plan(chromium.browser(), plan, tmp_path / "runs", effective_settings(plan, default_base_url=url))


@pytest.mark.parametrize("name, replace, step, top", CASES, ids=[c[0] for c in CASES])
def test_renamed_elements_are_suggested_first_and_the_removed_button_gets_none(chromium, tmp_path, renamed_portal,
                                                                               name, replace, step, top):
    result = run_example(chromium, tmp_path, renamed_portal.url, name, replace)
    error = result.error
    assert error is not None and error.error_code.value == "TARGET_NOT_FOUND", error
    assert error.action_id == step
    found = error.details["suggestions"]
    if top is None:
        assert found == [] and error.details["suggestions_note"] == FLOOR_NOTE
    else:
        assert found and found[0]["target"] == top, found
