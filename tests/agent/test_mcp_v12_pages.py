"""(v1.2) Pages through ``cometlocal mcp``: an agent follows the demo's sign-in popup with ``opens: page``,
switches back and closes a tab; ``observe`` looks at the active page; the saved plan keeps the page keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.agent.test_mcp_server import Agent, converse, env, verify  # noqa: F401  (env: the server's environment)

pytestmark = pytest.mark.browser

HELP_LINK = {"type": "role", "role": "link", "name": "Open help in a new tab"}


def test_an_agent_follows_a_popup_switches_and_closes_pages(portal, env, tmp_path):
    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {}
        await agent("start_session", base_url=portal.url, name="agent pages")
        steps = [
            {"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/tabs"}},
            {"id": "popup", "kind": "click", "opens": "page",
             "target": {"type": "role", "role": "button", "name": "Sign in with popup"}},
            {"id": "user", "kind": "fill", "value": "ada", "target": {"type": "label", "text": "User", "exact": True}},
            {"id": "submit", "kind": "click", "target": {"type": "role", "role": "button", "name": "Sign in", "exact": True},
             "postconditions": [{"kind": "page_count_equals", "args": {"count": 1}}]},
            {"id": "tab", "kind": "click", "opens": "page", "target": HELP_LINK},
        ]
        out["answers"] = [await agent("propose", step=step) for step in steps]
        out["on_tab"] = await agent("observe")
        out["first"] = await agent("propose", step={"id": "first", "kind": "switch_page", "page": {"index": 0}})
        out["none"] = await agent("propose", step={"id": "none", "kind": "switch_page", "timeout_ms": 300,
                                                   "page": {"title_contains": "Invoices"}})
        out["bad"] = await agent("propose", step={"id": "bad", "kind": "go_back", "target": HELP_LINK})
        out["saved"] = await agent("save_plan", path="pages.actions.yaml", name="agent pages")
        out["end"] = await agent("end_session")
        return out

    out = converse(tmp_path, env, script)
    failed = [a for a in out["answers"] if not a["ok"]]
    assert not failed, [(a.get("action_id"), a.get("error_code"), a.get("message")) for a in failed]
    assert out["on_tab"]["url"].endswith("/tabs/help"), out["on_tab"]  # observe follows the active page
    assert out["first"]["ok"] and out["first"]["observation"]["url"].endswith("/tabs")
    assert (out["none"]["error_code"], out["none"]["details"]["which"]) == ("TARGET_NOT_FOUND", "page")
    assert out["bad"]["error_code"] == "INVALID_ACTIONSPEC" and "INPUTS" in out["bad"]["details"]["violated_rules"]
    plan = yaml.safe_load((tmp_path / "pages.actions.yaml").read_text())
    assert [(s["kind"], s.get("opens"), s.get("page")) for s in plan["steps"]][4:] == [
        ("click", "page", None), ("switch_page", None, {"index": 0})]
    verify(Path(out["end"]["run_dir"]))
