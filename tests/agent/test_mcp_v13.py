"""Plan format v1.3 through ``cometlocal mcp`` (the MCP SDK's own client over stdio) against the demo portal's
per-record to-do store: ``propose`` names every v1.3 kind and condition, runs v1.3 steps (a storage step
whose value is a secret, a check that counts the completed records by number), refuses ``force`` on a
critical step (rule FORCE) before the page is touched, and the secret never reaches the agent or the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.contract.model.actionspec import V13_CONDITION_KINDS, V13_KINDS
from tests.agent.test_mcp_server import Agent, converse, env, verify  # noqa: F401  (env: the server's environment)

pytestmark = pytest.mark.browser

NEW_TODO = {"type": "label", "text": "What needs to be done?", "exact": True}
TOKEN = "tok-7Hq2xZ"  # the secret: a value no page, path or name of the run holds by chance


def test_propose_runs_v13_steps_and_refuses_force_on_a_critical_step(portal, env, tmp_path):
    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": {t.name: t for t in (await agent.session.list_tools()).tools}}
        await agent("start_session", base_url=portal.url, secrets={"token": {"env": "STORE_TOKEN"}})
        await agent("propose", step={"id": "open", "kind": "navigate",
                                     "target": {"type": "url", "url": "/v13/state/todos"}})
        for i, title in enumerate(("Buy milk", "Walk the dog")):
            await agent("propose", step={"id": f"type{i}", "kind": "fill", "value": title, "target": NEW_TODO})
            await agent("propose", step={"id": f"add{i}", "kind": "press", "key": "Enter", "target": NEW_TODO})
        out["done"] = await agent("propose", step={
            "id": "done", "kind": "check", "target": {"type": "label", "text": "Toggle Buy milk", "exact": True},
            "postconditions": [
                {"kind": "storage_items", "args": {"area": "local", "key_matches": "^todo-",
                                                   "where": {"pointer": "/completed", "equals": True}, "count": 1}},
                {"kind": "storage_items", "args": {"area": "local", "key_matches": "^todo-", "greater_than": 1}}]})
        out["secret"] = await agent("propose", step={
            "id": "secret", "kind": "set_storage_item", "area": "session", "key": "token",
            "value": "${secrets.token}",
            "postconditions": [{"kind": "storage_item", "args": {"area": "session", "key": "token", "length": 10}}]})
        out["forced"] = await agent("propose", step={
            "id": "forced", "kind": "click", "criticality": "critical", "force": True,
            "target": {"type": "role", "role": "button", "name": "Clear completed"},
            "postconditions": [{"kind": "url_matches", "args": {"pattern": "/v13/state/todos$"}}]})
        out["end"] = await agent("end_session")
        out["said"] = agent.said
        return out

    out = converse(tmp_path, {**env, "STORE_TOKEN": TOKEN}, script)
    description = out["tools"]["propose"].description
    assert all(name in description for name in (*V13_KINDS, *V13_CONDITION_KINDS)), description
    assert out["done"]["ok"], json.dumps(out["done"], indent=1)[:3000]
    assert out["secret"]["ok"], out["secret"]
    forced = out["forced"]
    assert forced["ok"] is False and forced["error_code"] == "INVALID_ACTIONSPEC", forced
    assert forced["stage"] == "proposal_validation" and forced["details"]["violated_rules"] == ["FORCE"], forced
    run_dir = Path(out["end"]["run_dir"])
    verify(run_dir)
    assert TOKEN not in json.dumps(out["said"])
    leaked = [p for p in run_dir.rglob("*") if p.is_file() and TOKEN.encode() in p.read_bytes()]
    assert leaked == []
    trace = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    versions = {e["step_id"]: e["action_spec"]["schema_version"] for e in trace if e.get("action_spec")}
    assert versions["done"] == versions["secret"] == "v1.3"
