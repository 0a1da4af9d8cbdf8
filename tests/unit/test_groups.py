"""Reusable step groups: ``use:`` expands to validated ActionSpecs at load time."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from tests.support import line_of, only_problems, only_valid, plan

LOGIN = """\
description: sign in
vars: {user: alice}
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
  - id: user
    kind: fill
    target: {type: testid, id: user}
    value: ${vars.user}
  - id: submit
    kind: click
    criticality: critical
    target: {type: testid, id: go}
    postconditions: [{kind: url_matches, args: {pattern: "/dashboard$"}}]
"""


def reported(inv) -> list[tuple]:
    """(rule, file, key path, line, message, via) of every problem."""
    return [(p.rule, p.file, p.key_path, p.mark.line, p.message, p.via) for p in inv.problems]


def group(plan_dir: Path, rel: str, text: str) -> Path:
    path = plan_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_use_expands_with_prefixed_ids_and_with_values(validate, plan_dir):
    group(plan_dir, "groups/login.steps.yaml", LOGIN)
    text = plan("""\
        - use: ../groups/login.steps.yaml
          with: {user: bob}
        - {id: after, kind: click, target: {type: testid, id: x}}
    """)
    valid = only_valid(validate(text))
    steps = valid.plan.steps
    assert [s.id for s in steps] == ["login.open", "login.user", "login.submit", "after"]
    assert steps[1].value == "bob"
    # The plan's defaults fill what the group's steps lack; a key the step has wins.
    assert steps[0].timeout_ms == 3000 and steps[2].criticality == "critical"
    use_line = line_of(text, "- use:")
    assert valid.source.step_marks["login.user"].line == use_line
    assert valid.source.step_origins["login.user"] == (f"plans/p.actions.yaml:{use_line}", "groups/login.steps.yaml:7")
    assert valid.source.step_origins["after"] == (f"plans/p.actions.yaml:{line_of(text, 'id: after')}",)


def test_group_vars_default_and_explicit_prefix(validate, plan_dir):
    group(plan_dir, "plans/login.steps.yaml", LOGIN)
    text = plan("  - {use: login.steps.yaml, id: admin}\n  - {use: login.steps.yaml, id: guest, with: {user: g}}\n")
    steps = only_valid(validate(text)).plan.steps
    assert [s.id for s in steps] == ["admin.open", "admin.user", "admin.submit", "guest.open", "guest.user", "guest.submit"]
    assert steps[1].value == "alice" and steps[4].value == "g"


def test_same_group_twice_without_ids_is_a_duplicate_id(validate, plan_dir):
    group(plan_dir, "plans/login.steps.yaml", LOGIN)
    text = plan("  - use: login.steps.yaml\n  - use: login.steps.yaml\n")
    inv = only_problems(validate(text))
    via = (f"plans/p.actions.yaml:{line_of(text, 'use:', 2)}",)
    assert reported(inv) == [
        ("UNIQUE_ID", "plans/login.steps.yaml", "steps[0].id", 4, "step id 'login.open' is already used", via),
        ("UNIQUE_ID", "plans/login.steps.yaml", "steps[1].id", 7, "step id 'login.user' is already used", via),
        ("UNIQUE_ID", "plans/login.steps.yaml", "steps[2].id", 11, "step id 'login.submit' is already used", via),
    ]


def test_nested_groups_and_their_defaults(validate, plan_dir):
    group(plan_dir, "plans/groups/inner.steps.yaml", """\
        steps:
          - {id: a, kind: click, target: {type: testid, id: a}}
        """)
    group(plan_dir, "plans/groups/outer.steps.yaml", """\
        defaults: {timeout_ms: 1234}
        steps:
          - {use: inner.steps.yaml, id: in}
          - {id: b, kind: click, target: {type: testid, id: b}}
        """)
    text = plan("  - use: groups/outer.steps.yaml\n")
    valid = only_valid(validate(text))
    assert [s.id for s in valid.plan.steps] == ["outer.in.a", "outer.b"]
    assert [s.timeout_ms for s in valid.plan.steps] == [1234, 1234]
    assert valid.source.step_origins["outer.in.a"] == (
        f"plans/p.actions.yaml:{line_of(text, 'use:')}", "plans/groups/outer.steps.yaml:3", "plans/groups/inner.steps.yaml:2")


def test_a_problem_in_a_group_names_the_group_line_and_the_plan_line(validate, plan_dir):
    group(plan_dir, "groups/bad.steps.yaml", """\
        steps:
          - {id: ok, kind: click, target: {type: testid, id: a}}
          - id: broken
            kind: click
            target: {type: role, role: buton}
        """)
    text = plan("  - {id: first, kind: click, target: {type: testid, id: z}}\n  - use: ../groups/bad.steps.yaml\n")
    inv = only_problems(validate(text))
    (problem,) = inv.problems
    use = f"plans/p.actions.yaml:{line_of(text, 'use:')}"
    assert (problem.file, problem.mark.line, problem.key_path, problem.via) == (
        "groups/bad.steps.yaml", 5, "steps[1].target.role", (use,))
    assert problem.format().startswith("groups/bad.steps.yaml:5:")
    assert problem.format().endswith(f"(via {use})")


def test_missing_group_and_cycles_name_the_chain(validate, plan_dir):
    text = plan("  - use: nowhere.steps.yaml\n")
    inv = only_problems(validate(text))
    assert reported(inv) == [("GROUP", "plans/p.actions.yaml", "steps[0].use", line_of(text, "use:"),
                              "step group file plans/nowhere.steps.yaml does not exist", ())]

    group(plan_dir, "plans/a.steps.yaml", "steps:\n  - use: b.steps.yaml\n")
    group(plan_dir, "plans/b.steps.yaml", "steps:\n  - {id: x, kind: click, target: {type: testid, id: x}}\n"
                                          "  - use: a.steps.yaml\n")
    text = plan("  - use: a.steps.yaml\n")
    inv = only_problems(validate(text))
    use = f"plans/p.actions.yaml:{line_of(text, 'use:')}"
    assert reported(inv) == [(
        "GROUP", "plans/b.steps.yaml", "steps[1].use", 3,
        f"step groups use each other in a cycle: {use} -> plans/a.steps.yaml:2 -> plans/b.steps.yaml:3 -> plans/a.steps.yaml",
        (use, "plans/a.steps.yaml:2"),
    )]


def test_groups_are_confined_to_the_suite_root(validate, plan_dir, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    group(outside, "evil.steps.yaml", LOGIN)
    os.symlink(outside / "evil.steps.yaml", plan_dir / "plans" / "link.steps.yaml")
    for use, message in [
        (f"../../{outside.name}/evil.steps.yaml", f"'../../{outside.name}/evil.steps.yaml' resolves outside the suite's root folder {plan_dir}"),
        (f"{outside}/evil.steps.yaml", f"absolute path '{outside}/evil.steps.yaml' is not allowed; give a file relative to the file that names it"),
        ("link.steps.yaml", f"'link.steps.yaml' resolves outside the suite's root folder {plan_dir}"),
    ]:
        text = plan(f"  - use: {use}\n")
        assert reported(only_problems(validate(text))) == [
            ("PATH_CONFINEMENT", "plans/p.actions.yaml", "steps[0].use", line_of(text, "use:"), message, ())]


@pytest.mark.parametrize("use_step, rule, key_path, message", [
    ("{use: login.yaml}", "GROUP", "steps[0].use",
     "'login.yaml' is not a step group: its name must end with .steps.yaml or .steps.yml"),
    ("{use: login.steps.yaml, wiht: {}}", "SCHEMA", "steps[0].wiht",
     "unknown key 'wiht' in a use step (it takes use, id and with)"),
    ("{use: login.steps.yaml, with: {user: [a]}}", "SCHEMA", "steps[0].with.user", "must be a string or a finite number"),
    ("{use: login.steps.yaml, id: 'bad id'}", "SCHEMA", "steps[0].id",
     "'bad id' cannot prefix step ids (it must match ^[A-Za-z0-9][A-Za-z0-9_.\\-]{0,127}$)"),
], ids=["not-a-steps-file", "unknown-key", "with-value-not-text", "bad-id-prefix"])
def test_bad_use_steps(validate, plan_dir, use_step, rule, key_path, message):
    group(plan_dir, "plans/login.steps.yaml", LOGIN)
    text = plan(f"  - {use_step}\n")
    assert reported(only_problems(validate(text))) == [
        (rule, "plans/p.actions.yaml", key_path, line_of(text, "use:"), message, ())]


SHOWN_IN_DESCRIPTION = "description: sign in as ${vars.shown}\n" + LOGIN.split("\n", 1)[1]
SHOWN_IN_METADATA = LOGIN.replace("    target: {type: url, url: /login}\n",
                                  "    target: {type: url, url: /login}\n    metadata: {who: '${vars.shown}'}\n")


@pytest.mark.parametrize("text", [SHOWN_IN_DESCRIPTION, SHOWN_IN_METADATA], ids=["description", "metadata"])
def test_a_with_var_named_only_in_the_description_or_metadata_is_used(validate, plan_dir, text):
    group(plan_dir, "plans/login.steps.yaml", text)
    results = validate(plan("  - {use: login.steps.yaml, with: {shown: Alice}}\n"))
    assert [getattr(r, "problems", ()) for r in results] == [()]


def test_a_use_path_may_hold_a_var(validate, plan_dir):
    """``use: groups/${vars.flow}.steps.yaml``: vars are substituted before groups are read (docs/authoring-at-scale.md)."""
    group(plan_dir, "plans/groups/login.steps.yaml", LOGIN)
    results = validate(plan("  - {use: 'groups/${vars.flow}.steps.yaml'}\n", extra="vars: {flow: login}\n"))
    assert [s.id for s in results[0].plan.steps] == ["login.open", "login.user", "login.submit"]


def test_with_a_var_the_group_does_not_use_is_reported_at_the_group(validate, plan_dir):
    group(plan_dir, "plans/login.steps.yaml", LOGIN)
    text = plan("  - {use: login.steps.yaml, with: {usr: x}}\n")
    assert reported(only_problems(validate(text))) == [
        ("GROUP", "plans/login.steps.yaml", "steps", line_of(LOGIN, "- id: open"),
         "'with' sets usr, which the group does not use (it uses: user)", (f"plans/p.actions.yaml:{line_of(text, 'use:')}",))]


def test_group_scope_does_not_see_plan_vars(validate, plan_dir):
    group(plan_dir, "plans/g.steps.yaml", "steps:\n  - {id: f, kind: fill, target: {type: testid, id: f}, value: '${vars.who}'}\n")
    text = plan("  - use: g.steps.yaml\n", extra="vars: {who: plan}\n")
    assert reported(only_problems(validate(text))) == [
        ("INTERPOLATION", "plans/g.steps.yaml", "steps[0].value", 2, "unknown var 'who' (vars: none declared)",
         (f"plans/p.actions.yaml:{line_of(text, 'use:')}",))]
    # ... but a with value may pass a plan var (and a secret reference) in.
    text = plan("  - {use: g.steps.yaml, with: {who: '${vars.who}-${secrets.pw}'}}\n",
                extra="vars: {who: plan}\nsecrets: {pw: {env: PW}}\n")
    assert only_valid(validate(text, env={"PW": "s3cret"})).plan.steps[0].value == "plan-${secrets.pw}"


def test_group_secrets_join_the_plan_and_are_checked(validate, plan_dir):
    group(plan_dir, "plans/g.steps.yaml", """\
        secrets: {pw: {env: GROUP_PW}}
        steps:
          - {id: f, kind: fill, target: {type: testid, id: f}, value: '${secrets.pw}'}
        """)
    valid = only_valid(validate(plan("  - use: g.steps.yaml\n"), env={"GROUP_PW": "x"}))
    assert valid.plan.secrets["pw"].env == "GROUP_PW"
    assert valid.plan.steps[0].value == "${secrets.pw}"
    text = plan("  - use: g.steps.yaml\n")
    via = (f"plans/p.actions.yaml:{line_of(text, 'use:')}",)
    assert reported(only_problems(validate(text, env={}))) == [
        ("SECRET_ENV", "plans/g.steps.yaml", "secrets.pw", 1, "secret 'pw' needs environment variable GROUP_PW, which is not set", via)]
    group(plan_dir, "plans/h.steps.yaml", "steps:\n  - {id: f, kind: fill, target: {type: testid, id: f}, value: '${secrets.nope}'}\n")
    assert reported(only_problems(validate(plan("  - use: h.steps.yaml\n")))) == [
        ("INTERPOLATION", "plans/h.steps.yaml", "steps[0].value", 2, "unknown secret 'nope' (secrets: none declared)", via)]


def test_bad_group_files(validate, plan_dir):
    via = (f"plans/p.actions.yaml:{line_of(plan('  - use: y.steps.yaml'), 'use:')}",)
    group(plan_dir, "plans/y.steps.yaml", "steps: [\n")
    assert reported(only_problems(validate(plan("  - use: y.steps.yaml\n")))) == [
        ("YAML", "plans/y.steps.yaml", "", 2, "YAML syntax error: while parsing a flow node; did not find expected node content", via)]
    group(plan_dir, "plans/k.steps.yaml", "name: x\nsteps:\n  - {id: a, kind: click, target: {type: testid, id: a}}\n")
    assert reported(only_problems(validate(plan("  - use: k.steps.yaml\n")))) == [
        ("SCHEMA", "plans/k.steps.yaml", "name", 1,
         "unknown key 'name' in a step group (it takes description, vars, secrets, defaults, save_storage_state, steps)", via)]
    group(plan_dir, "plans/e.steps.yaml", "steps: []\n")
    assert reported(only_problems(validate(plan("  - use: e.steps.yaml\n")))) == [
        ("GROUP", "plans/e.steps.yaml", "steps", 1, "a step group needs a non-empty 'steps' list", via)]


def test_storage_state_save_points(validate, plan_dir):
    group(plan_dir, "plans/login.steps.yaml", "save_storage_state: admin\n" + LOGIN)
    text = plan("  - use: login.steps.yaml\n  - {id: more, kind: click, target: {type: testid, id: m}}\n", extra="save_storage_state: end\n")
    valid = only_valid(validate(text))
    assert valid.storage_saves == (("login.submit", "admin"), ("more", "end"))
    text = text.replace("save_storage_state: end\n", "storage_state: admin\n")
    assert reported(only_problems(validate(text))) == [
        ("STORAGE_STATE", "plans/p.actions.yaml", "storage_state", line_of(text, "storage_state: admin"),
         "the plan saves storage state 'admin' itself, so it cannot start from it", ())]


def test_a_group_in_recovery_steps(validate, plan_dir):
    group(plan_dir, "plans/cookies.steps.yaml", "steps:\n  - {id: accept, kind: click, target: {type: testid, id: ok}}\n")
    text = plan("  - {id: go, kind: click, target: {type: testid, id: go}}\n", extra="recovery:\n  on_error: [OVERLAY_BLOCKING]\n  steps:\n    - use: cookies.steps.yaml\n")
    valid = only_valid(validate(text))
    assert [s.id for s in valid.plan.recovery.steps] == ["cookies.accept"]


def test_group_file_is_read_once_per_change(validate, plan_dir, monkeypatch):
    from pytest_cometlocal.contract.load import step_groups as groups

    path = group(plan_dir, "plans/login.steps.yaml", LOGIN)
    loads = []
    real = groups.load_file
    monkeypatch.setattr(groups, "load_file", lambda p: loads.append(p) or real(p))
    for _ in range(3):
        only_valid(validate(plan("  - use: login.steps.yaml\n")))
    assert len(loads) == 1
    path.write_text(LOGIN.replace("/login", "/signin"))
    os.utime(path, ns=(1, 1))
    valid = only_valid(validate(plan("  - use: login.steps.yaml\n")))
    assert len(loads) == 2 and valid.plan.steps[0].target.url == "/signin"
