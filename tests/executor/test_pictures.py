"""(v1.2) screenshot_matches in a real Chromium: baselines beside the plan, diffs as evidence, masks.

Against the demo portal's /pictures page (an endless CSS animation, a ticking clock, a
field for a secret) and its ``visual`` variant (the button moved and recoloured), two
portals of this module; one page of its own for the 1-pixel anti-aliasing difference.
The round trip runs one plan file through the four states of its baseline; the
evaluator itself is looked at ten times in one page for flakiness.
"""

from __future__ import annotations

import json
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text
from pytest_cometlocal.demo.portal import DemoPortal
from pytest_cometlocal.executor.audits.baselines import AuditLook, Baselines
from pytest_cometlocal.executor.audits.picture_compare import decode
from pytest_cometlocal.executor.audits.screenshot_check import screenshot_matches
from pytest_cometlocal.executor.page.conditions import CheckContext
from tests.support import page_with, served_pages

pytestmark = pytest.mark.browser

SECRET = "4111-SECRET-CODE"
CHECKOUT = """
name: checkout picture
base_url: {base}
secrets: {{code: {{env: CARD_CODE}}}}
defaults:
  criticality: normal
  timeout_ms: 20000
  preconditions: [{{kind: host_in_allowlist}}]
  postconditions: [{{kind: host_in_allowlist}}]
steps:
  - id: open
    kind: navigate
    target: {{type: url, url: /pictures}}
    postconditions: [{{kind: element_visible, args: {{target: {{type: testid, id: checkout}}}}}}]
  - id: code
    kind: fill
    target: {{type: testid, id: card-code}}
    value: "${{secrets.code}}"
  - id: look
    kind: assert
    timeout_ms: {timeout}
    postconditions:
      - kind: screenshot_matches
        args:
          name: checkout
          target: {{type: testid, id: checkout}}
          mask: [{{type: testid, id: clock}}]
      - kind: screenshot_matches
        args:
          name: checkout-masked
          target: {{type: testid, id: checkout}}
          mask: [{{type: testid, id: clock}}, {{type: testid, id: pay-row}}]
"""


@pytest.fixture(scope="module")
def portals():
    with DemoPortal() as plain, DemoPortal(variant="visual") as changed:
        yield plain, changed


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pictures")


def run(chromium: Any, root: Path, text: str, update: str = "none", env: dict[str, str] | None = None):
    """Run ``text`` as plans/checkout.actions.yaml under ``root``; (result, evidence manifest, trace events)."""
    from pytest_cometlocal.executor.session import run_plan

    path = root / "plans" / "checkout.actions.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    env = {"CARD_CODE": SECRET, **(env or {})}
    (plan,) = validate_text(path.read_bytes(), ValidationContext(root=root, plan_path=path, env=env),
                            file="plans/checkout.actions.yaml")
    assert not isinstance(plan, InvalidPlan), [p.format() for p in plan.problems]
    eff = replace(effective_settings(plan, env=env), update_snapshots=update)
    result = run_plan(chromium.browser(), plan, root / "runs", eff)
    evidence = json.loads((result.run_dir / "evidence_manifest.json").read_text())["files"]
    trace = (result.run_dir / "trace.jsonl").read_text()
    return result, evidence, trace


def pictures(result: Any, evidence: list[dict[str, Any]], name: str = "checkout") -> dict[str, bytes]:
    """The screenshot_matches pictures of baseline ``name`` in the run, by role."""
    return {e["metadata"]["role"]: (result.run_dir / e["uri"]).read_bytes()
            for e in evidence if e["metadata"].get("snapshot") == name}


