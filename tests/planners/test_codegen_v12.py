"""``cometlocal import`` of the v1.2 checks and role filters (no browser): to_be_hidden,
to_have_text([...]), regular expressions in the text, value and attribute checks, to_have_class,
and get_by_role(level=..., checked=...). Every plan here came out of the command, so it also
passed the plan validator (ROLE_FILTER, REGEX)."""

from __future__ import annotations

import pytest

from tests.planners.test_codegen_import import GOTO, imported, only_step

GO = {"type": "testid", "id": "go"}
ITEMS = {"type": "testid", "id": "todo-item"}


@pytest.mark.parametrize("check, condition", [
    ('expect(page.get_by_test_id("go")).to_be_hidden()', {"kind": "element_hidden", "args": {"target": GO}}),
    ('expect(page.get_by_test_id("todo-item")).to_have_text(["Buy milk", re.compile("Walk .+")])',
     {"kind": "element_texts_equal", "args": {"target": ITEMS, "texts": ["Buy milk", "/Walk .+/"]}}),
    ('expect(page.get_by_test_id("todo-item")).to_have_text([])',
     {"kind": "element_texts_equal", "args": {"target": ITEMS, "texts": []}}),
    ('expect(page.get_by_test_id("go")).to_have_text(re.compile(r"^\\d+ items? left$"))',
     {"kind": "element_text_matches", "args": {"target": GO, "pattern": "^\\d+ items? left$"}}),
    ('expect(page.get_by_test_id("go")).to_contain_text(re.compile("left"))',
     {"kind": "element_text_matches", "args": {"target": GO, "pattern": "left"}}),
    ('expect(page.get_by_test_id("go")).to_have_value(re.compile("@example"))',
     {"kind": "element_value_matches", "args": {"target": GO, "pattern": "@example"}}),
    ('expect(page.get_by_test_id("go")).to_have_value("ada")',  # equality, as in v1
     {"kind": "element_value_equals", "args": {"target": GO, "value": "ada"}}),
    ('expect(page.get_by_test_id("go")).to_have_class(re.compile("completed"))',
     {"kind": "element_attr_matches", "args": {"target": GO, "attr": "class", "pattern": "completed"}}),
    ('expect(page.get_by_test_id("go")).to_have_class("todo completed")',
     {"kind": "element_attr_equals", "args": {"target": GO, "attr": "class", "value": "todo completed"}}),
    ('expect(page.get_by_test_id("go")).to_have_attribute("href", re.compile("/docs/"))',
     {"kind": "element_attr_matches", "args": {"target": GO, "attr": "href", "pattern": "/docs/"}}),
])
def test_v12_checks_map_to_conditions(tmp_path, check, condition):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("go").click()\n' + check)
    assert code == 0, plan
    assert plan["steps"][-1]["postconditions"][-1] == condition


@pytest.mark.parametrize("call, target", [
    ('page.get_by_role("heading", name="Todos", level=1).click()',
     {"type": "role", "role": "heading", "name": "Todos", "level": 1}),
    ('page.get_by_role("checkbox", checked=True, disabled=False).click()',
     {"type": "role", "role": "checkbox", "checked": True, "disabled": False}),
    ('page.get_by_role("button", name="Mute", pressed=False, exact=True).click()',
     {"type": "role", "role": "button", "name": "Mute", "exact": True, "pressed": False}),
    ('page.get_by_role("paragraph", include_hidden=True).click()',
     {"type": "role", "role": "paragraph", "include_hidden": True}),
])
def test_role_filters_map_to_the_targets_keys(tmp_path, call, target):
    code, plan = imported(tmp_path, GOTO + call)
    assert code == 0 and only_step(plan)["target"] == target


@pytest.mark.parametrize("call, why", [
    ('page.get_by_role("button", level=2).click()',
     "get_by_role('button', level=...) does not map: ARIA gives level only to heading"),
    ('page.get_by_role("heading", level=7).click()', "get_by_role(level=7) does not map: a level is 1 to 6"),
    ('page.get_by_role("checkbox", checked="mixed").click()',
     "get_by_role(checked='mixed') does not map: checked is True or False"),
    ('expect(page.get_by_test_id("go")).to_have_text(["a", 1])', "expect(locator).to_have_text() with these arguments"),
    ('expect(page.get_by_test_id("go")).to_have_class(["a", "b"])', "expect(locator).to_have_class() with these arguments"),
])
def test_what_has_no_v12_form_is_reported_with_the_reason(tmp_path, capsys, call, why):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("go").click()\n' + call)
    err = capsys.readouterr().err
    assert code == 1 and plan is None
    assert f"not imported: {why}" in err, err
