"""``cometlocal targets`` (issue 39), in a real Chromium against the demo portal and its single-page widgets.

Every target the listing gives is put in one plan (an ``element_count_equals``
per target, with the count the listing says: 1 for a unique one) and run: the
executor's own checks must find each exactly as listed. The command itself
runs once, through ``cometlocal``'s own ``main`` (JSON and the aria snapshot). A nameless
``role: table`` on a page with one ``grid`` (Gradio's data frame) is offered
the grid. A failure keeps the page's aria snapshot: masked, at most 20 KB,
hashed in the evidence manifest.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import yaml

from pytest_cometlocal import cli
from pytest_cometlocal.executor.browser import manager
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.page.texts import MAX_ARIA_BYTES
from pytest_cometlocal.executor.suggest.listing import page_targets
from pytest_cometlocal.targets_cli.errors import TargetsRefused
from pytest_cometlocal.targets_cli.opening import Opening, open_and_look
from tests.executor.test_suggestions import click, step_plan, suggestions_of
from tests.support import run_text, served_pages

pytestmark = pytest.mark.browser

# The portal's pages and its single-page widgets (each renders on load; none changes by itself).
PAGES = ("/", "/login", "/duplicates", "/spa/grid", "/spa/listbox", "/spa/toggles")


@pytest.fixture(scope="module")
def listings(chromium, portal) -> dict[str, dict[str, Any]]:
    """Each page listed in one page of one context (opening a page through a plan is tested below)."""
    context = chromium.browser().new_context()
    try:
        page = context.new_page()
        found = {}
        for path in PAGES:
            page.goto(portal.url + path)
            found[path] = page_targets(page, Redactor([]))
        return found
    finally:
        context.close()


def test_every_listed_target_matches_as_listed_in_one_plan(chromium, portal, listings, tmp_path) -> None:
    steps: list[dict[str, Any]] = []
    for n, (path, found) in enumerate(listings.items()):
        assert found["elements"], (path, found)
        steps.append({"id": f"open_{n}", "kind": "navigate", "target": {"type": "url", "url": path}})
        steps.append({"id": f"check_{n}", "kind": "assert", "postconditions": [
            {"kind": "element_count_equals", "args": {"target": e["target"], "count": e["matches"]}}
            for e in found["elements"]]})
    text = yaml.safe_dump({"name": "every listed target", "defaults": {
        "criticality": "normal", "timeout_ms": 5000, "preconditions": [{"kind": "host_in_allowlist"}],
        "postconditions": [{"kind": "host_in_allowlist"}]},
                           "steps": steps}, sort_keys=False)
    r = run_text(chromium, tmp_path, text, portal.url)
    assert r.result.status == "passed", r.error and (r.error.message, r.error.failed_conditions)
    checks = sum(len(s.get("postconditions", [])) for s in steps)
    assert checks >= 40, checks  # the pages' elements, each one checked


def test_the_listing_names_elements_by_role_and_name_first_and_says_what_is_not_unique(listings) -> None:
    login = {e["element"]: e for e in listings["/login"]["elements"]}
    button = login['button "Sign in" [testid=login-submit]']
    assert button["target"] == {"type": "role", "role": "button", "name": "Sign in", "exact": True}
    assert button["unique"] and button["uses"] == ["click"]
    assert login['input "Password" #password']["target"] == {"type": "label", "text": "Password", "exact": True}
    grid = [e for e in listings["/spa/grid"]["elements"] if e["role"] == "grid"]
    assert grid and grid[0]["target"]["role"] == "grid" and grid[0]["unique"], grid  # a named grid: role + name
    shared = [e for found in listings.values() for e in found["elements"] if not e["unique"]]
    assert shared and all(e["matches"] > 1 for e in shared), shared
    landmarks = {e["target"].get("role") for e in listings["/"]["elements"] if e["target"]["type"] == "role"}
    assert {"main", "list", "link"} <= landmarks, landmarks


def test_the_command_lists_a_page_as_json_with_its_aria_snapshot(chromium, portal, tmp_path, monkeypatch,
                                                                  capsys) -> None:
    """The command as a user types it, in this process: only the launch is the suite's Chromium (one
    Playwright per thread). The text form of the same listing: tests/unit/test_targets_cli.py."""

    class Launched:
        def __init__(self, launch_kwargs: dict[str, Any], explicit_path: str | None) -> None:
            assert launch_kwargs == {"headless": True} and explicit_path is None
            self.browser = chromium.browser

        def close(self) -> None:
            pass

    monkeypatch.setattr(manager, "BrowserManager", Launched)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["targets", portal.url + "/spa/grid", "--json", "--aria"]) == 0, capsys.readouterr().err
    found = json.loads(capsys.readouterr().out)
    assert found["url"] == portal.url + "/spa/grid" and found["title"] == "Products"
    (grid,) = [e for e in found["elements"] if e["role"] == "grid"]
    assert grid["target"] == {"type": "role", "role": "grid", "name": "Products", "exact": True} and grid["unique"]
    assert '- grid "Products"' in found["aria_snapshot"] and len(found["aria_snapshot"].encode()) <= MAX_ARIA_BYTES


GRADIO = """<!doctype html><title>Data frame</title>
<main><h1>Results</h1><button type="button">Submit</button>
<div role="grid" data-testid="frame"><div role="row"><span role="columnheader">Name</span></div>
<div role="row"><span role="gridcell">Ada</span></div></div></main>
"""


def test_a_nameless_table_target_is_offered_the_pages_one_grid(chromium, tmp_path) -> None:
    with served_pages({"/app": GRADIO}) as url:
        r = run_text(chromium, tmp_path, step_plan(click({"type": "role", "role": "table"})), url)
    suggestions = suggestions_of(r)
    assert suggestions[0]["target"] == {"type": "role", "role": "grid"}, suggestions
    assert "akin to table (tables)" in suggestions[0]["why"]
    assert all(s["target"].get("role") != "button" for s in suggestions)  # not every element: the family only


FIELD_THEN_MANY = """<!doctype html><title>Long</title>
<label for="token">Token</label><input id="token">
<ul>""" + "".join(f"<li>Row number {i} of a long list</li>" for i in range(600)) + "</ul>"


def test_a_failure_keeps_the_pages_aria_snapshot_masked_cut_and_hashed(chromium, tmp_path) -> None:
    secret = "s3cr3t-token-value"
    fill = "- {id: type, kind: fill, target: {type: label, text: Token, exact: true}, value: '${secrets.token}'}\n"
    text = step_plan(click({"type": "role", "role": "button", "name": "Missing", "exact": True}), page="/long",
                     extra_steps=fill).replace("steps:", "secrets: {token: {env: H39_TOKEN}}\nsteps:", 1)
    with served_pages({"/long": FIELD_THEN_MANY}) as url:
        r = run_text(chromium, tmp_path, text, url, env={"H39_TOKEN": secret})
    assert r.code == "TARGET_NOT_FOUND", r.error and r.error.message
    (ref,) = [ref for ref in r.error.evidence_refs if ref.kind == "aria_snapshot"]
    (entry,) = [e for e in r.evidence["files"] if e["uri"] == ref.uri]
    data = (r.run_dir / ref.uri).read_bytes()
    assert entry["sha256"] == hashlib.sha256(data).hexdigest() == ref.sha256
    assert len(data) <= MAX_ARIA_BYTES and ref.metadata == {"truncated": True}
    snapshot = data.decode()
    assert '- textbox "Token"' in snapshot and "Row number 0 of a long list" in snapshot
    assert secret not in snapshot and secret not in r.files()["trace.jsonl"].decode()


LOGIN = """name: sign in
save_storage_state: signed_in
secrets: {user: {env: H39_USER}}
defaults: {criticality: normal, timeout_ms: 5000, preconditions: [{kind: host_in_allowlist}],
           postconditions: [{kind: host_in_allowlist}]}
