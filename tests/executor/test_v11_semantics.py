"""What plan format v1.1 settles, in a real Chromium against the demo portal: a wait_for or an
assert is never retried by retry_on, a wait_for that runs out of time names the conditions that
did not hold, the trace and the manifest say which format each step needs, and the new kinds
are counted, blocked and verified as v1's side-effecting kinds are.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.demo.portal import DEMO_PASSWORD
from pytest_cometlocal.runs.verify import verify_run
from tests.support import Run, plan

pytestmark = pytest.mark.browser

OPEN = "- {{id: open, kind: navigate, target: {{type: url, url: {url}}}}}\n"


def specs(r: Run, step: str) -> list[dict]:
    return [e["action_spec"] for e in r.events if e["step_id"] == step and e.get("action_spec") is not None]


def test_a_wait_for_that_never_holds_is_tried_once_and_names_what_did_not_hold(run):
    """NAVIGATION_TIMEOUT is in the default retry_on; a wait_for is still tried once."""
    r = run(plan(OPEN.format(url="/dynamic") +
                 "- {id: wait, kind: wait_for, timeout_ms: 300, target: {type: testid, id: counter},"
                 " postconditions: [{kind: element_text_contains, args: {text: '99'}}]}\n",
                 name="wait", extra="policy: {backoff_ms: [0]}\n"))
    assert r.code == "NAVIGATION_TIMEOUT" and r.error.stage == "postcondition"
    assert r.error.message == "wait_for: element_text_contains (testid=counter, text=99) did not hold within 300 ms"
    assert "navigat" not in r.error.message
    assert [c["condition"] for c in r.error.details["wait_condition"]] == ["element_text_contains (testid=counter, text=99)"]
    assert r.error.details["wait_condition"][0]["kind"] == "element_text_contains"  # v1's fields stay
    assert r.error.retryable is False and "attempts" not in r.error.details
    assert "retry_scheduled" not in r.types("wait") and r.types("wait").count("observation_captured") == 1
    # A v1 plan: v1 records, a v1 manifest, a run folder that verifies.
    assert {s["schema_version"] for s in specs(r, "wait")} == {"v1"}
    assert r.manifest["format_versions"] == ["v1"]
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_an_assert_is_not_retried_but_a_click_is(run):
    steps = (OPEN.format(url="/login") +
             "- {id: check, kind: assert, timeout_ms: 1000, postconditions: [{kind: title_contains, args: {text: Nope}}]}\n")
    r = run(plan(steps, name="assert", extra="policy: {retry_on: [POSTCONDITION_FAILED], backoff_ms: [0]}\n"))
    assert r.code == "POSTCONDITION_FAILED" and r.error.action_id == "check"
    assert "retry_scheduled" not in r.types("check") and r.error.retryable is False
    # The same code on a click is retried as retry_on says (v1 unchanged).
    steps = (OPEN.format(url="/dynamic") +
             "- {id: go, kind: click, timeout_ms: 1000, target: {type: css, selector: '#add-item'},"
             " postconditions: [{kind: title_contains, args: {text: Nope}}]}\n")
    r = run(plan(steps, name="click", extra="policy: {retry_on: [POSTCONDITION_FAILED], backoff_ms: [0]}\n"))
    assert r.code == "POSTCONDITION_FAILED" and r.error.details["attempts"] == 3
    assert r.types("go").count("retry_scheduled") == 2


SIGN_IN = """\
- {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
- {id: pw, kind: fill, target: {type: label, text: Password, exact: true}, value: "${secrets.pw}"}
"""
SUBMIT_ON_ENTER = """\
- id: submit
  kind: press
  key: Enter
  criticality: critical
  target: {type: label, text: Password, exact: true}
  postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
"""


def test_a_v11_step_is_recorded_as_v11_and_verifies(run):
    r = run(plan(OPEN.format(url="/login") + SIGN_IN + SUBMIT_ON_ENTER +
                 "- {id: point, kind: hover, target: {type: testid, id: greeting}}\n",
                 name="v11", extra="secrets: {pw: {env: PW}}\n"), env={"PW": DEMO_PASSWORD})
    assert r.result.status == "passed", r.error and r.error.message
    assert {s["schema_version"] for s in specs(r, "user")} == {"v1"}
    assert {s["schema_version"] for s in specs(r, "submit")} == {"v1.1"}
    assert specs(r, "submit")[0]["key"] == "Enter"
    assert r.manifest["format_versions"] == ["v1", "v1.1"]
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_dry_run_blocks_a_critical_press(run):
    r = run(plan(OPEN.format(url="/login") + SIGN_IN + SUBMIT_ON_ENTER, name="dry",
                 extra="secrets: {pw: {env: PW}}\n"), env={"PW": DEMO_PASSWORD}, dry_run=True)
    assert r.code == "ACTION_CRITICAL_BLOCKED" and r.error.action_id == "submit"
    assert r.error.details["critical_reason"] == "dry_run" and r.result.status == "blocked"
    assert "action_started" not in r.types("submit")
    assert r.events[-1]["state_signature_after"]["url"].endswith("/login")  # nothing was submitted


def test_same_state_revisits_count_a_press(run):
    """Escape with nothing focused changes nothing: the third press from the same state halts."""
    presses = "".join(f"- {{id: esc{n}, kind: press, key: Escape}}\n" for n in (1, 2, 3))
    r = run(plan(OPEN.format(url="/login") + presses, name="revisit", extra="policy: {same_state_revisits: 2}\n"))
    assert r.code == "POLICY_HALT" and r.error.action_id == "esc3"
    assert r.error.details["policy_reason"] == "same_state_revisit" and r.error.details["count"] == 3
