"""Reusable step groups: ``use:`` expands to validated ActionSpecs at load time."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from tests.conftest import only_problems, only_valid
from tests.plan_text import HEAD, line_of

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


def group(plan_dir: Path, rel: str, text: str) -> Path:
    path = plan_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_use_expands_with_prefixed_ids_and_with_values(validate, plan_dir):
    group(plan_dir, "groups/login.steps.yaml", LOGIN)
    text = HEAD + """\
  - use: ../groups/login.steps.yaml
    with: {user: bob}
  - {id: after, kind: click, target: {type: testid, id: x}}
"""
    valid = only_valid(validate(text))
    plan = valid.plan
    assert [s.id for s in plan.steps] == ["login.open", "login.user", "login.submit", "after"]
    assert plan.steps[1].value == "bob"
    # The plan's defaults fill what the group's steps lack; a key the step has wins.
    assert plan.steps[0].timeout_ms == 5000 and plan.steps[2].criticality == "critical"
    use_line = line_of(text, "- use:")
    assert valid.source.step_marks["login.user"].line == use_line
    assert valid.source.step_origins["login.user"] == (f"plans/p.actions.yaml:{use_line}", "groups/login.steps.yaml:7")
    assert valid.source.step_origins["after"] == (f"plans/p.actions.yaml:{line_of(text, 'id: after')}",)


def test_group_vars_default_and_explicit_prefix(validate, plan_dir):
    group(plan_dir, "plans/login.steps.yaml", LOGIN)
    text = HEAD + "  - {use: login.steps.yaml, id: admin}\n  - {use: login.steps.yaml, id: guest, with: {user: g}}\n"
    plan = only_valid(validate(text)).plan
    assert [s.id for s in plan.steps][:3] == ["admin.open", "admin.user", "admin.submit"]
    assert plan.steps[1].value == "alice" and plan.steps[4].value == "g"


def test_same_group_twice_without_ids_is_a_duplicate_id(validate, plan_dir):
    group(plan_dir, "plans/login.steps.yaml", LOGIN)
    inv = only_problems(validate(HEAD + "  - use: login.steps.yaml\n  - use: login.steps.yaml\n"))
    assert "UNIQUE_ID" in inv.violated_rules


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
    valid = only_valid(validate(HEAD + "  - use: groups/outer.steps.yaml\n"))
    assert [s.id for s in valid.plan.steps] == ["outer.in.a", "outer.b"]
    assert [s.timeout_ms for s in valid.plan.steps] == [1234, 1234]
    assert valid.source.step_origins["outer.in.a"] == (
        "plans/p.actions.yaml:9", "plans/groups/outer.steps.yaml:3", "plans/groups/inner.steps.yaml:2")


def test_a_problem_in_a_group_names_the_group_line_and_the_plan_line(validate, plan_dir):
    group(plan_dir, "groups/bad.steps.yaml", """\
        steps:
          - {id: ok, kind: click, target: {type: testid, id: a}}
          - id: broken
            kind: click
            target: {type: role, role: buton}
        """)
    inv = only_problems(validate(HEAD + "  - {id: first, kind: click, target: {type: testid, id: z}}\n"
                                        "  - use: ../groups/bad.steps.yaml\n"))
    (problem,) = inv.problems
    assert problem.file == "groups/bad.steps.yaml"
    assert (problem.mark.line, problem.key_path) == (5, "steps[1].target.role")
    assert problem.via == ("plans/p.actions.yaml:10",)
    assert problem.format().startswith("groups/bad.steps.yaml:5:")
    assert problem.format().endswith("(via plans/p.actions.yaml:10)")


def test_missing_group_and_cycles_name_the_chain(validate, plan_dir):
    inv = only_problems(validate(HEAD + "  - use: nowhere.steps.yaml\n"))
    assert inv.problems[0].rule == "GROUP" and "plans/nowhere.steps.yaml does not exist" in inv.problems[0].message
    assert (inv.problems[0].file, inv.problems[0].key_path) == ("plans/p.actions.yaml", "steps[0].use")

    group(plan_dir, "plans/a.steps.yaml", "steps:\n  - use: b.steps.yaml\n")
    group(plan_dir, "plans/b.steps.yaml", "steps:\n  - {id: x, kind: click, target: {type: testid, id: x}}\n"
                                          "  - use: a.steps.yaml\n")
    inv = only_problems(validate(HEAD + "  - use: a.steps.yaml\n"))
    (problem,) = inv.problems
    assert problem.rule == "GROUP" and problem.file == "plans/b.steps.yaml" and problem.mark.line == 3
    assert ("cycle: plans/p.actions.yaml:9 -> plans/a.steps.yaml:2 -> plans/b.steps.yaml:3 -> plans/a.steps.yaml"
            in problem.message)


def test_groups_are_confined_to_the_suite_root(validate, plan_dir, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    group(outside, "evil.steps.yaml", LOGIN)
    inv = only_problems(validate(HEAD + f"  - use: ../../{outside.name}/evil.steps.yaml\n"))
    assert inv.problems[0].rule == "PATH_CONFINEMENT"
    inv = only_problems(validate(HEAD + f"  - use: {outside}/evil.steps.yaml\n"))
    assert inv.problems[0].rule == "PATH_CONFINEMENT"
    os.symlink(outside / "evil.steps.yaml", plan_dir / "plans" / "link.steps.yaml")
    inv = only_problems(validate(HEAD + "  - use: link.steps.yaml\n"))
    assert inv.problems[0].rule == "PATH_CONFINEMENT"


@pytest.mark.parametrize("use_step, rule, text", [
    ("{use: login.yaml}", "GROUP", "must end with .steps.yaml"),
    ("{use: login.steps.yaml, wiht: {}}", "SCHEMA", "unknown key 'wiht'"),
    ("{use: login.steps.yaml, with: {usr: x}}", "GROUP", "'with' sets usr, which the group does not use"),
    ("{use: login.steps.yaml, with: {user: [a]}}", "SCHEMA", "string or a finite number"),
    ("{use: login.steps.yaml, id: 'bad id'}", "SCHEMA", "cannot prefix step ids"),
])
def test_bad_use_steps(validate, plan_dir, use_step, rule, text):
    group(plan_dir, "plans/login.steps.yaml", LOGIN)
    inv = only_problems(validate(HEAD + f"  - {use_step}\n"))
    assert inv.problems[0].rule == rule and text in inv.problems[0].message, inv.problems[0].format()


def test_group_scope_does_not_see_plan_vars(validate, plan_dir):
    group(plan_dir, "plans/g.steps.yaml", "steps:\n  - {id: f, kind: fill, target: {type: testid, id: f}, value: '${vars.who}'}\n")
    inv = only_problems(validate(HEAD.replace("steps:\n", "vars: {who: plan}\nsteps:\n") + "  - use: g.steps.yaml\n"))
    p = inv.problems[0]
    assert p.rule == "INTERPOLATION" and p.file == "plans/g.steps.yaml" and "unknown var 'who'" in p.message
    # ... but a with value may pass a plan var (and a secret reference) in.
    text = HEAD.replace("steps:\n", "vars: {who: plan}\nsecrets: {pw: {env: PW}}\nsteps:\n") + \
        "  - {use: g.steps.yaml, with: {who: '${vars.who}-${secrets.pw}'}}\n"
    plan = only_valid(validate(text, env={"PW": "s3cret"})).plan
    assert plan.steps[0].value == "plan-${secrets.pw}"


def test_group_secrets_join_the_plan_and_are_checked(validate, plan_dir):
    group(plan_dir, "plans/g.steps.yaml", """\
        secrets: {pw: {env: GROUP_PW}}
        steps:
          - {id: f, kind: fill, target: {type: testid, id: f}, value: '${secrets.pw}'}
        """)
    valid = only_valid(validate(HEAD + "  - use: g.steps.yaml\n", env={"GROUP_PW": "x"}))
    assert valid.plan.secrets["pw"].env == "GROUP_PW"
    assert valid.plan.steps[0].value == "${secrets.pw}"
    inv = only_problems(validate(HEAD + "  - use: g.steps.yaml\n", env={}))
    assert inv.problems[0].rule == "SECRET_ENV" and inv.problems[0].file == "plans/g.steps.yaml"
    group(plan_dir, "plans/h.steps.yaml", "steps:\n  - {id: f, kind: fill, target: {type: testid, id: f}, value: '${secrets.nope}'}\n")
    inv = only_problems(validate(HEAD + "  - use: h.steps.yaml\n"))
    assert inv.problems[0].rule == "INTERPOLATION" and inv.problems[0].file == "plans/h.steps.yaml"
    assert inv.problems[0].key_path == "steps[0].value"


def test_bad_group_files(validate, plan_dir):
    group(plan_dir, "plans/y.steps.yaml", "steps: [\n")
    inv = only_problems(validate(HEAD + "  - use: y.steps.yaml\n"))
    assert inv.problems[0].rule == "YAML" and inv.problems[0].file == "plans/y.steps.yaml"
    assert inv.problems[0].via == ("plans/p.actions.yaml:9",)
    group(plan_dir, "plans/k.steps.yaml", "name: x\nsteps:\n  - {id: a, kind: click, target: {type: testid, id: a}}\n")
    inv = only_problems(validate(HEAD + "  - use: k.steps.yaml\n"))
    assert inv.problems[0].rule == "SCHEMA" and "unknown key 'name' in a step group" in inv.problems[0].message
    group(plan_dir, "plans/e.steps.yaml", "steps: []\n")
    inv = only_problems(validate(HEAD + "  - use: e.steps.yaml\n"))
    assert inv.problems[0].rule == "GROUP"


def test_storage_state_save_points(validate, plan_dir):
    group(plan_dir, "plans/login.steps.yaml", "save_storage_state: admin\n" + LOGIN)
    text = HEAD.replace("steps:\n", "save_storage_state: end\nsteps:\n") + \
        "  - use: login.steps.yaml\n  - {id: more, kind: click, target: {type: testid, id: m}}\n"
    valid = only_valid(validate(text))
    assert valid.storage_saves == (("login.submit", "admin"), ("more", "end"))
    inv = only_problems(validate(text.replace("save_storage_state: end\n", "storage_state: admin\n")))
    assert inv.problems[0].rule == "STORAGE_STATE"


def test_a_group_in_recovery_steps(validate, plan_dir):
    group(plan_dir, "plans/cookies.steps.yaml", "steps:\n  - {id: accept, kind: click, target: {type: testid, id: ok}}\n")
    text = HEAD.replace("steps:\n", "recovery:\n  on_error: [OVERLAY_BLOCKING]\n  steps:\n    - use: cookies.steps.yaml\nsteps:\n") + \
        "  - {id: go, kind: click, target: {type: testid, id: go}}\n"
    valid = only_valid(validate(text))
    assert [s.id for s in valid.plan.recovery.steps] == ["cookies.accept"]


def test_group_file_is_read_once_per_change(validate, plan_dir, monkeypatch):
    from pytest_cometlocal.contract import groups

    path = group(plan_dir, "plans/login.steps.yaml", LOGIN)
    loads = []
    real = groups.load_file
    monkeypatch.setattr(groups, "load_file", lambda p: loads.append(p) or real(p))
    for _ in range(3):
        only_valid(validate(HEAD + "  - use: login.steps.yaml\n"))
    assert len(loads) == 1
    path.write_text(LOGIN.replace("/login", "/signin"))
    os.utime(path, ns=(1, 1))
    valid = only_valid(validate(HEAD + "  - use: login.steps.yaml\n"))
    assert len(loads) == 2 and valid.plan.steps[0].target.url == "/signin"
