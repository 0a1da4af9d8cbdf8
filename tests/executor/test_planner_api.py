"""The executor as a library: a planner proposes steps one at a time; the executor decides."""

from __future__ import annotations

import json

import pytest

from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.executor.engine import Executor, ExecutorSettings
from pytest_cometlocal.executor.errors import ExecutorFailure
from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
from pytest_cometlocal.executor.runfolder.folder import RunFolder

BASE = {"criticality": "normal", "timeout_ms": 3000,
        "preconditions": [{"kind": "host_in_allowlist"}], "postconditions": [{"kind": "host_in_allowlist"}]}


@pytest.fixture
def executor(chromium, portal, tmp_path):
    guard = NetworkGuard(["127.0.0.1"]).start()
    context = chromium.browser().new_context(proxy=guard.proxy_settings())
    run = RunFolder.create(tmp_path, "planner", mode="live", policy=Policy(), allowlist=["127.0.0.1"], plan_info={})
    ex = Executor(context.new_page(), run, ExecutorSettings(base_url=portal.url, allowlist=("127.0.0.1",)), guard=guard)
    ex.start({"planner": "test"})
    yield ex
    context.close()
    guard.stop()


def events(ex: Executor) -> list[dict]:
    return [json.loads(line) for line in (ex.run.path / "trace.jsonl").read_text().splitlines()]


