"""Context rules of the validator: U1-U5, defaults, ids, inputs, URLs, frames,
condition targets, regexes, names, tags, expect, recovery, policy, allowlist.

Every invalid-plan test checks the rule id, the key path and the reported line.
Lines are computed from the YAML text of the test itself (``line_of``), so a
test's plan can be read top to bottom next to its assertions.
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_cometlocal.contract import targets as T
from pytest_cometlocal.contract.validator import InvalidPlan, ValidPlan, validate_action_spec
from tests.conftest import VALID_PLAN, only_problems, only_valid

from tests.plan_text import HEAD, col_of, line_of, only, plan, triples  # noqa: F401



# ---------------------------------------------------------------------------
# U1


@pytest.mark.parametrize(
    ("kind", "extra"),
    [("click", ""), ("fill", "value: x"), ("select", "value: x"), ("upload", "file_ref: a.pdf")],
)
@pytest.mark.parametrize("count", [0, 2])
@pytest.mark.parametrize("phase", ["preconditions", "postconditions"])
def test_u1_count_other_than_one_on_own_target(validate, kind, extra, count, phase):
    text = plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: css, selector: "#x"}}
          {extra}
          {phase}: [{{kind: element_count_equals, args: {{count: {count}}}}}]
    """)
    inv = only_problems(validate(text))
    only(inv, "U1", f"steps[0].{phase}[0].args.count", line_of(text, "element_count_equals"))
    problem = inv.problems[0]
    assert problem.mark.col == col_of(text, f"count: {count}}}") + len("count: ")
    assert f"'{kind}' needs exactly one element (U1)" in problem.message
    assert f"count {count}" in problem.message


@pytest.mark.parametrize("kind", ["click", "fill", "select", "upload"])
def test_u1_count_of_one_is_fine(validate, kind):
    extra = {"fill": "value: x", "select": "value: x", "upload": "file_ref: a.pdf"}.get(kind, "")
    text = plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: css, selector: "#x"}}
          {extra}
          postconditions: [{{kind: element_count_equals, args: {{count: 1}}}}]
    """)
    only_valid(validate(text))


def test_u1_other_count_with_its_own_target_is_fine(validate):
    # The count is about another element: not the step's own target.
    text = plan("""\
        - id: act
          kind: click
          target: {type: css, selector: "#x"}
          postconditions: [{kind: element_count_equals, args: {count: 3, target: {type: css, selector: li}}}]
    """)
    only_valid(validate(text))


@pytest.mark.parametrize("kind", ["assert", "wait_for"])
def test_u1_does_not_apply_to_non_acting_kinds(validate, kind):
    text = plan(f"""\
        - id: check
          kind: {kind}
          target: {{type: css, selector: li}}
          postconditions: [{{kind: element_count_equals, args: {{count: 3}}}}]
    """)
    only_valid(validate(text))


# ---------------------------------------------------------------------------
# U2


@pytest.mark.parametrize("ttype", ["text", "label"])
def test_u2_step_target_needs_exact_or_normalize_ws(validate, ttype):
    text = plan(f"""\
        - id: go
          kind: click
          target: {{type: {ttype}, text: Reports}}
    """)
    inv = only_problems(validate(text))
    only(inv, "U2", "steps[0].target", line_of(text, "text: Reports"))
    assert inv.problems[0].message == f"a {ttype} target needs exact: true or normalize_ws: true"
    assert inv.problems[0].mark.col == col_of(text, "{type:")


@pytest.mark.parametrize("ttype", ["text", "label"])
def test_u2_false_flags_do_not_count(validate, ttype):
    text = plan(f"""\
        - id: go
          kind: click
          target: {{type: {ttype}, text: Reports, exact: false, normalize_ws: false}}
    """)
    only(only_problems(validate(text)), "U2", "steps[0].target", line_of(text, "text: Reports"))


@pytest.mark.parametrize("ttype", ["text", "label"])
@pytest.mark.parametrize("flag", ["exact: true", "normalize_ws: true", "exact: true, normalize_ws: true"])
def test_u2_passes_with_exact_or_normalize_ws(validate, ttype, flag):
    text = plan(f"""\
        - id: go
          kind: click
          target: {{type: {ttype}, text: Reports, {flag}}}
    """)
    only_valid(validate(text))


def test_u2_in_alternatives(validate):
    text = plan("""\
        - id: go
          kind: click
          target:
            - {type: css, selector: "#r"}
            - {type: text, text: Reports}
    """)
    only(only_problems(validate(text)), "U2", "steps[0].target[1]", line_of(text, "text: Reports"))


def test_u2_in_frame_inner(validate):
    text = plan("""\
        - id: go
          kind: click
          target:
            type: frame
            selector: "#app"
            inner: {type: label, text: Email}
    """)
    only(only_problems(validate(text)), "U2", "steps[0].target.inner", line_of(text, "inner:"))


def test_u2_in_nth_base(validate):
    text = plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "the second of two identical links"}
          target:
            type: nth
            index: 1
            base: {type: text, text: More}
    """)
    only(only_problems(validate(text)), "U2", "steps[0].target.base", line_of(text, "base:"))


