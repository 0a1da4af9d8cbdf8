"""Collection's outline of a plan file agrees with the validation its items run at setup.

The outline names, marks and orders the items without validating; every item
then finds its validated plan by position. These tests hold the two readings
side by side: same items, same names, and for valid plans the same tags,
``expect`` and storage states.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cometlocal.contract.validate.outline import PlanOutline, outline_text
from pytest_cometlocal.contract.validate.validated import InvalidPlan, ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.validator import validate_text
from tests.support import VALID_PLAN

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "example_plans").rglob("*.actions.yaml"))


def both(path: Path, root: Path, env: dict[str, str] | None = None):
    ctx = ValidationContext(root=root, plan_path=path, env=env if env is not None else {"DEMO_PASSWORD": "x"})
    data = path.read_bytes()
    shown = path.relative_to(root).as_posix()
    return outline_text(data, ctx, shown), validate_text(data, ctx, shown)


def assert_agree(outlines, results) -> None:
    assert [o.item_name for o in outlines] == [r.item_name for r in results]
    for outline, result in zip(outlines, results):
        if isinstance(outline, InvalidPlan):  # a file that does not parse: the same invalid plan
            assert outline == result
            continue
        assert outline.finds(result)
        assert outline.line == result.source.mark.line
        if isinstance(result, ValidPlan):
            plan = result.plan
            assert outline.tags == tuple(plan.tags)
            assert outline.expect == plan.expect
            assert outline.storage_state == plan.storage_state
            assert outline.storage_saves == tuple(name for _step, name in result.storage_saves)
        else:
            assert outline.tags == result.tags


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.relative_to(REPO / "example_plans").as_posix())
def test_the_outline_of_every_example_plan_agrees_with_its_validation(path: Path) -> None:
    outlines, results = both(path, REPO)
    assert outlines and all(isinstance(o, PlanOutline) for o in outlines)
    assert_agree(outlines, results)


def test_examples_cover_rows_groups_expectations_and_storage_states() -> None:
    seen = [o for path in EXAMPLES for o in both(path, REPO)[0]]
    assert any(o.row_id for o in seen)
    assert any(o.expect for o in seen)
    assert any(o.storage_state for o in seen)
    assert any(o.storage_saves for o in seen)  # saved by a step group the plan uses


CASES = {
    "interpolated name and tags, one per row": VALID_PLAN.replace("name: minimal", """\
name: "sign in as ${vars.user}"
tags: [smoke]
vars: {site: demo}
parametrize: {user: [alice, bob]}
storage_state: "state-${vars.user}"
save_storage_state: after-${vars.site}"""),
    "duplicate names across documents": VALID_PLAN + "---\n" + VALID_PLAN + "---\n" + VALID_PLAN.replace("minimal", "other"),
    "invalid steps keep the written name and tags": VALID_PLAN.replace("kind: click", "kind: clik").replace(
        "name: minimal", "name: broken\ntags: [smoke, skip, 'bad tag']\nexpect: {error_code: INVALID_ACTIONSPEC}"),
    "a parametrize block with problems is one item": VALID_PLAN + "parametrize: {user: []}\n",
    "a document that is not a mapping": VALID_PLAN + "---\n- just\n- a list\n---\n",
    "an unusable name falls back to the file": VALID_PLAN.replace("name: minimal", "name: 'a::b'"),
    "a name whose var is unknown": VALID_PLAN.replace("name: minimal", "name: 'x ${vars.nope}'"),
    "a YAML error": "name: x\nsteps: [\n",
    "no document at all": "# nothing\n",
    "a nested group saves a state": VALID_PLAN.split("  - id: go")[0]
        + "  - use: groups/outer.steps.yaml\n    with: {who: inner}\n",
    "a group used in recovery saves nothing for the plan": VALID_PLAN
        + "recovery:\n  on_error: [TARGET_NOT_FOUND]\n  steps:\n    - use: groups/saver.steps.yaml\n",
}

GROUPS = {
    "groups/outer.steps.yaml": "vars: {who: nobody}\nsave_storage_state: outer\nsteps:\n"
                               "  - use: ${vars.who}.steps.yaml\n",
    "groups/inner.steps.yaml": "save_storage_state: inner\nsteps:\n"
                               "  - {id: go, kind: click, target: {type: testid, id: go}}\n",
    "groups/saver.steps.yaml": "save_storage_state: saver\nsteps:\n"
                               "  - {id: go, kind: click, target: {type: testid, id: go}}\n",
}


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_the_outline_agrees_with_validation(tmp_path: Path, text: str) -> None:
    for name, group in GROUPS.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(group)
    path = tmp_path / "case.actions.yaml"
    path.write_text(text)
    outlines, results = both(path, tmp_path)
    assert_agree(outlines, results)


def test_rows_and_names_as_validation_gives_them(tmp_path: Path) -> None:
    path = tmp_path / "case.actions.yaml"
    path.write_text(CASES["interpolated name and tags, one per row"])
    outlines, _ = both(path, tmp_path)
    assert [(o.item_name, o.storage_state, o.storage_saves) for o in outlines] == [
        ("sign in as alice[alice]", "state-alice", ("after-demo",)),
        ("sign in as bob[bob]", "state-bob", ("after-demo",)),
    ]


def test_a_nested_group_state_comes_before_the_outer_one(tmp_path: Path) -> None:
    for name, group in GROUPS.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(group)
    path = tmp_path / "case.actions.yaml"
    path.write_text(CASES["a nested group saves a state"])
    (outline,) = both(path, tmp_path)[0]
    assert outline.storage_saves == ("inner", "outer")


def test_duplicate_names_are_renamed_as_validation_renames_them(tmp_path: Path) -> None:
    path = tmp_path / "case.actions.yaml"
    path.write_text(CASES["duplicate names across documents"])
    outlines, results = both(path, tmp_path)
    assert [o.item_name for o in outlines] == ["minimal", "minimal@doc2", "other"]
    assert [r.violated_rules for r in results if isinstance(r, InvalidPlan)] == [["UNIQUE_NAME"]]
