"""The rules plan format v1.1 adds: KEY (the closed key grammar), INPUTS for v1.1's step keys,
``to`` held to the target rules, the new conditions' targets, ARIA_SNAPSHOT, U5 for the new
kinds, TARGET_REQUIRED's two messages, and ``format_version``.

As in test_rules.py, each case is a plan and the one problem it must have (rule, key path,
line and column, message), the place written as the piece of the plan's text it points at.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_cometlocal.contract.model.actionspec import ActionSpec, format_version, format_versions
from tests.support import mark_at, only, only_problems, only_valid, plan

ENV = {"PW": "hunter2"}
# vars for the key cases: one of one character, one longer.
KEY_EXTRA = "vars: {one: x, word: Enter, digit: 7}\nsecrets: {pw: {env: PW}}\n"
NOT_A_KEY = ("{!r} is not a key: use Enter, Tab, Escape, Backspace, Delete, Insert, Home, End, PageUp, PageDown, "
             "Arrow{{Up,Down,Left,Right}}, Space, F1-F12 or one printable ASCII character, "
             "with optional modifiers joined by '+'")
NOT_A_MODIFIER = "{!r} is not a modifier (modifiers: Alt, Control, ControlOrMeta, Meta, Shift)"
NO_REFERENCE = "a key holds no ${secrets...} or ${vars...} reference: text is typed with fill, not key by key"
U5_V11 = ("a critical step needs a strong postcondition (url_is, url_matches, download_started, "
          "upload_completed, or toast_contains/element_text_contains/aria_snapshot_matches with severity critical)")
U5_V1 = ("a critical step needs a strong postcondition (url_is, url_matches, download_started, "
         "upload_completed, or toast_contains/element_text_contains with severity critical)")


def press(key: str) -> str:
    """A plan with one target-less press of ``key`` (written as a YAML double-quoted string)."""
    quoted = key.replace("\\", "\\\\").replace('"', '\\"')
    return plan(f'- {{id: p, kind: press, key: "{quoted}"}}\n', extra=KEY_EXTRA)


# ---------------------------------------------------------------------------
# KEY: the closed grammar, located at the key

ACCEPTED_KEYS = ["Enter", "Tab", "Shift+Tab", "Escape", "Control++", "+", "ControlOrMeta+Enter", "a", "A", "7", "/",
                 "~", "F1", "F12", "Space", "ArrowDown", "Alt+Shift+ArrowLeft", "Meta+a",
                 "${vars.one}", "Control+${vars.one}", "${vars.digit}"]


@pytest.mark.parametrize("key", ACCEPTED_KEYS)
def test_a_key_in_the_grammar_is_valid(validate, key: str):
    (step,) = only_valid(validate(press(key), env=ENV)).plan.steps
    assert step.kind == "press" and step.key == key.replace("${vars.one}", "x").replace("${vars.digit}", "7")


REFUSED_KEYS = [
    ("Ctrl+A", NOT_A_MODIFIER.format("Ctrl")),
    ("Enter+Shift", NOT_A_MODIFIER.format("Enter")),
    ("F13", NOT_A_KEY.format("F13")),
    ("F0", NOT_A_KEY.format("F0")),
    ("é", NOT_A_KEY.format("é")),
    ("ab", NOT_A_KEY.format("ab")),
    ("enter", NOT_A_KEY.format("enter")),
    (" ", NOT_A_KEY.format(" ")),
    ("Control+", NOT_A_KEY.format("")),
    ("+a", NOT_A_MODIFIER.format("")),
    ("Shift+Shift+a", "a modifier is repeated in 'Shift+Shift+a'"),
    ("${secrets.pw}", NO_REFERENCE),
    ("Control+${secrets.pw}", NO_REFERENCE),
    ("${vars.word}", "a key takes ${vars...} of one character only (vars.word): "
                     "text is typed with fill, not key by key"),
]


@pytest.mark.parametrize("key, message", REFUSED_KEYS, ids=[k for k, _m in REFUSED_KEYS])
def test_a_key_outside_the_grammar_is_refused_at_the_key(validate, key: str, message: str):
    text = press(key)
    line, col = mark_at(text, "key: ^\"")
    only(only_problems(validate(text, env=ENV)), "KEY", "steps[0].key", line, col, message)


def test_a_key_of_a_step_group_takes_one_character_vars_only(validate, plan_dir: Path):
    """Vars a group substitutes itself are held to KEY as a plan's are; ``metadata.key`` is no key."""
    group = plan_dir / "plans" / "groups" / "search.steps.yaml"
    group.parent.mkdir(parents=True)
    group.write_text(textwrap.dedent("""\
        vars: {k: Enter}
        steps:
          - {id: go, kind: press, key: "${vars.k}", metadata: {key: "${vars.k}"}}
    """), encoding="utf-8")
    problems = only_problems(validate(plan("- use: groups/search.steps.yaml\n"))).problems
    assert [(p.rule, p.file, p.key_path, p.mark.line) for p in problems] == [
        ("KEY", "plans/groups/search.steps.yaml", "steps[0].key", 3)]
    # A metadata key named "key" in a plan is not a step key either.
    text = plan('- {id: go, kind: click, target: {type: css, selector: "#a"}, metadata: {key: "${vars.word}"}}\n',
                extra=KEY_EXTRA)
    only_valid(validate(text, env=ENV))


