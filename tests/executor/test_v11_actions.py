"""The v1.1 actions in a real Chromium: press, hover, check/uncheck, drag, click's keys, select on custom dropdowns.

Against the demo portal's v1.1 pages (/spa/...) and a few pages this module
serves itself (an overlay over a checkbox, a checkbox that refuses its click,
buttons that tell a double, right and shift click apart, options that show a
secret). Each outcome is read from the page (its status line, through a
postcondition) or from the typed error; ``action_executed`` says whether a
check clicked at all, and where.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.support import Run, plan, run_text, served_pages

pytestmark = pytest.mark.browser

PASSING_MS = 10_000  # a plan expected to pass (a loaded machine); failing steps get short timeouts
# A step that must first act (click a checkbox, open a dropdown) and then fail: time for the click on a loaded machine.
ACTS_FIRST_MS = 3_000
NO_RETRIES = "policy: {retries_per_action: 0}\n"  # for failures whose point is the code, not the retries

COVERED = """<!doctype html><title>Covered</title>
<style>.kit input { position: absolute; opacity: 0; width: 1px; height: 1px; } .kit { position: relative; padding-left: 2em; }</style>
<p><label><input type="checkbox" id="plain"> Plain</label></p>
<p><label class="kit"><input type="checkbox" id="kit"><span style="display:inline-block;width:1em;height:1em;border:1px solid"></span> Kit</label></p>
<div class="cookie-wall" style="position:fixed;inset:0;background:rgba(0,0,0,.3)">Accept cookies</div>
"""
REFUSES = """<!doctype html><title>Locked</title>
<input type="checkbox" id="locked" aria-label="Locked" onclick="return false">
"""
CLICKS = """<!doctype html><title>Clicks</title>
<button type="button" id="act" ondblclick="say('double')" oncontextmenu="event.preventDefault(); say('context')"
  onclick="say('click shift=' + event.shiftKey)">Act</button>
<p id="out" role="status">none</p>
<script>function say(what) { document.getElementById("out").textContent = what; }</script>
"""
SECRET = "4242-9999"
SECRET_OPTIONS = f"""<!doctype html><title>Cards</title>
<div role="combobox" tabindex="0" aria-label="Card" onclick="document.getElementById('cards').hidden = false">Card</div>
<ul role="listbox" id="cards" hidden><li role="option">Card {SECRET}</li><li role="option">Another card</li></ul>
"""
GONE = """<!doctype html><title>Kit</title>
<label><input type="checkbox" id="gone" style="display:none" onchange="document.getElementById('out').textContent = 'gone=' + this.checked">
<span style="display:inline-block;width:1em;height:1em;border:1px solid"></span> <span>Gone</span></label>
<p id="out" role="status">none</p>
"""
NATIVE = """<!doctype html><title>Native</title><h1>Where to</h1>
<label for="c">Country</label>
<select id="c" onchange="document.getElementById('out').textContent = this.value">
<option value="">Choose</option><option value="ES">Spain</option></select>
<p id="out" role="status">none</p>
"""
PAGES = {"/covered": COVERED, "/refuses": REFUSES, "/clicks": CLICKS, "/cards": SECRET_OPTIONS, "/native": NATIVE, "/gone": GONE}


@pytest.fixture
def go(tmp_path: Path, chromium):
    """go(plan_text, env=...) -> Run, against this module's own pages (PAGES)."""
    with served_pages(PAGES) as url:
        yield partial(run_text, chromium, tmp_path, base_url=url)


def steps_plan(page: str, steps: str, timeout_ms: int = PASSING_MS, extra: str = "") -> str:
    return plan(f"- {{id: open, kind: navigate, target: {{type: url, url: {page}}}}}\n{steps}", name="v11",
                timeout_ms=timeout_ms, extra=extra)


def shows(selector: str, text: str) -> str:
    """A postcondition list: the element ``selector`` shows ``text``."""
    return f"[{{kind: element_text_contains, args: {{target: {{type: css, selector: '{selector}'}}, text: '{text}'}}}}]"


