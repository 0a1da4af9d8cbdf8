"""details.evidence_gaps and the executor's own partial snapshot, without a browser."""

from __future__ import annotations

from pytest_cometlocal.contract.model.records import EvidenceRef, StateSignature
from pytest_cometlocal.contract.validate.validator import validate_action_spec
from pytest_cometlocal.executor.runfolder.evidence_gaps import Gaps, executor_snapshot, picture_reason
from pytest_cometlocal.executor.page.observation import Observation

SHA = "0" * 64


def shot(which: str) -> EvidenceRef:
    return EvidenceRef(kind="screenshot", uri=f"evidence/shots/step_000_{which}.png", sha256=SHA,
                       metadata={"which": which})


def observation(screenshot_hash: str | None, **metadata: str) -> Observation:
    signature = StateSignature(url="http://127.0.0.1/a", url_hash="u", title_hash="t", key_elements_hash="k",
                               visible_text_hash="v", screenshot_hash=screenshot_hash,
                               created_at="2026-11-25T12:00:00+00:00", metadata=metadata)
    snapshot = {"schema_version": "v1", "url": "http://127.0.0.1/a", "title": "A",
                "visible_anchors": [{"text": "Home", "href": "/", "testid": None}], "visible_inputs": []}
    return Observation(signature, snapshot, None)


def test_a_missing_picture_is_named_with_its_reason_and_a_taken_one_is_not():
    gaps = Gaps()
    gaps.screenshots([shot("before")], {"before": "never said", "after": "page unresponsive: stuck"}, "not taken")
    assert gaps.items == [{"kind": "screenshot", "reason": "at the failure: page unresponsive: stuck"}]


def test_without_a_known_reason_the_fallback_is_given():
    gaps = Gaps()
    gaps.screenshots([], {}, "evidence of the failure: no answer within 8000 ms")
    assert gaps.items == [
        {"kind": "screenshot", "reason": "before the step: evidence of the failure: no answer within 8000 ms"},
        {"kind": "screenshot", "reason": "at the failure: evidence of the failure: no answer within 8000 ms"},
    ]


def test_details_get_evidence_gaps_only_when_something_is_missing():
    gaps = Gaps()
    assert gaps.into({"timeout_ms": 3000}) == {"timeout_ms": 3000}
    assert gaps.into(None) is None
    gaps.add("html_full", "page crashed: gone")
    details = {"timeout_ms": 3000}
    assert gaps.into(details) == {"timeout_ms": 3000,
                                  "evidence_gaps": [{"kind": "html_full", "reason": "page crashed: gone"}]}
    assert details == {"timeout_ms": 3000}  # the caller's mapping is left as it was


def test_picture_reason_is_what_the_observation_recorded():
    assert picture_reason(None) is None
    assert picture_reason(observation("sha256:" + SHA)) is None
    no_frame = observation(None, screenshot_error="no picture: the document has no body yet")
    assert picture_reason(no_frame) == "no picture: the document has no body yet"
    no_full = observation("sha256:" + SHA, full_screenshot_error="Page.captureScreenshot: no answer within 3000 ms")
    assert picture_reason(no_full, full=True) == "Page.captureScreenshot: no answer within 3000 ms"
    assert picture_reason(no_full) is None
    # The fast profile's reason for a picture it did not take; a picture it took needs none.
    not_taken = observation(None, screenshot="not taken: no earlier step started from this DOM-derived state (fast profile)")
    assert picture_reason(not_taken) == "not taken: no earlier step started from this DOM-derived state (fast profile)"
    assert picture_reason(observation("sha256:" + SHA, screenshot="taken: a critical step or a failure")) is None


def test_the_executor_snapshot_holds_what_is_known_and_nothing_invented():
    spec = validate_action_spec({"id": "go", "kind": "click", "criticality": "normal", "timeout_ms": 1000,
                                 "target": {"type": "testid", "id": "go"},
                                 "preconditions": [{"kind": "element_enabled"}], "postconditions": [{"kind": "element_enabled"}]})
    last = observation("sha256:" + SHA)
    target = spec.model_dump(mode="json", exclude_none=True)["target"]
    snapshot = executor_snapshot("http://127.0.0.1/b", target, None, last, "page unresponsive: stuck")
    assert snapshot["source"] == "executor" and snapshot["reason"] == "page unresponsive: stuck"
    assert snapshot["url"] == "http://127.0.0.1/b"
    assert snapshot["title"] is None and snapshot["visible_anchors"] is None and snapshot["visible_inputs"] is None
    assert snapshot["target"] == {"spec": {"type": "testid", "id": "go"}, "resolved": None}
    seen = snapshot["last_observation"]
    assert seen["url"] == "http://127.0.0.1/a" and seen["title"] == "A"
    assert seen["visible_anchors"] == last.snapshot["visible_anchors"]
    assert seen["taken_at"] == last.signature.created_at
    assert seen["state_signature"]["screenshot_hash"] == "sha256:" + SHA
    assert executor_snapshot(None, None, None, None, "r")["last_observation"] is None