def test_u2_in_condition_target(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_visible
              args: {target: {type: label, text: Done}}
    """)
    only(
        only_problems(validate(text)),
        "U2",
        "steps[0].postconditions[0].args.target",
        line_of(text, "args: {target:"),
    )


def test_u2_in_condition_target_alternative_and_assert_without_step_target(validate):
    text = plan("""\
        - id: check
          kind: assert
          postconditions:
            - kind: element_text_contains
              args:
                text: ok
                target:
                  - {type: testid, id: msg}
                  - {type: text, text: ok}
    """)
    only(
        only_problems(validate(text)),
        "U2",
        "steps[0].postconditions[0].args.target[1]",
        line_of(text, "{type: text, text: ok}"),
    )


def test_u2_passing_everywhere(validate):
    text = plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "two identical links; the second is the footer one"}
          target:
            - {type: frame, selector: "#app", inner: {type: label, text: Email, exact: true}}
            - {type: nth, index: 1, base: {type: text, text: More, normalize_ws: true}}
            - {type: text, text: Go, exact: true}
          postconditions:
            - {kind: element_visible, args: {target: {type: label, text: Done, normalize_ws: true}}}
    """)
    only_valid(validate(text))


def test_u2_in_recovery_step(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
    """) + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - {id: close, kind: click, target: {type: text, text: Close}}
    """)
    only(only_problems(validate(text)), "U2", "recovery.steps[0].target", line_of(text, "id: close"))


# ---------------------------------------------------------------------------
# U3


def test_u3_nth_needs_rationale(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: nth, index: 2, base: {type: css, selector: li}}
    """)
    inv = only_problems(validate(text))
    only(inv, "U3", "steps[0].target", line_of(text, "type: nth"))
    assert "metadata.target_rationale" in inv.problems[0].message


@pytest.mark.parametrize("metadata", ['{target_rationale: ""}', '{target_rationale: "   "}', "{target_rationale: 3}", "{other: x}"])
def test_u3_empty_or_non_text_rationale_does_not_count(validate, metadata):
    text = plan(f"""\
        - id: go
          kind: click
          metadata: {metadata}
          target: {{type: nth, index: 2, base: {{type: css, selector: li}}}}
    """)
    only(only_problems(validate(text)), "U3", "steps[0].target", line_of(text, "type: nth"))


def test_u3_nth_in_condition_target_needs_rationale(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - {kind: element_visible, args: {target: {type: nth, index: 0, base: {type: css, selector: li}}}}
    """)
    only(
        only_problems(validate(text)),
        "U3",
        "steps[0].postconditions[0].args.target",
        line_of(text, "type: nth"),
    )


def test_u3_nth_base_cannot_be_nth(validate):
    text = plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "third row, second cell"}
          target:
            type: nth
            index: 1
            base: {type: nth, index: 2, base: {type: css, selector: td}}
    """)
    inv = only_problems(validate(text))
    only(inv, "U3", "steps[0].target.base", line_of(text, "base: {type: nth"))
    assert inv.problems[0].message == "an nth target's base must be a stable element target, not nth"


def test_u3_with_rationale_passes(validate):
    text = plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "the list has two identical Delete buttons; the first is the draft"}
          target: {type: nth, index: 0, base: {type: role, role: button, name: Delete, exact: true}}
    """)
    valid = only_valid(validate(text))
    target = valid.plan.steps[0].target
    assert isinstance(target, T.NthTarget) and target.index == 0
    assert isinstance(target.base, T.RoleTarget)


# ---------------------------------------------------------------------------
# U4


def test_u4_alternatives_are_sorted_stably(validate):
    text = plan("""\
        - id: go
          kind: click
          target:
            - {type: text, text: Go, exact: true}
            - {type: xpath, selector: "//button[1]"}
            - {type: css, selector: "#one"}
            - {type: label, text: Go, normalize_ws: true}
            - {type: css, selector: "#two"}
            - {type: role, role: button, name: Go}
            - {type: testid, id: go}
            - {type: css, selector: "#three"}
    """)
    target = only_valid(validate(text)).plan.steps[0].target
    assert [t.type for t in target] == ["testid", "role", "label", "css", "css", "css", "xpath", "text"]
    assert [t.selector for t in target if t.type == "css"] == ["#one", "#two", "#three"]


def test_u4_composite_targets_rank_by_what_they_wrap(validate):
    text = plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "second matching row"}
          target:
            - {type: css, selector: "#c"}
            - {type: frame, selector: "#f", inner: {type: testid, id: go}}
            - {type: nth, index: 1, base: {type: text, text: Go, exact: true}}
            - {type: role, role: button}
    """)
    target = only_valid(validate(text)).plan.steps[0].target
    assert [t.type for t in target] == ["frame", "role", "css", "nth"]
    assert [T.u4_rank(t) for t in target] == [0, 1, 3, 5]


def test_u4_recovery_alternatives_are_sorted(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
    """) + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - id: close
              kind: click
              target: [{type: css, selector: ".x"}, {type: testid, id: close}]
    """)
    valid = only_valid(validate(text))
    assert [t.type for t in valid.plan.recovery.steps[0].target] == ["testid", "css"]


def test_u4_condition_target_alternatives_are_sorted(validate):
    # Alternatives are tried in U4 order wherever a target list is allowed;
    # the validated plan is what the executor iterates.
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_visible
              args:
                target: [{type: css, selector: ".done"}, {type: testid, id: done}]
    """)
    cond = only_valid(validate(text)).plan.steps[0].postconditions[0]
    assert [t.type for t in cond.args.target] == ["testid", "css"]


def test_u4_repeated_alternative_is_rejected(validate):
    text = plan("""\
        - id: go
          kind: click
          target:
            - {type: css, selector: "#go"}
            - {type: testid, id: go}
            - {type: css, selector: "#go"}
    """)
    inv = only_problems(validate(text))
    only(inv, "U4", "steps[0].target[2]", line_of(text, 'selector: "#go"', 2))
    assert inv.problems[0].message == "alternative 2 repeats alternative 0"