def executed(r: Run, step: str) -> dict[str, Any]:
    """What action_executed recorded for ``step`` (its last attempt)."""
    return [e for e in r.events if e["event_type"] == "action_executed" and e["step_id"] == step][-1]["metadata"]


def failed_condition(r: Run) -> dict[str, Any]:
    (fc,) = r.error.failed_conditions
    return fc.model_dump()


# -- press ---------------------------------------------------------------------


def test_press_enter_on_a_search_field_applies_it(run):
    r = run(steps_plan("/spa/search", f"""\
- {{id: type, kind: fill, target: {{type: label, text: Search, exact: true}}, value: dune}}
- id: apply
  kind: press
  target: {{type: label, text: Search, exact: true}}
  key: Enter
  postconditions: {shows('#results', 'Results for "dune": 2')}
"""))
    assert r.error is None, r.error


def test_press_without_a_target_goes_to_what_has_focus(run):
    # fill leaves the focus in the field: the Enter without a target reaches it.
    r = run(steps_plan("/spa/search", f"""\
- {{id: type, kind: fill, target: {{type: label, text: Search, exact: true}}, value: emma}}
- {{id: apply, kind: press, key: Enter, postconditions: {shows('#results', 'Results for "emma": 1')}}}
"""))
    assert r.error is None, r.error
    checked = next(e for e in r.events if e["event_type"] == "preconditions_checked" and e["step_id"] == "apply")
    assert "target_resolution" not in checked["metadata"]


def test_press_with_a_modifier_selects_all_in_a_code_editor(run):
    # The editor inserts at its end unless Control/Meta+A selected everything first.
    editor = "{type: label, text: SQL query, exact: true}"
    r = run(steps_plan("/spa/editor", f"""\
- {{id: all, kind: press, target: {editor}, key: ControlOrMeta+A}}
- {{id: type, kind: fill, target: {editor}, value: select * from authors}}
- {{id: go, kind: click, target: {{type: role, role: button, name: Run SQL}}, postconditions: {shows('#output', 'Ran: select * from authors')}}}
"""))
    assert r.error is None, r.error


def test_without_the_select_all_the_editor_appends(run):
    editor = "{type: label, text: SQL query, exact: true}"
    r = run(steps_plan("/spa/editor", f"""\
- {{id: type, kind: fill, target: {editor}, value: select * from authors}}
- {{id: go, kind: click, target: {{type: role, role: button, name: Run SQL}}, postconditions: {shows('#output', 'Error')}}}
"""))
    assert r.error is None, r.error


# -- hover ---------------------------------------------------------------------


def test_hover_opens_a_menu_whose_item_is_then_clicked(run):
    r = run(steps_plan("/spa/menu", f"""\
- {{id: open-menu, kind: hover, target: {{type: testid, id: products-menu}}}}
- {{id: pick, kind: click, target: {{type: role, role: menuitem, name: Phones}}, postconditions: {shows('#picked', 'Picked: Phones')}}}
- {{id: tools, kind: hover, target: {{type: testid, id: grid}}}}
- {{id: download, kind: click, target: {{type: role, role: button, name: Download}}, postconditions: {shows('#picked', 'Tool: Download')}}}
"""))
    assert r.error is None, r.error


def test_without_the_hover_the_toolbar_cannot_be_clicked(run):
    r = run(steps_plan("/spa/menu", "- {id: download, kind: click, target: {type: role, role: button, name: Download}}\n",
                       timeout_ms=800))
    assert r.code == "TARGET_NOT_FOUND"  # a hidden toolbar's buttons are not in the accessibility tree


