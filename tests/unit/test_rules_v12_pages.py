"""The rules and readers plan format v1.2 adds for pages (no browser): INPUTS for ``opens`` and ``page``,
page kinds take no target, ``page`` names exactly one way, REGEX at ``page.url_matches``, U5 for the page
kinds, the step descriptions shown by ``show``/``diff``/Allure, and the "suggested pages:" block.

As in test_rules_v11.py, each case is a plan and the one problem it must have, located in its text.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.model.actionspec import (
    NO_TARGET_KINDS, PAGE_KINDS, SIDE_EFFECT_KINDS, V12_CONDITION_KINDS, V12_KINDS, V12_STEP_KEYS, describe_step)
from pytest_cometlocal.contract.model.suggestion import suggestion_lines
from tests.support import mark_at, only, only_problems, only_valid, plan

ALL = """\
- {id: open, kind: navigate, target: {type: url, url: "http://127.0.0.1:1/tabs"}}
- {id: popup, kind: click, opens: page, target: {type: testid, id: signin}}
- {id: key_popup, kind: press, key: Enter, opens: page}
- {id: back, kind: go_back}
- {id: forward, kind: go_forward}
- {id: again, kind: reload, postconditions: [{kind: page_count_equals, args: {count: 2}}]}
- {id: by_index, kind: switch_page, page: {index: 0}}
- {id: by_url, kind: switch_page, page: {url_matches: "/help$"}}
- {id: by_title, kind: switch_page, page: {title_contains: Sign in}}
- {id: done, kind: close_page}
"""


def test_every_page_kind_and_key_validates_and_is_described(validate):
    steps = only_valid(validate(plan(ALL))).plan.steps
    assert [describe_step(s) for s in steps] == [
        "navigate url=http://127.0.0.1:1/tabs", "click testid=signin (opens a page)", "press Enter (opens a page)",
        "go back", "go forward", "reload", "switch to page 0", "switch to page url~/help$",
        'switch to page title~"Sign in"', "close page"]
    assert steps[6].page.index == 0 and steps[1].opens == "page"


def test_the_v12_sets_name_the_page_additions():
    assert PAGE_KINDS <= V12_KINDS and PAGE_KINDS <= SIDE_EFFECT_KINDS and PAGE_KINDS <= NO_TARGET_KINDS
    assert {"opens", "page"} <= V12_STEP_KEYS and "page_count_equals" in V12_CONDITION_KINDS


@pytest.mark.parametrize("step, key_path, at, message", [
    ("- {id: s, kind: fill, value: x, opens: page, target: {type: testid, id: a}}",
     "steps[0].opens", "opens: ^page", "'opens' is not used by 'fill' (only click and press)"),
    ("- {id: s, kind: switch_page}", "steps[0].page", "{id: s", "'switch_page' needs 'page'"),
    ("- {id: s, kind: click, page: {index: 1}, target: {type: testid, id: a}}",
     "steps[0].page", "page: ^{", "'page' is not used by 'click' (only switch_page)"),
    ("- {id: s, kind: go_back, target: {type: testid, id: a}}",
     "steps[0].target", "target: ^{", "'go_back' takes no target"),
    ("- {id: s, kind: close_page, target: {type: css, selector: b}}",
     "steps[0].target", "target: ^{", "'close_page' takes no target"),
])
def test_inputs_of_the_page_kinds_are_located(validate, step, key_path, at, message):
    text = plan(step + "\n")
    line, col = mark_at(text, at)
    only(only_problems(validate(text)), "INPUTS", key_path, line, col, message)


def test_a_page_url_pattern_that_does_not_compile_is_regex_at_it(validate):
    text = plan('- {id: s, kind: switch_page, page: {url_matches: "(("}}\n')
    line, col = mark_at(text, '"((')
    only(only_problems(validate(text)), "REGEX", "steps[0].page.url_matches", line, col)


@pytest.mark.parametrize("page", ["{}", "{index: 0, title_contains: x}", "{index: -1}", "{url: /x}"])
def test_page_names_exactly_one_way(validate, page):
    problems = only_problems(validate(plan(f"- {{id: s, kind: switch_page, page: {page}}}\n"))).problems
    assert {p.rule for p in problems} == {"SCHEMA"} and all(p.key_path.startswith("steps[0].page") for p in problems)


def test_a_critical_page_kind_needs_a_strong_postcondition(validate):
    text = plan("- {id: s, kind: go_back, criticality: critical}\n")
    assert [p.rule for p in only_problems(validate(text)).problems] == ["U5"]
    ok = plan("- {id: s, kind: reload, criticality: critical, postconditions: [{kind: url_matches, args: {pattern: x}}]}\n")
    only_valid(validate(ok))


def test_suggested_pages_are_printed_as_page_lines_to_paste():
    details = {"which": "page", "page_suggestions": [
        {"page": {"url_matches": "/tabs$"}, "matched": "page 0: http://h/tabs"},
        {"page": {"index": 1}, "matched": "page 1: http://h/tabs/help"}]}
    assert suggestion_lines(details) == [
        "  suggested pages:",
        "    # never applied: paste one into the switch_page step, in place of its page",
        "    page: {url_matches: /tabs$}  # page 0: http://h/tabs",
        "    page: {index: 1}  # page 1: http://h/tabs/help"]