def test_u4_repeated_alternative_in_condition_target(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_visible
              args:
                target:
                  - {type: testid, id: done}
                  - {type: testid, id: done}
    """)
    only(
        only_problems(validate(text)),
        "U4",
        "steps[0].postconditions[0].args.target[1]",
        line_of(text, "{type: testid, id: done}", 2),
    )


def test_u4_same_type_different_fields_is_not_a_repeat(validate):
    text = plan("""\
        - id: go
          kind: click
          target:
            - {type: role, role: button, name: Go}
            - {type: role, role: button, name: Go, exact: true}
    """)
    only_valid(validate(text))


# ---------------------------------------------------------------------------
# U5


def test_u5_critical_step_without_strong_postcondition(validate):
    text = plan("""\
        - id: pay
          kind: click
          criticality: critical
          target: {type: css, selector: "#pay"}
          postconditions: [{kind: toast_contains, args: {text: Paid}}]
    """)
    inv = only_problems(validate(text))
    only(inv, "U5", "steps[0].postconditions", line_of(text, "postconditions: [{kind: toast"))
    assert "strong postcondition" in inv.problems[0].message


def test_u5_critical_step_with_only_default_postconditions(validate):
    # host_in_allowlist from defaults is not strong; the problem points at the defaults line.
    text = plan("""\
        - id: pay
          kind: click
          criticality: critical
          target: {type: css, selector: "#pay"}
    """)
    only(only_problems(validate(text)), "U5", "steps[0].postconditions", line_of(text, "  postconditions: [{kind: host"))


@pytest.mark.parametrize(
    "cond",
    [
        "{kind: url_is, args: {url: /done}}",
        "{kind: url_matches, args: {pattern: /done$}}",
        "{kind: download_started}",
        "{kind: download_started, args: {filename: '\\.pdf$'}}",
        "{kind: upload_completed}",
        "{kind: url_is, args: {url: /done}, severity: critical}",
        "{kind: url_is, args: {url: /done}, severity: error}",
        "{kind: toast_contains, args: {text: Paid}, severity: critical}",
        "{kind: element_text_contains, args: {text: Paid}, severity: critical}",
    ],
)
def test_u5_strong_postconditions_pass(validate, cond):
    text = plan(f"""\
        - id: pay
          kind: click
          criticality: critical
          target: {{type: css, selector: "#pay"}}
          postconditions: [{{kind: host_in_allowlist}}, {cond}]
    """)
    only_valid(validate(text))


@pytest.mark.parametrize(
    "cond",
    [
        "{kind: toast_contains, args: {text: Paid}}",
        "{kind: toast_contains, args: {text: Paid}, severity: error}",
        "{kind: element_text_contains, args: {text: Paid}}",
        "{kind: element_text_contains, args: {text: Paid}, severity: warning}",
        "{kind: url_is, args: {url: /done}, severity: warning}",
        "{kind: url_matches, args: {pattern: done}, severity: warning}",
        "{kind: download_started, severity: warning}",
        "{kind: upload_completed, severity: warning}",
        "{kind: element_visible, severity: critical}",
        "{kind: title_contains, args: {text: Paid}, severity: critical}",
    ],
)
def test_u5_weak_postconditions_fail(validate, cond):
    text = plan(f"""\
        - id: pay
          kind: click
          criticality: critical
          target: {{type: css, selector: "#pay"}}
          postconditions: [{cond}]
    """)
    only(only_problems(validate(text)), "U5", "steps[0].postconditions", line_of(text, "    postconditions: ["))


def test_u5_strong_precondition_does_not_count(validate):
    text = plan("""\
        - id: pay
          kind: click
          criticality: critical
          target: {type: css, selector: "#pay"}
          preconditions: [{kind: url_is, args: {url: /cart}}]
    """)
    only(only_problems(validate(text)), "U5", "steps[0].postconditions", line_of(text, "  postconditions: [{kind: host"))


def test_u5_criticality_from_defaults_and_recovery(validate):
    head = HEAD.replace("criticality: normal", "criticality: critical")
    text = plan("""\
        - id: open
          kind: navigate
          target: {type: url, url: /login}
          postconditions: [{kind: url_is, args: {url: /login}}]
    """, head) + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - {id: close, kind: click, target: {type: css, selector: .x}}
    """)
    only(
        only_problems(validate(text)),
        "U5",
        "recovery.steps[0].postconditions",
        line_of(text, "  postconditions: [{kind: host"),
    )


def test_u5_normal_step_needs_no_strong_postcondition(validate):
    only_valid(validate(VALID_PLAN))


# ---------------------------------------------------------------------------
# Defaults


def test_defaults_are_merged_into_steps_and_recovery_steps(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
        - id: own
          kind: click
          target: {type: css, selector: "#own"}
          criticality: critical
          timeout_ms: 700
          preconditions: [{kind: element_visible}]
          postconditions: [{kind: url_is, args: {url: /x}}]
    """) + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - {id: close, kind: click, target: {type: css, selector: .x}}
    """)
    p = only_valid(validate(text)).plan
    go, own = p.steps
    close = p.recovery.steps[0]
    for step in (go, close):
        assert step.criticality == "normal"
        assert step.timeout_ms == 5000
        assert [c.kind for c in step.preconditions] == ["host_in_allowlist"]
        assert [c.kind for c in step.postconditions] == ["host_in_allowlist"]
    assert own.criticality == "critical"
    assert own.timeout_ms == 700
    assert [c.kind for c in own.preconditions] == ["element_visible"]
    assert [c.kind for c in own.postconditions] == ["url_is"]


