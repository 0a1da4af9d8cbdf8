"""The checks plan format v1.2 adds, as validation sees them: the new conditions' shapes, REGEX at
each pattern, POINTER, no secret in a storage item's or cookie's comparison, ROLE_FILTER at the
filter's key, and ``format_version`` (v1.2 for a new condition or a role filter, anywhere).

As in test_rules_v11.py, each case is a plan and the one problem it must have, located.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract import json_values as pointer
from pytest_cometlocal.contract.model.actionspec import format_version, format_versions
from pytest_cometlocal.contract.model.conditions import describe_condition
from pytest_cometlocal.contract.model.targets import describe_target
from tests.support import mark_at, only, only_problems, only_valid, plan

ENV = {"PW": "hunter2"}
EXTRA = "secrets: {pw: {env: PW}}\n"


def asserting(condition: str, target: str = "{type: testid, id: t}") -> str:
    """A plan with one assert step on ``target`` whose postcondition is ``condition`` (flow YAML)."""
    return plan(f"- {{id: a, kind: assert, target: {target}, postconditions: [{condition}]}}\n", extra=EXTRA)


VALID = [
    "{kind: element_hidden}",
    "{kind: element_text_matches, args: {pattern: '^\\d+ items? left$'}}",
    "{kind: element_value_contains, args: {text: ada}}",
    "{kind: element_value_matches, args: {pattern: '@example\\.org$'}}",
    "{kind: element_attr_matches, args: {attr: class, pattern: '(^| )completed( |$)'}}",
    "{kind: element_texts_equal, args: {target: {type: css, selector: li}, texts: [a, '/b+/', '']}}",
    "{kind: element_texts_equal, args: {target: {type: css, selector: li}, texts: []}}",
    "{kind: storage_item, args: {area: local, key: todos}}",
    "{kind: storage_item, args: {area: local, key: todos, pointer: /0/completed, equals: true}}",
    "{kind: storage_item, args: {area: session, key: s, pointer: '', length: 2}}",
    "{kind: storage_item, args: {area: local, key: todos, pointer: /0/title, equals: null}}",
    "{kind: storage_item, args: {area: local, key: 'a/b', pointer: '/a~1b/~0', matches: x}}",
    "{kind: cookie, args: {name: theme, equals: dark}}",
    "{kind: cookie, args: {name: theme, matches: '^d'}}",
]


@pytest.mark.parametrize("condition", VALID)
def test_each_new_condition_validates_and_makes_the_step_v12(validate, condition: str):
    (step,) = only_valid(validate(asserting(condition), env=ENV)).plan.steps
    assert format_version(step) == "v1.2"
    assert format_versions([step]) == ["v1.2"]


def test_equals_null_is_a_value_not_an_absence(validate):
    (step,) = only_valid(validate(asserting(VALID[10]), env=ENV)).plan.steps
    args = step.postconditions[0].args
    assert args.equals is None and "equals" in args.model_fields_set


@pytest.mark.parametrize("condition, at, key_path", [
    ("{kind: element_text_matches, args: {pattern: '(a'}}", "'(a'", "args.pattern"),
    ("{kind: element_value_matches, args: {pattern: '[z-a]'}}", "'[z-a]'", "args.pattern"),
    ("{kind: element_attr_matches, args: {attr: class, pattern: '*x'}}", "'*x'", "args.pattern"),
    ("{kind: storage_item, args: {area: local, key: k, matches: '(?P<'}}", "'(?P<'", "args.matches"),
    ("{kind: cookie, args: {name: c, matches: ')'}}", "')'", "args.matches"),
    ("{kind: element_texts_equal, args: {target: {type: css, selector: li}, texts: [ok, '/(/']}}", "'/(/'",
     "args.texts[1]"),
])
def test_a_pattern_that_does_not_compile_is_regex_at_the_pattern(validate, condition: str, at: str, key_path: str):
    text = asserting(condition)
    invalid = only_problems(validate(text, env=ENV))
    only(invalid, "REGEX", f"steps[0].postconditions[0].{key_path}", *mark_at(text, at))
    assert invalid.problems[0].message.startswith("invalid regular expression: ")


def test_a_pattern_python_refuses_is_regex_not_a_crash(validate):
    text = asserting("{kind: element_text_matches, args: {pattern: 'a{4294967296}'}}")
    invalid = only_problems(validate(text, env=ENV))
    only(invalid, "REGEX", "steps[0].postconditions[0].args.pattern", *mark_at(text, "'a{"))


@pytest.mark.parametrize("written", ["no-slash", "/a~2b", "/~"])
def test_a_malformed_pointer_is_pointer_at_the_pointer(validate, written: str):
    text = asserting(f"{{kind: storage_item, args: {{area: local, key: k, pointer: '{written}'}}}}")
    only(only_problems(validate(text, env=ENV)), "POINTER", "steps[0].postconditions[0].args.pointer",
         *mark_at(text, f"'{written}'"))


@pytest.mark.parametrize("condition, name", [
    ("{kind: storage_item, args: {area: local, key: k, equals: '${secrets.pw}'}}", "equals"),
    ("{kind: storage_item, args: {area: local, key: k, pointer: /a, equals: {t: '${secrets.pw}'}}}", "equals"),
    ("{kind: cookie, args: {name: c, matches: 'x${secrets.pw}'}}", "matches"),
])
def test_storage_and_cookie_comparisons_cannot_name_a_secret(validate, condition: str, name: str):
    text = asserting(condition)
    kind = "cookie" if "cookie" in condition else "storage_item"
    only(only_problems(validate(text, env=ENV)), "INTERPOLATION", f"steps[0].postconditions[0].args.{name}",
         *mark_at(text, f"{name}: ^"), f"{kind}'s {name} cannot name a secret: it is compared with page data, "
         "which a failure shows")


@pytest.mark.parametrize("name, holds", [
    ('"session\\r\\nX-Injected: 1"', "'\\n', '\\r'"),
    ('"a\\nb"', "'\\n'"),
    ('"a\\x00b"', "'\\x00'"),
    ('"a\\tb"', "'\\t'"),
    ('"a\\x7fb"', "'\\x7f'"),
    ("'a;b'", "';'"),
    ("'a=b'", "'='"),
    ("' theme'", None),
])
def test_a_cookie_name_no_cookie_can_have_is_located(validate, name: str, holds: str | None):
    text = asserting(f"{{kind: cookie, args: {{name: {name}, equals: dark}}}}")
    invalid = only_problems(validate(text, env=ENV))
    only(invalid, "COOKIE_NAME", "steps[0].postconditions[0].args.name", *mark_at(text, "args: {name: ^"))
    message = invalid.problems[0].message
    assert (f"a cookie name cannot hold {holds}:" in message) if holds else "start or end with a space" in message


def test_a_cookie_name_browsers_keep_is_valid(validate):
    for name in ("__Host-session", "theme", "a.b_c-d", "x[0]", "caf\u00e9"):
        only_valid(validate(asserting(f"{{kind: cookie, args: {{name: '{name}'}}}}"), env=ENV))


@pytest.mark.parametrize("condition", [
    "{kind: storage_item, args: {area: local, key: k, equals: 1, length: 1}}",
    "{kind: cookie, args: {name: c, equals: a, matches: b}}",
    "{kind: storage_item, args: {area: disk, key: k}}",
    "{kind: storage_item, args: {area: local, key: k, equals: 3}}",
    "{kind: element_texts_equal, args: {texts: [a]}}",
])
def test_shapes_the_models_refuse_are_schema(validate, condition: str):
    invalid = only_problems(validate(asserting(condition), env=ENV))
    assert invalid.violated_rules == ["SCHEMA"]
    assert all(p.key_path.startswith("steps[0].postconditions[0]") for p in invalid.problems)


def test_element_hidden_without_any_target_is_condition_target(validate):
    text = plan("- {id: a, kind: assert, postconditions: [{kind: element_hidden}]}\n")
    only(only_problems(validate(text)), "CONDITION_TARGET", "steps[0].postconditions[0]", *mark_at(text, "{kind: element_hidden"))


# ---------------------------------------------------------------------------
# ROLE_FILTER


@pytest.mark.parametrize("target", [
    "{type: role, role: heading, level: 2}",
    "{type: role, role: checkbox, checked: true, disabled: false}",
    "{type: role, role: button, expanded: false, pressed: true}",
    "{type: role, role: option, selected: true, checked: false}",
    "{type: role, role: listitem, include_hidden: true}",
    "{type: role, role: switch, checked: true}",
    "{type: role, role: treeitem, expanded: true, selected: false}",
])
def test_a_filter_on_a_role_aria_defines_it_for_is_valid_and_v12(validate, target: str):
    (step,) = only_valid(validate(plan(f"- {{id: c, kind: click, target: {target}}}\n"))).plan.steps
    assert format_version(step) == "v1.2"


@pytest.mark.parametrize("target, key, roles", [
    ("{type: role, role: button, level: 1}", "level", "heading"),
    ("{type: role, role: button, checked: true}", "checked",
     "checkbox, menuitemcheckbox, menuitemradio, option, radio, switch, treeitem"),
    ("{type: role, role: heading, expanded: true}", "expanded", None),
    ("{type: role, role: checkbox, selected: true}", "selected", None),
    ("{type: role, role: checkbox, pressed: true}", "pressed", "button"),
    ("{type: role, role: heading, disabled: true}", "disabled", None),
])
def test_a_filter_on_another_role_is_role_filter_at_the_key(validate, target: str, key: str, roles: str | None):
    text = plan(f"- {{id: c, kind: click, target: {target}}}\n")
    invalid = only_problems(validate(text))
    role = target.split("role: ")[1].split(",")[0]
    only(invalid, "ROLE_FILTER", f"steps[0].target.{key}", *mark_at(text, f"{key}: ^"))
    assert invalid.problems[0].message.startswith(f"{key!r} does not apply to role {role!r} (only ")
    if roles is not None:
        assert invalid.problems[0].message.endswith(f"(only {roles})")


def test_role_filter_is_checked_inside_alternatives_frames_and_condition_targets(validate):
    text = plan("- id: c\n  kind: click\n  target: [{type: testid, id: x}, {type: frame, selector: iframe, "
                "inner: {type: role, role: link, level: 2}}]\n"
                "  postconditions: [{kind: element_visible, args: {target: {type: role, role: img, pressed: false}}}]\n")
    invalid = only_problems(validate(text))
    assert [(p.rule, p.key_path) for p in invalid.problems] == [
        ("ROLE_FILTER", "steps[0].target[1].inner.level"),
        ("ROLE_FILTER", "steps[0].postconditions[0].args.target.pressed")]


@pytest.mark.parametrize("level", [0, 7])
def test_a_level_outside_one_to_six_is_schema(validate, level: int):
    text = plan(f"- {{id: c, kind: click, target: {{type: role, role: heading, level: {level}}}}}\n")
    invalid = only_problems(validate(text))
    assert invalid.violated_rules == ["SCHEMA"]
    assert invalid.problems[0].key_path == "steps[0].target.level"


def test_a_role_filter_in_a_condition_target_makes_the_step_v12_and_a_plain_role_stays_v1(validate):
    text = plan("- {id: c, kind: click, target: {type: role, role: button, name: Go}}\n"
                "- {id: d, kind: assert, postconditions: [{kind: element_visible, args: {target: "
                "{type: nth, base: {type: role, role: heading, level: 1}, index: 0}}}], "
                "metadata: {target_rationale: first}}\n")
    plain, filtered = only_valid(validate(text)).plan.steps
    assert (format_version(plain), format_version(filtered)) == ("v1", "v1.2")
    assert format_versions([filtered, plain]) == ["v1", "v1.2"]


# ---------------------------------------------------------------------------
# Readers: describe_target / describe_condition print the filters and the new args


def test_descriptions_print_the_filters_and_args(validate):
    text = plan("- id: c\n  kind: click\n  target: {type: role, role: checkbox, name: Done, checked: false, disabled: false}\n"
                "  postconditions: [{kind: storage_item, args: {area: local, key: todos, pointer: /0/completed, "
                "equals: true}}]\n")
    (step,) = only_valid(validate(text)).plan.steps
    assert describe_target(step.target) == 'role=checkbox[checked=false][disabled=false][name="Done"]'
    assert describe_condition(step.postconditions[0]) == (
        "storage_item (area=local, key=todos, pointer=/0/completed, equals=True)")


# ---------------------------------------------------------------------------
# JSON Pointer (RFC 6901)


def test_pointer_resolves_as_rfc_6901_says():
    doc = {"foo": ["bar", "baz"], "": 0, "a/b": 1, "m~n": 8, "items": [{"completed": False}]}
    assert pointer.resolve(doc, "") == doc
    assert pointer.resolve(doc, "/foo/0") == "bar"
    assert pointer.resolve(doc, "/") == 0
    assert pointer.resolve(doc, "/a~1b") == 1
    assert pointer.resolve(doc, "/m~0n") == 8
    assert pointer.resolve(doc, "/items/0/completed") is False
    for missing in ("/foo/2", "/foo/01", "/foo/-", "/nope", "/foo/0/x"):
        assert pointer.resolve(doc, missing) is pointer.MISSING


def test_allure_titles_and_describe_step_print_the_filters(validate):
    from pytest_cometlocal.contract.model.actionspec import describe_step
    from pytest_cometlocal.plugin.reporting.allure_report import step_title

    text = plan("- {id: h, kind: click, target: {type: role, role: heading, level: 2, name: Profile}}\n"
                "- {id: p, kind: click, target: {type: role, role: button, name: Mute}}\n")
    filtered, plain = only_valid(validate(text)).plan.steps
    assert describe_step(filtered) == 'click role=heading[level=2][name="Profile"]'
    assert step_title(filtered) == 'h · click role=heading[level=2][name="Profile"]'
    assert step_title(plain) == 'p · click · role=button[name="Mute"]'  # a v1 step keeps v1's title