def test_accepted_proposals_run_and_return_compat_results(executor):
    result = executor.propose({"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}, **BASE})
    assert result.ok and result.error is None and result.typed_error is None and result.kind == "navigate"
    assert result.evidence_refs and all(ref.sha256 for ref in result.evidence_refs)
    trace = events(executor)
    received = next(e for e in trace if e["event_type"] == "proposal_received")
    assert received["metadata"]["proposal_source"] == "planner"
    assert "proposal_accepted" in [e["event_type"] for e in trace]


def test_invalid_proposal_is_rejected_with_invalid_actionspec(executor):
    with pytest.raises(ExecutorFailure) as caught:
        executor.propose({"id": "bad", "kind": "click", "target": {"type": "text", "text": "Sign in"}, **BASE})
    error = caught.value.error
    assert error.error_code.value == "INVALID_ACTIONSPEC" and error.stage == "proposal_validation"
    assert error.details["violated_rules"] == ["U2"] and error.action_id == "bad"
    trace = events(executor)
    assert [e["event_type"] for e in trace][-3:] == ["proposal_received", "proposal_rejected", "error_raised"]
    report = executor.run.path / error.evidence_refs[0].uri
    assert report.is_file()
    # Its partial snapshot is the executor's own: the proposed target, the URL the browser holds.
    (partial,) = [ref for ref in error.evidence_refs if ref.kind == "dom_snapshot_partial"]
    snapshot = json.loads((executor.run.path / partial.uri).read_text(encoding="utf-8"))
    assert snapshot["source"] == "executor" and snapshot["url"] == executor.page.url
    assert snapshot["target"]["spec"] == {"type": "text", "text": "Sign in"}
    assert error.details["evidence_gaps"] == [
        {"kind": "state_signature", "reason": "a rejected proposal is not run: the page is not observed for it"}]
    # A rejected proposal never touched the page: nothing was observed or done for it.
    assert not any(e["event_type"] == "action_started" and e["step_id"] == "bad" for e in trace)


def test_failed_proposal_keeps_the_typed_error_and_its_string_form(executor):
    executor.propose({"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/duplicates"}, **BASE})
    with pytest.raises(ExecutorFailure) as caught:
        executor.propose({"id": "save", "kind": "click", "timeout_ms": 1000,
                          "target": {"type": "role", "role": "button", "name": "Save", "exact": True},
                          **{k: v for k, v in BASE.items() if k != "timeout_ms"}})
    compat = executor.results[-1]
    assert compat.ok is False and compat.typed_error is caught.value.error
    assert compat.error == "TARGET_NOT_UNIQUE: target resolution returned 2 matches; requires exactly 1"


def _secret_typed_into(executor, label: str):
    """The log-in page with the secret ``Hush-4471`` typed into the field ``label``; its observation now."""
    from pytest_cometlocal.executor.page.observation import observe

    executor.settings.secrets["pw"] = "Hush-4471"  # what a plan's secrets block would give
    executor._secret_values = ("Hush-4471",)
    executor.propose({"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}, **BASE})
    executor.propose({"id": "typed", "kind": "fill", "target": {"type": "label", "text": label, "exact": True},
                      "value": "${secrets.pw}", **BASE})
    return observe(executor.page, secrets=("Hush-4471",))


def test_secret_fields_are_masked_before_a_screenshot(executor):
    observation = _secret_typed_into(executor, "User name")
    page = executor.page
    assert page.locator("[data-cometlocal-secret]").count() == 1
    assert page.locator("#user[data-cometlocal-secret]").count() == 1
    # A secret on screen: the hash comes from the masked full-size capture, not a frame.
    assert observation.screenshot[:8] == b"\x89PNG\r\n\x1a\n"
    assert observation.signature.algorithm_version == "v1"
    trace = (executor.run.path / "trace.jsonl").read_text()
    assert "Hush-4471" not in trace and "${secrets.pw}" in trace


def test_a_password_field_shows_dots_so_its_secret_needs_no_mask_until_it_shows_the_text(executor):
    """A secret typed into a password field alone is not on screen: the state gets its frame. The same
    field made a text field ("show password") shows it: masked again."""
    from pytest_cometlocal.executor.page.observation import observe

    observation = _secret_typed_into(executor, "Password")
    page = executor.page
    assert page.locator("[data-cometlocal-secret]").count() == 0
    assert observation.signature.algorithm_version == "v2-frame-320"
    page.get_by_label("Password", exact=True).evaluate("(el) => { el.type = 'text'; }")
    observation = observe(page, secrets=("Hush-4471",))
    assert page.locator("input[data-cometlocal-secret]").count() == 1
    assert observation.signature.algorithm_version == "v1" and observation.screenshot[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_secret_in_a_proposal_is_rejected(executor):
    with pytest.raises(ExecutorFailure) as caught:
        executor.propose({"id": "x", "kind": "fill", "target": {"type": "testid", "id": "subject"},
                          "value": "${secrets.nope}", **BASE})
    assert caught.value.error.error_code.value == "INVALID_ACTIONSPEC"
    assert caught.value.error.details["violated_rules"] == ["INTERPOLATION"]


def test_closed_page_is_browser_crashed_not_a_raw_error(executor):
    executor.propose({"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}, **BASE})
    executor.page.close()
    with pytest.raises(ExecutorFailure) as caught:
        executor.propose({"id": "again", "kind": "navigate", "target": {"type": "url", "url": "/login"}, **BASE})
    error = caught.value.error
    assert error.error_code.value == "BROWSER_CRASHED" and error.action_id == "again"
    assert error.evidence_refs  # the last known state, even with no page to look at
    assert error.retryable is False


def test_relative_url_without_base_url_is_a_rejected_proposal(chromium, tmp_path):
    guard = NetworkGuard(["127.0.0.1"]).start()
    context = chromium.browser().new_context(proxy=guard.proxy_settings())
    try:
        run = RunFolder.create(tmp_path, "nobase", mode="live", policy=Policy(), allowlist=["127.0.0.1"], plan_info={})
        ex = Executor(context.new_page(), run, ExecutorSettings(base_url=None, allowlist=("127.0.0.1",)), guard=guard)
        with pytest.raises(ExecutorFailure) as caught:
            ex.propose({"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}, **BASE})
        error = caught.value.error
        assert error.error_code.value == "INVALID_ACTIONSPEC" and error.stage == "proposal_validation"
        assert error.action_id == "open" and "cometlocal_base_url" in error.message
        types = [e["event_type"] for e in events(ex)]
        assert types[-3:] == ["evidence_captured", "proposal_rejected", "error_raised"]
        assert "action_started" not in types
    finally:
        context.close()
        guard.stop()


def test_a_planner_that_takes_its_time_gets_a_fresh_screenshot(executor, monkeypatch):
    # Between two proposals a planner may think for long; the page may repaint meanwhile.
    from pytest_cometlocal.executor.step import observer

    monkeypatch.setattr(observer, "CARRY_MAX_AGE_S", 0.6)
    fill = {"kind": "fill", "target": {"type": "label", "text": "User name", "exact": True}, **BASE}
    executor.propose({"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}, **BASE})
    executor.propose({"id": "first", "value": "a", **fill})
    executor.propose({"id": "quick", "value": "b", **fill})  # proposed at once: carried over
    executor.page.wait_for_timeout(1200)
    executor.propose({"id": "slow", "value": "c", **fill})  # proposed after the bound: taken anew
    before = {e["step_id"]: e["state_signature_before"]["metadata"] for e in events(executor)
              if e["event_type"] == "observation_captured"}
    assert before["quick"].get("screenshot_from") == "previous_observation"
    assert "screenshot_from" not in before["slow"]
