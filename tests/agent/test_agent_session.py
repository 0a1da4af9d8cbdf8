"""The agent session in this process (no MCP): the step cap across proposals, and secrets masked in what
the agent is shown. The session shares the suite's Chromium (tests/conftest.py ``chromium``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_cometlocal.agent.agent_session import AgentSession
from pytest_cometlocal.contract.model.plan import Policy

OPEN = {"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}}


def looks(i: int) -> dict:
    return {"id": f"look{i}", "kind": "assert", "postconditions": [{"kind": "title_contains", "args": {"text": "Sign"}}]}


@pytest.mark.browser
def test_the_step_cap_holds_across_proposals_and_the_saved_plan_keeps_it(chromium, portal, tmp_path):
    session = AgentSession(tmp_path, env={}, policy=Policy(hard_cap_steps=3), browsers=chromium)
    try:
        assert session.start(portal.url)["ok"]
        rejected = session.propose({"id": "bad", "kind": "assert", "target": {"type": "text", "text": "x"}})
        answers = [session.propose(OPEN), *(session.propose(looks(i)) for i in range(3))]
        saved = session.save_plan("capped.actions.yaml", "capped")
        ended = session.end()
    finally:
        session.close()
    assert rejected["error_code"] == "INVALID_ACTIONSPEC"  # a rejected proposal is not a step taken
    assert [a["ok"] for a in answers] == [True, True, True, False]
    halt = answers[-1]
    assert halt["error_code"] == "POLICY_HALT" and halt["details"]["policy_reason"] == "max_steps", halt
    assert saved == {"ok": True, "path": str(tmp_path / "capped.actions.yaml"), "steps": 3}
    assert "policy:\n  hard_cap_steps: 3\n" in (tmp_path / "capped.actions.yaml").read_text()
    assert ended["status"] == "failed"
    assert session.open is None and chromium.browser().is_connected()  # a shared browser stays open


@pytest.mark.browser
def test_a_secret_shown_on_the_page_is_masked_in_everything_the_agent_gets(chromium, portal, tmp_path):
    """The page's title and its button are named "Sign in"; here that text is a secret's value."""
    session = AgentSession(tmp_path, env={"SHOWN": "Sign in"}, browsers=chromium)
    try:
        started = session.start(portal.url, secrets={"shown": {"env": "SHOWN"}})
        opened = session.propose(OPEN)
        seen = session.observe()
        failed = session.propose({"id": "find", "kind": "click", "timeout_ms": 500,
                                  "target": {"type": "role", "role": "button", "name": "${secrets.shown}", "exact": True,
                                             }, "postconditions": [{"kind": "title_contains", "args": {"text": "nowhere"}}]})
        ended = session.end()
    finally:
        session.close()
    answers = json.dumps([started, opened, seen, failed, ended])
    assert "Sign in" not in answers and "***" in answers
    assert opened["ok"] and seen["title"] == "***" and failed["ok"] is False
    assert {"type": "role", "role": "button", "name": "***", "exact": True} in [c["target"] for c in seen["candidates"]]
    for path in (tmp_path / "cometlocal-runs").rglob("*"):
        if path.is_file() and path.suffix not in (".png", ".jpeg"):
            assert b"Sign in" not in path.read_bytes(), path


@pytest.mark.browser
def test_advance_clock_in_a_session_without_a_clock_is_refused_by_rule_clock(chromium, portal, tmp_path):
    """(v1.2) A session's plan has no clock.at: the proposal is a typed refusal naming rule CLOCK, the page is not
    touched, and the session goes on (Playwright's own "clock not installed" error never reaches the agent)."""
    session = AgentSession(tmp_path, env={}, browsers=chromium)
    try:
        assert session.start(portal.url)["ok"]
        assert session.propose(OPEN)["ok"]
        refused = session.propose({"id": "later", "kind": "advance_clock", "ms": 1000})
        after = session.propose(looks(0))
        saved = session.save_plan("clock.actions.yaml", "clock")
    finally:
        session.close()
    assert refused["ok"] is False and refused["error_code"] == "INVALID_ACTIONSPEC", refused
    assert refused["stage"] == "proposal_validation" and refused["details"]["violated_rules"] == ["CLOCK"]
    assert "advance_clock needs the clock installed: set `clock: {at: ...}`" in refused["message"]
    assert refused["observation"]["url"].endswith("/login")
    assert after["ok"] and saved["steps"] == 2  # the refused step is not in the plan


@pytest.mark.browser
def test_a_start_whose_browser_goes_away_is_a_typed_answer_with_a_run_folder(chromium, portal, tmp_path):
    """(v1.2) The browser disconnects while start_session makes its context: BROWSER_CRASHED, a run folder
    that verifies, no session open, and the next start gets a new browser (the shared manager relaunches it)."""
    from pytest_cometlocal.runs.verify import verify_run

    class ClosingOnce:
        """The suite's real Chromium, closed once after it is handed out: as if it died while the context is made."""

        remote = None
        closed = False

        def browser(self):
            browser = chromium.browser()
            if not self.closed:
                self.closed = True
                browser.close()
            return browser

    session = AgentSession(tmp_path, env={}, browsers=ClosingOnce())
    try:
        refused = session.start(portal.url)
        assert session.open is None
        again = session.start(portal.url)
        session.end()
    finally:
        session.close()
    assert refused["ok"] is False and refused["error_code"] == "BROWSER_CRASHED", refused
    assert refused["during"] == "new_context" and "Traceback" not in refused["message"]
    verification = verify_run(Path(refused["run_dir"]))
    assert verification.ok, verification
    manifest = json.loads((Path(refused["run_dir"]) / "run_manifest.json").read_text())
    assert (manifest["status"], manifest["error_code"]) == ("failed", "BROWSER_CRASHED")
    assert again["ok"], again
