"""Issue 48: rule EXTENSION and the rules extensions change (INPUTS for ``args``, a kind's target, U5),
through the validator with a registry, without a browser; and item 2's ``cometlocal validate``.

Each problem is located at its key (file, line, column, key path), as every validation problem is.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from pytest_cometlocal.contract.extensions.loading import Extensions
from pytest_cometlocal.contract.extensions.registry import KindRegistry
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text
from tests.support import HOST_OK, mark_at, only, only_valid, plan


class Wait(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ms: int = Field(ge=1, le=5000)


class Point(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: int
    y: int


class Path_(BaseModel):
    model_config = ConfigDict(extra="forbid")
    points: list[Point]
    label: str = "path"


def act(ctx):
    return None


def look(ctx):
    return True, None


def registry() -> KindRegistry:
    kinds = KindRegistry()
    kinds.action("x_wait", perform=act, args=Wait)
    kinds.action("acme.trace", perform=act, args=Path_, target="optional")
    kinds.action("x_press", perform=act, target="required")
    kinds.action("x_peek", perform=act, side_effect=False)
    kinds.condition("x_row", check=look, strong=True)
    kinds.condition("x_weak", check=look)
    return kinds


def check(tmp_path: Path, text: str, kinds: KindRegistry | None = None):
    path = tmp_path / "p.actions.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    ctx = ValidationContext(root=tmp_path, plan_path=path, env={}, extensions=registry() if kinds is None else kinds)
    return validate_text(path.read_bytes(), ctx, file="p.actions.yaml")


def invalid(results) -> InvalidPlan:
    assert len(results) == 1 and isinstance(results[0], InvalidPlan), results
    return results[0]


OPEN = "- {id: open, kind: navigate, target: {type: url, url: /}}\n"
OPEN8 = " " * 8 + OPEN  # before steps written indented in the test (plan() dedents them)


def test_extension_kinds_with_good_args_are_valid(tmp_path: Path) -> None:
    text = plan(OPEN8 + """\
        - {id: wait, kind: x_wait, args: {ms: 200}, postconditions: [{kind: x_weak}]}
        - id: draw
          kind: acme.trace
          args: {points: [{x: 1, y: 2}]}
          preconditions: [{kind: x_row}]
        - {id: press, kind: x_press, target: {type: testid, id: go}}
    """, base_url="http://127.0.0.1:8000")
    valid = only_valid(check(tmp_path, text))
    assert valid.extensions is not None and "x_wait" in valid.extensions.actions  # the registry validated with


def test_bad_args_are_located_at_their_key(tmp_path: Path) -> None:
    text = plan(OPEN + "- {id: wait, kind: x_wait, args: {ms: 0}}\n", base_url="http://127.0.0.1:8000")
    line, col = mark_at(text, "ms: ^0")
    only(invalid(check(tmp_path, text)), "EXTENSION", "steps[1].args.ms", line, col,
         "input should be greater than or equal to 1 (x_wait's args)")


def test_args_errors_are_located_at_nested_keys_and_unknown_keys(tmp_path: Path) -> None:
    text = plan(OPEN8 + """\
        - id: draw
          kind: acme.trace
          args:
            points:
              - {x: 1, y: 2}
              - {x: 1, y: up}
            colour: red
    """, base_url="http://127.0.0.1:8000")
    found = invalid(check(tmp_path, text))
    listing = "\n".join(p.format() for p in found.problems)
    assert sorted((p.rule, p.key_path, p.mark.line) for p in found.problems) == sorted([
        ("EXTENSION", "steps[1].args.points[1].y", mark_at(text, "y: up")[0]),
        ("EXTENSION", "steps[1].args.colour", mark_at(text, "colour: red")[0]),
    ]), listing
    assert all(p.message.endswith("(acme.trace's args)") for p in found.problems), listing
    missing = plan(OPEN + "- {id: draw, kind: acme.trace, args: {}}\n", base_url="http://127.0.0.1:8000")
    line, col = mark_at(missing, "args: ^{}")
    only(invalid(check(tmp_path, missing)), "EXTENSION", "steps[1].args.points", line, col,
         "required key 'points' is missing (acme.trace's args)")

def test_a_kind_registered_without_args_takes_none(tmp_path: Path) -> None:
    text = plan(OPEN + "- {id: peek, kind: x_peek, args: {deep: true}}\n", base_url="http://127.0.0.1:8000")
    line, _ = mark_at(text, "deep: true")
    only(invalid(check(tmp_path, text)), "EXTENSION", "steps[1].args.deep", line)


def test_an_unknown_kind_lists_the_registered_ones(tmp_path: Path) -> None:
    text = plan(OPEN + "- {id: wait, kind: x_wiat, args: {ms: 10}}\n", base_url="http://127.0.0.1:8000")
    line, col = mark_at(text, "kind: ^x_wiat")
    only(invalid(check(tmp_path, text)), "EXTENSION", "steps[1].kind", line, col,
         "unknown extension action kind 'x_wiat' (registered: acme.trace (<code>), x_peek (<code>), x_press (<code>), "
         "x_row (<code>), x_wait (<code>), x_weak (<code>))")
    # No registry at all: nothing registered, said so.
    only(invalid(check(tmp_path, text, KindRegistry())), "EXTENSION", "steps[1].kind", line, col,
         "unknown extension action kind 'x_wiat' (registered: none registered)")


def test_an_action_used_as_a_condition_and_a_condition_as_a_step(tmp_path: Path) -> None:
    text = plan(OPEN8 + """\
        - {id: wait, kind: x_wait, args: {ms: 10}, postconditions: [{kind: x_peek}]}
        - {id: row, kind: x_row}
    """, base_url="http://127.0.0.1:8000")
    found = invalid(check(tmp_path, text))
    assert [(p.rule, p.key_path, p.message) for p in found.problems] == [
        ("EXTENSION", "steps[1].postconditions[0].kind",
         "'x_peek' is an extension action kind (<code>); a condition's kind must be a condition kind"),
        ("EXTENSION", "steps[2].kind",
         "'x_row' is an extension condition kind (<code>); a step's kind must be an action kind"),
    ], "\n".join(p.format() for p in found.problems)


def test_args_on_a_built_in_kind_is_an_inputs_problem(tmp_path: Path) -> None:
    text = plan(OPEN + "- {id: go, kind: click, target: {type: testid, id: go}, args: {ms: 1}}\n",
                base_url="http://127.0.0.1:8000")
    line, col = mark_at(text, "args: ^{ms: 1}")
    only(invalid(check(tmp_path, text)), "INPUTS", "steps[1].args", line, col,
         "'args' is only for extension kinds (x_<name> or <team>.<name>), not 'click'")


def test_a_kinds_target_use_is_checked(tmp_path: Path) -> None:
    given = plan(OPEN + "- {id: wait, kind: x_wait, args: {ms: 5}, target: {type: testid, id: go}}\n",
                 base_url="http://127.0.0.1:8000")
    only(invalid(check(tmp_path, given)), "INPUTS", "steps[1].target", mark_at(given, "target: {type: testid")[0],
         message="'x_wait' takes no target (<code> registered it so)")
    missing = plan(OPEN + "- {id: press, kind: x_press}\n", base_url="http://127.0.0.1:8000")
    only(invalid(check(tmp_path, missing)), "TARGET_REQUIRED", "steps[1].target", mark_at(missing, "id: press")[0],
         message="'x_press' needs a target")
    optional = plan(OPEN + "- {id: draw, kind: acme.trace, args: {points: []}}\n", base_url="http://127.0.0.1:8000")
    only_valid(check(tmp_path, optional))


def test_a_refused_kind_is_reported_where_it_is_used(tmp_path: Path) -> None:
    kinds = registry()
    kinds.action("x_wait", perform=act)  # a second registration: both refused
    text = plan(OPEN + "- {id: wait, kind: x_wait, args: {ms: 10}}\n", base_url="http://127.0.0.1:8000")
    found = invalid(check(tmp_path, text, kinds))
    assert [(p.rule, p.key_path) for p in found.problems] == [("EXTENSION", "steps[1].kind")]
    message = found.problems[0].message
    assert message.startswith("extension kind 'x_wait' cannot be used: ") and "registered twice" in message, message
    assert "test_extension_rules.py:" in message  # both registering lines are named


CRITICAL = """\
- id: act
  kind: {kind}
  criticality: critical
  postconditions: [{post}]