@pytest.mark.parametrize("key", ["preconditions", "postconditions"])
def test_empty_conditions_in_step_win_over_defaults(validate, key):
    text = plan(f"""\
        - id: go
          kind: click
          target: {{type: css, selector: "#go"}}
          {key}: []
    """)
    inv = only_problems(validate(text))
    only(inv, "CONDITIONS_REQUIRED", f"steps[0].{key}", line_of(text, f"{key}: []"))
    assert "must not be empty" in inv.problems[0].message


def test_empty_conditions_in_recovery_step_win_over_defaults(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
    """) + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - id: close
              kind: click
              target: {type: css, selector: .x}
              preconditions: []
    """)
    only(
        only_problems(validate(text)),
        "CONDITIONS_REQUIRED",
        "recovery.steps[0].preconditions",
        line_of(text, "preconditions: []"),
    )


def test_missing_conditions_without_defaults(validate):
    text = """\
        name: t
        steps:
          - id: go
            kind: click
            criticality: normal
            timeout_ms: 1000
            target: {type: css, selector: "#go"}
            preconditions: [{kind: element_visible}]
    """
    inv = only_problems(validate(text))
    only(inv, "CONDITIONS_REQUIRED", "steps[0].postconditions", line_of(text, "- id: go"))
    assert "'postconditions' is required" in inv.problems[0].message


@pytest.mark.parametrize("key", ["criticality", "timeout_ms"])
def test_missing_defaultable_key_without_defaults_is_schema(validate, key):
    keys = {"criticality": "criticality: normal", "timeout_ms": "timeout_ms: 1000"}
    other = keys["timeout_ms" if key == "criticality" else "criticality"]
    text = f"""\
        name: t
        steps:
          - id: go
            kind: click
            {other}
            target: {{type: css, selector: "#go"}}
            preconditions: [{{kind: element_visible}}]
            postconditions: [{{kind: element_visible}}]
    """
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", f"steps[0].{key}", line_of(text, "- id: go"))
    assert f"'{key}' is required (on the step or in the plan's `defaults`)" in inv.problems[0].message


def test_error_in_merged_default_points_at_defaults_line(validate):
    # element_visible from defaults lands on a navigate step, which has no element target.
    head = HEAD.replace("postconditions: [{kind: host_in_allowlist}]", "postconditions: [{kind: element_visible}]")
    text = plan("""\
        - id: open
          kind: navigate
          target: {type: url, url: /login}
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
    """, head)
    inv = only_problems(validate(text))
    line = line_of(text, "postconditions: [{kind: element_visible}]")
    assert line == 7  # in the defaults block
    only(inv, "CONDITION_TARGET", "steps[0].postconditions[0]", line)
    assert inv.problems[0].mark.col == col_of(text, "{kind: element_visible}")


def test_schema_error_in_merged_default_is_reported_in_defaults(validate):
    head = HEAD.replace("timeout_ms: 5000", "timeout_ms: -1")
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
    """, head)
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "defaults.timeout_ms", line_of(text, "timeout_ms: -1"))


def test_merged_default_regex_error_points_at_defaults(validate):
    head = HEAD.replace("postconditions: [{kind: host_in_allowlist}]", 'postconditions: [{kind: url_matches, args: {pattern: "(x"}}]')
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
        - {id: go2, kind: click, target: {type: css, selector: "#go2"}}
    """, head)
    inv = only_problems(validate(text))
    line = line_of(text, 'pattern: "(x"')
    assert triples(inv) == [
        ("REGEX", "steps[0].postconditions[0].args", line),
        ("REGEX", "steps[1].postconditions[0].args", line),
    ]


# ---------------------------------------------------------------------------
# timeout_ms


@pytest.mark.parametrize("value", ["0", "-5"])
def test_timeout_ms_must_be_positive(validate, value):
    text = plan(f"""\
        - id: go
          kind: click
          target: {{type: css, selector: "#go"}}
          timeout_ms: {value}
    """)
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "steps[0].timeout_ms", line_of(text, f"timeout_ms: {value}"))
    assert "greater than 0" in inv.problems[0].message


