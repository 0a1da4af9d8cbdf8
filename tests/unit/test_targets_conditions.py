"""Target v1 (9 types) and Condition v1 (17 kinds): every shape valid, and
every shape with a wrong, missing or foreign field rejected as SCHEMA with the
exact key path and line.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from pytest_cometlocal.contract.model import conditions as C
from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.actionspec import V12_CONDITION_KINDS
from tests.support import col_of, line_of, only, only_problems, only_valid, plan


def target_step(target: str, kind: str = "click", metadata: str = "") -> str:
    """A one-step plan whose step target is written on its own line ``target: ...``."""
    meta = f"\n  metadata: {metadata}" if metadata else ""
    return plan(f"""\
- id: go
  kind: {kind}{meta}
  target: {target}
""")


# ---------------------------------------------------------------------------
# Targets: valid


VALID_TARGETS = [
    ("testid", "{type: testid, id: submit}", "click", "", T.TestIdTarget),
    ("role", "{type: role, role: button}", "click", "", T.RoleTarget),
    ("role_name_exact", "{type: role, role: button, name: Sign in, exact: true}", "click", "", T.RoleTarget),
    ("label", "{type: label, text: Email, exact: true}", "click", "", T.LabelTarget),
    ("css", '{type: css, selector: "form > button.primary"}', "click", "", T.CssTarget),
    ("xpath", '{type: xpath, selector: "//button[@id=\'go\']"}', "click", "", T.XPathTarget),
    ("text", "{type: text, text: Reports, normalize_ws: true}", "click", "", T.TextTarget),
    ("frame", '{type: frame, selector: "iframe#pay", inner: {type: testid, id: card}}', "click", "", T.FrameTarget),
    ("nth", "{type: nth, base: {type: css, selector: li}, index: 2}", "click", "{target_rationale: third item}", T.NthTarget),
    ("url", "{type: url, url: /login}", "navigate", "", T.UrlTarget),
    ("url_absolute", '{type: url, url: "https://127.0.0.1:8000/x?y=1#z"}', "navigate", "", T.UrlTarget),
]


@pytest.mark.parametrize(("target", "kind", "metadata", "model"), [v[1:] for v in VALID_TARGETS], ids=[v[0] for v in VALID_TARGETS])
def test_valid_target(validate, target, kind, metadata, model):
    step = only_valid(validate(target_step(target, kind, metadata))).plan.steps[0]
    assert isinstance(step.target, model)


def test_valid_target_fields_are_kept(validate):
    role = only_valid(validate(target_step("{type: role, role: button, name: Sign in, exact: true}"))).plan.steps[0].target
    assert (role.role, role.name, role.exact) == ("button", "Sign in", True)
    frame = only_valid(validate(target_step('{type: frame, selector: "#f", inner: {type: css, selector: b}}'))).plan.steps[0].target
    assert frame.selector == "#f" and frame.inner == T.CssTarget(type="css", selector="b")
    nth = only_valid(
        validate(target_step("{type: nth, base: {type: testid, id: row}, index: 0}", metadata="{target_rationale: first}"))
    ).plan.steps[0].target
    assert nth.index == 0 and nth.base == T.TestIdTarget(type="testid", id="row")


def test_target_types_are_the_nine_types_a_plan_can_use():
    # Each name in TARGET_TYPES is accepted as a target (test_valid_target has a case of each);
    # test_unknown_target_type_lists_expected_types: an unknown one is refused naming them all.
    assert {re.match(r"\{type: (\w+)", v[1]).group(1) for v in VALID_TARGETS} == set(T.TARGET_TYPES)
    assert len(set(T.TARGET_TYPES)) == len(T.TARGET_TYPES) == 9


# ---------------------------------------------------------------------------
# Targets: wrong or missing fields


BAD_TARGETS = [
    # (id, target, kind, key path below steps[0].target, message fragment)
    ("testid_missing_id", "{type: testid}", "click", ".id", "required key 'id' is missing"),
    ("testid_empty_id", '{type: testid, id: ""}', "click", ".id", "at least 1 character"),
    ("testid_selector", "{type: testid, id: a, selector: b}", "click", ".selector", "unknown key 'selector'"),
    ("role_missing_role", "{type: role, name: Go}", "click", ".role", "required key 'role' is missing"),
    ("role_exact_string", "{type: role, role: button, exact: 'true'}", "click", ".exact", "valid boolean"),
    ("role_empty_name", '{type: role, role: button, name: ""}', "click", ".name", "at least 1 character"),
    ("role_text", "{type: role, role: button, text: Go}", "click", ".text", "unknown key 'text'"),
    ("label_missing_text", "{type: label, exact: true}", "click", ".text", "required key 'text' is missing"),
    ("label_text_number", "{type: label, text: 5, exact: true}", "click", ".text", "valid string"),
    ("css_missing_selector", "{type: css}", "click", ".selector", "required key 'selector' is missing"),
    ("css_empty_selector", '{type: css, selector: ""}', "click", ".selector", "at least 1 character"),
    ("css_id", "{type: css, selector: a, id: b}", "click", ".id", "unknown key 'id'"),
    ("xpath_missing_selector", "{type: xpath}", "click", ".selector", "required key 'selector' is missing"),
    ("xpath_list_selector", "{type: xpath, selector: [a]}", "click", ".selector", "valid string"),
    ("text_missing_text", "{type: text, exact: true}", "click", ".text", "required key 'text' is missing"),
    ("text_normalize_int", "{type: text, text: a, normalize_ws: 1}", "click", ".normalize_ws", "valid boolean"),
    ("frame_missing_inner", '{type: frame, selector: "#f"}', "click", ".inner", "required key 'inner' is missing"),
    ("frame_missing_selector", "{type: frame, inner: {type: css, selector: b}}", "click", ".selector", "required key 'selector' is missing"),
    ("frame_inner_bad", '{type: frame, selector: "#f", inner: {type: css}}', "click", ".inner.selector", "required key 'selector' is missing"),
    ("nth_missing_base", "{type: nth, index: 0}", "click", ".base", "required key 'base' is missing"),
    ("nth_missing_index", "{type: nth, base: {type: css, selector: li}}", "click", ".index", "required key 'index' is missing"),
    ("nth_negative_index", "{type: nth, base: {type: css, selector: li}, index: -1}", "click", ".index", "greater than or equal to 0"),
    ("nth_string_index", "{type: nth, base: {type: css, selector: li}, index: '1'}", "click", ".index", "valid integer"),
    ("url_missing_url", "{type: url}", "navigate", ".url", "required key 'url' is missing"),
    ("url_empty_url", '{type: url, url: ""}', "navigate", ".url", "at least 1 character"),
    ("url_selector", "{type: url, url: /x, selector: a}", "navigate", ".selector", "unknown key 'selector'"),
    ("missing_type", "{selector: a}", "click", "", "'type' is required here"),
    ("not_a_mapping", "button", "click", "", "must be a mapping"),
    ("empty_list", "[]", "click", "", "must not be empty"),
]


@pytest.mark.parametrize(("target", "kind", "suffix", "fragment"), [b[1:] for b in BAD_TARGETS], ids=[b[0] for b in BAD_TARGETS])
def test_bad_target(validate, target, kind, suffix, fragment):
    text = target_step(target, kind, "{target_rationale: r}" if "nth" in target else "")
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].target" + suffix, line_of(text, "target:"))
    assert fragment in inv.problems[0].message, inv.problems[0].message


def test_bad_target_field_points_at_the_value_column(validate):
    text = target_step('{type: css, selector: ""}')
    problem = only_problems(validate(text)).problems[0]
    line = textwrap.dedent(text).splitlines()[problem.mark.line - 1]
    assert problem.mark.col == line.index('""') + 1


def test_bad_field_in_an_alternative(validate):
    text = plan("""\
        - id: go
          kind: click
          target:
            - {type: testid, id: go}
            - {type: role, role: button, exact: 1}
    """)
    only(only_problems(validate(text)), "SCHEMA", "steps[0].target[1].exact", line_of(text, "exact: 1"))


def test_unknown_target_type_lists_expected_types(validate):
    text = target_step('{type: csss, selector: "#a"}')
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].target", line_of(text, "target:"))
    assert inv.problems[0].message == ("unknown target type 'csss'; did you mean 'css'?; expected one of: "
                                       + ", ".join(map(repr, T.TARGET_TYPES)))


def test_unknown_target_type_in_frame_inner(validate):
    text = target_step('{type: frame, selector: "#f", inner: {type: button}}')
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].target.inner", line_of(text, "target:"), col_of(text, "{type: button}"),
         "unknown target type 'button'; did you mean role (role: button)?; expected one of: "
         + ", ".join(map(repr, T.TARGET_TYPES)))


def test_unknown_aria_role_gives_close_matches(validate):
    text = target_step("{type: role, role: buton, name: Go}")
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].target.role", line_of(text, "target:"))
    message = inv.problems[0].message
    assert message.startswith(f"'buton' is not one of the {len(T.ARIA_ROLES)} allowed values")
    assert "close matches: button" in message


def test_unknown_aria_role_without_close_match(validate):
    text = target_step("{type: role, role: zzzzzzzz}")
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].target.role", line_of(text, "target:"),
         message=f"'zzzzzzzz' is not one of the {len(T.ARIA_ROLES)} allowed values")


@pytest.mark.parametrize("role", ["button", "link", "textbox", "checkbox", "heading", "dialog", "combobox", "tab"])
def test_common_aria_roles_are_valid(validate, role):
    only_valid(validate(target_step(f"{{type: role, role: {role}}}")))


def test_aria_role_is_case_sensitive(validate):
    text = target_step("{type: role, role: Button}")
    only(only_problems(validate(text)), "SCHEMA", "steps[0].target.role", line_of(text, "target:"))


# ---------------------------------------------------------------------------
# Conditions: valid


# (kind, args yaml or None, step kind, target) ; every condition is written as a postcondition
VALID_CONDITIONS = [
    ("url_is", "{url: /dashboard}", "click"),
    ("url_matches", '{pattern: "/dash(board)?$"}', "click"),
    ("host_in_allowlist", None, "click"),
    ("host_in_allowlist", "{}", "click"),
    ("title_contains", "{text: Dashboard}", "click"),
    ("element_exists", None, "click"),
    ("element_exists", "{target: {type: testid, id: x}}", "click"),
    ("element_visible", None, "click"),
    ("element_visible", "{target: [{type: testid, id: x}, {type: css, selector: .x}]}", "click"),
    ("element_enabled", None, "click"),
    ("element_enabled", "{target: {type: css, selector: .x}}", "click"),
    ("element_clickable", None, "click"),
    ("element_clickable", "{target: {type: role, role: button}}", "click"),
    ("element_count_equals", "{count: 1}", "click"),
    ("element_count_equals", "{count: 0, target: {type: css, selector: .err}}", "click"),
    ("element_text_contains", "{text: Welcome}", "click"),
    ("element_text_contains", '{text: "", target: {type: testid, id: msg}}', "click"),
    ("element_attr_equals", "{attr: aria-expanded, value: 'true'}", "click"),
    ("element_attr_equals", "{attr: href, value: /x, target: {type: testid, id: a}}", "click"),
    ("element_value_equals", "{value: alice}", "fill"),
    ("element_value_equals", "{value: '', target: {type: css, selector: '#q'}}", "fill"),
    ("network_idle", None, "click"),
    ("network_idle", "{}", "click"),
    ("no_blocking_overlay", None, "click"),
    ("no_blocking_overlay", "{target: {type: css, selector: '#cookie'}}", "click"),
    ("toast_contains", "{text: Saved}", "click"),
    ("download_started", None, "click"),
    ("download_started", "{filename: '\\.csv$'}", "click"),
    ("upload_completed", None, "upload"),
    ("upload_completed", "{text: invoice.pdf, target: {type: testid, id: uploaded}}", "upload"),
    ("element_checked", None, "click"),  # v1.1
    ("element_checked", "{checked: false, target: {type: role, role: switch, name: Dark mode}}", "click"),
    ("element_focused", None, "click"),
    ("element_focused", "{target: {type: label, text: Search, exact: true}}", "click"),
    ("aria_snapshot_matches", "{snapshot: '- heading \"Products\"'}", "click"),
    ("aria_snapshot_matches", "{snapshot: '- button /Save \\d+/', target: {type: testid, id: form}}", "click"),
    ("element_hidden", None, "click"),  # v1.2
    ("element_text_matches", "{pattern: '^Saved'}", "click"),
    ("element_value_contains", "{text: ada}", "fill"),
    ("element_value_matches", "{pattern: '@'}", "fill"),
    ("element_attr_matches", "{attr: class, pattern: active}", "click"),
    ("element_texts_equal", "{target: {type: css, selector: li}, texts: [a, b]}", "click"),
    ("storage_item", "{area: local, key: todos, pointer: /0, length: 2}", "click"),
    ("cookie", "{name: session}", "click"),
    ("page_count_equals", "{count: 2}", "click"),  # v1.2 (pages)
    ("request_seen", "{url: '**/api/notes', method: POST, count: 1}", "click"),  # v1.3 (traffic)
    ("accessibility_clean", None, "click"),  # v1.2 (audits)
    ("accessibility_clean", "{disable: [label], impact_at_least: critical}", "click"),
    ("screenshot_matches", "{name: home, mask: [{type: testid, id: clock}], max_diff_ratio: 0.01}", "click"),  # audits
    ("cookie_count", "{name: session, count: 1}", "click"),  # v1.3 (state; tests/unit/test_v13_state_rules.py)
    ("storage_items", "{area: local, key_matches: ^todo-, count: 2, every: {pointer: /done, equals: false}}", "click"),
    ("storage_equals", "{area: session, equals: {tab: todos}}", "click"),
    ("element_css", "{property: color, equals: 'rgb(0, 0, 0)'}", "click"),  # v1.3 (element checks)
    ("element_in_viewport", None, "click"),
    ("element_html_contains", "{text: <b>}", "click"),
]


def condition_step(cond: str, step_kind: str = "click", phase: str = "postconditions") -> str:
    extra = {"fill": "\n  value: alice", "select": "\n  value: a", "upload": "\n  file_ref: invoice.pdf"}.get(step_kind, "")
    return plan(f"""\
