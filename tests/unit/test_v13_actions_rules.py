"""The rules plan format v1.3 adds for its actions (no browser): INPUTS for ``event``, ``detail``,
``position``, ``delay_ms``, ``force`` and select's list; EVENT (detail by the event's family); FORCE
(no forced critical step), located at the key; KEY for a lone modifier; the step descriptions
``show``/``diff``/Allure print; and ``format_version``, which makes each addition a v1.3 record.

As in test_rules_v12_pages.py, each case is a plan and the one problem it must have, located in its text.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.actions.rules import typing_problem
from pytest_cometlocal.contract.model.actionspec import (
    SIDE_EFFECT_KINDS, SINGLE_TARGET_KINDS, V13_KINDS, V13_STEP_KEYS, V13_STEP_USES, ActionSpec,
    describe_step, format_version)
from pytest_cometlocal.contract.model.input_events import EVENT_FAMILY
from pytest_cometlocal.contract.validate.keys import key_problem
from tests.support import mark_at, only, only_problems, only_valid, plan

T = "target: {type: testid, id: a}"
ALL = f"""\
- {{id: focus, kind: focus, {T}}}
- {{id: blur, kind: blur, {T}}}
- {{id: submit, kind: dispatch_event, event: submit, {T}}}
- {{id: ping, kind: dispatch_event, event: click, detail: {{clientX: 7, shiftKey: true, detail: 2}}, {T}}}
- {{id: key, kind: dispatch_event, event: keydown, detail: {{key: Enter, code: NumpadEnter, bubbles: false}}, {T}}}
- {{id: at, kind: click, position: {{x: 150, y: 20.5}}, {T}}}
- {{id: over, kind: hover, position: {{x: 0, y: 0}}, {T}}}
- {{id: toppings, kind: select, value: [olives, 7], {T}}}
- {{id: slowly, kind: fill, value: abc, delay_ms: 50, {T}}}
- {{id: shift, kind: press, key: Shift}}
- {{id: forced, kind: click, force: true, {T}}}
- {{id: forced_fill, kind: fill, value: x, force: true, {T}}}
- {{id: forced_check, kind: check, force: true, {T}}}
- {{id: forced_uncheck, kind: uncheck, force: true, {T}}}
"""


def test_every_v13_action_validates_is_described_and_is_v13(validate):
    steps = only_valid(validate(plan(ALL))).plan.steps
    assert [describe_step(s) for s in steps] == [
        "focus testid=a", "blur testid=a", "dispatch submit on testid=a",
        "dispatch click on testid=a (clientX=7.0, detail=2, shiftKey=True)",
        "dispatch keydown on testid=a (bubbles=False, code=NumpadEnter, key=Enter)",
        "click testid=a (at 150,20.5)", "hover testid=a (at 0,0)", "select testid=a (2 options)",
        "fill testid=a (50 ms a key)", "press Shift", "click testid=a (force)", "fill testid=a (force)",
        "check testid=a (force)", "uncheck testid=a (force)"]
    assert [format_version(s) for s in steps] == ["v1.3"] * len(steps)
    assert steps[7].value == ["olives", "7"]  # a YAML number is its text, as a single value is
    assert steps[3].detail.given() == {"clientX": 7.0, "shiftKey": True, "detail": 2}


def test_what_v13_leaves_alone_keeps_its_format(validate):
    steps = only_valid(validate(plan(f"""\
        - {{id: one, kind: select, value: olives, {T}}}
        - {{id: key, kind: press, key: Shift+A}}
        - {{id: plain, kind: click, {T}}}
        - {{id: fill, kind: fill, value: x, {T}}}
        """))).plan.steps
    assert [format_version(s) for s in steps] == ["v1", "v1.1", "v1", "v1"]


def test_the_v13_sets_name_the_action_additions():
    assert {"focus", "blur", "dispatch_event"} <= V13_KINDS & SIDE_EFFECT_KINDS & SINGLE_TARGET_KINDS
    assert {"event", "detail", "position", "delay_ms", "force"} <= V13_STEP_KEYS
    assert {"select_list", "press_modifier"} <= set(V13_STEP_USES)
    assert EVENT_FAMILY["mouseenter"] == "mouse" and EVENT_FAMILY["submit"] == "plain"


@pytest.mark.parametrize("step, key_path, at, message", [
    (f"- {{id: s, kind: dispatch_event, {T}}}", "steps[0].event", "{id: s", "'dispatch_event' needs 'event'"),
    (f"- {{id: s, kind: click, event: click, {T}}}", "steps[0].event", "event: ^click",
     "'event' is not used by 'click' (only dispatch_event)"),
    (f"- {{id: s, kind: fill, value: x, position: {{x: 1, y: 1}}, {T}}}", "steps[0].position", "position: ^{",
     "'position' is not used by 'fill' (only click and hover)"),
    (f"- {{id: s, kind: click, delay_ms: 5, {T}}}", "steps[0].delay_ms", "delay_ms: ^5",
     "'delay_ms' is not used by 'click' (only fill)"),
    (f"- {{id: s, kind: hover, force: true, {T}}}", "steps[0].force", "force: ^true",
     "'force' is not used by 'hover' (only check, click, fill and uncheck)"),
    (f"- {{id: s, kind: fill, value: [a, b], {T}}}", "steps[0].value", "value: ^[",
     "a list of values is select's only (a multiple select); 'fill' takes one"),
    (f"- {{id: s, kind: fill, value: abcdefghij, delay_ms: 200, timeout_ms: 3000, {T}}}", "steps[0].delay_ms",
     "delay_ms: ^200", "typing 10 characters at 200 ms a key takes 2000 ms, more than half of timeout_ms (3000): "
     "raise timeout_ms or lower delay_ms"),
])
def test_inputs_of_the_v13_keys_are_located(validate, step, key_path, at, message):
    text = plan(step + "\n")
    line, col = mark_at(text, at)
    only(only_problems(validate(text)), "INPUTS", key_path, line, col, message)


@pytest.mark.parametrize("event, detail, key", [
    ("keydown", "{clientX: 3}", "clientX"),
    ("submit", "{key: a}", "key"),
    ("focus", "{button: 0}", "button"),
    ("click", "{code: KeyA}", "code"),
])
def test_detail_takes_the_init_keys_of_its_events_family(validate, event, detail, key):
    text = plan(f"- {{id: s, kind: dispatch_event, event: {event}, detail: {detail}, {T}}}\n")
    line, col = mark_at(text, key + ": ^")
    family = EVENT_FAMILY[event]
    only(only_problems(validate(text)), "EVENT", f"steps[0].detail.{key}", line, col)
    assert f"'{event}' is a {family} event" in only_problems(validate(text)).problems[0].message


def test_a_key_in_detail_holds_no_secret(validate):
    text = plan(f"- {{id: s, kind: dispatch_event, event: keydown, detail: {{key: '${{secrets.pin}}'}}, {T}}}\n",
                extra="secrets: {pin: {env: PIN}}\n")
    line, col = mark_at(text, "key: ^'$")
    only(only_problems(validate(text, env={"PIN": "1"})), "EVENT", "steps[0].detail.key", line, col)


@pytest.mark.parametrize("step", [
    f"- {{id: s, kind: dispatch_event, event: wheel, {T}}}",  # not in the closed set
    f"- {{id: s, kind: dispatch_event, event: click, detail: {{clientX: 1, keyCode: 13}}, {T}}}",  # no such init key
    f"- {{id: s, kind: dispatch_event, event: click, detail: {{shiftKey: 'yes'}}, {T}}}",
    f"- {{id: s, kind: click, position: {{x: -1, y: 0}}, {T}}}",
    f"- {{id: s, kind: click, position: {{x: 1}}, {T}}}",
    f"- {{id: s, kind: fill, value: x, delay_ms: 1001, {T}}}",
    f"- {{id: s, kind: fill, value: x, delay_ms: 0, {T}}}",
    f"- {{id: s, kind: select, value: [], {T}}}",
    f"- {{id: s, kind: click, force: 'yes', {T}}}",
])
def test_values_outside_the_keys_types_are_schema_at_the_step(validate, step):
    problems = only_problems(validate(plan(step + "\n"))).problems
    assert {p.rule for p in problems} == {"SCHEMA"} and all(p.key_path.startswith("steps[0].") for p in problems)


def test_force_on_a_critical_step_is_refused_at_the_key(validate):
    text = plan(f"""\
        - id: archive
          kind: click
          criticality: critical
          force: true
          {T}
          postconditions: [{{kind: url_is, args: {{url: /done}}, severity: critical}}]
        """)
    line, col = mark_at(text, "force: ^true")
    only(only_problems(validate(text)), "FORCE", "steps[0].force", line, col,
         "force skips the actionability checks: a critical step cannot be forced "
         "(make the element actionable, or the step normal)")


def test_force_on_a_step_made_critical_by_the_defaults_is_refused_too(validate):
    text = plan(f"- {{id: s, kind: check, force: true, {T}, postconditions: [{{kind: url_is, args: {{url: /x}}, "
                "severity: critical}]}\n", criticality="critical")
    line, col = mark_at(text, "force: ^true")
    only(only_problems(validate(text)), "FORCE", "steps[0].force", line, col)
    only_valid(validate(plan(f"- {{id: s, kind: check, force: false, {T}, postconditions: [{{kind: url_is, "
                             "args: {url: /x}, severity: critical}]}\n", criticality="critical")))


@pytest.mark.parametrize("key", ["Shift", "Control", "Alt", "Meta", "ControlOrMeta"])
def test_a_lone_modifier_is_a_key(key):
    assert key_problem(key) is None


@pytest.mark.parametrize("key", ["Shift+Control", "Ctrl", "Shift+Shift", "Super"])
def test_modifiers_stay_modifiers_with_a_key(key):
    assert key_problem(key) is not None


def test_a_press_of_a_lone_modifier_is_v13(validate):
    (step,) = only_valid(validate(plan("- {id: s, kind: press, key: ControlOrMeta}\n"))).plan.steps
    assert format_version(step) == "v1.3" and describe_step(step) == "press ControlOrMeta"


def test_typing_fits_in_half_the_timeout():
    assert typing_problem(10, 100, 2000) is None
    assert "more than half of timeout_ms (1999)" in typing_problem(10, 100, 1999)


def test_a_secret_value_is_of_unknown_length_at_load(validate):
    text = plan(f"- {{id: s, kind: fill, value: '${{secrets.card}}', delay_ms: 1000, timeout_ms: 1000, {T}}}\n",
                extra="secrets: {card: {env: CARD}}\n")
    only_valid(validate(text, env={"CARD": "4111"}))  # the executor checks the length it types


def test_a_v13_step_record_says_v13():
    spec = ActionSpec.model_validate({
        "id": "s", "kind": "focus", "criticality": "normal", "target": {"type": "testid", "id": "a"},
        "preconditions": [{"kind": "host_in_allowlist"}], "postconditions": [{"kind": "host_in_allowlist"}],
        "timeout_ms": 1000})
    assert format_version(spec) == "v1.3"


def test_propose_names_every_v13_action_kind_and_key():
    from pytest_cometlocal.agent.server import PROPOSE_DESCRIPTION

    names = (*V13_KINDS, *V13_STEP_KEYS, "Shift", "never on a critical step")
    assert [n for n in names if n not in PROPOSE_DESCRIPTION] == []
