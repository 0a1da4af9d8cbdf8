"""(v1.2) History, pages, popups and tabs in a real Chromium.

Against the demo portal's v1.2 pages (/chapters/N, /tabs: a new tab, a sign-in popup that closes
itself) and one page this module serves (a popup whose first request goes to an outside host).
The example plans of example_plans/v12 and their negatives run as written; the popup flow also
runs in an inner session under ``-n 2`` through a Playwright server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import PORTAL_CONFTEST, Run, opened, run_text, served_pages, write

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[2] / "example_plans"
PASSING_MS = 10_000


def example(path: str) -> str:
    return (EXAMPLES / path).read_text(encoding="utf-8")


def events(r: Run, kind: str, step: str | None = None) -> list[dict[str, Any]]:
    return [e for e in r.events if e["event_type"] == kind and (step is None or e["step_id"] == step)]


def executed(r: Run, step: str) -> dict[str, Any]:
    return events(r, "action_executed", step)[-1]["metadata"]


# -- history ----------------------------------------------------------------------------------


def test_back_forward_and_reload_move_through_the_history(run):
    r = run(example("v12/pages_history.actions.yaml"))
    assert r.error is None, r.error
    assert executed(r, "back")["history"] == "back" and executed(r, "back")["url"].endswith("/chapters/2")
    assert executed(r, "forward")["history"] == "forward" and executed(r, "forward")["status"] == 200
    assert executed(r, "reload")["url"].endswith("/chapters/2")
    # A one-page run writes no page index and no page_opened (nothing of v1.2 runs unless used).
    assert not events(r, "page_opened")
    assert all("page" not in e["state_signature_before"]["metadata"] for e in events(r, "observation_captured"))


def test_no_history_is_precondition_failed_named_history_available(run):
    # A new tab has a single entry: refused without moving. The end of a history is tried first
    # (entries of another origin are invisible to the Navigation API) and found to be the end.
    r = run(example("negative/pages_no_history.actions.yaml"))
    assert (r.code, r.error.action_id, r.error.stage) == ("PRECONDITION_FAILED", "back", "precondition")
    (fc,) = r.error.failed_conditions
    assert (fc.kind, fc.args, fc.observed["history_length"]) == ("history_available", {"direction": "back"}, 1)
    r = run(opened("/chapters/1", "- {id: ahead, kind: go_forward}\n"))
    assert (r.code, r.error.action_id) == ("PRECONDITION_FAILED", "ahead")
    assert r.error.failed_conditions[0].args == {"direction": "forward"}


# -- popups, tabs, switch and close -----------------------------------------------------------


def test_popup_signs_in_closes_itself_and_the_first_page_shows_it(run):
    r = run(example("v12/pages_popup.actions.yaml"))
    assert r.error is None, r.error
    opened_pages = [(e["step_id"], e["metadata"]["page"], e["metadata"]["url"].rsplit("/", 2)[-2:], e["metadata"]["active"])
                    for e in events(r, "page_opened")]
    assert opened_pages == [("open_help", 1, ["tabs", "help"], True), ("open_signin", 1, ["tabs", "signin"], True),
                            ("tab_again", 1, ["tabs", "help"], False)]
    assert executed(r, "open_signin")["opened_page"] == 1
    assert executed(r, "close_help") == {**executed(r, "close_help"), "closed_page": 1, "page": 0}
    # Observations follow the active page, and name its index once there are several.
    before = {e["step_id"]: e["state_signature_before"] for e in events(r, "observation_captured")}
    assert before["user"]["url"].endswith("/tabs/signin") and before["user"]["metadata"]["page"] == 1
    assert before["signed_in"]["url"].endswith("/tabs") and before["signed_in"]["metadata"]["page"] == 0
    assert before["to_first"]["url"].endswith("/tabs/help") and before["to_first"]["metadata"]["page"] == 1


def test_switch_page_none_or_several_is_typed_and_lists_the_pages_masked(run):
    r = run(example("negative/pages_switch_not_found.actions.yaml").replace(
        "tags:", "secrets: {acct: {env: ACCT}}\ntags:"), env={"ACCT": "Accounts"})
    assert (r.code, r.error.details["which"], r.error.details["count_observed"]) == ("TARGET_NOT_FOUND", "page", 0)
    (seen,) = r.error.details["pages_seen"]
    assert seen["index"] == 0 and seen["url"].endswith("/tabs") and "Accounts" not in seen["title"]
    assert b"Accounts" not in (r.run_dir / "trace.jsonl").read_bytes()
    link = "{type: role, role: link, name: Open help in a new tab}"
    r = run(opened("/tabs", f"""\
