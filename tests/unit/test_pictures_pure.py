"""(v1.2) screenshot_matches without a browser: the comparison, the rules, import, show and Allure's set.

The comparison is pixelmatch's YIQ distance (picture_compare.py) on pictures made here;
the rest reads what a plan, a Playwright script or a run folder says.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pytest_cometlocal.contract.model.actionspec import format_version
from pytest_cometlocal.contract.model.checks.audits import snapshot_name_problem, snapshots_dir
from pytest_cometlocal.executor.audits.baselines import Baselines, PictureSet
from pytest_cometlocal.executor.audits.picture_compare import MASK_COLOUR, compare, decode
from pytest_cometlocal.plugin.reporting.allure_report import picture_sets
from pytest_cometlocal.plugin.snapshots import baselines_written
from pytest_cometlocal.runs.reader import read_evidence
from pytest_cometlocal.runs.show import picture_lines
from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore
from tests.planners.test_codegen_import import GOTO, imported
from tests.support import mark_at, only, only_problems, only_valid, plan

W, H = 1280, 720


def png(pixels: np.ndarray, mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels, mode).save(out, format="PNG")
    return out.getvalue()


def page(button_x: int = 1000, colour: tuple[int, int, int] = (37, 99, 235)) -> np.ndarray:
    px = np.full((H, W, 3), 255, dtype=np.uint8)
    px[40:50, 60:700] = 60
    px[640:680, button_x:button_x + 160] = colour
    return px


# -- the comparison ---------------------------------------------------------------------------


def test_equal_bytes_and_equal_pixels_are_equal_pictures():
    a = png(page())
    assert compare(a, a, 0.0).diff_pixels == 0
    other = io.BytesIO()
    Image.fromarray(page()).save(other, format="PNG", compress_level=0)  # same pixels, other bytes
    assert other.getvalue() != a
    result = compare(a, other.getvalue(), 0.0)
    assert (result.diff_pixels, result.diff_png, result.within(None, None)) == (0, None, True)


def test_a_one_pixel_anti_aliasing_shade_is_under_the_threshold_a_moved_button_is_not():
    shaded = page()
    shaded[40, 60] = 100  # the edge of a text line (60), drawn a shade lighter: a distance of 808 < 1409
    result = compare(png(page()), png(shaded), 0.2)
    assert result.diff_pixels == 0 and result.within(None, None)
    assert compare(png(page()), png(shaded), 0.0).diff_pixels == 1  # threshold 0 counts every change
    moved = compare(png(page()), png(page(button_x=1012)), 0.2)
    assert moved.diff_pixels == 2 * 12 * 40  # the 12 columns it left and the 12 it took, 40 rows each
    assert moved.diff_ratio == pytest.approx(960 / (W * H))
    assert not moved.within(None, None) and moved.within(960, None) and not moved.within(959, None)
    assert moved.within(None, 0.002) and not moved.within(None, 0.0001)
    assert moved.details() == {"diff_pixels": 960, "diff_ratio": round(960 / (W * H), 6)}
    diff = decode(moved.diff_png)
    red = (diff[..., 0] == 255) & (diff[..., 1] == 0) & (diff[..., 2] == 0)
    assert red.sum() == 960 and red[660, 1000] and red[660, 1171] and not red[660, 1100]


def test_the_threshold_is_pixelmatch_s_yiq_distance():
    # black against white is 0.5053 * 255² = 32857 of the largest 35215: over threshold 0.96, not 0.97
    black, white = np.zeros((1, 1, 3), np.uint8), np.full((1, 1, 3), 255, np.uint8)
    assert compare(png(black), png(white), 0.96).diff_pixels == 1
    assert compare(png(black), png(white), 0.97).diff_pixels == 0
    assert compare(png(black), png(white), 1.0).diff_pixels == 0
    # a colour change of equal brightness still counts: blue to red at 0.2
    assert compare(png(page()), png(page(colour=(220, 38, 38))), 0.2).diff_pixels == 160 * 40


def test_a_size_change_never_passes_and_transparency_is_blended_with_white():
    small = page()[:700]
    result = compare(png(page()), png(small), 0.2)
    assert not result.same_size and not result.within(None, 1.0)
    assert result.details()["size"] == {"expected": [W, H], "actual": [W, 700]} and result.diff_png is None
    clear = np.zeros((2, 2, 4), np.uint8)  # fully transparent: white, as pixelmatch blends it
    assert compare(png(clear, "RGBA"), png(np.full((2, 2, 3), 255, np.uint8)), 0.0).diff_pixels == 0


def test_masked_boxes_are_painted_over_in_both_pictures():
    result = compare(png(page()), png(page(button_x=1012)), 0.2, [(990, 630, 200, 60)])
    assert result.diff_pixels == 0
    moved_out = compare(png(page()), png(page(button_x=1012)), 0.2, [(1100, 630, 200, 60)])  # half of it
    assert moved_out.diff_pixels == 12 * 40  # the columns it left, outside the box
    painted = decode(png(page()))
    assert tuple(painted[0, 0, :3]) == (255, 255, 255) and MASK_COLOUR == (255, 0, 255)


# -- the contract -----------------------------------------------------------------------------


def check(args: str) -> str:
    return plan(f"""  - id: look
    kind: assert
    postconditions:
      - {{kind: screenshot_matches, args: {args}}}
