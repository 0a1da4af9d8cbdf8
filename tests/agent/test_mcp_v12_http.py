"""(v1.2) HTTP steps, saved values and stubs through ``cometlocal mcp``: ``propose`` names them,
``start_session`` takes ``routes`` and validates them as a plan's before a browser opens, ``save_plan``
keeps them; the session remembers what its accepted steps saved (rule SAVED across proposals).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_cometlocal.agent import server
from pytest_cometlocal.agent.agent_session import AgentSession
from pytest_cometlocal.agent.errors import AgentError
from pytest_cometlocal.agent.plan_writer import plan_document
from pytest_cometlocal.contract.model.actionspec import V12_KINDS, V12_STEP_KEYS
from pytest_cometlocal.contract.model.plan import Policy
from tests.agent.test_mcp_server import Agent, converse, env, verify  # noqa: F401  (env: the server's environment)

FEED_ROUTE = {"url": "https://feed.outside.example/**", "respond": {"status": 200, "json": {"items": [{"title": "Hi"}]}}}


def test_propose_names_every_v12_kind_key_and_http_condition():
    description = server.PROPOSE_DESCRIPTION
    names = (*V12_KINDS, *V12_STEP_KEYS, "request", "save_text", "save:", "${saved.NAME}", "response_status",
             "response_json", "response_header", "routes")
    assert [n for n in names if n not in description] == []


def test_start_session_takes_routes():
    assert "routes" in inspect.signature(AgentSession.start).parameters


def test_the_saved_plan_holds_the_routes_before_its_defaults():
    plan = plan_document(name="n", base_url="http://127.0.0.1:1", allowlist=None, secrets={}, policy=Policy(),
                         steps=[], routes=[FEED_ROUTE])
    assert list(plan)[-3:] == ["routes", "defaults", "steps"] and plan["routes"] == [FEED_ROUTE]
    assert "routes" not in plan_document(name="n", base_url="http://127.0.0.1:1", allowlist=None, secrets={},
                                         policy=Policy(), steps=[])


@pytest.mark.parametrize("routes", ["**/api/*", [{"url": 5, "abort": True}], [{"respond": {"status": 200}}]])
def test_bad_routes_are_refused_before_a_browser_opens(tmp_path, routes):
    session = AgentSession(tmp_path, env={})
    with pytest.raises(AgentError) as refused:
        session.start("http://127.0.0.1:9", routes=routes)
    assert refused.value.code == "INVALID_ARGUMENT" and "routes" in str(refused.value)
    assert session.open is None and not (tmp_path / "cometlocal-runs").exists()


@pytest.mark.browser
def test_an_agent_creates_a_document_through_the_api_stubs_the_feed_and_saves_the_plan(portal, env, tmp_path):
    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["start"] = await agent("start_session", base_url=portal.url, name="agent http", routes=[FEED_ROUTE])
        steps = [
            {"id": "login", "kind": "navigate", "target": {"type": "url", "url": "/login"}},
            {"id": "user", "kind": "fill", "value": "ada", "target": {"type": "label", "text": "User name", "exact": True}},
            {"id": "pw", "kind": "fill", "value": "demo", "target": {"type": "label", "text": "Password", "exact": True}},
            {"id": "go", "kind": "click", "target": {"type": "testid", "id": "login-submit"}},
            {"id": "create", "kind": "request", "method": "POST", "url": "/api/docs",
             "json": {"title": "From an agent"}, "save": {"doc_id": "/id"},
             "postconditions": [{"kind": "response_status", "args": {"status": 201}}]},
            {"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/docs/${saved.doc_id}"},
             "postconditions": [{"kind": "element_text_contains",
                                 "args": {"target": {"type": "testid", "id": "doc-title"}, "text": "From an agent"}}]},
            {"id": "feed", "kind": "navigate", "target": {"type": "url", "url": "/feed"},
             "postconditions": [{"kind": "element_text_contains",
                                 "args": {"target": {"type": "testid", "id": "feed-status"}, "text": "1 items"}}]},
        ]
        out["answers"] = [await agent("propose", step=step) for step in steps]
        out["unsaved"] = await agent("propose", step={"id": "bad", "kind": "navigate",
                                                      "target": {"type": "url", "url": "/docs/${saved.nothing}"}})
        out["saved"] = await agent("save_plan", path="http.actions.yaml", name="agent http")
        out["end"] = await agent("end_session")
        return out

    out = converse(tmp_path, env, script)
    assert out["start"]["ok"], out["start"]
    failed = [a for a in out["answers"] if not a["ok"]]
    assert not failed, [(a.get("action_id"), a.get("error_code"), a.get("message")) for a in failed]
    # The session remembers what its accepted steps saved: doc_id ran substituted (the page showed the document),
    # a name no accepted step saved is refused as the plan rule refuses it.
    unsaved = out["unsaved"]
    assert unsaved["error_code"] == "INVALID_ACTIONSPEC" and unsaved["details"]["violated_rules"] == ["SAVED"]
    (problem,) = unsaved["details"]["validation_errors"]
    assert problem["key_path"] == "target.url"
    assert problem["message"] == "no earlier step saves 'nothing' (saved before this step: doc_id)"
    assert out["saved"]["ok"] and out["saved"]["steps"] == len(out["answers"])
    plan = yaml.safe_load((tmp_path / "http.actions.yaml").read_text())
    assert plan["routes"] == [FEED_ROUTE] and plan["steps"][4]["save"] == {"doc_id": "/id"}
    assert [d["title"] for d in portal.docs.all()].count("From an agent") >= 1
    verify(Path(out["end"]["run_dir"]))
