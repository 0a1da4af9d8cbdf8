"""The example suite covers the whole format: every action kind, condition kind, target type,
and one negative plan per canonical error code. (scripts/demo.sh runs it in Chromium.)"""

from __future__ import annotations

import re
from pathlib import Path

from pytest_cometlocal.contract.model.actionspec import ACTION_KINDS, CLICK_KEYS
from pytest_cometlocal.contract.model.codes import CANONICAL_CODES
from pytest_cometlocal.contract.model.conditions import CONDITION_KINDS
from pytest_cometlocal.contract.model.targets import TARGET_TYPES
from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder
from pytest_cometlocal.contract.extensions.loading import Extensions
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, ValidPlan, validate_path

EXAMPLES = Path(__file__).resolve().parents[2] / "example_plans"


def _plans(folder: Path = EXAMPLES):
    configs = SuiteConfigFinder(EXAMPLES.parent)
    extensions = Extensions(EXAMPLES.parent)  # example_plans/extensions/conftest.py's kinds, as pytest loads them
    for path in sorted(folder.rglob("*.actions.yaml")):
        ctx = ValidationContext(root=EXAMPLES.parent, plan_path=path, env={}, suite_config=configs.for_plan(path),
                                extensions=extensions.for_path(path))
        yield from validate_path(path, ctx)


def test_every_example_is_valid_or_invalid_as_expected():
    for plan in _plans():
        if isinstance(plan, InvalidPlan):
            assert plan.expect is not None and plan.expect.error_code == "INVALID_ACTIONSPEC", plan.problems


def _targets(t):
    if t is None:
        return
    for x in t if isinstance(t, list) else [t]:
        yield x.type
        for inner in (getattr(x, "inner", None), getattr(x, "base", None)):
            if inner is not None:
                yield from _targets(inner)


def test_passing_examples_use_every_kind_condition_and_target():
    kinds, conditions, targets = set(), set(), set()
    for plan in _plans():
        if isinstance(plan, InvalidPlan) or plan.plan.expect is not None:
            continue
        for step in plan.plan.all_steps():
            kinds.add(step.kind)
            targets.update(_targets(step.target))
            for cond in step.preconditions + step.postconditions:
                conditions.add(cond.kind)
                targets.update(_targets(getattr(cond.args, "target", None)))
    assert kinds == set(ACTION_KINDS) | {"x_hold"}  # and (extensions) example_plans/extensions/conftest.py's
    assert conditions == set(CONDITION_KINDS) | {"x_order_row"}
    assert targets == set(TARGET_TYPES)


def test_passing_examples_use_the_v1_1_keys():
    """The click keys, select on a custom dropdown and a critical aria snapshot (plan format v1.1)."""
    click_keys, custom_select, critical_snapshot = set(), False, False
    for plan in _plans():
        if isinstance(plan, InvalidPlan) or plan.plan.expect is not None:
            continue
        for step in plan.plan.all_steps():
            click_keys.update(k for k in CLICK_KEYS if getattr(step, k) is not None)
            custom_select |= step.kind == "select" and any(
                t.type == "role" and t.role in ("combobox", "listbox", "button") for t in step.alternatives)
            critical_snapshot |= step.criticality == "critical" and any(
                c.kind == "aria_snapshot_matches" and c.severity == "critical" for c in step.postconditions)
    assert click_keys == set(CLICK_KEYS)
    assert custom_select and critical_snapshot


def test_one_negative_example_per_canonical_code_and_page_unresponsive():
    expected = []
    for plan in _plans(EXAMPLES / "negative"):
        expect = plan.expect if isinstance(plan, InvalidPlan) else plan.plan.expect
        if expect is not None:
            expected.append(expect.error_code)
            if isinstance(plan, ValidPlan):
                assert expect.step is not None, f"{plan.name}: negative examples name the failing step"
    # PAGE_UNRESPONSIVE, the one extension a demo page can show (a handler that never returns);
    # a second TARGET_NOT_FOUND: the stale-target demo, whose failure suggests a target (issue 13);
    # one per failure path v1.1 adds (see the next test); one per failure path of v1.2's pages.
    assert sorted(expected) == sorted([*(code.value for code in CANONICAL_CODES), "PAGE_UNRESPONSIVE",
                                       "TARGET_NOT_FOUND", *V1_1_FAILURE_PATHS.values(),
                                       *V1_2_CHECKS_FAILURE_PATHS.values(), *V12_SETTINGS_FAILURE_PATHS.values(),
                                       *V1_2_PAGES_FAILURE_PATHS.values(), *V1_2_AUDITS_FAILURE_PATHS.values(),
                                       *V1_3_SCROLL_FAILURE_PATHS.values(), *V1_3_ACTIONS_FAILURE_PATHS.values(),
                                       *V13_STATE_FAILURE_PATHS.values(), *V13_TRAFFIC_FAILURE_PATHS.values(),
                                       *V1_3_NUMBERS_FAILURE_PATHS.values()])


