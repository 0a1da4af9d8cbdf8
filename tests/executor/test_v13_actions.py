"""The v1.3 actions in a real Chromium: focus, blur, dispatch_event, click's and hover's position, select's
list, fill's delay_ms, a lone modifier, and force.

Against the demo portal's /v13/actions page (pytest_cometlocal/demo/pages/v13_actions.py), served here on
127.0.0.1: each outcome is read from what the page's own listeners wrote (a status line, through a
postcondition). Each plan passes its v1.3 steps and then ends on one failure path, whose typed error
(code, stage, failed condition) is asserted; ``action_executed`` records what the step did (``force``,
``position``, the event), and a v1.3 step's record says ``schema_version: "v1.3"``.
"""

from __future__ import annotations

import json
import textwrap
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.demo.pages.v13_actions import V13_ACTIONS_PAGES
from pytest_cometlocal.runs.show import show_run
from tests.support import Run, plan, run_text, served_pages

pytestmark = pytest.mark.browser

PASSING_MS = 10_000  # the steps expected to pass (a loaded machine); failing ones get short timeouts
FAILING_MS = 1_500
PAGES = {path: f"<!doctype html><title>{title}</title>\n{body}" for path, (title, body) in V13_ACTIONS_PAGES.items()}
SECRET = "4111-2222-3333-4444"


@pytest.fixture
def go(tmp_path: Path, chromium):
    """go(steps, env=..., extra=...) -> Run: ``steps`` after opening /v13/actions."""
    with served_pages(PAGES) as url:
        def run(steps: str, **kwargs: Any) -> Run:
            text = plan("- {id: open, kind: navigate, target: {type: url, url: /v13/actions}}\n"
                        + textwrap.dedent(steps), name="v13", timeout_ms=PASSING_MS, extra=kwargs.pop("extra", ""))
            return run_text(chromium, tmp_path, text, base_url=url, **kwargs)
        yield run


def shows(testid: str, text: str) -> str:
    """A postcondition list: the status line ``testid`` shows ``text``."""
    return f"[{{kind: element_text_contains, args: {{target: {{type: testid, id: {testid}}}, text: '{text}'}}}}]"


def executed(r: Run, step: str) -> dict[str, Any]:
    return [e for e in r.events if e["event_type"] == "action_executed" and e["step_id"] == step][-1]["metadata"]


def failed_step(r: Run) -> str:
    return [e for e in r.events if e["event_type"] == "error_raised"][-1]["step_id"]


def failed(r: Run, step: str, code: str, stage: str) -> dict[str, Any]:
    """The run ended on ``step`` with ``code`` at ``stage``; its one failed condition."""
    assert r.code == code, r.error
    assert failed_step(r) == step and r.error.stage == stage, r.error
    (fc,) = r.error.failed_conditions
    return fc.model_dump(mode="json")


def record(r: Run, step: str) -> dict[str, Any]:
    """The step's record as the trace carries it (proposal_received's action_spec)."""
    return next(e for e in r.events if e["event_type"] == "proposal_received" and e["step_id"] == step)["action_spec"]


def test_focus_blur_and_dispatched_events_reach_the_page(go):
    r = go(f"""\
        - {{id: focus, kind: focus, target: {{type: label, text: Name, exact: true}},
           postconditions: [{{kind: element_focused}}, {{kind: element_text_contains, args: {{target: {{type: testid, id: focus-status}}, text: focused name}}}}]}}
        - {{id: blur, kind: blur, target: {{type: label, text: Name, exact: true}}, postconditions: {shows('focus-status', 'blurred name')}}}
        - {{id: submit, kind: dispatch_event, event: submit, target: {{type: role, role: form, name: Signup}},
           postconditions: {shows('event-status', 'submit bubbles=true trusted=false')}}}
        - {{id: input, kind: dispatch_event, event: input, target: {{type: label, text: Email, exact: true}},
           postconditions: {shows('event-status', 'input value=')}}}
        - {{id: change, kind: dispatch_event, event: change, detail: {{bubbles: false}}, target: {{type: label, text: Email, exact: true}},
           postconditions: {shows('event-status', 'change value=')}}}
        - {{id: key, kind: dispatch_event, event: keydown, detail: {{key: Enter, code: NumpadEnter}},
           target: {{type: label, text: Email, exact: true}}, postconditions: {shows('event-status', 'keydown key=Enter code=NumpadEnter')}}}
        - {{id: ping, kind: dispatch_event, event: click, detail: {{detail: 2, clientX: 7, shiftKey: true}},
           target: {{type: role, role: button, name: Ping}}, postconditions: {shows('event-status', 'click detail=2 clientX=7 shift=true')}}}
        - {{id: plain, kind: focus, target: {{type: css, selector: '#plain'}}, timeout_ms: {FAILING_MS}}}
        """)
    cond = failed(r, "plain", "PRECONDITION_FAILED", "execution")
    assert cond["kind"] == "element_focusable" and cond["observed"] == {"focused": False}
    assert executed(r, "focus") == {**executed(r, "focus"), "focused": True}
    assert executed(r, "ping")["event"] == "click"
    assert executed(r, "ping")["detail"] == {"detail": 2, "clientX": 7.0, "shiftKey": True}
    assert record(r, "ping")["schema_version"] == "v1.3" and record(r, "open")["schema_version"] == "v1"