@pytest.mark.parametrize("kind", ["hover", "press", "check"])
def test_a_failed_target_of_a_pointer_or_key_kind_gets_a_clicks_suggestions(run, kind):
    def suggested(k: str) -> list[dict[str, Any]]:
        key = ", key: Enter" if k == "press" else ""
        # The menu's button was "Product"; it is "Products" now (close in spelling, the same role).
        r = run(steps_plan("/spa/menu", f"- {{id: s, kind: {k}, target: {{type: role, role: button, name: Product, "
                                        f"exact: true}}{key}}}\n", timeout_ms=800))
        assert r.code == "TARGET_NOT_FOUND" and "which" not in r.error.details
        return r.error.details["suggestions"]

    def ranked(suggestions: list[dict[str, Any]]) -> list[tuple[str, float]]:
        return [(json.dumps(s["target"]), s["score"]) for s in suggestions]

    suggestions = suggested(kind)
    assert suggestions[0]["target"] == {"type": "role", "role": "button", "name": "Products", "exact": True}
    assert ranked(suggestions) == ranked(suggested("click"))
    assert f"clickable as {kind} needs" in suggestions[0]["why"]


# -- check / uncheck -----------------------------------------------------------

STATE = "#state"
# check, check again, uncheck, uncheck again: (step id, kind, the state shown after it)
TOGGLING = (("on", "check", "true"), ("on-again", "check", "true"), ("off", "uncheck", "false"),
            ("off-again", "uncheck", "false"))


def toggling(target: str, shown: str, status: str = STATE) -> str:
    """Steps that check and uncheck ``target`` twice each; after each, ``status`` shows ``shown=<state>``."""
    return "".join(f"- {{id: {sid}, kind: {kind}, target: {target}, postconditions: {shows(status, f'{shown}={state}')}}}\n"
                   for sid, kind, state in TOGGLING)


@pytest.mark.parametrize(("page", "target", "shown", "clicked"), [
    ("/spa/toggles", "{type: label, text: Subscribe to the newsletter, exact: true}", "newsletter", "control"),
    ("/spa/toggles", "{type: role, role: switch, name: Dark mode}", "dark", "control"),
    # The kit's input is hidden (opacity 0, 1 px) and its label takes the pointer: the click goes to the label,
    # whether the target names the input (by its label) or the label itself.
    ("/spa/toggles", "{type: label, text: Accept the terms, exact: true}", "terms", "label"),
    ("/spa/toggles", "{type: testid, id: terms-label}", "terms", "label"),
], ids=["native-checkbox", "switch", "hidden-input", "hidden-input-by-its-label"])
def test_check_and_uncheck_are_idempotent(run, page, target, shown, clicked):
    r = run(steps_plan(page, toggling(target, shown)))
    assert r.error is None, r.error
    assert [executed(r, sid)["changed"] for sid, _, _ in TOGGLING] == [True, False, True, False]
    assert [executed(r, sid).get("clicked") for sid, _, _ in TOGGLING] == [clicked, None, clicked, None]


@pytest.mark.parametrize("target", ["{type: label, text: Gone, exact: true}", "{type: text, text: Gone, exact: true}"],
                         ids=["by-its-label", "by-the-text-inside-its-label"])
def test_check_an_input_that_takes_no_space_through_its_label(go, target):
    # An element inside the label (the text's <span>) stands for the label's control, as in Playwright's check.
    r = go(steps_plan("/gone", toggling(target, "gone", "#out")))
    assert r.error is None, r.error
    assert executed(r, "on")["clicked"] == "label" and executed(r, "off")["clicked"] == "label"


def test_check_a_radio(run):
    r = run(steps_plan("/spa/toggles", f"""\
- {{id: pro, kind: check, target: {{type: role, role: radio, name: Pro}}, postconditions: {shows(STATE, 'plan=pro')}}}
"""))
    assert r.error is None, r.error