# ---------------------------------------------------------------------------
# INPUTS: each v1.1 key on its own kind only; press needs key, drag needs to

CSS_A = '{type: css, selector: "#a"}'
CSS_B = '{type: css, selector: "#b"}'
WRONG_KIND = [  # (key, how it is written, a step of a kind it does not belong to, who owns it)
    # (v1.3) scroll takes `to` too (a place), so the message names both owners.
    ("to", f"to: {CSS_B}", f"kind: click, target: {CSS_A}", "click", "drag and scroll"),
    ("to", f"to: {CSS_B}", f"kind: hover, target: {CSS_A}", "hover", "drag and scroll"),
    ("key", "key: Enter", f"kind: click, target: {CSS_A}", "click", "clear_storage, press and set_storage_item"),  # (v1.3) the storage key
    ("key", "key: Enter", "kind: stop", "stop", "clear_storage, press and set_storage_item"),  # (v1.3) the storage key
    ("key", "key: Enter", f"kind: fill, target: {CSS_A}, value: x", "fill", "clear_storage, press and set_storage_item"),  # (v1.3) the storage key
    ("direction", "direction: up", f"kind: click, target: {CSS_A}", "click", "scroll"),
    ("direction", "direction: up", f"kind: wait_for, target: {CSS_A}", "wait_for", "scroll"),
    ("button", "button: right", f"kind: hover, target: {CSS_A}", "hover", "click"),
    ("button", "button: right", f"kind: check, target: {CSS_A}", "check", "click"),
    ("click_count", "click_count: 2", "kind: press, key: Enter", "press", "click"),
    ("click_count", "click_count: 2", f"kind: uncheck, target: {CSS_A}", "uncheck", "click"),
    ("modifiers", "modifiers: [Shift]", f"kind: drag, target: {CSS_A}, to: {CSS_B}", "drag", "click"),
    ("modifiers", "modifiers: [Shift]", "kind: scroll", "scroll", "click"),
]


@pytest.mark.parametrize("key, written, step, kind, owner", WRONG_KIND,
                         ids=[f"{k}-on-{kind}" for k, _w, _s, kind, _o in WRONG_KIND])
def test_a_v11_key_on_another_kind_is_inputs(validate, key: str, written: str, step: str, kind: str, owner: str):
    text = plan(f"- {{id: act, {step}, {written}}}\n")
    line, col = mark_at(text, f"{key}: ^{written.split(': ', 1)[1]}")
    only(only_problems(validate(text)), "INPUTS", f"steps[0].{key}", line, col,
         f"{key!r} is not used by '{kind}' (only {owner})")


@pytest.mark.parametrize("step, key", [("{id: act, kind: press}", "key"),
                                       (f"{{id: act, kind: drag, target: {CSS_A}}}", "to")])
def test_press_needs_a_key_and_drag_a_to(validate, step: str, key: str):
    text = plan(f"- {step}\n")
    kind = "press" if key == "key" else "drag"
    only(only_problems(validate(text)), "INPUTS", f"steps[0].{key}", *mark_at(text, "{id: act"), f"'{kind}' needs {key!r}")


