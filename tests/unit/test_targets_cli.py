"""``cometlocal targets`` and role families without a browser (issue 39): the table of families, the ranking of
a role-only target, the listing's targets and text, the command's usage errors and its allowlist refusal.

The browser side (every listed target checked by a plan, the grid offered for a nameless table, the failure's
aria snapshot) is tests/executor/test_targets_command.py.
"""

from __future__ import annotations

import pytest
import yaml

from pytest_cometlocal import cli
from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.validate.validated import ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.validator import validate_text
from pytest_cometlocal.executor.suggest.families import ROLE_FAMILIES, family_of, related_roles
from pytest_cometlocal.executor.suggest.listing import LIST_ORDER, listed
from pytest_cometlocal.executor.suggest.ranking import TARGET_ORDER, Wanted, rank, target_options
from pytest_cometlocal.targets_cli.command import target_yaml, text_report
from pytest_cometlocal.targets_cli.opening import url_plan_text
from tests.unit.test_suggest_rank import cand


def test_each_family_is_a_row_of_aria_roles_and_relates_its_roles_both_ways() -> None:
    assert all(roles <= set(T.ARIA_ROLES) for _family, roles in ROLE_FAMILIES)
    assert related_roles("table") == {"grid", "treegrid"} and "table" in related_roles("grid")
    assert related_roles("list") == {"listbox"} and related_roles("listbox") == {"list"}
    assert related_roles("button") == {"link", "menuitem", "tab"} and "button" in related_roles("tab")
    assert related_roles("textbox") == {"searchbox", "combobox"}
    assert related_roles("heading") == frozenset() and family_of("table", "grid") == "tables"
    assert set(LIST_ORDER) == set(TARGET_ORDER)


def test_a_role_only_target_ranks_the_elements_of_its_family_and_no_other() -> None:
    grid = cand(0, tag="div", role="grid", clickable=False, fp="div|0")
    button = cand(1, name="Submit", text="Submit")
    heading = cand(2, tag="h1", role="heading", name="Results", clickable=False)
    (only,) = rank(Wanted(role="table", need="clickable", action="click"), [grid, button, heading])
    assert only.candidate is grid and only.parts["family"] == 1.0
    assert "role grid is akin to table (tables)" in only.reasons
    assert rank(Wanted(role="list"), [grid, button, heading]) == []  # none of its family: the floor holds
    # A named target keeps the floor of names: a grid is no "Orders" table renamed.
    assert rank(Wanted(texts=("Orders",), role="table"), [grid]) == []
    link = cand(3, tag="a", role="link", name="Help")
    assert [r.candidate["index"] for r in rank(Wanted(role="button", need="clickable"), [link])] == [3]


def test_a_nameless_element_gets_its_bare_role_only_when_asked() -> None:
    grid = cand(0, tag="div", role="grid", clickable=False, testid="frame")
    assert target_options(grid) == [{"type": "testid", "id": "frame"}]  # suggestions of named targets: unchanged
    assert target_options(grid, bare_role=True) == [{"type": "testid", "id": "frame"}, {"type": "role", "role": "grid"}]
    assert target_options(grid, prefer="role", bare_role=True)[0] == {"type": "role", "role": "grid"}
    assert target_options(cand(1, tag="div", role="generic", clickable=False), bare_role=True) == []
    named = cand(2, tag="table", role="table", name="Orders", clickable=False)
    assert target_options(named, bare_role=True)[0] == {"type": "role", "role": "table", "name": "Orders", "exact": True}


def test_the_listing_keeps_interactive_elements_and_landmarks() -> None:
    assert listed(cand(0)) and listed(cand(1, tag="nav", role="navigation", clickable=False))
    assert listed(cand(2, tag="input", role="textbox", clickable=False, fillable=True))
    assert not listed(cand(3, tag="p", role=None, clickable=False))
    assert not listed(cand(4, tag="li", role="listitem", clickable=False))


def test_the_text_report_gives_each_target_as_the_yaml_a_plan_holds() -> None:
    found = {"url": "http://127.0.0.1:1/x", "title": "X", "unnamed": 1, "elements": [
        {"element": 'button "Save: now"', "target": {"type": "role", "role": "button", "name": "Save: now",
                                                     "exact": True}, "unique": True, "matches": 1},
        {"element": "list", "target": {"type": "role", "role": "list"}, "unique": False, "matches": 3}]}
    lines = text_report(found, aria=False).splitlines()
    assert lines[0] == 'http://127.0.0.1:1/x  "X"'
    assert yaml.safe_load(lines[1][lines[1].index("{"):]) == found["elements"][0]["target"]  # quoted where YAML needs
    assert lines[2].endswith("{type: role, role: list}   not unique: matches 3")
    assert lines[3] == "2 elements: 1 unique targets; 1 elements no target names"
    assert target_yaml({"type": "label", "text": "E-mail", "exact": True}) == "{type: label, text: E-mail, exact: true}"
    assert text_report({"aria_snapshot": "- main\n", "aria_snapshot_truncated": True}, aria=True).endswith("20 KB\n")


def test_a_urls_plan_is_a_valid_one_step_plan(tmp_path) -> None:
    url = 'http://127.0.0.1:8000/a?b="c: d"'
    (plan,) = validate_text(url_plan_text(url, "signed_in"), ValidationContext(root=tmp_path, plan_path=tmp_path / "x"))
    assert isinstance(plan, ValidPlan), plan
    assert plan.plan.storage_state == "signed_in" and plan.plan.steps[0].target.url == url


@pytest.mark.parametrize("args, says", [
    ([], "give a URL or --plan FILE"),
    (["http://127.0.0.1/", "--plan", "p.actions.yaml"], "give a URL or --plan FILE"),
    (["http://127.0.0.1/", "--step", "s"], "--step names a step of --plan FILE"),
    (["--plan", "missing.actions.yaml"], "no such plan file: missing.actions.yaml"),
    (["--plan", "p.actions.yaml", "--step", "nope"], "has no step 'nope' (its steps: open)"),
])
def test_usage_errors_exit_2_naming_the_problem(tmp_path, monkeypatch, capsys, args, says) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.actions.yaml").write_text(url_plan_text("http://127.0.0.1/", None))
    assert cli.main(["targets", *args]) == 2
    assert says in capsys.readouterr().err


def test_a_url_outside_the_suites_allowlist_is_refused_typed_before_any_browser(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cometlocal.yaml").write_text("allowlist: [app.example.test]\n")
    assert cli.main(["targets", "http://127.0.0.1:9/", "--json"]) == 1
    out = capsys.readouterr()
    assert out.err.startswith("cometlocal targets: DOMAIN_BLOCKED: http://127.0.0.1:9/ is outside the allowlist "
                              "(app.example.test, from suite, suite config cometlocal.yaml)"), out.err
    assert yaml.safe_load(out.out)["error"]["code"] == "DOMAIN_BLOCKED"