def test_timeout_ms_of_one_is_valid(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          timeout_ms: 1
    """)
    assert only_valid(validate(text)).plan.steps[0].timeout_ms == 1


# ---------------------------------------------------------------------------
# Unique step ids


def test_duplicate_step_id(validate):
    text = plan("""\
        - {id: a, kind: click, target: {type: css, selector: "#a"}}
        - {id: b, kind: click, target: {type: css, selector: "#b"}}
        - {id: a, kind: click, target: {type: css, selector: "#c"}}
    """)
    inv = only_problems(validate(text))
    only(inv, "UNIQUE_ID", "steps[2].id", line_of(text, "#c"))
    assert inv.problems[0].message == "step id 'a' is already used"


def test_duplicate_step_id_across_recovery(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
    """) + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - {id: go, kind: click, target: {type: css, selector: .x}}
    """)
    only(only_problems(validate(text)), "UNIQUE_ID", "recovery.steps[0].id", line_of(text, ".x"))


def test_duplicate_step_id_within_recovery(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
    """) + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - {id: r, kind: click, target: {type: css, selector: .x}}
            - {id: r, kind: click, target: {type: css, selector: .y}}
    """)
    only(only_problems(validate(text)), "UNIQUE_ID", "recovery.steps[1].id", line_of(text, ".y"))


def test_step_marks_cover_steps_and_recovery_steps(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
        - id: two
          kind: click
          target: {type: css, selector: "#two"}
    """) + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - {id: r, kind: click, target: {type: css, selector: .x}}
    """)
    marks = only_valid(validate(text)).source.step_marks
    assert marks["go"].line == line_of(text, "id: go")
    assert marks["two"].line == line_of(text, "id: two")
    assert marks["r"].line == line_of(text, "id: r,")


# ---------------------------------------------------------------------------
# Targets required / url targets


@pytest.mark.parametrize(
    ("kind", "extra"),
    [("navigate", ""), ("click", ""), ("fill", "value: x"), ("select", "value: x"), ("upload", "file_ref: a.pdf"), ("wait_for", "")],
)
def test_target_required(validate, kind, extra):
    text = plan(f"""\
        - id: act
          kind: {kind}
          {extra}
    """)
    inv = only_problems(validate(text))
    only(inv, "TARGET_REQUIRED", "steps[0].target", line_of(text, "id: act"))
    assert inv.problems[0].message == f"'{kind}' needs a target (only assert and stop may omit it)"


def test_assert_and_stop_need_no_target(validate):
    text = plan("""\
        - {id: check, kind: assert, postconditions: [{kind: title_contains, args: {text: Home}}]}
        - {id: end, kind: stop}
    """)
    p = only_valid(validate(text)).plan
    assert p.steps[0].target is None and p.steps[1].target is None


@pytest.mark.parametrize("kind", ["click", "assert", "wait_for"])
def test_url_target_only_for_navigate(validate, kind):
    text = plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: url, url: /x}}
    """)
    inv = only_problems(validate(text))
    only(inv, "URL_TARGET", "steps[0].target", line_of(text, "type: url"))
    assert inv.problems[0].message == "url targets are only for navigate"


def test_url_target_as_alternative_is_rejected(validate):
    text = plan("""\
        - id: act
          kind: click
          target:
            - {type: css, selector: "#a"}
            - {type: url, url: /x}
    """)
    only(only_problems(validate(text)), "URL_TARGET", "steps[0].target[1]", line_of(text, "type: url"))


def test_url_target_as_frame_inner_is_rejected(validate):
    text = plan("""\
        - id: act
          kind: click
          target:
            type: frame
            selector: "#f"
            inner: {type: url, url: /x}
    """)
    inv = only_problems(validate(text))
    # Reported once as a url target outside navigate, once as a frame's inner.
    assert {(p.rule, p.key_path, p.mark.line) for p in inv.problems} == {
        ("URL_TARGET", "steps[0].target.inner", line_of(text, "inner:")),
    }


@pytest.mark.parametrize(
    "target",
    [
        '{type: css, selector: "#a"}',
        '[{type: url, url: /a}, {type: url, url: /b}]',
        '[{type: url, url: /a}]',
    ],
)
def test_navigate_needs_single_url_target(validate, target):
    text = plan(f"""\
        - id: open
          kind: navigate
          target: {target}
    """)
    inv = only_problems(validate(text))
    only(inv, "URL_TARGET", "steps[0].target", line_of(text, "target:"))
    assert inv.problems[0].message == "navigate takes a single {type: url} target"


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "//evil.example/x"])
def test_navigate_url_scheme(validate, url):
    text = plan(f"""\
        - id: open
          kind: navigate
          target: {{type: url, url: "{url}"}}
    """)
    only(only_problems(validate(text)), "URL", "steps[0].target.url", line_of(text, "type: url"))


def test_absolute_navigate_url_needs_no_base_url(validate):
    text = """\
        name: t
        allowlist: [example.com]
        defaults: {criticality: normal, timeout_ms: 5000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
        steps:
          - {id: open, kind: navigate, target: {type: url, url: "https://example.com/login"}}
    """
    valid = only_valid(validate(text))
    assert valid.plan.base_url is None and valid.plan.steps[0].target.url == "https://example.com/login"


@pytest.mark.parametrize("base", ["/relative", "ftp://example.com", "example.com"])
def test_plan_base_url_must_be_absolute_http(validate, base):
    text = VALID_PLAN.replace("base_url: http://127.0.0.1:8000", f"base_url: {base}")
    inv = only_problems(validate(text))
    only(inv, "URL", "base_url", 2)


# ---------------------------------------------------------------------------
# Frames


def test_frame_depth_two_is_rejected(validate):
    text = plan("""\
        - id: go
          kind: click
          target:
            type: frame
            selector: "#outer"
            inner:
              type: frame
              selector: "#inner"
              inner: {type: css, selector: button}
    """)
    inv = only_problems(validate(text))
    only(inv, "FRAME_DEPTH", "steps[0].target.inner", line_of(text, "type: frame", 2))
    assert inv.problems[0].message == "frames nest one level only"


def test_frame_depth_through_nth_is_rejected(validate):
    text = plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "second frame widget"}
          target:
            type: frame
            selector: "#outer"
            inner:
              type: nth
              index: 1
              base: {type: frame, selector: "#inner", inner: {type: css, selector: button}}
    """)
    only(only_problems(validate(text)), "FRAME_DEPTH", "steps[0].target.inner.base", line_of(text, "base: {type: frame"))


def test_frame_depth_in_condition_target(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_visible
              args:
                target: {type: frame, selector: a, inner: {type: frame, selector: b, inner: {type: testid, id: x}}}
    """)
    only(
        only_problems(validate(text)),
        "FRAME_DEPTH",
        "steps[0].postconditions[0].args.target.inner",
        line_of(text, "target: {type: frame"),
    )


