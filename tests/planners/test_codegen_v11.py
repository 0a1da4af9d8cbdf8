"""``cometlocal import`` of what plan format v1.1 added (no browser): key presses, check/uncheck,
hover, double and right clicks, drags, and the checks of a checked, a focused and an aria snapshot.

Every plan here comes out of the command, so it also passed the plan validator."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.validate.validated import ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.validator import validate_text
from tests.planners.test_codegen_import import GOTO, RECORDINGS, imported, only_step

SEARCH = {"type": "label", "text": "Search", "normalize_ws": True}
ROW = {"type": "text", "text": "Row 1", "normalize_ws": True}
GO = {"type": "testid", "id": "go"}


@pytest.mark.parametrize("call, expected", [
    # press, on a locator and on page.keyboard (what has focus); Playwright's " " is the plan's Space
    ('page.get_by_label("Search").press("Enter")', {"kind": "press", "target": SEARCH, "key": "Enter"}),
    ('page.get_by_label("Search").press("ControlOrMeta+Enter")',
     {"kind": "press", "target": SEARCH, "key": "ControlOrMeta+Enter"}),
    ('page.get_by_label("Search").press("Control+a")', {"kind": "press", "target": SEARCH, "key": "Control+a"}),
    ('page.get_by_label("Search").press(" ")', {"kind": "press", "target": SEARCH, "key": "Space"}),
    ('page.keyboard.press("Escape")', {"kind": "press", "key": "Escape"}),
    ('page.keyboard.press("Shift+ArrowDown")', {"kind": "press", "key": "Shift+ArrowDown"}),
    # check, uncheck, set_checked
    ('page.get_by_label("Terms").check()', {"kind": "check", "target": {"type": "label", "text": "Terms", "normalize_ws": True}}),
    ('page.get_by_role("switch", name="Dark").uncheck()', {"kind": "uncheck", "target": {"type": "role", "role": "switch", "name": "Dark"}}),
    ('page.get_by_test_id("go").set_checked(True)', {"kind": "check", "target": GO}),
    ('page.get_by_test_id("go").set_checked(False)', {"kind": "uncheck", "target": GO}),
    ('page.get_by_role("button", name="Products").hover()',
     {"kind": "hover", "target": {"type": "role", "role": "button", "name": "Products"}}),
    # click's keys: only those that differ from the defaults
    ('page.get_by_text("Row 1").dblclick()', {"kind": "click", "target": ROW, "click_count": 2}),
    ('page.get_by_text("Row 1").click(click_count=3)', {"kind": "click", "target": ROW, "click_count": 3}),
    ('page.get_by_text("Row 1").click(button="right")', {"kind": "click", "target": ROW, "button": "right"}),
    ('page.get_by_text("Row 1").click(button="left", click_count=1)', {"kind": "click", "target": ROW}),
    ('page.get_by_text("Row 1").click(modifiers=["Control", "Shift"])',
     {"kind": "click", "target": ROW, "modifiers": ["Control", "Shift"]}),
    ('page.get_by_text("Row 1").dblclick(button="middle", modifiers=["Alt"])',
     {"kind": "click", "target": ROW, "button": "middle", "click_count": 2, "modifiers": ["Alt"]}),
    # drag_to: the locator it is given is the step's `to`
    ('page.get_by_test_id("task-ship").drag_to(page.get_by_test_id("task-write"))',
     {"kind": "drag", "target": {"type": "testid", "id": "task-ship"}, "to": {"type": "testid", "id": "task-write"}}),
    ('page.locator("#a").drag_to(target=page.locator("li").filter(has_text="Ship"))',
     {"kind": "drag", "target": {"type": "css", "selector": "#a"}, "to": {"type": "css", "selector": 'li:has-text("Ship")'}}),
])
def test_v11_actions_map_to_steps(tmp_path, call, expected):
    code, plan = imported(tmp_path, GOTO + call)
    step = only_step(plan)
    assert code == 0 and {k: v for k, v in step.items() if k != "id"} == expected


def test_a_plain_click_is_the_v1_step_it_was(tmp_path):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("go").click()')
    assert code == 0 and only_step(plan) == {"id": "click_go", "kind": "click", "target": GO}


def test_an_nth_drop_target_gives_the_drag_its_rationale(tmp_path):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("a").drag_to(page.get_by_role("listitem").nth(2))')
    step = only_step(plan)
    assert code == 0 and step["to"] == {"type": "nth", "base": {"type": "role", "role": "listitem"}, "index": 2}
    assert "nth(2)" in step["metadata"]["target_rationale"]


@pytest.mark.parametrize("call, why", [
    # A key outside the v1.1 grammar stays reported, with the grammar's reason.
    ('page.get_by_label("Search").press("F13")', "press('F13'): 'F13' is not a key"),
    ('page.get_by_label("Search").press("KeyA")', "press('KeyA'): 'KeyA' is not a key"),
    ('page.keyboard.press("Hyper+a")', "press('Hyper+a'): 'Hyper' is not a modifier"),
    ('page.keyboard.press("Shift+Shift+a")', "press('Shift+Shift+a'): a modifier is repeated"),
    ('page.keyboard.press("${vars.key}")', "press('${vars.key}'): a key holds no ${secrets...} or ${vars...} reference"),
    ('page.get_by_label("Search").press(key_name)', "an argument is not a literal"),
    ('page.keyboard.type("Ada")', "page.keyboard.type() does not map: text is typed with fill on its field"),
    ('page.keyboard.down("Shift")', "page.keyboard.down() does not map"),
    ('page.mouse.click(10, 20)', "page.mouse.click() does not map: a plan acts on elements, not on coordinates"),
    ('page.mouse.wheel(0, 300)', "page.mouse.wheel() does not map"),
    ('page.get_by_text("Row 1").click(button="back")', "click(button='back'): a button is left, right or middle"),
    ('page.get_by_text("Row 1").click(click_count=4)', "click(click_count=4): a plan clicks 1, 2 or 3 times"),
    ('page.get_by_text("Row 1").click(modifiers=["Super"])', "click(modifiers=['Super']): modifiers are Alt, Control"),
    ('page.get_by_text("Row 1").click(modifiers=["Alt", "Alt"])',
     "click(modifiers=['Alt', 'Alt']): modifiers are Alt, Control, ControlOrMeta, Meta, Shift, each once"),
    ('page.get_by_text("Menu").hover(modifiers=["Shift"])', "hover() with modifiers does not map (only a click holds modifiers)"),
    # A drag goes from element to element: a position on it does not map ((v1.3) click and hover take one).
    ('page.get_by_test_id("a").drag_to(page.get_by_test_id("b"), target_position={"x": 1, "y": 2})',
     "drag_to() with a position does not map"),
    ('page.get_by_test_id("a").drag_to(other_page.get_by_test_id("b"))', "an argument is not a literal"),
    ('page.get_by_test_id("a").drag_to("#b")', "drag_to() maps with a locator of the page as its target"),
    ('page.get_by_test_id("a").set_checked("yes")', "set_checked() maps with True or False"),
    ('page.get_by_test_id("a").tap()', "tap() has no step in the plan format (v1.1)"),
    ('page.get_by_test_id("a").press()', "press() needs one key name"),
])
def test_what_has_no_v11_step_is_reported_with_the_reason(tmp_path, capsys, call, why):
    code, plan = imported(tmp_path, GOTO + call)
    err = capsys.readouterr().err
    assert code == 1 and plan is None
    assert f"rec.py:10: not imported: {why}" in err, err


@pytest.mark.parametrize("press", ['page.keyboard.press("Tab")', 'page.get_by_label("A").press("Shift+Tab")'])
def test_tab_presses_stay_dropped(tmp_path, capsys, press):
    code, plan = imported(tmp_path, GOTO + press + '\npage.get_by_test_id("go").click()')
    assert code == 0 and [s["kind"] for s in plan["steps"]] == ["navigate", "click"]
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("check, condition", [
    ('expect(page.get_by_label("Terms")).to_be_checked()',
     {"kind": "element_checked", "args": {"target": {"type": "label", "text": "Terms", "normalize_ws": True}}}),
    ('expect(page.get_by_test_id("ok")).to_be_checked(checked=False)',
     {"kind": "element_checked", "args": {"target": {"type": "testid", "id": "ok"}, "checked": False}}),
    ('expect(page.get_by_test_id("ok")).not_to_be_checked()',
     {"kind": "element_checked", "args": {"target": {"type": "testid", "id": "ok"}, "checked": False}}),
    ('expect(page.get_by_test_id("ok")).to_be_focused()', {"kind": "element_focused", "args": {"target": {"type": "testid", "id": "ok"}}}),
    ('expect(page.locator("body")).to_match_aria_snapshot("- heading \\"Search\\" [level=1]\\n- status: /Results/")',
     {"kind": "aria_snapshot_matches", "args": {"target": {"type": "css", "selector": "body"},
                                                "snapshot": '- heading "Search" [level=1]\n- status: /Results/'}}),
])
def test_v11_checks_become_postconditions(tmp_path, check, condition):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("save").click()\n' + check)
    assert code == 0 and plan["steps"][1]["postconditions"] == [condition]


@pytest.mark.parametrize("check, why", [
    ('expect(page.get_by_test_id("ok")).to_match_aria_snapshot("heading")',
     "to_match_aria_snapshot(): an aria snapshot is a YAML list"),
    ('expect(page.get_by_test_id("ok")).to_be_visible(visible=False)', "expect(locator).to_be_visible() with these arguments"),
    ('expect(page.get_by_test_id("ok")).not_to_be_focused()', "negated checks (not_to_...) do not map, except not_to_be_checked"),
])
def test_checks_that_do_not_fit_are_reported(tmp_path, capsys, check, why):
    code, _plan = imported(tmp_path, GOTO + 'page.get_by_test_id("save").click()\n' + check)
    assert code == 1 and f"rec.py:11: not imported: {why}" in capsys.readouterr().err


def test_step_ids_say_which_key_and_which_click(tmp_path):
    body = GOTO + ('page.get_by_label("Search").press("Enter")\npage.keyboard.press("Control+a")\npage.keyboard.press("/")\n'
                   'page.get_by_text("Row 1").dblclick()\npage.get_by_text("Row 1").click(button="right", modifiers=["Shift"])\n'
                   'page.get_by_test_id("a").drag_to(page.get_by_test_id("b"))\npage.get_by_test_id("b").hover()')
    code, plan = imported(tmp_path, body)
    assert code == 0 and [s["id"] for s in plan["steps"][1:]] == [
        "press_enter_search", "press_control_a", "press", "double_click_row_1", "shift_right_click_row_1", "drag_a",
        "hover_b"]


def test_only_a_plain_click_before_a_fill_is_dropped(tmp_path):
    body = GOTO + ('page.get_by_label("Name").dblclick()\npage.get_by_label("Name").fill("Ada")\n'
                   'page.get_by_label("Mail").click()\npage.get_by_label("Mail").fill("a@b.c")')
    code, plan = imported(tmp_path, body)
    assert code == 0 and [(s["kind"], s["target"]["text"]) for s in plan["steps"][1:]] == [
        ("click", "Name"), ("fill", "Name"), ("fill", "Mail")]


def test_modifiers_are_written_on_one_line(tmp_path):
    code, _plan = imported(tmp_path, GOTO + 'page.get_by_text("Row 1").click(modifiers=["ControlOrMeta", "Shift"])')
    assert code == 0 and "  modifiers: [ControlOrMeta, Shift]\n" in (tmp_path / "out.actions.yaml").read_text()


def test_a_key_press_on_a_delete_or_payment_gets_the_notice(tmp_path, capsys):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_role("button", name="Delete account").press("Enter")')
    assert code == 0 and only_step(plan)["kind"] == "press"
    assert "step 'press_enter_delete_account' looks like a delete or a payment" in capsys.readouterr().err


# -- the recording of the v1.1 demo pages, and the docs' worked example made from it --------------------------

SPA = RECORDINGS / "spa_widgets.py"
SPA_IDS = ["open_spa_search", "fill_search", "press_enter_search", "open_spa_toggles",
           "check_subscribe_to_the_newsletter", "click_save_settings", "open_spa_menu", "hover_products",
           "click_laptops", "hover_grid", "double_click_fullscreen"]
DOCS = Path(__file__).parents[2] / "docs" / "planners.md"


def test_the_spa_recording_imports_into_a_v11_plan_that_validates(tmp_path):
    out = tmp_path / "spa_widgets.actions.yaml"
    assert main(["import", str(SPA), "-o", str(out)]) == 0
    (result,) = validate_text(out.read_bytes(), ValidationContext(root=tmp_path, plan_path=out), str(out))
    assert isinstance(result, ValidPlan)
    assert [step.id for step in result.plan.steps] == SPA_IDS
    kinds = {step.kind for step in result.plan.steps}
    assert {"press", "check", "hover"} <= kinds
    assert [s.click_count for s in result.plan.steps if s.click_count] == [2]


def _block(text: str, after: str, language: str) -> str:
    """The first ```language block after the line ``after``."""
    start = text.index(after)
    match = re.compile(rf"```{language}\n(.*?)```", re.S).search(text, start)
    assert match, f"no {language} block after {after!r}"
    return match.group(1)


def test_the_docs_v11_example_is_the_recording_and_its_import(tmp_path, monkeypatch, capsys):
    """docs/planners.md shows the recording and the plan the command writes for it, as they are."""
    docs = DOCS.read_text(encoding="utf-8")
    heading = "### A worked example with keys, checkboxes and hover (v1.1)"
    assert _block(docs, heading, "python") == SPA.read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spa_widgets.py").write_text(SPA.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "plans").mkdir()
    assert main(["import", "spa_widgets.py", "-o", "plans/spa_widgets.actions.yaml"]) == 0
    written = (tmp_path / "plans" / "spa_widgets.actions.yaml").read_text(encoding="utf-8")
    assert _block(docs, heading, "yaml") == written
    assert yaml.safe_load(written)["steps"][2]["key"] == "Enter"