def test_a_modifier_listed_twice_is_inputs(validate):
    text = plan(f"- {{id: act, kind: click, target: {CSS_A}, modifiers: [Shift, Shift]}}\n")
    only(only_problems(validate(text)), "INPUTS", "steps[0].modifiers", *mark_at(text, "[Shift, Shift]"),
         "a modifier is listed twice")


@pytest.mark.parametrize("written, key, message", [
    ("direction: sideways", "direction", "must be one of: 'down', 'up', 'right' or 'left'"),
    ("click_count: 4", "click_count", "must be one of: 1, 2 or 3"),
    ("button: back", "button", "must be one of: 'left', 'right' or 'middle'"),
])
def test_a_v11_key_out_of_its_values_is_schema(validate, written: str, key: str, message: str):
    kind = "scroll" if key == "direction" else f"click, target: {CSS_A}"
    text = plan(f"- {{id: act, kind: {kind}, {written}}}\n")
    only(only_problems(validate(text)), "SCHEMA", f"steps[0].{key}", *mark_at(text, f"{key}: ^"), message)


# ---------------------------------------------------------------------------
# `to`: a target like the step's own (URL_TARGET, U2, U3, U4)

TO_CASES = [
    ("url", "to: {type: url, url: /x}", "URL_TARGET", "steps[0].to", "{type: url", "drag's `to` cannot be a url"),
    ("url-alternative", f"to: [{CSS_B}, {{type: url, url: /x}}]", "URL_TARGET", "steps[0].to[1]",
     "{type: url", "drag's `to` cannot be a url"),
    ("text-u2", "to: {type: text, text: Done}", "U2", "steps[0].to", "{type: text",
     "a text target needs exact: true or normalize_ws: true"),
    ("label-u2", "to: {type: label, text: Done}", "U2", "steps[0].to", "{type: label",
     "a label target needs exact: true or normalize_ws: true"),
    ("nth-u3", "to: {type: nth, index: 1, base: {type: css, selector: li}}", "U3", "steps[0].to", "{type: nth",
     "an nth target needs metadata.target_rationale on its step"),
    ("repeat-u4", f"to: [{CSS_B}, {CSS_B}]", "U4", "steps[0].to[1]", f"{CSS_B}, ^{CSS_B}",
     "alternative 1 repeats alternative 0"),
]


@pytest.mark.parametrize("written, rule, key_path, at, message", [c[1:] for c in TO_CASES], ids=[c[0] for c in TO_CASES])
def test_to_is_held_to_the_target_rules(validate, written: str, rule: str, key_path: str, at: str, message: str):
    text = plan(f"- {{id: act, kind: drag, target: {CSS_A}, {written}}}\n")
    only(only_problems(validate(text)), rule, key_path, *mark_at(text, at), message)


# ---------------------------------------------------------------------------
# The new conditions: targets, ARIA_SNAPSHOT, U1, U5

@pytest.mark.parametrize("condition", ["element_checked", "element_focused"])
def test_element_checked_and_focused_need_a_target_on_a_targetless_step(validate, condition: str):
    text = plan(f"- {{id: act, kind: assert, postconditions: [{{kind: {condition}}}]}}\n")
    only(only_problems(validate(text)), "CONDITION_TARGET", "steps[0].postconditions[0]",
         *mark_at(text, f"{{kind: {condition}}}"), f"{condition} needs args.target: this assert step has no element target")


@pytest.mark.parametrize("step", [
    f"{{id: act, kind: check, target: {CSS_A}, postconditions: [{{kind: element_checked}}]}}",
    f"{{id: act, kind: uncheck, target: {CSS_A}, postconditions: [{{kind: element_checked, args: {{checked: false}}}}]}}",
    f"{{id: act, kind: press, key: Tab, postconditions: [{{kind: element_focused, args: {{target: {CSS_B}}}}}]}}",
    '{id: act, kind: assert, postconditions: [{kind: aria_snapshot_matches, args: {snapshot: "- heading \\"Hi\\""}}]}',
    "{id: act, kind: scroll}",
    f"{{id: act, kind: scroll, target: {CSS_A}, direction: left}}",
    f"{{id: act, kind: hover, target: {CSS_A}}}",
    f"{{id: act, kind: click, target: {CSS_A}, button: right, click_count: 2, modifiers: [Shift, Alt]}}",
], ids=["checked-on-the-step's-target", "unchecked", "focused-own-target", "aria-on-the-body", "scroll-the-page",
        "scroll-a-container", "hover", "click-keys"])
