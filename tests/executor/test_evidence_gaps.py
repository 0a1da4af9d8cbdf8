"""An error whose page cannot be looked at still has a partial snapshot, and names what is missing.

A page that freezes before a step has any observation of its own (the
misbehaving server's ``/look-trap``) leaves the executor only what it knows
without the renderer: the snapshot says so (``source: "executor"``), holds the
URL, the step's target and the last observation, and ``details.evidence_gaps``
names each piece the contract asks for that could not be taken, with its reason.
"""

from __future__ import annotations

import json
from typing import Iterator

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.reliability.misbehaving import MisbehavingServer
from tests.support import plan

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def misbehaving() -> Iterator[MisbehavingServer]:
    with MisbehavingServer() as server:
        yield server


def test_a_page_frozen_before_the_step_is_observed_leaves_an_executor_snapshot_and_its_gaps(run, misbehaving):
    url = misbehaving.url + "/look-trap"
    r = run(plan(name="trap", steps=f"""\
  - {{id: open, kind: navigate, target: {{type: url, url: "{url}"}}}}
  - {{id: arm, kind: click, criticality: critical, target: {{type: role, role: button, name: Arm, exact: true}},
     postconditions: [{{kind: url_matches, args: {{pattern: look-trap}}}}]}}
  - {{id: next, kind: click, timeout_ms: 1000, target: {{type: role, role: button, name: Next, exact: true}}}}
"""))
    assert r.code == "PAGE_UNRESPONSIVE", r.error and r.error.message
    error = [e for e in r.events if e["event_type"] == "error_raised"][-1]["error"]
    assert error["action_id"] == "next" and error["details"]["during"] == "observation before the step"
    assert error["state_before"] is None  # the step was never observed

    (ref,) = [ref for ref in error["evidence_refs"] if ref["kind"] == "dom_snapshot_partial"]
    snapshot = json.loads((r.run_dir / ref["uri"]).read_text(encoding="utf-8"))
    assert snapshot["source"] == "executor" and snapshot["reason"].startswith("page unresponsive: ")
    assert snapshot["url"] == url  # known to the browser process, not asked of the page
    assert snapshot["title"] is None and snapshot["visible_anchors"] is None  # unknown, not invented
    assert snapshot["target"] == {"spec": {"type": "role", "role": "button", "name": "Next", "exact": True},
                                  "resolved": None}
    last = snapshot["last_observation"]  # the look after "arm": the page as last seen
    assert last["url"] == url and last["title"] == "Trap"
    # "arm" is critical: its "after" is a look of its own with its full-size picture, not the one read it
    # would share with "next" (docs/executor.md, "One step"); the trap's second read is the next step's own look.
    assert last["state_signature"]["screenshot_hash"] is not None

    gaps = error["details"]["evidence_gaps"]
    assert [gap["kind"] for gap in gaps] == ["state_signature", "screenshot", "screenshot", "html_full"], gaps
    assert all(gap["reason"].count("page unresponsive: ") == 1 for gap in gaps), gaps
    assert not [ref for ref in error["evidence_refs"] if ref["kind"] in ("screenshot", "html_full")]
    verification = verify_run(r.run_dir)
    assert verification.ok, verification.problems