steps:
  - {id: open_login, kind: navigate, target: {type: url, url: /login}}
  - {id: type_user, kind: fill, target: {type: label, text: User name, exact: true}, value: "${secrets.user}"}
  - {id: type_password, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
  - {id: sign_in, kind: click, target: {type: role, role: button, name: Sign in, exact: true},
     postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]}
  - {id: greeted, kind: assert, postconditions: [{kind: element_exists, args: {target: {type: testid, id: greeting}}}]}
"""


def test_a_plans_step_and_a_saved_state_open_the_page_and_the_allowlist_refuses_others(chromium, portal, outside,
                                                                                          tmp_path, monkeypatch):
    monkeypatch.setenv("H39_USER", "alice")
    (tmp_path / "cometlocal.yaml").write_text(f"base_url: {portal.url}\nallowlist: [127.0.0.1]\n")
    (tmp_path / "login.actions.yaml").write_text(LOGIN)

    def elements(opening: Opening) -> dict[str, dict[str, Any]]:
        found = open_and_look(chromium.browser, opening, tmp_path / "runs", page_targets)
        assert "alice" not in json.dumps(found)  # the plan's secret, masked in all the listing says
        return {e["element"]: e for e in found["elements"]}

    after = elements(Opening(tmp_path, plan=str(tmp_path / "login.actions.yaml"), step="greeted"))
    assert after['button "Log out"']["target"] == {"type": "role", "role": "button", "name": "Log out", "exact": True}
    # A URL with a saved state: the suite's plan that saves it runs first (a fresh output: none saved yet).
    state = open_and_look(chromium.browser, Opening(tmp_path, url="/dashboard", storage_state="signed_in"),
                          tmp_path / "state-runs", page_targets)
    assert state["url"].endswith("/dashboard") and any(e["element"] == 'button "Log out"' for e in state["elements"])

    # A step before the one asked for fails: its code, typed, and the step.
    broken = LOGIN.replace("name: Sign in, exact: true}", "name: Enter, exact: true}, timeout_ms: 500", 1)
    (tmp_path / "broken.actions.yaml").write_text(broken)
    with pytest.raises(TargetsRefused) as failed:
        elements(Opening(tmp_path, plan=str(tmp_path / "broken.actions.yaml"), step="greeted"))
    assert failed.value.code == "TARGET_NOT_FOUND" and "at step sign_in" in str(failed.value), failed.value

    def no_browser():
        raise AssertionError("a refused URL starts no browser")

    with pytest.raises(TargetsRefused) as refused:
        open_and_look(no_browser, Opening(tmp_path, url=outside.url + "/landing"), tmp_path / "runs", page_targets)
    assert refused.value.code == "DOMAIN_BLOCKED" and "127.0.0.1" in str(refused.value), refused.value


# Custom widgets (issue 46): every interactive ARIA role, named by aria-label, aria-labelledby (one that
# names itself and its row) or content; states in ARIA attributes and native; a tree inside a tree; a button
# in a table row; a focusable grid cell (the other cells are not listed); a hidden one. ``data-w`` says which.
WIDGETS = """<!doctype html><title>Order</title>
<main><h2 data-w="heading">Order</h2>
<span id="product-label">Product</span>
<div role="combobox" aria-labelledby="product-label" aria-expanded="false" tabindex="0" data-w="combobox"></div>
<div role="checkbox" aria-checked="true" tabindex="0" data-w="checkbox">Gift wrap</div>
<div role="radiogroup" aria-label="Delivery"><div role="radio" aria-checked="false" tabindex="0" data-w="radio">Express</div></div>
<div role="switch" aria-checked="false" aria-label="Notifications" tabindex="0" data-w="switch"></div>
<div role="slider" aria-label="Quantity" aria-valuenow="2" aria-valuemin="1" aria-valuemax="9" tabindex="0" data-w="slider"></div>
<div role="spinbutton" aria-label="Copies" aria-valuenow="1" tabindex="0" data-w="spinbutton"></div>
<div role="tablist" aria-label="Sections"><div role="tab" aria-selected="true" tabindex="0" data-w="tab">Details</div></div>
<div role="listbox" aria-label="Colours"><div role="option" aria-selected="true" data-w="option">Red</div>
  <div role="option" aria-selected="false" data-w="option_nested"><span role="checkbox" aria-checked="true"
    aria-label="Include" data-w="checkbox_nested"></span> Olives</div></div>