- id: go
  kind: {step_kind}
  target: {{type: css, selector: "#go"}}{extra}
  {phase}:
    - {cond}
""")


@pytest.mark.parametrize(
    ("kind", "args", "step_kind"),
    VALID_CONDITIONS,
    ids=[f"{c[0]}-{'args' if c[1] else 'noargs'}-{i}" for i, c in enumerate(VALID_CONDITIONS)],
)
@pytest.mark.parametrize("phase", ["preconditions", "postconditions"])
def test_valid_condition(validate, kind, args, step_kind, phase):
    cond = f"{{kind: {kind}}}" if args is None else f"{{kind: {kind}, args: {args}}}"
    step = only_valid(validate(condition_step(cond, step_kind, phase))).plan.steps[0]
    conditions = getattr(step, phase)
    assert len(conditions) == 1
    assert conditions[0].kind == kind
    assert conditions[0].severity == "error"


def test_every_condition_kind_is_covered():
    from pytest_cometlocal.contract.model.actionspec import V12_CONDITION_KINDS, V13_CONDITION_KINDS

    # (v1.2) The response_* conditions belong to a request's postconditions: test_rules_v12_request.py has them.
    assert {c[0] for c in VALID_CONDITIONS} == set(C.CONDITION_KINDS) - C.RESPONSE_KINDS
    from pytest_cometlocal.contract.model.actionspec import V13_CONDITION_KINDS

    assert len(C.CONDITION_KINDS) == 34 + len(V13_CONDITION_KINDS)  # with the audits: accessibility_clean, screenshot_matches
    # v1's 17 kinds, the three v1.1 adds, and v1.2's nine (tests/unit/test_rules_v12_checks.py; page_count_equals).
    assert len(set(C.CONDITION_KINDS) - C.EXTENSION_CONDITION_KINDS - V12_CONDITION_KINDS - V13_CONDITION_KINDS) == 17
    assert C.EXTENSION_CONDITION_KINDS == {"element_checked", "element_focused", "aria_snapshot_matches"}


def test_condition_args_are_parsed(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - {kind: url_is, args: {url: /a}}
            - {kind: element_count_equals, args: {count: 1}}
            - {kind: element_attr_equals, args: {attr: id, value: x}}
            - {kind: download_started, args: {filename: x}}
            - {kind: upload_completed}
    """)
    conds = only_valid(validate(text)).plan.steps[0].postconditions
    assert conds[0].args.url == "/a"
    assert conds[1].args.count == 1 and conds[1].args.target is None
    assert (conds[2].args.attr, conds[2].args.value) == ("id", "x")
    assert conds[3].args.filename == "x"
    assert conds[4].args.target is None and conds[4].args.text is None