"""


@pytest.mark.parametrize("kind, post, u5", [
    ("x_press", "{kind: host_in_allowlist}", True),  # side-effecting, only a weak postcondition
    ("x_press", "{kind: x_weak}", True),  # a condition not registered strong
    ("x_press", "{kind: x_row}", False),  # strong=True counts
    ("x_press", "{kind: x_row, severity: warning}", True),  # but not as a warning
    ("x_peek", "{kind: host_in_allowlist}", False),  # side_effect=False: nothing to confirm
])
def test_u5_counts_strong_conditions_and_spares_actions_without_side_effects(
        tmp_path: Path, kind: str, post: str, u5: bool) -> None:
    step = CRITICAL.format(kind=kind, post=post)
    if kind == "x_press":
        step = step.replace("  criticality", "  target: {type: testid, id: go}\n  criticality")
    results = check(tmp_path, plan(OPEN + step, base_url="http://127.0.0.1:8000", postconditions=HOST_OK))
    if u5:
        found = invalid(results)
        assert [(p.rule, p.key_path) for p in found.problems] == [("U5", "steps[1].postconditions")], \
            "\n".join(p.format() for p in found.problems)
    else:
        only_valid(results)


def _suite(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "conftest.py").write_text(textwrap.dedent("""\
        from pydantic import BaseModel, Field


        class Wait(BaseModel):
            ms: int = Field(ge=1)


        def pytest_cometlocal_register_kinds(registry):
            registry.action("x_wait", perform=lambda ctx: None, args=Wait)
    """), encoding="utf-8")
    good = tmp_path / "good.actions.yaml"
    good.write_text(plan(OPEN + "- {id: wait, kind: x_wait, args: {ms: 10}}\n", base_url="http://127.0.0.1:8000"),
                    encoding="utf-8")
    bad = tmp_path / "bad.actions.yaml"
    bad.write_text(plan(OPEN + "- {id: wait, kind: x_wait, args: {ms: 0}}\n", base_url="http://127.0.0.1:8000"),
                   encoding="utf-8")
    return good, bad


def test_the_validator_path_with_a_suites_conftest_locates_bad_args(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 2, what ``cometlocal validate`` does with a suite's conftests: ``Extensions(root).for_path``."""
    monkeypatch.chdir(tmp_path)
    good, bad = _suite(tmp_path)
    extensions = Extensions(tmp_path, entry_points=False)
    for path, ok in ((good, True), (bad, False)):
        ctx = ValidationContext(root=tmp_path, plan_path=path, env={}, extensions=extensions.for_path(path))
        results = validate_text(path.read_bytes(), ctx, file=path.name)
        if ok:
            only_valid(results)
        else:
            text = path.read_text(encoding="utf-8")
            line, col = mark_at(text, "ms: ^0")
            only(invalid(results), "EXTENSION", "steps[1].args.ms", line, col)
            assert invalid(results).problems[0].format().startswith(f"bad.actions.yaml:{line}:{col} steps[1].args.ms")


def test_cometlocal_validate_loads_the_suites_conftest_and_locates_bad_args(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_cometlocal.cli import main

    monkeypatch.chdir(tmp_path)
    good, bad = _suite(tmp_path)
    assert main(["validate", "--root", str(tmp_path), str(good)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    assert main(["validate", "--root", str(tmp_path), str(bad)]) == 1
    out = capsys.readouterr().out
    line, col = mark_at(bad.read_text(encoding="utf-8"), "ms: ^0")
    assert f"bad.actions.yaml:{line}:{col} steps[1].args.ms" in out and "[EXTENSION]" in out, out