def test_the_baseline_round_trip_missing_update_pass_regression_masked(chromium, portals, suite):
    plain, changed = portals
    plan = CHECKOUT.format(base=plain.url, timeout=3000)
    baseline = suite / "plans" / "checkout.actions.snapshots" / f"checkout-chromium-{sys.platform}.png"
    masked_baseline = baseline.with_name(f"checkout-masked-chromium-{sys.platform}.png")

    # 1. missing: fails, the would-be baseline in the run folder only, never beside the plan
    # (a short timeout: a failing check is polled until it runs out; one look always happens)
    result, evidence, trace = run(chromium, suite, CHECKOUT.format(base=plain.url, timeout=2000))
    error = result.error
    assert (error.error_code.value, error.action_id) == ("POSTCONDITION_FAILED", "look"), error
    assert error.details["baseline"] == "missing" and error.details["snapshot"] == "checkout"
    assert error.details["baseline_file"] == f"checkout.actions.snapshots/{baseline.name}"
    would_be = pictures(result, evidence)["would_be_baseline"]
    assert set(pictures(result, evidence, "checkout-masked")) == {"would_be_baseline"}
    assert not baseline.parent.exists()
    assert SECRET not in trace

    # 2. --cometlocal-update-snapshots missing: written beside the plan, the run says so, and holds
    result, evidence, _ = run(chromium, suite, plan, update="missing")
    assert result.error is None, result.error
    written = [e for e in evidence if e["metadata"].get("role") == "baseline_written"]
    assert [e["metadata"]["baseline"] for e in written] == [
        f"checkout.actions.snapshots/{baseline.name}", f"checkout.actions.snapshots/{masked_baseline.name}"]
    assert baseline.read_bytes() == (result.run_dir / written[0]["uri"]).read_bytes()
    # The picture is stable: the one a failed run proposed is the one written (clock masked, badge stopped).
    assert baseline.read_bytes() == would_be

    # 3. pass, with another secret typed: the field is masked in both pictures, so they are equal
    before = baseline.read_bytes()
    result, evidence, trace = run(chromium, suite, plan, env={"CARD_CODE": "9999-OTHER"})
    assert result.error is None, result.error
    assert not [e for e in evidence if e["metadata"].get("snapshot")] and baseline.read_bytes() == before
    assert "9999-OTHER" not in trace

    # 4. the variant (button moved and red) fails with a diff: three hashed pictures, the count and ratio;
    # the same regression under a mask (the button's row) is ignored
    result, evidence, _ = run(chromium, suite, CHECKOUT.format(base=changed.url, timeout=2000))
    error = result.error
    assert (error.error_code.value, error.details["baseline"]) == ("POSTCONDITION_FAILED", "differs")
    assert error.details["diff_pixels"] > 500 and 0 < error.details["diff_ratio"] < 0.5
    (failed,) = error.failed_conditions  # checkout-masked held
    assert failed.kind == "screenshot_matches" and failed.args["name"] == "checkout"
    assert failed.observed["diff_pixels"] == error.details["diff_pixels"]
    shots = pictures(result, evidence)
    assert set(shots) == {"expected", "actual", "diff"} and shots["expected"] == before
    assert not pictures(result, evidence, "checkout-masked")
    refs = {ref.uri for ref in error.evidence_refs}
    assert {e["uri"] for e in evidence if e["metadata"].get("snapshot")} <= refs  # Allure attaches them
    diff = decode(shots["diff"])
    assert ((diff[..., 0] == 255) & (diff[..., 1] == 0)).sum() == error.details["diff_pixels"]  # red = differing


@pytest.fixture(scope="module")
def pixel_site():
    """One grey pixel, a shade lighter under ?aa (an anti-aliasing change), and an endless animation."""
    page = """<div style="position:absolute;left:10px;top:10px;width:1px;height:1px;background:rgb(%s)"></div>
<div style="position:absolute;left:40px;top:10px;width:30px;height:30px;background:#0a0;
            animation:spin 0.3s linear infinite"></div>
<input id="f" style="position:absolute;left:10px;top:60px;width:200px" value="">
<style>@keyframes spin { to { transform: rotate(360deg); } }</style>"""
    with served_pages({"/px": page % "120,120,120", "/px-aa": page % "128,128,128"}) as url:
        yield url


def look(page: Any, name: str, folder: Path, update: str = "none", secrets: tuple[str, ...] = (),
         **args: Any) -> tuple[bool, Any, Baselines]:
    """One evaluation of screenshot_matches, as a step's check makes it."""
    from pytest_cometlocal.contract.model.conditions import ScreenshotMatches

    from pytest_cometlocal.contract.model.actionspec import ActionSpec

    cond = ScreenshotMatches.model_validate({"kind": "screenshot_matches", "args": {"name": name, **args}})
    baselines = Baselines(None, folder, update, secrets=secrets)
    step = ActionSpec.model_validate({"id": "a", "kind": "assert", "criticality": "normal", "timeout_ms": 1000,
                                      "preconditions": [{"kind": "network_idle"}],
                                      "postconditions": [cond.model_dump(mode="json")]})
    ctx = CheckContext(page=page, step=step, base_url=None, allowlist=(), toast_selector="", overlay_selectors=(),
                       audit=AuditLook(baselines, "step_001", "a"))
    ok, observed = screenshot_matches(cond, ctx, "post")
    return ok, observed, baselines


def test_one_pixel_anti_aliasing_passes_an_animation_is_never_flaky_and_a_secret_is_masked(chromium, pixel_site,
                                                                                            tmp_path):
    for page in page_with(chromium, "<p>x</p>"):
        page.set_viewport_size({"width": 320, "height": 200})
        page.goto(pixel_site + "/px")
        assert look(page, "px", tmp_path, "missing")[1]["baseline"] == "written"
        # ten evaluations of the animated page in one session: each the same picture, each holds
        assert [look(page, "px", tmp_path)[0] for _ in range(10)] == [True] * 10
        page.goto(pixel_site + "/px-aa")  # one pixel a shade lighter: under the 0.2 threshold
        ok, observed, _ = look(page, "px", tmp_path)
        assert ok and observed["diff_pixels"] == 0
        ok, observed, found = look(page, "px", tmp_path, threshold=0.0)  # a threshold of 0 sees it
        assert not ok and observed["diff_pixels"] == 1 and observed["baseline"] == "differs"
        assert set(found.pending["step_001"][next(iter(found.pending["step_001"]))].pictures) == {
            "expected", "actual", "diff"}
        # a typed secret is painted over: two secrets, one picture (and a secret never is a baseline)
        page.fill("#f", SECRET)
        look(page, "secret", tmp_path, "missing", secrets=(SECRET,))
        page.fill("#f", "0000-ANOTHER-ONE")
        ok, observed, _ = look(page, "secret", tmp_path, secrets=("0000-ANOTHER-ONE",))
        assert ok, observed
        ok, observed, _ = look(page, "secret", tmp_path)  # unmasked, the field's text differs
        assert not ok and observed["diff_pixels"] > 0