def test_one_frame_level_is_fine(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: frame, selector: "#app", inner: {type: role, role: button, name: Go}}
    """)
    target = only_valid(validate(text)).plan.steps[0].target
    assert isinstance(target, T.FrameTarget) and isinstance(target.inner, T.RoleTarget)


# ---------------------------------------------------------------------------
# Condition targets


@pytest.mark.parametrize(
    "cond",
    [
        "{kind: element_exists}",
        "{kind: element_visible}",
        "{kind: element_enabled}",
        "{kind: element_clickable}",
        "{kind: element_count_equals, args: {count: 1}}",
        "{kind: element_text_contains, args: {text: x}}",
        "{kind: element_attr_equals, args: {attr: id, value: x}}",
        "{kind: element_value_equals, args: {value: x}}",
    ],
)
def test_element_condition_on_navigate_needs_target(validate, cond):
    text = plan(f"""\
        - id: open
          kind: navigate
          target: {{type: url, url: /login}}
          postconditions: [{cond}]
    """)
    inv = only_problems(validate(text))
    only(inv, "CONDITION_TARGET", "steps[0].postconditions[0]", line_of(text, "    postconditions: ["))
    assert "this navigate step has no element target" in inv.problems[0].message


@pytest.mark.parametrize("kind", ["assert", "stop"])
def test_element_condition_on_targetless_step_needs_target(validate, kind):
    text = plan(f"""\
        - id: end
          kind: {kind}
          preconditions: [{{kind: element_exists}}]
    """)
    inv = only_problems(validate(text))
    only(inv, "CONDITION_TARGET", "steps[0].preconditions[0]", line_of(text, "    preconditions: ["))
    assert f"this {kind} step has no element target" in inv.problems[0].message


def test_element_condition_with_own_target_is_fine_on_navigate_and_assert(validate):
    text = plan("""\
        - id: open
          kind: navigate
          target: {type: url, url: /login}
          postconditions: [{kind: element_visible, args: {target: {type: testid, id: form}}}]
        - id: check
          kind: assert
          postconditions: [{kind: element_text_contains, args: {text: Hi, target: {type: testid, id: hello}}}]
    """)
    only_valid(validate(text))


@pytest.mark.parametrize("cond", ["{kind: no_blocking_overlay}", "{kind: upload_completed}", "{kind: network_idle}"])
def test_page_level_conditions_need_no_target(validate, cond):
    text = plan(f"""\
        - id: check
          kind: assert
          postconditions: [{cond}]
    """)
    only_valid(validate(text))


def test_element_condition_with_url_target_is_rejected(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions: [{kind: element_visible, args: {target: [{type: url, url: /x}]}}]
    """)
    inv = only_problems(validate(text))
    assert ("URL_TARGET", "steps[0].postconditions[0].args.target[0]", line_of(text, "type: url")) in triples(inv)


# ---------------------------------------------------------------------------
# Regular expressions


def test_invalid_regex_in_url_matches(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: url_matches
              args: {pattern: "/dash(board"}
    """)
    inv = only_problems(validate(text))
    only(inv, "REGEX", "steps[0].postconditions[0].args", line_of(text, "args: {pattern"))
    assert inv.problems[0].message.startswith("invalid regular expression: ")


def test_invalid_regex_in_download_filename(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: download_started
              args: {filename: "[a-"}
    """)
    only(only_problems(validate(text)), "REGEX", "steps[0].postconditions[0].args", line_of(text, "args: {filename"))


def test_invalid_regex_in_auth_signals(validate):
    text = VALID_PLAN + 'auth_signals: {url_pattern: "(login", status: [401]}\n'
    inv = only_problems(validate(text))
    only(inv, "REGEX", "auth_signals.url_pattern", line_of(text, "auth_signals:"))
    assert inv.problems[0].mark.col == col_of(text, '"(login"')


def test_valid_regexes_pass(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - {kind: url_matches, args: {pattern: "/dash(board)?$"}}
            - {kind: download_started, args: {filename: "^invoice-\\\\d+\\\\.pdf$"}}
    """) + 'auth_signals: {url_pattern: "/login\\\\?expired"}\n'
    valid = only_valid(validate(text))
    assert valid.plan.steps[0].postconditions[1].args.filename == "^invoice-\\d+\\.pdf$"
    assert valid.plan.auth_signals.url_pattern == "/login\\?expired"


# ---------------------------------------------------------------------------
# Inputs by kind


@pytest.mark.parametrize("kind", ["fill", "select"])
def test_fill_and_select_need_value(validate, kind):
    text = plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: css, selector: "#a"}}
    """)
    inv = only_problems(validate(text))
    only(inv, "INPUTS", "steps[0].value", line_of(text, "id: act"))
    assert inv.problems[0].message == f"'{kind}' needs a value"


