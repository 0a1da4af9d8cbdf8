"""The first verdict of an attempt stands (executor/step/failures.py, ``attempt.failure``).

A step's failure is built inside the watchdog's bound on the step (its evidence is taken from the page). When
that bound runs out while the failure's own page work is still going on (its handles released, its
suggestions), the step keeps the failure it had: the watchdog does not decide it a second time. It once
did, and the journal refused the second evidence as an internal error (seen on a loaded Firefox, where a
scroll that could not scroll took its whole time, then its clean-up crossed the bound).
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.executor.page import scrolling

pytestmark = pytest.mark.browser

PLAN = """
name: a box that does not scroll, and a slow clean-up
base_url: "{portal}"
defaults:
  criticality: normal
  timeout_ms: 1000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
steps:
  - {id: open, kind: navigate, target: {type: url, url: /v13/scroll}, timeout_ms: 10000}
  - {id: box_bottom, kind: scroll, target: {type: testid, id: plain}, to: bottom}
"""


def test_a_clean_up_past_the_bound_keeps_the_steps_failure(run, monkeypatch):
    released, original = [], scrolling._drop

    def slow_drop(handle):  # the handle's release answers after the watchdog's bound on the step
        released.append(handle)
        try:
            handle.evaluate("() => new Promise((done) => setTimeout(done, 4000))")
        finally:
            original(handle)

    monkeypatch.setattr(scrolling, "_drop", slow_drop)
    r = run(PLAN)
    assert released, "the clean-up ran"
    assert r.code == "PRECONDITION_FAILED" and r.error.action_id == "box_bottom"
    assert [c.kind for c in r.error.failed_conditions] == ["scrollable"]
    assert r.manifest["status"] != "internal_error"
    failed = [e for e in r.events if e["event_type"] == "evidence_captured" and e["step_id"] == "box_bottom"]
    assert [e["metadata"].get("for_error") for e in failed] == ["PRECONDITION_FAILED"]  # one verdict, one pack