def test_v11_steps_and_conditions_that_are_valid(validate, step: str):
    only_valid(validate(plan(f"- {step}\n")))


@pytest.mark.parametrize("snapshot, message", [
    ("heading", "an aria snapshot is a YAML list of '- role \\\"name\\\"' entries"),
    ("- [a", "the aria snapshot is not valid YAML: while parsing a flow sequence; did not find expected ',' or ']'"),
])
def test_an_aria_snapshot_that_is_no_template_is_refused(validate, snapshot: str, message: str):
    text = plan(f'- {{id: act, kind: assert, postconditions: [{{kind: aria_snapshot_matches, args: {{snapshot: "{snapshot}"}}}}]}}\n')
    only(only_problems(validate(text)), "ARIA_SNAPSHOT", "steps[0].postconditions[0].args.snapshot",
         *mark_at(text, f'"{snapshot}"'), message.replace('\\"', '"'))


@pytest.mark.parametrize("kind, extra", [("press", "key: Tab"), ("scroll", "direction: down")])
def test_u1_does_not_count_for_a_press_or_scroll_without_a_target(validate, kind: str, extra: str):
    """Without a target there is no element to count: CONDITION_TARGET alone says what is missing."""
    text = plan(f"- {{id: act, kind: {kind}, {extra}, postconditions: [{{kind: element_count_equals, args: {{count: 2}}}}]}}\n")
    only(only_problems(validate(text)), "CONDITION_TARGET", "steps[0].postconditions[0]",
         *mark_at(text, "{kind: element_count_equals"),
         f"element_count_equals needs args.target: this {kind} step has no element target")


@pytest.mark.parametrize("kind, extra", [("press", "key: Enter, target: {type: css, selector: '#q'}"),
                                         ("scroll", "target: {type: css, selector: '.grid'}"),
                                         ("check", "target: {type: css, selector: '#a'}")])
def test_u1_counts_for_a_new_kind_with_a_target(validate, kind: str, extra: str):
    text = plan(f"- {{id: act, kind: {kind}, {extra}, postconditions: [{{kind: element_count_equals, args: {{count: 2}}}}]}}\n")
    only(only_problems(validate(text)), "U1", "steps[0].postconditions[0].args.count", *mark_at(text, "count: ^2"),
         f"'{kind}' needs exactly one element (U1); count 2 contradicts it")


CRITICAL_STEPS = {
    "press": "kind: press, key: Enter, target: {type: label, text: Search, exact: true}",
    "hover": f"kind: hover, target: {CSS_A}",
    "check": f"kind: check, target: {CSS_A}",
    "uncheck": f"kind: uncheck, target: {CSS_A}",
    "drag": f"kind: drag, target: {CSS_A}, to: {CSS_B}",
    "scroll": "kind: scroll",
}


@pytest.mark.parametrize("kind", sorted(CRITICAL_STEPS))
def test_a_critical_step_of_a_new_kind_needs_a_strong_postcondition(validate, kind: str):
    text = plan(f"- {{id: act, criticality: critical, {CRITICAL_STEPS[kind]}}}\n")
    only(only_problems(validate(text)), "U5", "steps[0].postconditions", *mark_at(text, "postconditions: ^["), U5_V11)
    strong = '{kind: aria_snapshot_matches, severity: critical, args: {snapshot: "- heading \\"Saved\\""}}'
    only_valid(validate(plan(f"- {{id: act, criticality: critical, {CRITICAL_STEPS[kind]}, postconditions: [{strong}]}}\n")))
    weak = strong.replace("severity: critical", "severity: error")
    text = plan(f"- {{id: act, criticality: critical, {CRITICAL_STEPS[kind]}, postconditions: [{weak}]}}\n")
    assert [p.rule for p in only_problems(validate(text)).problems] == ["U5"]