# ---------------------------------------------------------------------------
# Conditions: missing required arg or foreign arg


BAD_CONDITIONS = [
    # (kind, args, key path below the condition, message fragment)
    ("url_is", "{}", ".args.url", "required key 'url' is missing"),
    ("url_is", None, ".args", "required key 'args' is missing"),
    ("url_is", '{url: ""}', ".args.url", "at least 1 character"),
    ("url_matches", "{}", ".args.pattern", "required key 'pattern' is missing"),
    ("url_matches", "{pattern: x, url: y}", ".args.url", "unknown key 'url'"),
    ("host_in_allowlist", "{url: x}", ".args.url", "unknown key 'url'"),
    ("title_contains", "{}", ".args.text", "required key 'text' is missing"),
    ("title_contains", "{text: a, target: {type: css, selector: a}}", ".args.target", "unknown key 'target'"),
    ("element_exists", "{text: x}", ".args.text", "unknown key 'text'"),
    ("element_visible", "{count: 1}", ".args.count", "unknown key 'count'"),
    ("element_enabled", "{value: x}", ".args.value", "unknown key 'value'"),
    ("element_clickable", "{attr: x}", ".args.attr", "unknown key 'attr'"),
    ("element_count_equals", "{}", ".args.count", "required key 'count' is missing"),
    ("element_count_equals", "{count: -1}", ".args.count", "greater than or equal to 0"),
    ("element_count_equals", "{count: '1'}", ".args.count", "valid integer"),
    ("element_text_contains", "{}", ".args.text", "required key 'text' is missing"),
    ("element_attr_equals", "{attr: id}", ".args.value", "required key 'value' is missing"),
    ("element_attr_equals", "{value: x}", ".args.attr", "required key 'attr' is missing"),
    ("element_value_equals", "{}", ".args.value", "required key 'value' is missing"),
    ("element_value_equals", "{value: x, text: y}", ".args.text", "unknown key 'text'"),
    ("network_idle", "{timeout_ms: 5}", ".args.timeout_ms", "unknown key 'timeout_ms'"),
    ("no_blocking_overlay", "{text: x}", ".args.text", "unknown key 'text'"),
    ("toast_contains", "{}", ".args.text", "required key 'text' is missing"),
    ("toast_contains", "{text: a, target: {type: css, selector: a}}", ".args.target", "unknown key 'target'"),
    ("download_started", "{pattern: x}", ".args.pattern", "unknown key 'pattern'"),
    ("upload_completed", "{filename: x}", ".args.filename", "unknown key 'filename'"),
    ("element_visible", "[]", ".args", "must be a mapping"),
]