@pytest.mark.parametrize("kind", ["fill", "select"])
def test_fill_and_select_accept_empty_string_value(validate, kind):
    text = plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: css, selector: "#a"}}
          value: ""
    """)
    assert only_valid(validate(text)).plan.steps[0].value == ""


@pytest.mark.parametrize(
    ("kind", "target"),
    [
        ("navigate", "{type: url, url: /x}"),
        ("click", '{type: css, selector: "#a"}'),
        ("upload", '{type: css, selector: "#a"}'),
        ("wait_for", '{type: css, selector: "#a"}'),
        ("assert", '{type: css, selector: "#a"}'),
    ],
)
def test_other_kinds_reject_value(validate, kind, target):
    extra = "file_ref: a.pdf" if kind == "upload" else ""
    text = plan(f"""\
        - id: act
          kind: {kind}
          target: {target}
          {extra}
          value: hello
    """)
    inv = only_problems(validate(text))
    only(inv, "INPUTS", "steps[0].value", line_of(text, "value: hello"))
    assert inv.problems[0].message == f"'value' is not used by '{kind}' (only fill and select)"


def test_stop_rejects_value(validate):
    text = plan("""\
        - id: end
          kind: stop
          value: hello
    """)
    only(only_problems(validate(text)), "INPUTS", "steps[0].value", line_of(text, "value: hello"))


def test_upload_needs_file_ref(validate):
    text = plan("""\
        - id: up
          kind: upload
          target: {type: css, selector: "input[type=file]"}
    """)
    inv = only_problems(validate(text))
    only(inv, "INPUTS", "steps[0].file_ref", line_of(text, "id: up"))
    assert inv.problems[0].message == "'upload' needs a file_ref"


@pytest.mark.parametrize("ref", ["docs/invoice.pdf", "[a.pdf, b.pdf]"])
def test_upload_with_file_ref(validate, ref):
    text = plan(f"""\
        - id: up
          kind: upload
          target: {{type: css, selector: "input[type=file]"}}
          file_ref: {ref}
    """)
    step = only_valid(validate(text)).plan.steps[0]
    assert step.file_refs in (["docs/invoice.pdf"], ["a.pdf", "b.pdf"])


def test_other_kinds_reject_file_ref(validate):
    text = plan("""\
        - id: act
          kind: click
          target: {type: css, selector: "#a"}
          file_ref: a.pdf
    """)
    inv = only_problems(validate(text))
    only(inv, "INPUTS", "steps[0].file_ref", line_of(text, "file_ref: a.pdf"))
    assert inv.problems[0].message == "'file_ref' is not used by 'click' (only upload)"


@pytest.mark.parametrize(
    ("ref", "key_path", "needle"),
    [
        ("/etc/passwd", "steps[0].file_ref", "absolute path"),
        ("../x.pdf", "steps[0].file_ref", "'..'"),
        ("[ok.pdf, ../x.pdf]", "steps[0].file_ref[1]", "'..'"),
    ],
)
def test_upload_file_ref_is_confined(validate, ref, key_path, needle):
    text = plan(f"""\
        - id: up
          kind: upload
          target: {{type: css, selector: "input[type=file]"}}
          file_ref: {ref}
    """)
    inv = only_problems(validate(text))
    only(inv, "PATH_CONFINEMENT", key_path, line_of(text, "file_ref:"))
    assert needle in inv.problems[0].message


# ---------------------------------------------------------------------------
# Plan names, tags


BODY = """\
base_url: http://127.0.0.1:8000
defaults: {criticality: normal, timeout_ms: 5000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
steps:
  - {id: go, kind: click, target: {type: css, selector: "#go"}}
"""


def test_duplicate_plan_names_in_one_file(validate):
    text = "name: dup\n" + BODY + "---\nname: dup\n" + BODY + "---\nname: other\n" + BODY
    results = validate(text)
    assert [r.name for r in results] == ["dup", "dup@doc2", "other"]
    assert isinstance(results[0], ValidPlan)
    assert isinstance(results[2], ValidPlan)
    second = results[1]
    assert isinstance(second, InvalidPlan)
    assert triples(second) == [("UNIQUE_NAME", "name", line_of(text, "name: dup", 2))]
    assert second.problems[0].message == "plan name 'dup' is already used by document 1 of this file"


def test_duplicate_plan_name_points_at_the_name(validate):
    # The problem's key path is `name`; its line is the name's, not the document's first line.
    text = "name: dup\n" + BODY + "---\ndescription: the second one\nname: dup\n" + BODY
    results = validate(text)
    assert len(results) == 2
    assert isinstance(results[0], ValidPlan)
    second = results[1]
    assert isinstance(second, InvalidPlan)
    assert triples(second) == [("UNIQUE_NAME", "name", line_of(text, "name: dup", 2))]


def test_duplicate_plan_name_keeps_other_problems(validate):
    text = "name: dup\n" + BODY + "---\nname: dup\n" + BODY.replace("kind: click", "kind: fill")
    results = validate(text)
    assert isinstance(results[0], ValidPlan)
    assert triples(results[1]) == [
        ("UNIQUE_NAME", "name", line_of(text, "name: dup", 2)),
        ("INPUTS", "steps[0].value", line_of(text, "kind: fill")),
    ]


def test_distinct_plan_names_in_one_file(validate):
    text = "name: one\n" + BODY + "---\nname: two\n" + BODY
    results = validate(text)
    assert [r.name for r in results] == ["one", "two"]
    assert all(isinstance(r, ValidPlan) for r in results)


@pytest.mark.parametrize("name", ['"a::b"', '"a[1]"', '" padded "', '"tab\\there"'])
def test_plan_name_that_breaks_node_ids(validate, name):
    text = f"name: {name}\n" + BODY
    inv = only_problems(validate(text))
    only(inv, "NAME", "name", 1)
    assert inv.name == "p"  # the file's stem


@pytest.mark.parametrize("tag", ["skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings"])
def test_reserved_tags(validate, tag):
    text = "name: t\ntags: [smoke, " + tag + "]\n" + BODY
    inv = only_problems(validate(text))
    only(inv, "TAG_NAME", "tags[1]", 2)
    assert inv.problems[0].mark.col == col_of(text, tag + "]")
    assert inv.tags == ("smoke",)


@pytest.mark.parametrize("tag", ["Smoke", "1st", "with-dash", "_x", '""'])
def test_bad_tag_format(validate, tag):
    text = "name: t\ntags:\n  - smoke\n  - " + tag + "\n" + BODY
    inv = only_problems(validate(text))
    only(inv, "SCHEMA", "tags[1]", 4)
    assert "does not match the pattern" in inv.problems[0].message


def test_good_tags(validate):
    text = "name: t\ntags: [smoke, auth_2, a]\n" + BODY
    assert only_valid(validate(text)).plan.tags == ["smoke", "auth_2", "a"]


# ---------------------------------------------------------------------------
# expect, recovery, policy


def test_expect_step_must_exist(validate):
    text = VALID_PLAN + "expect: {error_code: TARGET_NOT_FOUND, step: zz}\n"
    inv = only_problems(validate(text))
    only(inv, "EXPECT", "expect.step", line_of(text, "expect:"))
    assert inv.problems[0].message == "no step has id 'zz'"


def test_expect_step_may_name_a_recovery_step(validate):
    text = VALID_PLAN + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - {id: close, kind: click, target: {type: css, selector: .x}}
        expect: {error_code: TARGET_NOT_FOUND, step: close}
    """)
    valid = only_valid(validate(text))
    assert valid.plan.expect.step == "close"


