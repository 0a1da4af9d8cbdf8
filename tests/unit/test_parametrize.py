"""Data-driven plans: one validated plan (and pytest item) per row."""

from __future__ import annotations

import pytest

from tests.support import line_of, mark_at, only_problems, plan

STEPS = """\
  - {id: open, kind: navigate, target: {type: url, url: "/users/${vars.user}"}}
"""


def test_mapping_form_gives_every_combination(validate):
    results = validate(plan(STEPS, extra="parametrize: {user: [alice, bob], lang: [en, es]}\n"))
    assert [r.item_name for r in results] == ["t[alice-en]", "t[alice-es]", "t[bob-en]", "t[bob-es]"]
    assert [r.plan.steps[0].target.url for r in results] == ["/users/alice"] * 2 + ["/users/bob"] * 2
    assert dict(results[3].row.values) == {"user": "bob", "lang": "es"}


def test_row_list_with_ids_and_row_values_win_over_vars(validate):
    results = validate(plan(STEPS, extra="vars: {user: nobody}\nparametrize:\n  - {id: admin, user: root}\n  - {user: guest}\n"))
    assert [r.item_name for r in results] == ["t[admin]", "t[guest]"]
    assert results[0].plan.steps[0].target.url == "/users/root"


def test_csv_next_to_the_plan(validate, plan_dir):
    (plan_dir / "plans" / "users.csv").write_text("id,user\nfirst,ana\nsecond,luis\n")
    results = validate(plan(STEPS, extra="parametrize: users.csv\n"))
    assert [r.item_name for r in results] == ["t[first]", "t[second]"]
    assert results[1].plan.steps[0].target.url == "/users/luis"


def test_csv_empty_cells_are_the_empty_string(validate, plan_dir):
    """A bare empty cell and a quoted empty field are both the empty string (docs/authoring-at-scale.md); a blank
    line is no row. A one-column file writes its empty string quoted: a bare one would be a blank line."""
    (plan_dir / "plans" / "users.csv").write_text('user,lang\nana,\n"",es\n\n')
    results = validate(plan(STEPS + '  - {id: lang, kind: navigate, target: {type: url, url: "/l/${vars.lang}"}}\n',
                            extra="parametrize: users.csv\n"))
    assert [dict(r.row.values) for r in results] == [{"user": "ana", "lang": ""}, {"user": "", "lang": "es"}]
    assert [r.item_name for r in results] == ["t[ana-]", "t[-es]"]
    assert results[1].plan.steps[0].target.url == "/users/"
    (plan_dir / "plans" / "users.csv").write_text('user\n""\n\nbob\n')
    results = validate(plan(STEPS, extra="parametrize: users.csv\n"))
    assert [dict(r.row.values) for r in results] == [{"user": ""}, {"user": "bob"}]
    assert [r.item_name for r in results] == ["t[row]", "t[bob]"]  # an id made of nothing but empty values


@pytest.mark.parametrize("parametrize, problems", [
    ("{user: []}", [("SCHEMA", "parametrize.user", "must not be empty"),
                    ("SCHEMA", "parametrize", "must be a list; or input should be a valid string")]),
    ("../outside.csv", [("PATH_CONFINEMENT", "parametrize",
                         "'..' in '../outside.csv' is not allowed (the CSV file must be next to the plan)")]),
    ("[{user: a}, {lang: b}]", [("PARAMETRIZE", "parametrize", "every row must set the same vars")]),
    ("missing.csv", [("PARAMETRIZE", "parametrize", "cannot read missing.csv: No such file or directory")]),
], ids=["no-values", "csv-outside-the-folder", "rows-set-different-vars", "csv-missing"])
def test_bad_parametrize_is_reported_once(validate, plan_dir, parametrize, problems):
    # One invalid plan (not one per row), its problems at the parametrize value.
    text = plan(STEPS, extra=f"parametrize: {parametrize}\n")
    inv = only_problems(validate(text))
    assert [(p.rule, p.key_path, p.message) for p in inv.problems] == problems
    assert {(p.mark.line, p.mark.col) for p in inv.problems} == {mark_at(text, f"parametrize: ^{parametrize}")}


def test_an_invalid_row_is_its_own_failing_item(validate):
    # The second row's value would form a "${" reference: only that row is invalid.
    text = plan(STEPS, extra="parametrize: {user: [ok, '${x']}\n")
    results = validate(text)
    assert [type(r).__name__ for r in results] == ["ValidPlan", "InvalidPlan"]
    assert results[1].item_name == "t[${x]"
    assert [(p.rule, p.key_path, p.mark.line, p.message) for p in results[1].problems] == [
        ("INTERPOLATION", "steps[0].target.url", line_of(text, "${vars.user}"), "a var value cannot form a new ${...} reference")]
