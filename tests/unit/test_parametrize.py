"""Data-driven plans: one validated plan (and pytest item) per row."""

from __future__ import annotations

from tests.conftest import only_problems
from tests.plan_text import HEAD

STEPS = """\
  - {id: open, kind: navigate, target: {type: url, url: "/users/${vars.user}"}}
"""


def test_mapping_form_gives_every_combination(validate):
    results = validate(HEAD.replace("steps:\n", "parametrize: {user: [alice, bob], lang: [en, es]}\nsteps:\n") + STEPS)
    assert [r.item_name for r in results] == ["t[alice-en]", "t[alice-es]", "t[bob-en]", "t[bob-es]"]
    assert [r.plan.steps[0].target.url for r in results] == ["/users/alice"] * 2 + ["/users/bob"] * 2
    assert dict(results[3].row.values) == {"user": "bob", "lang": "es"}


def test_row_list_with_ids_and_row_values_win_over_vars(validate):
    head = HEAD.replace("steps:\n", "vars: {user: nobody}\nparametrize:\n  - {id: admin, user: root}\n  - {user: guest}\nsteps:\n")
    results = validate(head + STEPS)
    assert [r.item_name for r in results] == ["t[admin]", "t[guest]"]
    assert results[0].plan.steps[0].target.url == "/users/root"


def test_csv_next_to_the_plan(validate, plan_dir):
    (plan_dir / "plans" / "users.csv").write_text("id,user\nfirst,ana\nsecond,luis\n")
    results = validate(HEAD.replace("steps:\n", "parametrize: users.csv\nsteps:\n") + STEPS)
    assert [r.item_name for r in results] == ["t[first]", "t[second]"]
    assert results[1].plan.steps[0].target.url == "/users/luis"


def test_bad_parametrize_is_reported_once(validate, plan_dir):
    inv = only_problems(validate(HEAD.replace("steps:\n", "parametrize: {user: []}\nsteps:\n") + STEPS))
    assert inv.problems[0].key_path.startswith("parametrize") and inv.problems[0].rule == "SCHEMA"
    inv = only_problems(validate(HEAD.replace("steps:\n", "parametrize: ../outside.csv\nsteps:\n") + STEPS))
    assert inv.problems[0].rule == "PATH_CONFINEMENT"
    inv = only_problems(validate(HEAD.replace("steps:\n", "parametrize: [{user: a}, {lang: b}]\nsteps:\n") + STEPS))
    assert inv.problems[0].rule == "PARAMETRIZE" and "same vars" in inv.problems[0].message
    inv = only_problems(validate(HEAD.replace("steps:\n", "parametrize: missing.csv\nsteps:\n") + STEPS))
    assert inv.problems[0].rule == "PARAMETRIZE" and "cannot read missing.csv" in inv.problems[0].message


def test_an_invalid_row_is_its_own_failing_item(validate):
    # The second row's value would form a "${" reference: only that row is invalid.
    text = HEAD.replace("steps:\n", "parametrize: {user: [ok, '${x']}\nsteps:\n") + STEPS
    results = validate(text)
    assert [type(r).__name__ for r in results] == ["ValidPlan", "InvalidPlan"]
    assert results[1].item_name == "t[${x]" and results[1].problems[0].rule == "INTERPOLATION"
