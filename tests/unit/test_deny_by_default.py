"""Deny by default: unknown keys at every level, YAML 1.2 scalar meaning, and
``validate_action_spec`` on plain dicts.

An unknown key is a SCHEMA problem whose message says "unknown key", whose key
path ends in the key, and whose line and column are those of the key itself.
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.problems import Problem
from pytest_cometlocal.contract.validate.validator import validate_action_spec
from tests.support import VALID_PLAN, line_of, mark_at, only_problems, only_valid, plan

# A plan that uses every block that can hold keys; `colour: red` is inserted
# at one place per test.
FULL = """\
name: full
base_url: http://127.0.0.1:8000
policy:
  retries_per_action: 1
secrets:
  pw:
    env: PW
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
auth_signals:
  texts: [Session expired]
expect:
  error_code: TARGET_NOT_FOUND
recovery:
  on_error: [OVERLAY_BLOCKING]
  steps:
    - id: close
      kind: click
      target: {type: css, selector: .close}
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
  - id: pay
    kind: click
    target:
      type: frame
      selector: "#pay"
      inner:
        type: testid
        id: go
    postconditions:
      - kind: element_visible
        args:
          target: {type: testid, id: done}
"""
ENV = {"PW": "hunter2"}


def insert_after(text: str, anchor: str, new_line: str) -> str:
    """Insert ``new_line`` after the single line equal to ``anchor`` (stripped), same indentation."""
    lines = text.splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.strip() == anchor]
    assert len(hits) == 1, (anchor, hits)
    i = hits[0]
    indent = len(lines[i]) - len(lines[i].lstrip())
    lines.insert(i + 1, " " * indent + new_line + "\n")
    return "".join(lines)


def test_full_plan_is_valid(validate):
    only_valid(validate(FULL, env=ENV))


@pytest.mark.parametrize(
    ("anchor", "key_path"),
    [
        ("name: full", "colour"),
        ("retries_per_action: 1", "policy.colour"),
        ("criticality: normal", "defaults.colour"),
        ("kind: navigate", "steps[0].colour"),
        ("selector: \"#pay\"", "steps[1].target.colour"),
        ("id: go", "steps[1].target.inner.colour"),
        ("- kind: element_visible", None),  # handled below (list item)
        ("target: {type: testid, id: done}", "steps[1].postconditions[0].args.colour"),
        ("on_error: [OVERLAY_BLOCKING]", "recovery.colour"),
        ("target: {type: css, selector: .close}", "recovery.steps[0].colour"),
        ("texts: [Session expired]", "auth_signals.colour"),
        ("error_code: TARGET_NOT_FOUND", "expect.colour"),
        ("env: PW", "secrets.pw.colour"),
    ],
)
def test_unknown_key_at_every_level(validate, anchor, key_path):
    if key_path is None:
        # A condition: `- kind: ...` starts the mapping; its keys sit two columns further in.
        lines = FULL.splitlines(keepends=True)
        i = next(n for n, line in enumerate(lines) if line.strip() == anchor)
        indent = len(lines[i]) - len(lines[i].lstrip()) + 2
        lines.insert(i + 1, " " * indent + "colour: red\n")
        text = "".join(lines)
        key_path = "steps[1].postconditions[0].colour"
    else:
        text = insert_after(FULL, anchor, "colour: red")
    inv = only_problems(validate(text, env=ENV))
    lines = text.splitlines()
    line = next(n for n, l in enumerate(lines, 1) if l.strip() == "colour: red")
    col = lines[line - 1].index("colour") + 1
    assert [(p.rule, p.key_path, p.mark.line, p.mark.col) for p in inv.problems] == [("SCHEMA", key_path, line, col)]
    assert inv.problems[0].message == "unknown key 'colour' (unknown keys are rejected)"


@pytest.mark.parametrize(
    ("text", "key_path", "needle"),
    [
        (
            """\
            name: t
            base_url: http://127.0.0.1:8000
            defaults: {criticality: normal, timeout_ms: 5000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
            steps:
              - {id: go, kind: click, target: {type: css, selector: a, colour: red}}
            """,
            "steps[0].target.colour",
            "colour: red",
        ),
        (
            """\
            name: t
            base_url: http://127.0.0.1:8000
            defaults: {criticality: normal, timeout_ms: 5000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
            steps:
              - {id: go, kind: click, target: {type: css, selector: a}, postconditions: [{kind: url_is, args: {url: /x, colour: red}}]}
            """,
            "steps[0].postconditions[0].args.colour",
            "colour: red",
        ),
        (
            """\
            name: t
            base_url: http://127.0.0.1:8000
            defaults: {criticality: normal, timeout_ms: 5000, colour: red}
            steps:
              - {id: go, kind: click, target: {type: css, selector: a}}
            """,
            "defaults.colour",
            "colour: red",
        ),
    ],
    ids=["flow-target", "flow-condition-args", "flow-defaults"],
)
def test_unknown_key_in_flow_mappings_points_at_the_key(validate, text, key_path, needle):
    inv = only_problems(validate(text))
    lines = textwrap.dedent(text).splitlines()
    line = next(n for n, l in enumerate(lines, 1) if needle in l)
    col = lines[line - 1].index(needle) + 1
    assert [(p.rule, p.key_path, p.mark.line, p.mark.col) for p in inv.problems] == [("SCHEMA", key_path, line, col)]
    assert inv.problems[0].message == "unknown key 'colour' (unknown keys are rejected)"


def test_unknown_key_in_merged_default_condition(validate):
    # Reported once, in stage 1, under `defaults`, at the key in the defaults block.
    text = VALID_PLAN.replace("postconditions: [{kind: host_in_allowlist}]", "postconditions: [{kind: host_in_allowlist, colour: red}]")
    inv = only_problems(validate(text))
    lines = textwrap.dedent(text).splitlines()
    line = next(n for n, l in enumerate(lines, 1) if "colour: red" in l)
    assert [(p.rule, p.key_path, p.mark.line) for p in inv.problems] == [("SCHEMA", "defaults.postconditions[0].colour", line)]
    assert inv.problems[0].mark.col == lines[line - 1].index("colour") + 1


def test_several_unknown_keys_are_all_reported(validate):
    text = VALID_PLAN.replace("name: minimal", "name: minimal\ncolour: red\nsize: big")
    inv = only_problems(validate(text))
    assert sorted((p.key_path, p.mark.line, p.message) for p in inv.problems) == [
        ("colour", 2, "unknown key 'colour' (unknown keys are rejected)"),
        ("size", 3, "unknown key 'size' (unknown keys are rejected)"),
    ]
    assert inv.violated_rules == ["SCHEMA"]


@pytest.mark.parametrize(
    ("anchor", "typo", "key_path", "hint"),
    [
        ("kind: navigate", "timout_ms: 5", "steps[0].timout_ms", "timeout_ms"),
        ("kind: navigate", "postcondition: []", "steps[0].postcondition", "postconditions"),
        ("kind: navigate", "criticallity: normal", "steps[0].criticallity", "criticality"),
        ("name: full", "descripton: x", "descripton", "description"),
        ("name: full", "allowlst: [a.com]", "allowlst", "allowlist"),
        ("retries_per_action: 1", "recovery_mx: 1", "policy.recovery_mx", "recovery_max"),
        ("selector: \"#pay\"", "selectr: x", "steps[1].target.selectr", "selector"),
    ],
)
def test_misspelled_key_gets_a_hint(validate, anchor, typo, key_path, hint):
    text = insert_after(FULL, anchor, typo)
    inv = only_problems(validate(text, env=ENV))
    line = next(n for n, l in enumerate(text.splitlines(), 1) if l.strip() == typo)
    assert [(p.rule, p.key_path, p.mark.line) for p in inv.problems] == [("SCHEMA", key_path, line)]
    key = typo.split(":")[0]
    assert inv.problems[0].message == f"unknown key '{key}' (unknown keys are rejected); did you mean '{hint}'?"


def test_far_off_key_gets_no_hint(validate):
    text = insert_after(FULL, "name: full", "zzqqxx: 1")
    inv = only_problems(validate(text, env=ENV))
    assert inv.problems[0].message == "unknown key 'zzqqxx' (unknown keys are rejected)"


def test_no_key_runs_code(validate):
    for key in ("script", "eval", "exec", "js", "python", "run"):
        text = insert_after(FULL, "kind: navigate", f"{key}: document.body.remove()")
        inv = only_problems(validate(text, env=ENV))
        hint = {"eval": "; did you mean 'value'?", "js": "; did you mean 'json'?"}.get(key, "")  # json: v1.2's request
        assert [(p.rule, p.key_path, p.mark.line, p.message) for p in inv.problems] == [
            ("SCHEMA", f"steps[0].{key}", line_of(text, f"{key}: document"), f"unknown key '{key}' (unknown keys are rejected){hint}")]


# ---------------------------------------------------------------------------
# YAML 1.2 meaning


def one_problem(validate, text: str, rule: str, key_path: str, at: str, message: str) -> None:
    """The plan has exactly this one problem, at the place ``at`` points to (see ``mark_at``)."""
    inv = only_problems(validate(text))
    assert [(p.rule, p.key_path, (p.mark.line, p.mark.col), p.message) for p in inv.problems] == [
        (rule, key_path, mark_at(text, at), message)]


def go_step(body: str) -> str:
    return plan("- id: go\n" + body)


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "Yes", "y"])
def test_yaml_11_booleans_are_strings(validate, word):
    text = go_step(f"  kind: click\n  target: {{type: text, text: Go, exact: {word}}}\n")
    one_problem(validate, text, "SCHEMA", "steps[0].target.exact", f"exact: ^{word}}}", "input should be a valid boolean")


@pytest.mark.parametrize("word", ["true", "True", "TRUE"])
def test_yaml_12_booleans(validate, word):
    text = go_step(f"  kind: click\n  target: {{type: text, text: Go, exact: {word}}}\n")
    assert only_valid(validate(text)).plan.steps[0].target.exact is True


@pytest.mark.parametrize("value", ['"5000"', "'5000'", "5000.0", "5e3", "true"])
def test_timeout_ms_must_be_an_integer(validate, value):
    text = go_step(f"  kind: click\n  target: {{type: css, selector: a}}\n  timeout_ms: {value}\n")
    one_problem(validate, text, "SCHEMA", "steps[0].timeout_ms", f"timeout_ms: ^{value}", "input should be a valid integer")


def test_quoted_timeout_in_defaults_is_rejected(validate):
    text = VALID_PLAN.replace("timeout_ms: 5000", 'timeout_ms: "5000"')
    one_problem(validate, text, "SCHEMA", "defaults.timeout_ms", 'timeout_ms: ^"5000"', "input should be a valid integer")


@pytest.mark.parametrize(
    ("written", "expected"),
    [("12345", "12345"), ("0123", "0123"), ("11:30", "11:30"), ("-7", "-7"), ("1.5", "1.5"), ('"12345"', "12345"), ("0x1F", "31")],
)
def test_numeric_fill_value_is_text(validate, written, expected):
    text = go_step(f"  kind: fill\n  target: {{type: css, selector: '#zip'}}\n  value: {written}\n")
    assert only_valid(validate(text)).plan.steps[0].value == expected


@pytest.mark.parametrize("written", ["true", "{a: b}"])
def test_non_scalar_or_bool_fill_value_is_rejected(validate, written):
    # (v1.3) a value may be a list (select's options of a multiple select), so pydantic names both types
    text = go_step(f"  kind: fill\n  target: {{type: css, selector: '#zip'}}\n  value: {written}\n")
    one_problem(validate, text, "SCHEMA", "steps[0].value", f"value: ^{written}",
                "input should be a valid string; or must be a list")


def test_a_list_fill_value_is_rejected(validate):
    """(v1.3) A list of values is select's alone (rule INPUTS)."""
    text = go_step("  kind: fill\n  target: {type: css, selector: '#zip'}\n  value: [a]\n")
    one_problem(validate, text, "INPUTS", "steps[0].value", "value: ^[a]",
                "a list of values is select's only (a multiple select); 'fill' takes one")


def test_null_fill_value_is_missing(validate):
    text = go_step("  kind: fill\n  target: {type: css, selector: '#zip'}\n  value: null\n")
    one_problem(validate, text, "INPUTS", "steps[0].value", "value: ^null", "'fill' needs a value")


def test_criticality_yes_is_not_a_value(validate):
    text = go_step("  kind: click\n  criticality: yes\n  target: {type: css, selector: a}\n")
    one_problem(validate, text, "SCHEMA", "steps[0].criticality", "criticality: ^yes", "must be one of: 'normal' or 'critical'")


def test_numeric_step_id_is_rejected(validate):
    text = plan("- id: 1\n  kind: click\n  target: {type: css, selector: a}\n")
    one_problem(validate, text, "SCHEMA", "steps[0].id", "id: ^1", "input should be a valid string")


def test_python_tag_is_a_yaml_problem(validate):
    text = "name: !!python/object/apply:os.system [echo hi]\nsteps: []\n"
    one_problem(validate, text, "YAML", "", "!!python",
                "tag !!python/object/apply:os.system is not allowed (only YAML core tags are accepted)")


# ---------------------------------------------------------------------------
# validate_action_spec


def good_spec(**over):
    spec = {
        "id": "submit",
        "kind": "click",
        "criticality": "normal",
        "target": {"type": "role", "role": "button", "name": "Sign in", "exact": True},
        "preconditions": [{"kind": "element_enabled"}],
        "postconditions": [{"kind": "url_matches", "args": {"pattern": "/dashboard$"}, "severity": "critical"}],
        "timeout_ms": 8000,
    }
    spec.update(over)
    return spec


def test_validate_action_spec_valid():
    step = validate_action_spec(good_spec())
    assert isinstance(step, ActionSpec)
    assert step.id == "submit"
    assert step.target.name == "Sign in"
    assert step.postconditions[0].severity == "critical"


def test_validate_action_spec_critical_with_strong_postcondition():
    step = validate_action_spec(good_spec(criticality="critical"))
    assert isinstance(step, ActionSpec)
    assert step.criticality == "critical" and [c.kind for c in step.postconditions] == ["url_matches"]


def test_validate_action_spec_unknown_key():
    problems = validate_action_spec(good_spec(colour="red"))
    assert isinstance(problems, list) and all(isinstance(p, Problem) for p in problems)
    assert [(p.rule, p.key_path) for p in problems] == [("SCHEMA", "colour")]
    assert problems[0].message == "unknown key 'colour' (unknown keys are rejected)"
    assert problems[0].file == "<proposal>"


def test_validate_action_spec_unknown_key_in_target():
    spec = good_spec(target={"type": "css", "selector": "a", "xpath": "//a"})
    problems = validate_action_spec(spec, file="planner")
    # The key path is the one written: no pydantic union tag ("css") in it.
    assert [(p.rule, p.key_path, p.file) for p in problems] == [("SCHEMA", "target.xpath", "planner")]


def test_validate_action_spec_key_paths_have_no_union_tags():
    spec = good_spec(
        target={"type": "role", "role": "buton"},
        postconditions=[{"kind": "url_is", "args": {"url": "/x", "q": 1}}],
    )
    problems = validate_action_spec(spec)
    assert sorted((p.rule, p.key_path) for p in problems) == [
        ("SCHEMA", "postconditions[0].args.q"),
        ("SCHEMA", "target.role"),
    ]


def test_validate_action_spec_missing_keys():
    spec = good_spec()
    del spec["timeout_ms"]
    del spec["postconditions"]
    problems = validate_action_spec(spec)
    assert sorted((p.rule, p.key_path) for p in problems) == [
        ("CONDITIONS_REQUIRED", "postconditions"),
        ("SCHEMA", "timeout_ms"),
    ]


def test_validate_action_spec_is_strict():
    problems = validate_action_spec(good_spec(timeout_ms="8000"))
    assert [(p.rule, p.key_path) for p in problems] == [("SCHEMA", "timeout_ms")]


def test_validate_action_spec_context_rules():
    spec = good_spec(kind="fill", criticality="critical", postconditions=[{"kind": "element_visible"}])
    problems = validate_action_spec(spec)
    assert sorted((p.rule, p.key_path) for p in problems) == [("INPUTS", "value"), ("U5", "postconditions")]


def test_validate_action_spec_value_number_is_text():
    step = validate_action_spec(good_spec(kind="fill", value=12345))
    assert isinstance(step, ActionSpec)
    assert step.value == "12345"


def test_validate_action_spec_file_ref_confined(tmp_path):
    spec = good_spec(kind="upload", target={"type": "css", "selector": "input"}, file_ref="../secret.txt")
    problems = validate_action_spec(spec, uploads_root=tmp_path)
    assert [(p.rule, p.key_path) for p in problems] == [("PATH_CONFINEMENT", "file_ref")]
    ok = validate_action_spec(dict(spec, file_ref="a.pdf"), uploads_root=tmp_path)
    assert isinstance(ok, ActionSpec)


def test_validate_action_spec_not_a_mapping():
    problems = validate_action_spec(["not", "a", "step"])
    assert [p.rule for p in problems] == ["SCHEMA"]
    assert problems[0].message == "must be a mapping"


def test_hint_comes_from_the_keys_valid_in_that_place():
    from pytest_cometlocal.contract.validate.collector import key_hint

    # An xpath target has only type and selector: "texts" gets no "text" hint there.
    assert key_hint("texts", {"type": "xpath", "texts": 1}) is None
    assert key_hint("texts", {"type": "label", "texts": 1}) == "text"
    assert key_hint("selectr", {"type": "xpath", "selectr": 1}) == "selector"
    assert key_hint("postcondition", {"id": "a", "kind": "click", "postcondition": []}) == "postconditions"


def test_no_hint_from_keys_that_do_not_belong_there(validate):
    # A testid target has only type and id: "selectr" must not suggest a css field.
    text = insert_after(FULL, "id: go", "selectr: x")
    inv = only_problems(validate(text, env=ENV))
    assert inv.problems[0].message == "unknown key 'selectr' (unknown keys are rejected)"