@pytest.mark.parametrize(("step", "tag"), [
    ("{id: bad, kind: check, target: {type: role, role: button, name: Save settings}}", "button"),
    ("{id: bad, kind: uncheck, target: {type: role, role: radio, name: Basic}}", "input"),
], ids=["check-a-button", "uncheck-a-radio"])
def test_what_cannot_be_checked_is_a_precondition_failure(run, step, tag):
    r = run(steps_plan("/spa/toggles", f"- {step}\n"))
    assert r.code == "PRECONDITION_FAILED" and r.error.stage == "execution"
    fc = failed_condition(r)
    assert fc["kind"] == "element_checkable" and fc["observed"]["tag"] == tag
    assert "target" in fc["args"]
    assert not any(e["event_type"] == "action_executed" for e in r.events if e["step_id"] == "bad")


def test_a_check_that_does_not_take_is_element_checked(go):
    r = go(steps_plan("/refuses", "- {id: on, kind: check, target: {type: label, text: Locked, exact: true}}\n",
                      timeout_ms=ACTS_FIRST_MS))
    assert r.code == "PRECONDITION_FAILED" and r.error.stage == "execution"
    fc = failed_condition(r)
    assert fc["kind"] == "element_checked" and fc["args"]["checked"] is True and fc["observed"]["checked"] is False


@pytest.mark.parametrize("box", ["Plain", "Kit"])
def test_an_overlay_over_a_checkbox_or_its_label_blocks_the_check(go, box):
    # 1.5 s: at 800 ms a loaded machine once left the overlay's hit test no time (PRECONDITION_FAILED).
    # No retries: the point is the code, and OVERLAY_BLOCKING is in the default retry_on.
    r = go(steps_plan("/covered", f"- {{id: on, kind: check, target: {{type: label, text: {box}, exact: true}}}}\n",
                      timeout_ms=1500, extra=NO_RETRIES))
    assert r.code == "OVERLAY_BLOCKING", r.error
    assert r.error.details["overlay_selector"] == "div.cookie-wall"


# -- drag ----------------------------------------------------------------------


def test_drag_reorders_a_sortable_list(run):
    r = run(steps_plan("/spa/sortable", f"""\
- id: ship-first
  kind: drag
  target: {{type: testid, id: task-ship}}
  to: {{type: testid, id: task-write}}
  postconditions: {shows('#order', 'Order: Ship, Write, Review')}
"""))
    assert r.error is None, r.error
    checked = next(e for e in r.events if e["event_type"] == "preconditions_checked" and e["step_id"] == "ship-first")
    assert checked["metadata"]["target_resolution"]["to"]["resolved"] == "get_by_test_id('task-write')"


@pytest.mark.parametrize(("to", "code", "count"), [
    ("{type: testid, id: task-wrte}", "TARGET_NOT_FOUND", 0),
    ("{type: css, selector: '#tasks li'}", "TARGET_NOT_UNIQUE", 3),
], ids=["none", "several"])
def test_drag_to_must_match_one_element(run, to, code, count):
    r = run(steps_plan("/spa/sortable", f"- {{id: d, kind: drag, target: {{type: testid, id: task-ship}}, to: {to}}}\n",
                       timeout_ms=800))
    assert r.code == code and r.error.stage == "precondition"
    details = r.error.details
    assert details["which"] == "to" and details["count_observed"] == count
    assert r.error.message.startswith("`to` resolution returned")
    if code == "TARGET_NOT_FOUND":  # suggested for `to`, not for the drag's own target
        assert details["suggestions"][0]["target"] == {"type": "testid", "id": "task-write"}


def test_a_drag_whose_own_target_fails_says_which(run):
    r = run(steps_plan("/spa/sortable", "- {id: d, kind: drag, target: {type: testid, id: task-shipp}, "
                                        "to: {type: testid, id: task-write}}\n", timeout_ms=800))
    assert r.code == "TARGET_NOT_FOUND" and r.error.details["which"] == "target"
    assert r.error.details["suggestions"][0]["target"] == {"type": "testid", "id": "task-ship"}


# -- click's keys --------------------------------------------------------------