""")


def test_without_the_pictures_extra_screenshot_matches_is_refused_at_load(validate, monkeypatch):
    """Pillow and numpy are the optional extra ``pictures``: a plan that needs them says so at its args."""
    from pytest_cometlocal.contract.model.checks import audits

    text = check("{name: home}")
    assert audits.pictures_missing() == [] and only_valid(validate(text))
    monkeypatch.setattr(audits, "find_spec", lambda name: None if name == "numpy" else object())
    invalid = only_problems(validate(text))
    only(invalid, "PICTURES_EXTRA", "steps[0].postconditions[0].args", *mark_at(text, "{name: home}"))
    assert "numpy, not installed: pip install 'pytest-cometlocal[pictures]'" in invalid.problems[0].message


def test_a_baseline_name_is_a_safe_file_name_located_at_it(validate):
    valid = only_valid(validate(check("{name: checkout-page_1.v2, mask: [{type: testid, id: clock}]}")))
    (cond,) = valid.plan.steps[0].postconditions
    assert (cond.args.name, cond.args.threshold, cond.args.max_diff_pixels) == ("checkout-page_1.v2", 0.2, None)
    assert format_version(valid.plan.steps[0]) == "v1.2"
    for bad in ("../up", "a/b", ".hidden", "x.png", "sp ace", "a..b"):
        text = check(f'{{name: "{bad}"}}')
        only(only_problems(validate(text)), "SNAPSHOT_NAME", "steps[0].postconditions[0].args.name",
             *mark_at(text, f'"{bad}"'))
    assert snapshot_name_problem("checkout") is None and "leave out '.png'" in snapshot_name_problem("a.PNG")


@pytest.mark.parametrize("name", ["CON", "nul", "Aux", "prn", "COM1", "com9", "LPT1", "lpt9", "nul.png", "con.x",
                                  "AUX.", "Com3.tar.gz"])
def test_a_windows_device_name_is_no_baseline_name(validate, name):
    text = check(f'{{name: "{name}"}}')
    invalid = only_problems(validate(text))
    only(invalid, "SNAPSHOT_NAME", "steps[0].postconditions[0].args.name", *mark_at(text, f'"{name}"'))
    assert "device name on Windows" in invalid.problems[0].message


def test_a_name_that_only_starts_like_a_device_is_a_baseline_name():
    assert [snapshot_name_problem(n) for n in ("CON-page", "console", "com10", "lpt0", "nullable.v2")] == [None] * 5


def test_the_args_are_closed_and_bounded(validate):
    for args, key in (("{name: a, threshold: 1.5}", "threshold"), ("{name: a, max_diff_ratio: 2}", "max_diff_ratio"),
                      ("{name: a, max_diff_pixels: -1}", "max_diff_pixels"), ("{name: a, colour: red}", "colour")):
        problems = only_problems(validate(check(args))).problems
        assert any(p.key_path.endswith(key) for p in problems), [p.format() for p in problems]
    problems = only_problems(validate(check("{name: a, max_diff_pixels: 3, max_diff_ratio: 0.1}"))).problems
    assert "at most one of max_diff_pixels, max_diff_ratio" in problems[0].message
    # a mask is a target like any other: a bare nth needs its rationale (U3)
    problems = only_problems(validate(check("{name: a, mask: [{type: css, selector: '.x', nth: 2}]}"))).problems
    assert problems[0].key_path.startswith("steps[0].postconditions[0].args.mask[0]"), problems[0].format()


def test_the_baselines_live_beside_the_plan_file():
    assert snapshots_dir(Path("suite/plans/checkout.actions.yaml")) == Path("suite/plans/checkout.actions.snapshots")
    assert snapshots_dir(None) is None
    assert Baselines(None, Path("p/c.actions.snapshots"), browser="chromium", platform="linux").shown("pay") == \
        "c.actions.snapshots/pay-chromium-linux.png"


# -- cometlocal import ------------------------------------------------------------------------


def test_to_have_screenshot_imports_as_written_for_node(tmp_path):
    code, out = imported(tmp_path, GOTO + 'expect(page).to_have_screenshot("landing.png", '
                         'mask=[page.get_by_test_id("clock")], max_diff_pixels=100, threshold=0.3, animations="disabled")')
    assert code == 0, out
    assert out["steps"][-1]["postconditions"][-1] == {"kind": "screenshot_matches", "args": {
        "name": "landing", "mask": [{"type": "testid", "id": "clock"}], "max_diff_pixels": 100, "threshold": 0.3}}
    code, out = imported(tmp_path, GOTO + 'page.get_by_test_id("go").click()\n'
                         'expect(page.get_by_test_id("go")).to_have_screenshot("go.png", max_diff_pixel_ratio=0.01)',
                         "--force")
    assert code == 0, out
    assert out["steps"][-1]["postconditions"][-1] == {"kind": "screenshot_matches", "args": {
        "name": "go", "target": {"type": "testid", "id": "go"}, "max_diff_ratio": 0.01}}


@pytest.mark.parametrize("call, why", [
    ("expect(page).to_have_screenshot()", "to_have_screenshot() needs its baseline's name"),
    ('expect(page).to_have_screenshot("../x.png")', "must be a safe file name"),
    ('expect(page).to_have_screenshot("x.png", full_page=True)', "to_have_screenshot(full_page=...) does not map"),
    ('expect(page).to_have_screenshot("x.png", animations="allow")', "to_have_screenshot(animations=...) does not map"),
])
def test_what_has_no_screenshot_form_is_reported_with_the_reason(tmp_path, capsys, call, why):
    code, out = imported(tmp_path, GOTO + call)
    assert code == 1 and out is None
    assert why in capsys.readouterr().err


# -- what a run says: show, diff notes, the item's line, Allure's set ----------------------------


def test_a_run_s_pictures_are_read_back_by_show_the_item_and_allure(tmp_path):
    store = EvidenceStore(tmp_path, "r1")
    baselines = Baselines(store, tmp_path / "plans" / "c.actions.snapshots", "missing", platform="linux")
    baselines.write("new", png(page()), "step_001", "look", "missing")
    baselines.keep("step_002", 1, PictureSet("pay", {"expected": b"E", "actual": b"A", "diff": b"D"}))
    refs = baselines.failure_pictures("step_002", "look")
    assert [r.uri for r in refs] == [f"evidence/snapshots/step_002_pay/{n}.png" for n in ("expected", "actual", "diff")]
    assert (tmp_path / "plans" / "c.actions.snapshots" / "new-chromium-linux.png").read_bytes() == png(page())
    assert baselines_written(tmp_path) == ["c.actions.snapshots/new-chromium-linux.png"]
    error = {"failed_conditions": [{"kind": "screenshot_matches", "observed": {
        "snapshot": "pay", "baseline": "differs", "baseline_file": "c.actions.snapshots/pay-chromium-linux.png",
        "diff_pixels": 960, "diff_ratio": 0.001042}}]}
    assert picture_lines(tmp_path, [error]) == [
        "picture pay: differs from c.actions.snapshots/pay-chromium-linux.png by 960 px (0.10%)",
        "picture new: baseline written c.actions.snapshots/new-chromium-linux.png (missing)"]
    (name, body), = picture_sets(tmp_path, [e for e in read_evidence(tmp_path) if e.uri in {r.uri for r in refs}]).items()
    assert name == "screenshot_matches pay"
    assert json.loads(body) == {"expected": "data:image/png;base64,RQ==", "actual": "data:image/png;base64,QQ==",
                                "diff": "data:image/png;base64,RA=="}


def test_a_baseline_that_is_no_png_or_cannot_be_written_fails_the_condition_saying_why(tmp_path):
    from types import SimpleNamespace

    from pytest_cometlocal.executor.audits.baselines import AuditLook
    from pytest_cometlocal.executor.audits.screenshot_check import _judge

    args = SimpleNamespace(name="box", threshold=0.2, max_diff_pixels=None, max_diff_ratio=None)
    folder = tmp_path / "p.actions.snapshots"
    folder.mkdir()
    look = AuditLook(Baselines(None, folder, "none", platform="linux"), "step_001", "look")
    (folder / "box-chromium-linux.png").write_bytes(b"not a picture")
    ok, seen = _judge(args, look, png(page()), [], 1, {"snapshot": "box"})
    assert not ok and seen["baseline"] == "unreadable" and "cannot identify image" in seen["error"]
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    look = AuditLook(Baselines(None, blocked / "p.actions.snapshots", "missing", platform="linux"), "step_001", "look")
    ok, seen = _judge(args, look, png(page()), [], 1, {"snapshot": "box"})
    assert not ok and seen["baseline"] == "not written" and seen["error"]