def test_blur_of_what_has_no_focus_is_refused(go):
    r = go(f"- {{id: blur, kind: blur, target: {{type: label, text: Name, exact: true}}, timeout_ms: {FAILING_MS}}}\n")
    cond = failed(r, "blur", "PRECONDITION_FAILED", "execution")
    assert cond["kind"] == "element_focused" and cond["observed"] == {"focused": False}


def test_position_and_a_list_of_options(go):
    r = go(f"""\
        - {{id: at, kind: click, target: {{type: testid, id: pad}}, position: {{x: 150, y: 20}}, postconditions: {shows('pad-status', 'clicked at 150,20')}}}
        - {{id: over, kind: hover, target: {{type: testid, id: pad}}, position: {{x: 10, y: 90}}, postconditions: {shows('pad-status', 'over at 10,90')}}}
        - {{id: toppings, kind: select, target: {{type: label, text: Toppings, exact: true}}, value: [olives, Chili],
           postconditions: {shows('toppings-status', 'chosen olives,chili')}}}
        - {{id: size, kind: select, target: {{type: label, text: Size, exact: true}}, value: [s, l], timeout_ms: {FAILING_MS}}}
        """)
    cond = failed(r, "size", "PRECONDITION_FAILED", "execution")
    assert cond["kind"] == "element_multiple_select"
    assert cond["observed"] == {"kind": "native", "role": None, "multiple": False}
    assert executed(r, "at")["position"] == {"x": 150, "y": 20} and "force" not in executed(r, "at")
    assert executed(r, "toppings")["selected"] == 2
    assert record(r, "toppings")["schema_version"] == "v1.3"


def test_a_position_outside_the_element_is_refused(go):
    r = go(f"- {{id: at, kind: click, target: {{type: testid, id: pad}}, position: {{x: 500, y: 5}}, timeout_ms: {FAILING_MS}}}\n")
    cond = failed(r, "at", "PRECONDITION_FAILED", "execution")
    assert cond["kind"] == "position_inside"
    assert cond["observed"] == {"position": {"x": 500, "y": 5}, "width": 200, "height": 100}


def test_typing_key_by_key_and_a_lone_shift_keep_the_secret(go):
    n = len(SECRET)  # one input event a character; one key down more: the Delete that clears the field first
    r = go(f"""\
        - {{id: card, kind: fill, target: {{type: label, text: Card number, exact: true}}, value: '${{secrets.card}}', delay_ms: 20,
           postconditions: {shows('typing-status', f'keys={n + 1} inputs={n} length={n}')}}}
        - {{id: shift, kind: press, key: Shift, postconditions: {shows('keys-status', 'down Shift, up Shift')}}}
        - {{id: slow, kind: fill, target: {{type: label, text: Card number, exact: true}}, value: '${{secrets.card}}', delay_ms: 500,
           timeout_ms: {FAILING_MS}}}
        """, extra="secrets: {card: {env: CARD}}\n", env={"CARD": SECRET})
    assert r.code == "INVALID_ACTIONSPEC", r.error
    assert failed_step(r) == "slow" and r.error.stage == "proposal_validation"
    assert r.error.details["violated_rules"] == ["INPUTS"]
    assert executed(r, "card")["delay_ms"] == 20
    assert record(r, "shift")["schema_version"] == "v1.3" and record(r, "card")["value"] == "${secrets.card}"
    assert all(SECRET.encode() not in data for data in r.files().values())


def test_force_acts_on_what_only_looks_disabled(go):
    archive, nick = "{type: role, role: button, name: Archive}", "{type: label, text: Nickname, exact: true}"
    r = go(f"""\
        - {{id: archive, kind: click, force: true, target: {archive}, postconditions: {shows('soft-status', 'archived')}}}
        - {{id: nick, kind: fill, force: true, target: {nick}, value: ada, postconditions: {shows('soft-status', 'nickname 3 characters')}}}
        - {{id: beta, kind: check, force: true, target: {{type: role, role: checkbox, name: Beta features}},
           postconditions: [{{kind: element_checked}}]}}
        - {{id: unforced, kind: click, target: {archive}, timeout_ms: {FAILING_MS}}}
        """)
    cond = failed(r, "unforced", "PRECONDITION_FAILED", "execution")
    assert cond["kind"] == "element_enabled"
    assert executed(r, "archive")["force"] is True and executed(r, "nick")["force"] is True
    assert executed(r, "beta") == {**executed(r, "beta"), "force": True, "checked": True, "changed": True}
    shown = show_run(r.run_dir)
    assert "click role=button" in shown and "(force)" in shown, shown
    assert json.dumps(record(r, "archive")).count('"force": true') == 1