- {{id: one, kind: click, target: {link}, postconditions: [{{kind: page_count_equals, args: {{count: 2}}}}]}}
- {{id: two, kind: click, target: {link}, postconditions: [{{kind: page_count_equals, args: {{count: 3}}}}]}}
- {{id: to_help, kind: switch_page, timeout_ms: 300, page: {{url_matches: /tabs/help$}}}}
""", extra="policy: {same_state_revisits: 3}\n"))  # three steps start from /tabs
    assert (r.code, r.error.action_id, r.error.details["count_observed"]) == ("TARGET_NOT_UNIQUE", "to_help", 2)
    assert [p["index"] for p in r.error.details["pages_seen"]] == [0, 1, 2]
    # Suggested pages, one naming each open page alone: the two tabs share URL and title, so by index.
    assert [p["page"] for p in r.error.details["page_suggestions"]] == [
        {"url_matches": "/tabs$"}, {"index": 1}, {"index": 2}]


def test_close_page_refuses_to_close_the_runs_only_page(run):
    r = run(opened("/chapters/1", "- {id: close, kind: close_page}\n"))
    assert (r.code, r.error.action_id, [fc.kind for fc in r.error.failed_conditions]) == (
        "PRECONDITION_FAILED", "close", ["another_page_open"])


def test_opens_page_with_no_new_page_is_postcondition_failed_page_opened(run):
    r = run(example("negative/pages_opens_nothing.actions.yaml"))
    assert (r.code, r.error.action_id, r.error.stage) == ("POSTCONDITION_FAILED", "no_popup", "postcondition")
    assert [fc.kind for fc in r.error.failed_conditions] == ["page_opened"]


def test_page_count_equals_failure_shows_the_count_seen(run):
    r = run(opened("/tabs", "- {id: one, kind: assert, postconditions: [{kind: page_count_equals, args: {count: 2}}]}\n",
                   timeout_ms=300))
    assert r.code == "POSTCONDITION_FAILED"
    (fc,) = r.error.failed_conditions
    assert fc.kind == "page_count_equals" and fc.observed["count"] == 1 and fc.observed["urls"][0].endswith("/tabs")


def test_same_state_rule_follows_the_active_page(run):
    # Two reloads of the new tab and a switch all start from the tab's state: the third is a revisit
    # of the tab's state (threshold 2), although the first page was never looked at again.
    r = run(opened("/tabs", """\
- {id: tab, kind: click, opens: page, target: {type: role, role: link, name: Open help in a new tab}}
- {id: r1, kind: reload}
- {id: r2, kind: reload}
- {id: back_to_first, kind: switch_page, page: {index: 0}}
""", timeout_ms=PASSING_MS))
    assert (r.code, r.error.action_id) == ("POLICY_HALT", "back_to_first")
    assert r.error.state_before.url.endswith("/tabs/help") and r.error.state_before.metadata["page"] == 1


CLOSER = """<!doctype html><title>Opener</title>
<button type="button" onclick="window.open('/closing', '_blank')">Open closing popup</button>"""
CLOSING = """<!doctype html><title>Closing</title>
<button type="button" onpointermove="window.close()">Close me</button>"""


def test_an_action_that_closes_its_own_page_is_done_and_the_opener_is_active(tmp_path: Path, chromium):
    # The popup closes itself as the pointer reaches its button. Whether Playwright's click then returns or
    # fails on the closed page is a race (tests/unit/test_v12_pages_pure.py covers the failing side): either
    # way the step is done and the opener is the active page.
    with served_pages({"/opener": CLOSER, "/closing": CLOSING}) as url:
        r = run_text(chromium, tmp_path, opened("/opener", """- {id: pop, kind: click, opens: page, target: {type: role, role: button, name: Open closing popup}}
- id: close_it
  kind: click
  target: {type: role, role: button, name: Close me}
  postconditions: [{kind: page_count_equals, args: {count: 1}}, {kind: title_contains, args: {text: Opener}}]
""", timeout_ms=PASSING_MS), base_url=url)
    assert r.error is None, r.error
    after = events(r, "postconditions_checked", "close_it")[-1]["state_signature_after"]
    assert after["url"].endswith("/opener") and after["metadata"]["page"] == 0


# -- the guard holds on a popup from its first request -----------------------------------------


POPUP_OUT = """<!doctype html><title>Out</title>
<button type="button" onclick="window.open('{outside}/popup-first', '_blank')">Open outside popup</button>"""


def test_popups_first_request_to_an_outside_host_is_blocked_and_traced(tmp_path: Path, chromium, outside):
    before = len(outside.hits)
    with served_pages({"/out": POPUP_OUT.replace("{outside}", outside.url)}) as url:
        r = run_text(chromium, tmp_path, opened("/out", """\
- id: pop
  kind: click
  opens: page
  target: {type: role, role: button, name: Open outside popup}
  postconditions: [{kind: page_count_equals, args: {count: 2}}]
""", timeout_ms=PASSING_MS), base_url=url)
    # As for any page of the run: the popup's navigation leaves the allowlist, so the step is DOMAIN_BLOCKED.
    assert (r.code, r.error.action_id, r.error.details["host"]) == ("DOMAIN_BLOCKED", "pop", "localhost")
    blocked = r.error.details["blocked_requests"]
    assert {b["host"] for b in blocked} == {"localhost"} and any("/popup-first" in b["url"] for b in blocked)
    assert outside.hits[before:] == []  # nothing reached the outside host


# -- the popup flow under -n 2 through a Playwright server ---------------------------------------


@pytest.mark.usefixtures("lean_inner_runs")
def test_popup_flow_under_xdist_through_a_playwright_server(pytester: pytest.Pytester, monkeypatch):
    from tests.plugin.test_remote import REMOTE_CHROMIUM, playwright_server, remote_chromium_args

    if REMOTE_CHROMIUM is None:
        pytest.skip("no system Chromium for the Playwright server to launch")
    monkeypatch.setenv("COMETLOCAL_CHROMIUM", "/nonexistent/cometlocal-test/chromium")  # no local launch
    pytester.makeconftest(PORTAL_CONFTEST)
    flow = example("v12/pages_popup.actions.yaml")
    for i in range(2):
        write(pytester, f"popup{i}.actions.yaml", flow.replace("name: pages popup", f"name: popup {i}"))
    with playwright_server() as server:
        result = pytester.runpytest_subprocess("-n", "2", "--cometlocal-connect", server, *remote_chromium_args(),
                                               timeout=240)
    result.assert_outcomes(passed=2)