def test_a_critical_v1_step_keeps_v1s_u5_message(validate):
    text = plan(f"- {{id: act, criticality: critical, kind: click, target: {CSS_A}}}\n")
    only(only_problems(validate(text)), "U5", "steps[0].postconditions", *mark_at(text, "postconditions: ^["), U5_V1)
    # One v1.1 condition makes the step v1.1, and the message names aria_snapshot_matches.
    text = plan(f"- {{id: act, criticality: critical, kind: click, target: {CSS_A}, postconditions: [{{kind: element_focused}}]}}\n")
    only(only_problems(validate(text)), "U5", "steps[0].postconditions",
         *mark_at(text, "postconditions: ^[{kind: element_focused"), U5_V11)


# ---------------------------------------------------------------------------
# TARGET_REQUIRED: v1 steps keep v1's message

@pytest.mark.parametrize("step, message", [
    ("kind: navigate", "'navigate' needs a target (only assert and stop may omit it)"),
    ("kind: click", "'click' needs a target (only assert and stop may omit it)"),
    ("kind: wait_for", "'wait_for' needs a target (only assert and stop may omit it)"),
    ("kind: click, button: right", "'click' needs a target (only assert, stop, press and scroll may omit it)"),
    ("kind: hover", "'hover' needs a target (only assert, stop, press and scroll may omit it)"),
    ("kind: check", "'check' needs a target (only assert, stop, press and scroll may omit it)"),
    ("kind: uncheck", "'uncheck' needs a target (only assert, stop, press and scroll may omit it)"),
    (f"kind: drag, to: {CSS_B}", "'drag' needs a target (only assert, stop, press and scroll may omit it)"),
], ids=["navigate", "click", "wait_for", "click-v11", "hover", "check", "uncheck", "drag"])
def test_target_required_names_the_kinds_that_may_omit_it(validate, step: str, message: str):
    text = plan(f"- {{id: act, {step}}}\n")
    only(only_problems(validate(text)), "TARGET_REQUIRED", "steps[0].target", *mark_at(text, "{id: act"), message)


# ---------------------------------------------------------------------------
# format_version

def spec(**fields) -> ActionSpec:
    allowed = [{"kind": "host_in_allowlist"}]
    return ActionSpec.model_validate({"id": "s", "criticality": "normal", "timeout_ms": 1000,
                                      "preconditions": allowed, "postconditions": allowed, **fields})


CSS = {"type": "css", "selector": "#a"}


@pytest.mark.parametrize("fields, version", [
    ({"kind": "click", "target": CSS}, "v1"),
    ({"kind": "assert"}, "v1"),
    ({"kind": "press", "key": "Enter"}, "v1.1"),
    ({"kind": "hover", "target": CSS}, "v1.1"),
    ({"kind": "scroll"}, "v1.1"),
    ({"kind": "click", "target": CSS, "button": "left"}, "v1.1"),  # a v1.1 key, even at its default
    ({"kind": "click", "target": CSS, "click_count": 1}, "v1.1"),
    ({"kind": "assert", "postconditions": [{"kind": "element_checked", "args": {"target": CSS}}]}, "v1.1"),
    ({"kind": "click", "target": CSS, "preconditions": [{"kind": "element_focused"}]}, "v1.1"),
    ({"kind": "assert", "postconditions": [{"kind": "aria_snapshot_matches", "args": {"snapshot": "- a"}}]}, "v1.1"),
])
def test_format_version_is_v11_for_any_v11_kind_key_or_condition(fields: dict, version: str):
    assert format_version(spec(**fields)) == version


def test_format_versions_lists_the_versions_a_plans_steps_use_oldest_first():
    v1, v11 = spec(kind="assert"), spec(kind="scroll")
    assert format_versions([v11, v1, v11]) == ["v1", "v1.1"]
    assert format_versions([v1]) == ["v1"] and format_versions([v11]) == ["v1.1"] and format_versions([]) == []


# ---------------------------------------------------------------------------
# Step groups: v1.1 steps expand and validate like v1 ones, their vars substituted in `to` and `key`