def test_expect_step_existing(validate):
    text = VALID_PLAN + "expect: {error_code: TARGET_NOT_FOUND, step: go}\n"
    assert only_valid(validate(text)).plan.expect.error_code == "TARGET_NOT_FOUND"


@pytest.mark.parametrize("code", ["POLICY_HALT", "INVALID_ACTIONSPEC", "ACTION_CRITICAL_BLOCKED"])
def test_recovery_on_unrecoverable_code(validate, code):
    text = VALID_PLAN + textwrap.dedent(f"""\
        recovery:
          on_error:
            - OVERLAY_BLOCKING
            - {code}
          steps:
            - {{id: close, kind: click, target: {{type: css, selector: .x}}}}
    """)
    inv = only_problems(validate(text))
    only(inv, "RECOVERY", "recovery.on_error[1]", line_of(text, f"- {code}"))
    assert inv.problems[0].message == f"{code} cannot be recovered from"


def test_recovery_step_cannot_stop(validate):
    text = VALID_PLAN + textwrap.dedent("""\
        recovery:
          on_error: [OVERLAY_BLOCKING]
          steps:
            - id: end
              kind: stop
    """)
    only(only_problems(validate(text)), "RECOVERY", "recovery.steps[0].kind", line_of(text, "kind: stop"))


@pytest.mark.parametrize("code", ["INVALID_ACTIONSPEC", "POLICY_HALT", "ACTION_CRITICAL_BLOCKED"])
def test_policy_retry_on_unretryable_code(validate, code):
    text = VALID_PLAN + f"policy:\n  retry_on: [NAVIGATION_TIMEOUT, {code}]\n"
    inv = only_problems(validate(text))
    only(inv, "POLICY", "policy.retry_on[1]", line_of(text, "retry_on:"))
    assert inv.problems[0].message == f"{code} cannot be retried"


def test_policy_overrides_and_defaults(validate):
    text = VALID_PLAN + "policy: {retries_per_action: 0, retry_on: [TARGET_NOT_FOUND]}\n"
    policy = only_valid(validate(text)).plan.policy
    assert policy.retries_per_action == 0
    assert policy.retry_on == ["TARGET_NOT_FOUND"]
    assert policy.recovery_max == 3
    assert policy.same_state_revisits == 2
    assert policy.hard_cap_steps == 60
    assert policy.backoff_ms == [300, 1000, 2000]
    assert policy.allow_stop is False


def test_policy_defaults_when_absent(validate):
    policy = only_valid(validate(VALID_PLAN)).plan.policy
    assert policy.retry_on == ["NAVIGATION_TIMEOUT", "OVERLAY_BLOCKING"]
    assert policy.retries_per_action == 2


# ---------------------------------------------------------------------------
# Allowlist


@pytest.mark.parametrize("host", ["http://example.com", "example.com:80", "example.com/path", "*example.com"])
def test_allowlist_entries_are_hosts(validate, host):
    text = VALID_PLAN + f'allowlist:\n  - "{host}"\n'
    only(only_problems(validate(text)), "SCHEMA", "allowlist[0]", line_of(text, host))


# ---------------------------------------------------------------------------
# validate_action_spec uses the same rules


def test_validate_action_spec_applies_context_rules():
    raw = {
        "id": "go",
        "kind": "click",
        "criticality": "critical",
        "target": {"type": "text", "text": "Go"},
        "preconditions": [{"kind": "element_visible"}],
        "postconditions": [{"kind": "element_visible"}],
        "timeout_ms": 1000,
    }
    problems = validate_action_spec(raw)
    assert isinstance(problems, list)
    assert sorted((p.rule, p.key_path) for p in problems) == [("U2", "target"), ("U5", "postconditions")]


def test_validate_action_spec_sorts_alternatives():
    raw = {
        "id": "go",
        "kind": "click",
        "criticality": "normal",
        "target": [{"type": "css", "selector": "#go"}, {"type": "testid", "id": "go"}],
        "preconditions": [{"kind": "element_visible"}],
        "postconditions": [{"kind": "element_visible"}],
        "timeout_ms": 1000,
    }
    step = validate_action_spec(raw)
    assert [t.type for t in step.target] == ["testid", "css"]
