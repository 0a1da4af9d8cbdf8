"""(v1.2 audits) ``accessibility_clean`` as validation sees it, and the vendored axe-core it runs.

Each bad plan has one problem, located at the key (file, line and column): a tag outside the
closed set, an impact outside axe's four, a rule id that is not shaped like axe's (SCHEMA), or one
the vendored axe-core does not have (AXE_RULE, with the nearest id). The vendored file is the one
its lock names (sha256), and the rule ids the validator knows are the file's.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from pytest_cometlocal.contract.model.checks import audits
from pytest_cometlocal.contract.model.actionspec import format_version
from pytest_cometlocal.contract.model.conditions import describe_condition
from pytest_cometlocal.contract.model.schema import plan_json_schema
from tests.support import mark_at, only, only_problems, only_valid, plan

VENDOR = Path(__file__).resolve().parents[2] / "pytest_cometlocal" / "executor" / "audits" / "vendor"
LOCK = json.loads((VENDOR / "axe.lock.json").read_text(encoding="utf-8"))


def asserting(condition: str) -> str:
    return plan(f"- {{id: a, kind: assert, postconditions: [{condition}]}}\n")


def test_defaults_and_every_arg_validate_and_make_the_step_v12(validate):
    text = asserting("{kind: accessibility_clean}")
    (step,) = only_valid(validate(text)).plan.steps
    args = step.postconditions[0].args
    assert (args.target, args.rules, args.disable, args.impact_at_least) == (
        None, ["wcag2a", "wcag2aa", "wcag21aa"], [], "serious")
    assert format_version(step) == "v1.2"
    text = asserting("{kind: accessibility_clean, args: {target: {type: testid, id: form}, "
                     "rules: [wcag2a, wcag2aa, wcag21aa, best-practice], disable: [label, color-contrast], "
                     "impact_at_least: minor}}")
    (step,) = only_valid(validate(text)).plan.steps
    cond = step.postconditions[0]
    assert cond.args.disable == ["label", "color-contrast"] and cond.args.impact_at_least == "minor"
    assert describe_condition(cond).startswith("accessibility_clean (testid=form, rules=")


@pytest.mark.parametrize("args, at, key_path", [
    ("{rules: [wcag2a, wcag3]}", "wcag3", "args.rules[1]"),
    ("{rules: []}", "[]", "args.rules"),
    ("{impact_at_least: severe}", "severe", "args.impact_at_least"),
    ("{disable: [label, Color_Contrast]}", "Color_Contrast", "args.disable[1]"),
    ("{disable: label}", "label", "args.disable"),
    ("{ignore: [label]}", "ignore", "args.ignore"),
])
def test_a_value_outside_the_closed_sets_is_schema_at_the_key(validate, args: str, at: str, key_path: str):
    text = asserting(f"{{kind: accessibility_clean, args: {args}}}")
    only(only_problems(validate(text)), "SCHEMA", f"steps[0].postconditions[0].{key_path}", *mark_at(text, at))


def test_a_rule_the_vendored_axe_does_not_have_is_axe_rule_with_the_nearest(validate):
    text = asserting("{kind: accessibility_clean, args: {disable: [label, colour-contrast]}}")
    invalid = only_problems(validate(text))
    only(invalid, "AXE_RULE", "steps[0].postconditions[0].args.disable[1]", *mark_at(text, "colour-contrast"),
         message=f"'colour-contrast' is not a rule of axe-core {audits.AXE_VERSION}; did you mean 'color-contrast'?")


def test_the_schema_has_the_closed_sets():
    args = plan_json_schema("v1.2")["$defs"]["AccessibilityArgs"]["properties"]
    assert args["rules"]["items"]["enum"] == list(audits.AXE_TAGS)
    assert args["impact_at_least"]["enum"] == list(audits.IMPACTS)
    assert "AccessibilityArgs" not in plan_json_schema("v1.1")["$defs"]


def test_the_vendored_axe_is_the_locked_one_and_its_rules_are_the_validators():
    source = (VENDOR / "axe.min.js").read_bytes()
    assert hashlib.sha256(source).hexdigest() == LOCK["sha256"]
    assert source.startswith(f"/*! axe v{LOCK['version']}\n".encode())
    assert LOCK["version"] == audits.AXE_VERSION and LOCK["license"] == "MPL-2.0"
    assert "Mozilla Public License, version 2.0" in (VENDOR / "LICENSE").read_text(encoding="utf-8")
    assert set(LOCK["rules"]) == audits.AXE_RULE_IDS
    text = source.decode("utf-8")
    assert all(re.search(r'\{id:"' + re.escape(rule) + r'",', text) for rule in LOCK["rules"])
    assert all(re.fullmatch(audits.AXE_RULE_ID_PATTERN, rule) for rule in LOCK["rules"])
    # Every tag a plan may name selects rules of this axe (a tag no rule has would check nothing).
    assert all(f'"{tag}"' in text for tag in audits.AXE_TAGS)


def test_show_and_diff_read_the_violations_of_a_run():
    from pytest_cometlocal.runs.audits import accessibility_note, detail_lines

    violations = [{"rule": "label", "impact": "critical", "help": "Form elements must have labels", "count": 5,
                   "targets": ["#a", "#b", "#c", "#d", "#e"]}]
    assert detail_lines("violations", violations, "  ") == [
        "  violations: 1 rule(s)", "    label (critical): Form elements must have labels; #a, #b, #c and 2 more"]
    assert detail_lines("host", "x", "  ") is None
    a = [{"details": {"violations": violations}}]
    b = [{"details": {"violations": [{**violations[0], "rule": "color-contrast"}]}}, {"details": {}}]
    assert accessibility_note(a, b) == "accessibility: rules violated in run A only: label; in run B only: color-contrast"
    assert accessibility_note(a, a) is None and accessibility_note([], []) is None


def test_the_mcp_propose_tool_names_the_condition_and_its_closed_sets():
    from pytest_cometlocal.agent.server import PROPOSE_DESCRIPTION

    assert "accessibility_clean" in PROPOSE_DESCRIPTION
    assert all(tag in PROPOSE_DESCRIPTION for tag in audits.AXE_TAGS)
    assert all(impact in PROPOSE_DESCRIPTION for impact in audits.IMPACTS)


def test_a_frame_target_is_condition_target_at_the_target(validate):
    frame = "{type: frame, selector: '#pay', inner: {type: testid, id: card}}"
    text = asserting(f"{{kind: accessibility_clean, args: {{target: {frame}}}}}")
    only(only_problems(validate(text)), "CONDITION_TARGET", "steps[0].postconditions[0].args.target",
         *mark_at(text, frame))
