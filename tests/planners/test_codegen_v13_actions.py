"""``cometlocal import`` of what plan format v1.3 added to the actions (no browser): focus, blur,
dispatch_event with its init, click and hover at a position, force, select_option with a list,
press_sequentially with a delay, and a lone modifier on page.keyboard; and what stays unmapped, with why.

Every plan here comes out of the command, so it also passed the plan validator."""

from __future__ import annotations

import pytest

from tests.planners.test_codegen_import import GOTO, imported, only_step

GO = {"type": "testid", "id": "go"}
CARD = {"type": "label", "text": "Card", "normalize_ws": True}


@pytest.mark.parametrize("call, expected", [
    ('page.get_by_test_id("go").focus()', {"kind": "focus", "target": GO}),
    ('page.get_by_test_id("go").blur()', {"kind": "blur", "target": GO}),
    ('page.get_by_test_id("go").dispatch_event("submit")', {"kind": "dispatch_event", "target": GO, "event": "submit"}),
    ('page.get_by_test_id("go").dispatch_event("click", {"clientX": 5, "shiftKey": True})',
     {"kind": "dispatch_event", "target": GO, "event": "click", "detail": {"clientX": 5, "shiftKey": True}}),
    ('page.get_by_test_id("go").dispatch_event(type="keydown", event_init={"key": "Enter"})',
     {"kind": "dispatch_event", "target": GO, "event": "keydown", "detail": {"key": "Enter"}}),
    ('page.get_by_test_id("go").click(position={"x": 150, "y": 20})',
     {"kind": "click", "target": GO, "position": {"x": 150, "y": 20}}),
    ('page.get_by_test_id("go").hover(position={"x": 0, "y": 2.5})',
     {"kind": "hover", "target": GO, "position": {"x": 0, "y": 2.5}}),
    ('page.get_by_test_id("go").click(force=True)', {"kind": "click", "target": GO, "force": True}),
    ('page.get_by_test_id("go").click(force=False)', {"kind": "click", "target": GO}),
    ('page.get_by_test_id("go").dblclick(force=True)', {"kind": "click", "target": GO, "click_count": 2, "force": True}),
    ('page.get_by_label("Card").fill("4111", force=True)', {"kind": "fill", "target": CARD, "value": "4111", "force": True}),
    ('page.get_by_test_id("go").check(force=True)', {"kind": "check", "target": GO, "force": True}),
    ('page.get_by_test_id("go").uncheck(force=True)', {"kind": "uncheck", "target": GO, "force": True}),
    ('page.get_by_test_id("go").set_checked(True, force=True)', {"kind": "check", "target": GO, "force": True}),
    ('page.get_by_test_id("go").select_option(["ham", "olives"])',
     {"kind": "select", "target": GO, "value": ["ham", "olives"]}),
    ('page.get_by_test_id("go").select_option(["ham"])', {"kind": "select", "target": GO, "value": "ham"}),
    ('page.get_by_label("Card").press_sequentially("4111", delay=40)',
     {"kind": "fill", "target": CARD, "value": "4111", "delay_ms": 40}),
    ('page.get_by_label("Card").press_sequentially("4111")', {"kind": "fill", "target": CARD, "value": "4111", "delay_ms": 1}),
    ('page.keyboard.press("Shift")', {"kind": "press", "key": "Shift"}),
    ('page.keyboard.press("ControlOrMeta")', {"kind": "press", "key": "ControlOrMeta"}),
])
def test_v13_actions_map_to_steps(tmp_path, call, expected):
    code, plan = imported(tmp_path, GOTO + call)
    step = only_step(plan)
    assert code == 0 and {k: v for k, v in step.items() if k != "id"} == expected


def test_a_click_at_a_point_before_a_fill_is_kept(tmp_path):
    """codegen's focusing click before a fill is dropped; one at a position (or forced) is the author's."""
    code, plan = imported(tmp_path, GOTO + 'page.get_by_label("Card").click(position={"x": 3, "y": 3})\n'
                          'page.get_by_label("Card").fill("4111")')
    assert code == 0 and [s["kind"] for s in plan["steps"]] == ["navigate", "click", "fill"]


@pytest.mark.parametrize("call, why", [
    ('page.get_by_test_id("go").hover(force=True)', "hover(force=True) does not map: force is click's, fill's"),
    ('page.get_by_test_id("go").click(position={"x": "1", "y": 0})',
     "click(position={'x': '1', 'y': 0}): a position is {'x': px, 'y': px}, both >= 0"),
    ('page.get_by_test_id("go").click(position={"x": 1})', "click(position={'x': 1}): a position is"),
    ('page.get_by_test_id("go").dispatch_event("wheel")', "dispatch_event('wheel') does not map: the events are"),
    ('page.get_by_test_id("go").dispatch_event("keydown", {"clientX": 1})', "dispatch_event('keydown', {'clientX': 1}): a keyboard event's init takes"),
    ('page.get_by_test_id("go").dispatch_event("click", {"button": 9})', "dispatch_event('click', {'button': 9}): an init value is out of its range or type (button)"),
    ('page.get_by_label("Card").press_sequentially("4111", delay=5000)',
     "press_sequentially(delay=5000): a plan types with a delay of 1-1000 ms a key"),
    ('page.get_by_test_id("go").select_option([])', "select_option() maps with a value or label, or a list of them"),
    ('page.keyboard.down("Shift")', "page.keyboard.down() does not map: a plan holds no key down"),
    ('page.keyboard.up("Shift")', "page.keyboard.up() does not map: a plan holds no key down"),
    ('page.get_by_test_id("a").drag_to(page.get_by_test_id("b"), target_position={"x": 1, "y": 2})',
     "drag_to() with a position does not map"),
])
def test_what_has_no_v13_step_is_reported_with_the_reason(tmp_path, capsys, call, why):
    code, plan = imported(tmp_path, GOTO + call)
    err = capsys.readouterr().err
    assert code == 1 and plan is None
    assert f"rec.py:10: not imported: {why}" in err, err