@pytest.mark.parametrize(
    ("kind", "args", "suffix", "fragment"),
    BAD_CONDITIONS,
    ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD_CONDITIONS)],
)
def test_bad_condition(validate, kind, args, suffix, fragment):
    cond = f"{{kind: {kind}}}" if args is None else f"{{kind: {kind}, args: {args}}}"
    text = condition_step(cond)
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].postconditions[0]" + suffix, line_of(text, f"- {{kind: {kind}"))
    assert fragment in inv.problems[0].message, inv.problems[0].message


def test_bad_condition_arg_on_its_own_line(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_attr_equals
              args:
                attr: id
                count: 3
                value: x
    """)
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].postconditions[0].args.count", line_of(text, "count: 3"))
    assert inv.problems[0].mark.col == textwrap.dedent(text).splitlines()[line_of(text, "count: 3") - 1].index("count") + 1


def test_unknown_condition_kind(validate):
    text = condition_step("{kind: url_iss, args: {url: /x}}")
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].postconditions[0]", line_of(text, "url_iss"))
    assert inv.problems[0].message == ("unknown kind 'url_iss'; did you mean 'url_is'?; expected one of: "
                                       + ", ".join(map(repr, C.CONDITION_KINDS))
                                       + "; or an extension kind, x_<name> or <team>.<name> (docs/extensions.md)")


def test_condition_without_kind(validate):
    text = condition_step("{args: {url: /x}}")
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].postconditions[0]", line_of(text, "{args:"))
    assert inv.problems[0].message == "'kind' is required here"


def test_bad_condition_target_in_args(validate):
    text = condition_step("{kind: element_visible, args: {target: {type: css}}}")
    only(
        only_problems(validate(text)),
        "SCHEMA",
        "steps[0].postconditions[0].args.target.selector",
        line_of(text, "element_visible"),
    )


# ---------------------------------------------------------------------------
# Severity


def test_severity_defaults_to_error(validate):
    text = condition_step("{kind: url_is, args: {url: /x}}")
    assert only_valid(validate(text)).plan.steps[0].postconditions[0].severity == "error"


@pytest.mark.parametrize("severity", ["warning", "error", "critical"])
def test_severity_values(validate, severity):
    text = condition_step(f"{{kind: url_is, args: {{url: /x}}, severity: {severity}}}")
    assert only_valid(validate(text)).plan.steps[0].postconditions[0].severity == severity


@pytest.mark.parametrize("severity", ["fatal", "Error", "'1'", "1", "true"])
def test_bad_severity(validate, severity):
    text = condition_step(f"{{kind: url_is, args: {{url: /x}}, severity: {severity}}}")
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].postconditions[0].severity", line_of(text, "severity:"))
    hint = "; did you mean 'error'?" if severity == "Error" else ""
    assert inv.problems[0].message == "must be one of: 'warning', 'error' or 'critical'" + hint


def test_bad_severity_in_defaults(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
    """, postconditions="[{kind: host_in_allowlist, severity: high}]")
    only(
        only_problems(validate(text)),
        "SCHEMA",
        "defaults.postconditions[0].severity",
        line_of(text, "severity: high"),
    )
