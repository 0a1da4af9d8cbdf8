"""The picture drawn while read-only work runs (issue 27, decision 2), in a real Chromium.

In `balanced`, the frame of the state after a step is requested as soon as that state is known;
while it is drawn the next step does its read-only work (its look, its target, its preconditions).
The picture is never older than the change before it, the trace keeps its canonical order, and a
same-state halt still wins over a target failure the look-ahead found.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.executor.page.observation import observe, observe_pending, take_look
from pytest_cometlocal.runs.verify import verify_run
from tests.executor.test_observation import page, throttled_heavy_references  # noqa: F401 (page: the fixture)
from tests.executor.test_profiles import FORM, OPEN
from tests.support import plan, soak

pytestmark = pytest.mark.browser


def checked_ahead(r) -> dict[str, bool]:
    return {e["step_id"]: bool(e["metadata"].get("checked_ahead"))
            for e in r.events if e["event_type"] == "preconditions_checked"}


def test_the_next_steps_target_and_preconditions_are_checked_while_the_picture_is_drawn(run):
    r = run(plan(FORM, name="form"))
    assert r.code is None, r.error
    ahead = checked_ahead(r)
    # A fill after a fill on an unchanged form: its look, target and preconditions came from the look-ahead.
    assert ahead["s2"] and ahead["s3"] and ahead["country"], ahead
    assert not ahead["open"]  # the first step has no step before it
    assert not ahead["send"]  # a critical step gets its own full-size look, and reads its target with it
    send = next(e for e in r.events if e["step_id"] == "send" and e["event_type"] == "preconditions_checked")
    assert send["metadata"]["target_resolution"]["with_observation"]
    # The trace keeps its order and every record verifies; the looks reused are the ones recorded.
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems
    for step in ("s2", "s3"):
        types = r.types(step)
        assert types.index("observation_captured") < types.index("preconditions_checked") < types.index("action_started")
        before = next(e for e in r.events if e["step_id"] == step and e["event_type"] == "observation_captured")
        assert before["state_signature_before"]["screenshot_hash"]  # a picture, carried from the step before


@pytest.mark.parametrize("profile", ["balanced", "fast"])
def test_a_target_failure_found_ahead_loses_to_the_same_state_halt(run, profile):
    """The look-ahead of `gone` finds no element; the step halts on the repeated state all the same.

    again0 fails the sign-in (the page shows its error), again1 starts from that page, and so does `gone`.
    """
    steps = OPEN.format(url="/login") + (
        "- {id: again0, kind: click, target: {type: testid, id: login-submit}}\n"
        "- {id: again1, kind: click, target: {type: testid, id: login-submit}}\n"
        "- {id: gone, kind: click, timeout_ms: 1500, target: {type: testid, id: no-such-button}}\n")
    r = run(plan(steps, name="halt", extra="policy: {same_state_revisits: 1}\n"), profile=profile)
    assert r.code == "POLICY_HALT" and r.error.action_id == "gone", r.error
    # The same step without the repeated state is a plain TARGET_NOT_FOUND.
    r = run(plan(steps, name="no-halt", extra="policy: {same_state_revisits: 2}\n"), profile=profile)
    assert r.code == "TARGET_NOT_FOUND" and r.error.action_id == "gone"


def test_the_pending_frame_is_never_older_than_a_change_made_before_it_was_requested(page):
    """The renderer-throttling freshness test, with read-only work between request and result."""
    reference = throttled_heavy_references(page)
    stale = []
    for i in range(soak(16, 40)):  # 40 changes under COMETLOCAL_SOAK=1; each lands at another moment
        text = ("Red", "Blue")[i % 2]
        page.evaluate("(t) => document.getElementById('head').textContent = t", text)
        pending = observe_pending(page)
        assert pending.waiting
        take_look(page)  # what the next step reads meanwhile
        page.locator("div").count()
        if pending.result().signature.screenshot_hash != reference[text]:
            stale.append(i)
    assert stale == []


def test_a_cancelled_frame_leaves_nothing_running(page):
    page.set_content("<title>A</title><h1>A</h1>")
    pending = observe_pending(page)
    pending.cancel()
    # The next look gets its own fresh picture, the same one as before.
    first = observe(page).signature.screenshot_hash
    assert first and observe(page).signature.screenshot_hash == first


def test_a_page_that_navigates_between_request_and_result_still_gets_a_fresh_picture(page):
    page.set_content("<title>A</title><h1>A</h1>")
    pending = observe_pending(page)
    page.set_content("<title>B</title><h1 style='color: red'>Something else entirely</h1>")
    frame = pending.result().signature.screenshot_hash
    assert frame == observe(page).signature.screenshot_hash  # the new document's picture, not the old one


def _frames_recorded(r) -> list[dict]:
    """Every state signature of the trace that says which frame it got (metadata.screenshot_frame)."""
    found = []
    for event in r.events:
        for key in ("state_signature_before", "state_signature_after", "state_signature"):
            signature = event.get(key)
            if isinstance(signature, dict) and (signature.get("metadata") or {}).get("screenshot_frame"):
                found.append(signature)
    return found


def test_each_fresh_picture_records_its_frame_and_the_wait_and_a_masked_one_does_not(run):
    """Issue 50 item 2: the trace says which screencast frame a state got (the frame's own timestamp), how
    long its fence took and how long the step waited for it; a picture of a secret on screen is the masked
    full-size capture, which records no frame."""
    r = run(plan(FORM, name="form"))
    assert r.code is None, r.error
    recorded = _frames_recorded(r)
    assert recorded, "no state recorded its frame"
    for signature in recorded:
        frame = signature["metadata"]["screenshot_frame"]
        assert signature["algorithm_version"] == "v2-frame-320" and signature["screenshot_hash"]
        assert frame["method"] == "screencast-after-fence"
        assert isinstance(frame["frame_ts"], (int, float)) and frame["frame_ts"] > 1.6e9  # seconds since 1970
        assert 0 <= frame["fence_ms"] and 0 <= frame["waited_ms"]
    assert verify_run(r.run_dir).ok
    # A secret on screen (a user-name field holding one): the masked capture, which is no frame.
    steps = OPEN.format(url="/login") + (
        "- {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: '${secrets.a}'}\n"
        "- {id: end, kind: assert, postconditions: [{kind: title_contains, args: {text: Sign}}]}\n")
    r = run(plan(steps, name="secret", extra="secrets: {a: {env: PW_A}}\n"), env={"PW_A": "a-secret-value"})
    assert r.code is None, r.error
    masked = [e["state_signature_before"] for e in r.events
              if e["event_type"] == "observation_captured" and e["step_id"] == "end"]
    assert masked and masked[0]["algorithm_version"] == "v1", masked
    assert "screenshot_frame" not in masked[0]["metadata"]