SEARCH_GROUP = """\
vars: {field: Search, source: card-1, dest: done, letter: a}
steps:
  - {id: query, kind: press, key: Enter, target: {type: label, text: "${vars.field}", exact: true}}
  - {id: all, kind: press, key: "Control+${vars.letter}"}
  - id: move
    kind: drag
    target: {type: testid, id: "${vars.source}"}
    to: [{type: testid, id: "${vars.dest}"}, {type: text, text: "${vars.dest}", exact: true}]
  - {id: menu, kind: click, target: {type: testid, id: "${vars.source}"}, button: right, click_count: 2}
"""


def test_a_step_group_with_press_drag_and_to_expands_and_validates(validate, plan_dir: Path):
    group = plan_dir / "plans" / "groups" / "search.steps.yaml"
    group.parent.mkdir(parents=True)
    group.write_text(SEARCH_GROUP, encoding="utf-8")
    valid = only_valid(validate(plan("- use: groups/search.steps.yaml\n  with: {dest: Done, letter: A}\n")))
    query, all_, move, menu = valid.plan.steps
    assert (query.id, query.key, query.target.text) == ("search.query", "Enter", "Search")
    assert all_.key == "Control+A"
    assert [t.model_dump(exclude_none=True) for t in move.to] == [{"type": "testid", "id": "Done"},
                                                                  {"type": "text", "text": "Done", "exact": True}]
    assert move.target.id == "card-1" and (menu.button, menu.click_count) == ("right", 2)
    assert format_versions(valid.plan.all_steps()) == ["v1.1"]


def test_a_group_steps_to_is_held_to_the_target_rules_in_the_groups_terms(validate, plan_dir: Path):
    group = plan_dir / "plans" / "groups" / "move.steps.yaml"
    group.parent.mkdir(parents=True)
    group.write_text('steps:\n  - {id: move, kind: drag, target: {type: testid, id: a}, to: {type: url, url: /x}}\n',
                     encoding="utf-8")
    (problem,) = only_problems(validate(plan("- use: groups/move.steps.yaml\n"))).problems
    assert (problem.rule, problem.file, problem.key_path, problem.mark.line, problem.message) == (
        "URL_TARGET", "plans/groups/move.steps.yaml", "steps[0].to", 2, "drag's `to` cannot be a url")


def test_the_outline_of_a_v11_plan_agrees_with_its_validation(plan_dir: Path):
    """Collection reads a v1.1 plan as a v1 one: rows, names, tags, the states its groups save."""
    from pytest_cometlocal.contract.validate.outline import PlanOutline, outline_text
    from pytest_cometlocal.contract.validate.validated import ValidationContext
    from pytest_cometlocal.contract.validate.validator import validate_text

    group = plan_dir / "plans" / "groups" / "search.steps.yaml"
    group.parent.mkdir(parents=True)
    group.write_text(SEARCH_GROUP + "save_storage_state: searched\n", encoding="utf-8")
    text = plan("- use: groups/search.steps.yaml\n  with: {letter: '${vars.letter}'}\n"
                "- {id: sort, kind: drag, target: {type: testid, id: a}, to: {type: testid, id: b}}\n",
                name="search ${vars.letter}", extra="tags: [smoke]\nparametrize: {letter: [a, b]}\n")
    path = plan_dir / "plans" / "p.actions.yaml"
    path.write_text(text, encoding="utf-8")
    ctx = ValidationContext(root=plan_dir, plan_path=path, env={})
    outlines = outline_text(path.read_bytes(), ctx, "plans/p.actions.yaml")
    results = validate_text(path.read_bytes(), ctx, file="plans/p.actions.yaml")
    assert all(isinstance(o, PlanOutline) for o in outlines)
    assert [o.item_name for o in outlines] == [r.item_name for r in results] == ["search a[a]", "search b[b]"]
    for outline, result in zip(outlines, results):
        assert outline.finds(result) and outline.tags == tuple(result.plan.tags) == ("smoke",)
        assert outline.storage_saves == tuple(name for _step, name in result.storage_saves) == ("searched",)
        assert result.plan.steps[1].key == f"Control+{outline.row_id}"