<div role="menu" aria-label="Actions"><div role="menuitem" data-w="menuitem">Copy</div>
  <div role="menuitemcheckbox" aria-checked="true" data-w="menuitemcheckbox">Bold</div>
  <div role="menuitemradio" aria-checked="false" data-w="menuitemradio">Left</div></div>
<div role="tree" aria-label="Files"><div role="treeitem" aria-expanded="true" data-w="treeitem">src
  <div role="group"><div role="treeitem" data-w="treeitem_nested">main.py</div></div></div></div>
<span role="link" tabindex="0" data-w="link">Help</span>
<div role="button" aria-pressed="true" tabindex="0" data-w="button">Italic</div>
<div role="button" aria-disabled="true" data-w="disabled">Delete</div>
<span id="note-label">Note</span><div role="textbox" aria-labelledby="note-label" contenteditable="true" data-w="textbox"></div>
<div role="searchbox" aria-label="Find" tabindex="0" data-w="searchbox"></div>
<label><input type="checkbox" checked data-w="native"> Subscribe</label>
<div role="switch" aria-label="Hidden switch" aria-checked="true" hidden data-w="hidden"></div>
<div role="grid" aria-label="People">
  <div role="row"><div role="gridcell" tabindex="0" data-w="gridcell">Alice</div><div role="gridcell">alice@example.com</div></div>