@pytest.mark.parametrize(("keys", "outcome"), [
    ("click_count: 2", "double"),
    ("button: right", "context"),
    ("modifiers: [Shift]", "click shift=true"),
    ("button: left", "click shift=false"),
])
def test_click_keys(go, keys, outcome):
    r = go(steps_plan("/clicks", f"- {{id: act, kind: click, target: {{type: role, role: button, name: Act}}, {keys}, "
                                 f"postconditions: {shows('#out', outcome)}}}\n"))
    assert r.error is None, r.error


# -- select on custom dropdowns ------------------------------------------------


def test_select_on_a_custom_combobox(run):
    # Whitespace in the value is normalized, as in the option's accessible name.
    r = run(steps_plan("/spa/listbox", f"""\
- id: country
  kind: select
  target: {{type: role, role: combobox, name: Country}}
  value: "New   Zealand "
  postconditions: {shows('#chosen', 'Country: New Zealand')}
"""))
    assert r.error is None, r.error
    assert executed(r, "country")["dropdown"] == "combobox"


def test_select_on_a_button_with_a_popup(run):
    r = run(steps_plan("/spa/listbox", f"""\
- {{id: sort, kind: select, target: {{type: css, selector: '#sort'}}, value: Oldest, postconditions: {shows('#sort', 'Sort: Oldest')}}}
"""))
    assert r.error is None, r.error
    assert executed(r, "sort")["dropdown"] == "button"


@pytest.mark.parametrize("value", ["new zealand", "Italy"], ids=["case-is-kept", "missing"])
def test_select_an_option_that_is_not_there(run, value):
    r = run(steps_plan("/spa/listbox", f"- {{id: c, kind: select, target: {{type: testid, id: country}}, value: {value}}}\n",
                       timeout_ms=ACTS_FIRST_MS))
    assert (r.code, r.error.stage) == ("TARGET_NOT_FOUND", "execution")
    assert {k: r.error.details.get(k) for k in ("which", "value", "count_observed", "options_seen")} == {
        "which": "option", "value": value, "count_observed": 0,
        "options_seen": ["France", "Germany", "New Zealand", "Spain", "United Kingdom"]}
    assert "suggestions" not in r.error.details  # an option is named by the value, not by a target


def test_select_an_option_named_twice(run):
    r = run(steps_plan("/spa/listbox", "- {id: s, kind: select, target: {type: css, selector: '#sort'}, value: Price}\n",
                       timeout_ms=ACTS_FIRST_MS))
    assert r.code == "TARGET_NOT_UNIQUE"
    assert r.error.details["which"] == "option" and r.error.details["count_observed"] == 2
    assert r.error.details["options_seen"] == ["Newest", "Oldest", "Price", "Price"]


def test_options_seen_never_show_a_secret(go):
    text = steps_plan("/cards", "- {id: c, kind: select, target: {type: role, role: combobox, name: Card}, "
                                "value: '${secrets.card}'}\n", timeout_ms=ACTS_FIRST_MS,
                      extra="secrets: {card: {env: CARD}}\n")
    r = go(text, env={"CARD": SECRET})
    assert r.code == "TARGET_NOT_FOUND"
    assert r.error.details["value"] == "${secrets.card}"
    assert len(r.error.details["options_seen"]) == 2 and SECRET not in json.dumps(r.error.details)
    assert all(SECRET.encode() not in data for data in r.files().values())


def test_a_native_select_keeps_v1(go):
    r = go(steps_plan("/native", f"""\
- {{id: c, kind: select, target: {{type: label, text: Country, exact: true}}, value: Spain, postconditions: {shows('#out', 'ES')}}}
"""))
    assert r.error is None, r.error
    assert "dropdown" not in executed(r, "c")  # v1's select_option, v1's trace


def test_select_on_what_is_no_dropdown_fails_as_in_v1(go):
    r = go(steps_plan("/native", "- {id: c, kind: select, target: {type: role, role: heading, name: Where to}, "
                                 "value: Spain}\n", timeout_ms=800))
    assert r.code == "PRECONDITION_FAILED"  # v1's select_option says it is not a <select>
    assert failed_condition(r)["kind"] == "element_is_select"
