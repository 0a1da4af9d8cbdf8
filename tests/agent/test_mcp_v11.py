"""Plan format v1.1 through ``cometlocal mcp``, driven by the MCP SDK's own client over stdio against the
demo portal's /spa pages: ``propose`` takes every v1.1 kind (validated by the v1.1 rules), and ``observe``
offers the page's aria snapshot, masked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_cometlocal.contract.model.actionspec import ACTION_KINDS, CLICK_KEYS
from pytest_cometlocal.demo.portal import DEMO_PASSWORD
from tests.agent.test_mcp_server import Agent, converse, env, verify  # noqa: F401  (env: the server's environment)

pytestmark = pytest.mark.browser

USER_NAME = {"type": "label", "text": "User name", "exact": True}
STATUS = {"type": "role", "role": "status"}


def test_propose_checks_v11_steps_by_the_v11_rules_and_observe_gives_a_masked_aria_snapshot(portal, env, tmp_path):
    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": {t.name: t for t in (await agent.session.list_tools()).tools}}
        await agent("start_session", base_url=portal.url, secrets={"password": {"env": "PORTAL_PASSWORD"}})
        await agent("propose", step={"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}})
        # The secret typed where the page shows it back: the user name field's value is in the aria tree.
        out["typed"] = await agent("propose", step={"id": "user", "kind": "fill", "value": "${secrets.password}",
                                                    "target": USER_NAME})
        out["aria"] = await agent("observe", aria=True)
        out["plain"] = await agent("observe")
        out["bad_aria"] = await agent("observe", aria=[1])
        out["bad_key"] = await agent("propose", step={"id": "k", "kind": "press", "key": "Hyper+x"})
        out["secret_key"] = await agent("propose", step={"id": "k", "kind": "press", "key": "${secrets.password}"})
        out["key_on_click"] = await agent("propose", step={"id": "k", "kind": "click", "key": "Enter", "target": USER_NAME})
        out["no_target"] = await agent("propose", step={"id": "k", "kind": "hover"})
        out["no_to"] = await agent("propose", step={"id": "k", "kind": "drag", "target": USER_NAME})
        out["count"] = await agent("propose", step={"id": "k", "kind": "click", "click_count": 4, "target": USER_NAME})
        await agent("propose", step={"id": "toggles", "kind": "navigate", "target": {"type": "url", "url": "/spa/toggles"}})
        out["toggles"] = await agent("observe")
        out["end"] = await agent("end_session")
        out["said"] = agent.said
        return out

    out = converse(tmp_path, env, script)
    # Every kind is named in propose's description; observe takes aria.
    description = out["tools"]["propose"].description
    assert all(kind in description for kind in (*ACTION_KINDS, *CLICK_KEYS, "key", "to", "direction")), description
    assert out["tools"]["observe"].input_schema["properties"]["aria"]["type"] == "boolean"
    # The aria snapshot: Playwright's YAML of the page, the secret masked; only when asked for.
    assert out["typed"]["ok"], out["typed"]
    snapshot = out["aria"]["aria_snapshot"]
    assert '- textbox "User name": ***' in snapshot, snapshot
    assert '- heading "Sign in"' in snapshot and "aria_snapshot_truncated" not in out["aria"]
    assert "aria_snapshot" not in out["plain"] and out["plain"]["candidates"] == out["aria"]["candidates"]
    assert out["bad_aria"]["ok"] is False and out["bad_aria"]["error_code"] == "INVALID_ARGUMENT"
    # v1.1 proposals are held to the v1.1 rules, before anything touches the page.
    for key, rule in [("bad_key", "KEY"), ("secret_key", "KEY"), ("key_on_click", "INPUTS"),
                      ("no_target", "TARGET_REQUIRED"), ("no_to", "INPUTS")]:
        answer = out[key]
        assert answer["ok"] is False and answer["error_code"] == "INVALID_ACTIONSPEC", answer
        assert answer["stage"] == "proposal_validation" and rule in answer["details"]["violated_rules"], answer
    assert out["count"]["error_code"] == "INVALID_ACTIONSPEC"
    # A checkbox is offered for check and uncheck.
    boxes = [c for c in out["toggles"]["candidates"] if c["matched"].startswith("checkbox")]
    assert boxes and all({"click", "check", "uncheck"} <= set(c["for"]) for c in boxes), out["toggles"]["candidates"]
    assert DEMO_PASSWORD not in "\n".join(out["said"])
    verify(Path(out["end"]["run_dir"]))


def test_an_agent_drives_the_spa_pages_with_v11_kinds_and_saves_them_as_a_plan(portal, env, tmp_path):
    """Needs the executor's v1.1 rows (press, check, hover, click keys, drag)."""
    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {}
        await agent("start_session", base_url=portal.url, name="agent spa")
        steps = [
            {"id": "search", "kind": "navigate", "target": {"type": "url", "url": "/spa/search"}},
            {"id": "query", "kind": "fill", "value": "dune", "target": {"type": "label", "text": "Search", "exact": True}},
            {"id": "apply", "kind": "press", "key": "Enter", "target": {"type": "label", "text": "Search", "exact": True},
             "postconditions": [{"kind": "element_text_contains", "args": {"target": STATUS, "text": "Results for"}}]},
            {"id": "toggles", "kind": "navigate", "target": {"type": "url", "url": "/spa/toggles"}},
            {"id": "terms", "kind": "check", "target": {"type": "testid", "id": "terms-label"},
             "postconditions": [{"kind": "element_checked", "args": {"target": {"type": "css", "selector": "#terms"}}}]},
            {"id": "menu", "kind": "navigate", "target": {"type": "url", "url": "/spa/menu"}},
            {"id": "products", "kind": "hover", "target": {"type": "role", "role": "button", "name": "Products", "exact": True},
             "postconditions": [{"kind": "element_visible", "args": {"target": {"type": "role", "role": "menuitem",
                                                                                 "name": "Laptops", "exact": True}}}]},
            {"id": "grid", "kind": "hover", "target": {"type": "testid", "id": "grid"}},
            {"id": "fullscreen", "kind": "click", "click_count": 2,
             "target": {"type": "role", "role": "button", "name": "Fullscreen", "exact": True},
             "postconditions": [{"kind": "element_text_contains", "args": {"target": STATUS, "text": "Tool: Fullscreen"}}]},
            {"id": "sortable", "kind": "navigate", "target": {"type": "url", "url": "/spa/sortable"}},
            {"id": "ship_first", "kind": "drag", "target": {"type": "testid", "id": "task-ship"},
             "to": {"type": "testid", "id": "task-write"},
             "postconditions": [{"kind": "element_text_contains", "args": {"target": STATUS, "text": "Order: Ship, Write"}}]},
        ]
        out["answers"] = [await agent("propose", step=step) for step in steps]
        out["saved"] = await agent("save_plan", path="spa.actions.yaml", name="agent spa")
        out["end"] = await agent("end_session")
        return out

    out = converse(tmp_path, env, script)
    failed = [a for a in out["answers"] if not a["ok"]]
    assert not failed, [(a.get("action_id"), a.get("error_code"), a.get("message")) for a in failed]
    assert out["saved"] == {"ok": True, "path": str(tmp_path / "spa.actions.yaml"), "steps": 11}
    plan = yaml.safe_load((tmp_path / "spa.actions.yaml").read_text())
    kinds = [s["kind"] for s in plan["steps"]]
    assert {"press", "check", "hover", "drag"} <= set(kinds) and plan["steps"][8]["click_count"] == 2
    assert out["end"]["status"] == "passed"
    verify(Path(out["end"]["run_dir"]))
