"""(v1.3) scroll to a place, set_viewport mid-plan, reload with bypass_cache, in a real Chromium.

Against the demo portal's v1.3 pages (pytest_cometlocal/demo/pages/v13_scroll.py): a page and a grid that write
their own scroll position into the page, a responsive page, and a page whose script is served with
``Cache-Control: max-age`` (the portal counts its servings). The example plan runs as written; the
failure paths are typed and name what did not scroll.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.demo.pages import v13_scroll
from tests.support import Run, opened

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[2] / "example_plans"


def executed(r: Run, step: str) -> dict[str, Any]:
    return [e for e in r.events if e["event_type"] == "action_executed" and e["step_id"] == step][-1]["metadata"]


def png_size(data: bytes) -> tuple[int, int]:
    return struct.unpack(">II", data[16:24])


def test_scroll_places_viewport_and_hard_reload(run):
    served = len(v13_scroll.SERVED)
    r = run((EXAMPLES / "v13/scroll_places.actions.yaml").read_text(encoding="utf-8"))
    assert r.error is None, r.error
    # The page: to its bottom, half its range, back to the top; each one move, recorded where it ended.
    bottom, half, top = executed(r, "page_bottom"), executed(r, "page_half"), executed(r, "page_top")
    assert bottom["scrolled_element"] == "page" and bottom["scroll_top"] == bottom["scroll_range"]["y"] > 0
    assert half["to"] == {"y": "50%"} and half["scroll_top"] == half["asked_px"]["y"] == int(half["scroll_range"]["y"] / 2 + 0.5)  # Math.round
    assert top["scroll_top"] == 0 and "clamped" not in top
    # The grid, its own container: bottom, right, then {x: 100, y: 25%}.
    grid = executed(r, "grid_point")
    assert grid["scrolled_element"].startswith("div#grid") and grid["scroll_left"] == 100
    assert grid["scroll_top"] == int(grid["scroll_range"]["y"] / 4 + 0.5)
    right = executed(r, "grid_right")
    assert right["scroll_left"] == right["scroll_range"]["x"] > 0 and right["asked_px"] == {"x": right["scroll_range"]["x"]}
    # set_viewport: the media query flipped (the plan's postconditions), the sizes are recorded.
    assert executed(r, "phone_size") == {**executed(r, "phone_size"), "viewport": {"width": 390, "height": 844},
                                         "viewport_before": {"width": 1280, "height": 720}}
    # The cached script: served for the navigate and the hard reload, never for the plain reload.
    assert len(v13_scroll.SERVED) - served == 2
    assert executed(r, "hard_reload")["bypass_cache"] is True and executed(r, "hard_reload")["status"] == 200
    assert "bypass_cache" not in executed(r, "plain_reload")
    # A step that uses a v1.3 key is recorded as v1.3; the v1.1 and v1 steps keep theirs.
    versions = {e["step_id"]: e["action_spec"]["schema_version"] for e in r.events if e.get("action_spec")}
    assert {versions[s] for s in ("page_bottom", "grid_point", "phone_size", "hard_reload")} == {"v1.3"}
    assert versions["plain_reload"] == "v1.2" and versions["open"] == "v1"
    assert r.manifest["format_versions"] == ["v1", "v1.2", "v1.3", "v1.4"]  # v1.4: the plan is pinned to Chromium (browser.name)


def test_scroll_and_viewport_failures_are_typed(run):
    # A box whose content fits: PRECONDITION_FAILED at execution, `scrollable` names it and the axis.
    r = run((EXAMPLES / "negative/scroll_not_scrollable.actions.yaml").read_text(encoding="utf-8"))
    assert (r.code, r.error.action_id, r.error.stage) == ("PRECONDITION_FAILED", "box_bottom", "execution")
    (fc,) = r.error.failed_conditions
    assert (fc.kind, fc.args) == ("scrollable", {"element": "get_by_test_id('plain')", "axis": "y"})
    assert fc.observed["y"]["range"] == 0 and "does not scroll vertically" in r.error.message

    # Past the end stops at the end (clamped); then the postconditions judge the place as for any step.
    r = run(opened("/v13/scroll", """\
- id: far
  kind: scroll
  target: {type: testid, id: grid}
  to: {y: 99999}
  postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: grid-pos}, text: "v=bottom;"}}]
- id: wrong
  kind: scroll
  target: {type: testid, id: grid}
  to: top
  timeout_ms: 500
  postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: grid-pos}, text: "v=bottom;"}}]
"""))
    far = executed(r, "far")
    assert far["clamped"] is True and far["asked_px"] == {"y": 99999} and far["scroll_top"] == far["scroll_range"]["y"]
    assert (r.code, r.error.action_id) == ("POSTCONDITION_FAILED", "wrong")
    assert [fc.kind for fc in r.error.failed_conditions] == ["element_text_contains"]
    assert "scrolled_px" not in (r.error.details or {})  # not v1.1's loop

    # A page that fits its window is at its top already (a no-op), and cannot go to its bottom; the
    # pictures after set_viewport have the new size.
    r = run(opened("/v13/viewport", """\
- {id: phone, kind: set_viewport, viewport: {width: 390, height: 844}}
- {id: page_top, kind: scroll, to: top}
- {id: page_bottom, kind: scroll, to: bottom, timeout_ms: 300}
"""))
    assert executed(r, "page_top")["scroll_top"] == 0 and executed(r, "page_top")["scroll_range"]["y"] == 0
    assert (r.code, r.error.action_id, r.error.stage) == ("PRECONDITION_FAILED", "page_bottom", "execution")
    assert r.error.failed_conditions[0].args == {"element": "the page", "axis": "y"}
    shots = r.files()
    assert png_size(shots["evidence/shots/step_003_after.png"]) == (390, 844)