</div>
<table><tr><td id="bob">Bob</td>
  <td><span role="button" id="edit-bob" aria-labelledby="edit-bob bob" tabindex="0" data-w="row_button">Edit</span></td></tr>
<tr><td id="carol">Carol</td>
  <td><span role="button" id="edit-carol" aria-labelledby="edit-carol carol" tabindex="0">Edit</span></td></tr></table>
</main>
"""
# data-w -> the states the listing prints for it (a role filter of its role can use each).
WIDGET_STATES = {
    "heading": {"level": 2}, "combobox": {"expanded": False}, "checkbox": {"checked": True},
    "radio": {"checked": False}, "switch": {"checked": False}, "slider": {}, "spinbutton": {},
    "tab": {"selected": True}, "option": {"selected": True}, "option_nested": {"selected": False},
    "checkbox_nested": {"checked": True}, "menuitem": {}, "menuitemcheckbox": {"checked": True},
    "menuitemradio": {"checked": False}, "treeitem": {"expanded": True}, "treeitem_nested": {}, "link": {},
    "button": {"pressed": True}, "disabled": {"disabled": True}, "textbox": {}, "searchbox": {},
    "native": {"checked": True}, "gridcell": {}, "row_button": {},
}


def test_custom_widgets_are_listed_with_role_targets_that_find_exactly_them_and_their_states(chromium) -> None:
    from pytest_cometlocal.contract.model.targets import RoleTarget
    from pytest_cometlocal.executor.page.locators import compile_target
    from pytest_cometlocal.targets_cli.command import text_report

    with served_pages({"/order": WIDGETS}) as url:
        context = chromium.browser().new_context()
        try:
            page = context.new_page()
            page.goto(url + "/order")
            found = page_targets(page, Redactor([]))
            by_widget: dict[str, dict[str, Any]] = {}
            for entry in found["elements"]:
                target = RoleTarget.model_validate(entry["target"]) if entry["target"]["type"] == "role" else None
                located = compile_target(page, target) if target else None
                if located is not None and located.count() == 1:
                    by_widget.setdefault(located.get_attribute("data-w") or "", entry)
                if target is not None and entry["states"]:  # the states, as filters, still find it alone
                    filtered = RoleTarget.model_validate({**entry["target"], **entry["states"]})
                    assert compile_target(page, filtered).count() == 1, entry
            report = text_report(found, aria=False)
        finally:
            context.close()
    by_widget.pop("", None)
    assert set(by_widget) == set(WIDGET_STATES), sorted(by_widget)  # the hidden switch is not listed
    for widget, states in WIDGET_STATES.items():
        entry = by_widget[widget]
        assert entry["unique"] and entry["target"]["type"] == "role", entry
        assert entry["states"] == states, (widget, entry)
    assert by_widget["combobox"]["target"] == {"type": "role", "role": "combobox", "name": "Product", "exact": True}
    assert by_widget["row_button"]["target"]["name"] == "Edit Bob"
    assert by_widget["option_nested"]["target"]["name"] == "Include Olives"  # the inner checkbox's name counts
    cells = [e for e in found["elements"] if e["role"] == "gridcell"]
    assert [e["target"].get("name") for e in cells] == ["Alice"], cells  # the cell no keyboard reaches is left out
    assert all(e["role"] != "switch" or e["target"].get("name") != "Hidden switch" for e in found["elements"])
    line = next(ln for ln in report.splitlines() if 'combobox "Product"' in ln)
    assert line.endswith("{type: role, role: combobox, name: Product, exact: true}   states: expanded=false"), line
