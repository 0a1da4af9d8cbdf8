"""Plan format v1.2's checks through ``cometlocal mcp`` (the MCP SDK's own client over stdio) against the
demo portal's /v12/todos: ``propose`` names them, runs a step checked by them, and refuses a role filter
on a role ARIA does not give it, located, before the page is touched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.contract.model.actionspec import V12_CONDITION_KINDS
from pytest_cometlocal.contract.model.targets import ROLE_FILTERS
from tests.agent.test_mcp_server import Agent, converse, env, verify  # noqa: F401  (env: the server's environment)

pytestmark = pytest.mark.browser

NEW_TODO = {"type": "label", "text": "What needs to be done?", "exact": True}


def test_propose_runs_v12_checks_and_refuses_a_misplaced_role_filter(portal, env, tmp_path):
    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": {t.name: t for t in (await agent.session.list_tools()).tools}}
        await agent("start_session", base_url=portal.url)
        await agent("propose", step={"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/v12/todos"}})
        await agent("propose", step={"id": "type", "kind": "fill", "value": "Buy milk", "target": NEW_TODO})
        out["add"] = await agent("propose", step={
            "id": "add", "kind": "press", "key": "Enter", "target": NEW_TODO, "postconditions": [
                {"kind": "storage_item", "args": {"area": "local", "key": "todos-v12", "pointer": "/0/title",
                                                  "equals": "Buy milk"}},
                {"kind": "element_texts_equal", "args": {"target": {"type": "testid", "id": "todo-item"},
                                                         "texts": ["Buy milk"]}},
                {"kind": "element_hidden", "args": {"target": {"type": "testid", "id": "empty"}}}]})
        out["level"] = await agent("propose", step={"id": "h", "kind": "click",
                                                    "target": {"type": "role", "role": "button", "level": 1}})
        out["end"] = await agent("end_session")
        return out

    out = converse(tmp_path, env, script)
    description = out["tools"]["propose"].description
    assert all(name in description for name in (*V12_CONDITION_KINDS, *ROLE_FILTERS)), description
    assert out["add"]["ok"], out["add"]
    level = out["level"]
    assert level["ok"] is False and level["error_code"] == "INVALID_ACTIONSPEC" and level["stage"] == "proposal_validation"
    assert level["details"]["violated_rules"] == ["ROLE_FILTER"], level
    verify(Path(out["end"]["run_dir"]))