# (v1.3 actions) A forced critical step, an init key of another family, typing that outlasts its step
# (refused at load); focus, blur, a click position and a list of values on a single select (typed at run).
V1_3_ACTIONS_FAILURE_PATHS = {"FORCE": "INVALID_ACTIONSPEC", "EVENT": "INVALID_ACTIONSPEC",
                              "delay_ms": "INVALID_ACTIONSPEC", "focus": "PRECONDITION_FAILED",
                              "blur": "PRECONDITION_FAILED", "position": "PRECONDITION_FAILED",
                              "select_list": "PRECONDITION_FAILED"}


def test_one_negative_example_per_v1_3_actions_failure_path():
    seen = set()
    for plan in _plans(EXAMPLES / "negative"):
        if isinstance(plan, InvalidPlan):
            seen.update(("delay_ms" if p.key_path.endswith(".delay_ms") else p.rule) for p in plan.problems
                        if p.rule in ("FORCE", "EVENT") or p.key_path.endswith(".delay_ms"))
            continue
        expect = plan.plan.expect
        step = next((s for s in plan.plan.all_steps() if expect is not None and s.id == expect.step), None)
        if step is None:
            continue
        path = ("position" if step.position is not None else "select_list" if isinstance(step.value, list)
                else step.kind)
        if V1_3_ACTIONS_FAILURE_PATHS.get(path) == expect.error_code:
            seen.add(path)
    assert seen == set(V1_3_ACTIONS_FAILURE_PATHS)


# (v1.2) The browser settings' and the clock's failure paths: one negative plan each.
V12_SETTINGS_FAILURE_PATHS = {"DEVICE": "INVALID_ACTIONSPEC", "TIMEZONE": "INVALID_ACTIONSPEC", "LOCALE": "INVALID_ACTIONSPEC",
                              "PERMISSION": "INVALID_ACTIONSPEC", "CLOCK": "INVALID_ACTIONSPEC"}


def test_one_negative_example_per_v1_2_settings_failure_path():
    seen = [p.rule for plan in _plans(EXAMPLES / "negative") if isinstance(plan, InvalidPlan)
            for p in plan.problems if p.rule in V12_SETTINGS_FAILURE_PATHS]
    assert sorted(seen) == sorted(V12_SETTINGS_FAILURE_PATHS)


# v1.1's failure paths (plan format v1.1): an invalid key, check on what is not checkable, a scroll to the end.
V1_1_FAILURE_PATHS = {"KEY": "INVALID_ACTIONSPEC", "check": "PRECONDITION_FAILED", "scroll": "POSTCONDITION_FAILED"}


# v1.2's page failure paths: no history, switch_page matching no page, opens: page opening none.
V1_2_PAGES_FAILURE_PATHS = {"go_back": "PRECONDITION_FAILED", "switch_page": "TARGET_NOT_FOUND",
                            "opens": "POSTCONDITION_FAILED"}
# (v1.2 audits) An accessibility gate that does not hold (negative/accessibility_violations.actions.yaml).
V1_2_AUDITS_FAILURE_PATHS = {"accessibility_clean": "POSTCONDITION_FAILED"}


# (v1.3 scroll) A place `to` in a container that does not scroll (negative/scroll_not_scrollable.actions.yaml).
V1_3_SCROLL_FAILURE_PATHS = {"scroll to a place": "PRECONDITION_FAILED"}


def test_one_negative_example_per_v1_3_scroll_failure_path():
    seen = set()
    for plan in _plans(EXAMPLES / "negative"):
        expect = plan.plan.expect if isinstance(plan, ValidPlan) else None
        for step in plan.plan.all_steps() if expect is not None else ():
            if step.id == expect.step and step.scroll_place is not None:
                seen.add(("scroll to a place", expect.error_code))
    assert seen == set(V1_3_SCROLL_FAILURE_PATHS.items())
# (v1.3) The browser state's failure paths (example_plans/negative/state_*): a cookie for a host outside the
# allowlist (at run time, and at load against the plan's own allowlist), storage before any page, a
# storage_items check and a cookie check that do not hold.
V13_STATE_FAILURE_PATHS = {"set_cookie": "DOMAIN_BLOCKED", "ALLOWLIST": "INVALID_ACTIONSPEC",
                           "set_storage_item": "PRECONDITION_FAILED", "storage_items": "POSTCONDITION_FAILED",
                           "cookie": "PRECONDITION_FAILED"}


def test_one_negative_example_per_v13_state_failure_path():
    seen = set()
    for plan in _plans(EXAMPLES / "negative"):
        if isinstance(plan, InvalidPlan):
            seen.update(p.rule for p in plan.problems if p.rule == "ALLOWLIST")
            continue
        expect = plan.plan.expect
        step = next((s for s in plan.plan.all_steps() if expect is not None and s.id == expect.step), None)
        if step is None:
            continue
        paths = [step.kind, *(c.kind for c in (*step.preconditions, *step.postconditions))]
        seen.update(p for p in paths if V13_STATE_FAILURE_PATHS.get(p) == expect.error_code
                    and plan.plan.name.split()[0] in ("cookie", "storage", "every"))
    assert seen == set(V13_STATE_FAILURE_PATHS)


def test_one_negative_example_per_v1_2_pages_failure_path():
    seen = set()
    for plan in _plans(EXAMPLES / "negative"):
        expect = plan.plan.expect if isinstance(plan, ValidPlan) else None
        step = next((s for s in plan.plan.all_steps() if expect is not None and s.id == expect.step), None) \
            if isinstance(plan, ValidPlan) else None
        if step is not None:
            path = "opens" if step.opens else step.kind
            if V1_2_PAGES_FAILURE_PATHS.get(path) == expect.error_code:
                seen.add(path)
    assert seen == set(V1_2_PAGES_FAILURE_PATHS)


def test_one_negative_example_per_v1_1_failure_path():
    seen = set()
    for plan in _plans(EXAMPLES / "negative"):
        if isinstance(plan, InvalidPlan):
            seen.update(p.rule for p in plan.problems if p.rule == "KEY" and plan.expect.error_code == "INVALID_ACTIONSPEC")
            continue
        expect = plan.plan.expect
        step = next((s for s in plan.plan.all_steps() if expect is not None and s.id == expect.step), None)
        if step is not None and V1_1_FAILURE_PATHS.get(step.kind) == expect.error_code:
            seen.add(step.kind)
    assert seen == set(V1_1_FAILURE_PATHS)


# The failure paths v1.2's checks add: a check that does not hold after the action and before it,
# and the three validation rules (a role filter, a pointer, a pattern).
V1_2_CHECKS_FAILURE_PATHS = {"storage_item": "POSTCONDITION_FAILED", "element_hidden": "PRECONDITION_FAILED",
                             "ROLE_FILTER": "INVALID_ACTIONSPEC", "POINTER": "INVALID_ACTIONSPEC",
                             "REGEX": "INVALID_ACTIONSPEC"}


# (v1.3 numbers and element checks) One negative plan per failure path, by its file's name.
V1_3_NUMBERS_FAILURE_PATHS = {"numbers_not_a_number": "POSTCONDITION_FAILED", "numbers_out_of_range": "PRECONDITION_FAILED",
                              "numbers_bound_invalid": "INVALID_ACTIONSPEC", "looks_css": "POSTCONDITION_FAILED",
                              "looks_in_viewport": "POSTCONDITION_FAILED", "looks_html": "POSTCONDITION_FAILED"}


def test_one_negative_example_per_v1_3_numbers_failure_path():
    for name, code in V1_3_NUMBERS_FAILURE_PATHS.items():
        (plan,) = _plans_of(EXAMPLES / "negative" / f"{name}.actions.yaml")
        expect = plan.expect if isinstance(plan, InvalidPlan) else plan.plan.expect
        assert expect.error_code == code, name
        if isinstance(plan, InvalidPlan):
            assert [p.rule for p in plan.problems] == ["NUMBER"]


def _plans_of(path: Path):
    configs = SuiteConfigFinder(EXAMPLES.parent)
    ctx = ValidationContext(root=EXAMPLES.parent, plan_path=path, env={}, suite_config=configs.for_plan(path))
    return validate_path(path, ctx)


def test_one_negative_example_per_v1_2_checks_failure_path():
    seen = set()
    for plan in _plans(EXAMPLES / "negative"):
        if isinstance(plan, InvalidPlan):
            seen.update(p.rule for p in plan.problems if V1_2_CHECKS_FAILURE_PATHS.get(p.rule) == plan.expect.error_code)
            continue
        expect = plan.plan.expect
        step = next((s for s in plan.plan.all_steps() if expect is not None and s.id == expect.step), None)
        conditions = [] if step is None else step.preconditions + step.postconditions
        seen.update(c.kind for c in conditions if V1_2_CHECKS_FAILURE_PATHS.get(c.kind) == expect.error_code)
    assert seen == set(V1_2_CHECKS_FAILURE_PATHS)


# (v1.3 traffic) request_seen not holding after the action (a beacon sent: count 0) and before it, and rule SINCE.
V13_TRAFFIC_FAILURE_PATHS = {"post": "POSTCONDITION_FAILED", "pre": "PRECONDITION_FAILED", "SINCE": "INVALID_ACTIONSPEC"}


def test_one_negative_example_per_v13_traffic_failure_path():
    seen = set()
    for plan in _plans(EXAMPLES / "negative"):
        if isinstance(plan, InvalidPlan):
            seen.update(p.rule for p in plan.problems if p.rule == "SINCE")
            continue
        expect = plan.plan.expect
        step = next((s for s in plan.plan.all_steps() if expect is not None and s.id == expect.step), None)
        for phase, conditions in (("pre", step.preconditions if step else []), ("post", step.postconditions if step else [])):
            if any(c.kind == "request_seen" for c in conditions) and V13_TRAFFIC_FAILURE_PATHS[phase] == expect.error_code:
                seen.add(phase)
    assert seen == set(V13_TRAFFIC_FAILURE_PATHS)


def test_the_readme_names_the_demo_s_item_count():
    """The README tells a newcomer how many items the demo runs and that they all pass: the count stays true."""
    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"example plans \((\d+) items\)|ends with `(\d+) passed`", readme)
    said = {int(number) for pair in found for number in pair if number}
    assert said == {len(list(_plans()))}
