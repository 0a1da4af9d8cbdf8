"""Issue 14's agent planner: ``cometlocal mcp`` driven through the MCP SDK's own client over stdio,
against the demo portal served by this test on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.demo.portal import DEMO_PASSWORD, DemoPortal

mcp = pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install -e '.[test]' installs it")
import anyio  # noqa: E402  (mcp's own dependency)
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

LIMIT_S = 180  # the whole conversation; a hang fails instead of hanging the suite
BASE = {"timeout_ms": 5000}
HEADING = {"target": {"type": "role", "role": "heading", "name": "Sign in", "exact": True}}


class Agent:
    def __init__(self, session: ClientSession):
        self.session = session
        self.said: list[str] = []  # every answer, as text, to search for leaks

    async def __call__(self, tool: str, **args: Any) -> dict[str, Any]:
        result = await self.session.call_tool(tool, args)
        text = "".join(getattr(c, "text", "") for c in result.content)
        self.said.append(text)
        answer = result.structured_content if result.structured_content is not None else json.loads(text)
        return answer.get("result", answer) if set(answer) == {"result"} else answer


async def converse(workdir: Path, env: dict[str, str], script) -> Any:
    params = StdioServerParameters(command=sys.executable, args=["-m", "pytest_cometlocal.cli", "mcp", "--workdir", str(workdir)],
                                   env=env, cwd=str(workdir))
    with anyio.fail_after(LIMIT_S):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await script(Agent(session))


@pytest.fixture(scope="module")
def demo():
    with DemoPortal() as portal:
        yield portal


@pytest.fixture
def env() -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "COMETLOCAL_CHROMIUM", "PLAYWRIGHT_BROWSERS_PATH")}
    return {**keep, "PORTAL_PASSWORD": DEMO_PASSWORD, "PYTHONUNBUFFERED": "1"}


@pytest.mark.browser
def test_an_agent_logs_in_is_refused_twice_and_saves_a_plan_that_passes_under_pytest(demo, env, tmp_path):
    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["early"] = await agent("propose", step={"id": "x", "kind": "navigate", "target": {"type": "url", "url": "/"}})
        out["start"] = await agent("start_session", base_url=demo.url, name="agent login",
                                   secrets={"password": {"env": "PORTAL_PASSWORD"}})
        out["open"] = await agent("propose", step={"id": "open_login", "kind": "navigate",
                                                   "target": {"type": "url", "url": "/login"}, **BASE})
        out["look"] = await agent("observe")
        out["invalid"] = await agent("propose", step={"id": "bad", "kind": "click",
                                                      "target": {"type": "text", "text": "Sign in"}})
        out["user"] = await agent("propose", step={"id": "user", "kind": "fill", "value": "alice",
                                                   "target": {"type": "label", "text": "User name", "exact": True}})
        out["password"] = await agent("propose", step={"id": "password", "kind": "fill", "value": "${secrets.password}",
                                                       "target": {"type": "label", "text": "Password", "exact": True}})
        out["sign_in"] = await agent("propose", step={
            "id": "sign_in", "kind": "click", "target": {"type": "testid", "id": "login-submit"},
            "postconditions": [{"kind": "url_matches", "args": {"pattern": "/dashboard$"}}]})
        out["blocked"] = await agent("propose", step={"id": "leave", "kind": "navigate",
                                                      "target": {"type": "url", "url": "http://localhost:9/x"}})
        out["outside"] = await agent("save_plan", path="../elsewhere.actions.yaml", name="x")
        out["suffix"] = await agent("save_plan", path="plans/login.yaml", name="x")
        out["saved"] = await agent("save_plan", path="plans/login.actions.yaml", name="agent login")
        out["end"] = await agent("end_session")
        out["said"] = agent.said
        return out

    out = anyio.run(converse, tmp_path, env, script)
    assert out["early"]["ok"] is False and out["early"]["error_code"] == "NO_SESSION"
    assert out["start"]["ok"] and out["start"]["allowlist"] == ["127.0.0.1"]
    assert out["open"]["ok"] and out["open"]["observation"]["url"] == demo.url + "/login"
    # observe: each candidate matches one element; the login form's fields and button are among them.
    look = out["look"]
    assert look["title"] and 0 < len(look["candidates"]) <= 50
    targets = [c["target"] for c in look["candidates"]]
    assert {"type": "role", "role": "button", "name": "Sign in", "exact": True} in targets
    assert {"type": "label", "text": "Password", "exact": True} in targets
    assert look["inputs"] == [{"label": "User name", "type": "input"}, {"label": "Password", "type": "password"}]
    # An invalid proposal: INVALID_ACTIONSPEC (U2), and the page did not change.
    invalid = out["invalid"]
    assert invalid["ok"] is False and invalid["error_code"] == "INVALID_ACTIONSPEC"
    assert invalid["details"]["violated_rules"] == ["U2"] and invalid["observation"]["url"] == demo.url + "/login"
    assert out["user"]["ok"] and out["password"]["ok"], (out["user"], out["password"])
    assert out["sign_in"]["ok"] and out["sign_in"]["observation"]["url"] == demo.url + "/dashboard", out["sign_in"]
    assert out["blocked"]["ok"] is False and out["blocked"]["error_code"] == "DOMAIN_BLOCKED"
    assert out["outside"]["error_code"] == "PATH_REFUSED" and out["suffix"]["error_code"] == "PATH_REFUSED"
    assert out["saved"]["ok"] and out["saved"]["steps"] == 4
    assert out["end"]["ok"]
    # The secret: never in an answer, never in the run folder; the saved plan refers to it.
    said = "\n".join(out["said"])
    assert DEMO_PASSWORD not in said.replace(demo.url, "")
    plan = (tmp_path / "plans" / "login.actions.yaml").read_text()
    assert "value: ${secrets.password}" in plan and "secrets: {password: {env: PORTAL_PASSWORD}}" in plan
    assert "leave" not in plan and "bad" not in plan
    run_dir = Path(out["start"]["run_dir"])
    for path in run_dir.rglob("*"):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".html", ".txt"):
            assert DEMO_PASSWORD.encode() not in path.read_bytes().replace(demo.url.encode(), b""), path
    # The run folder is as under pytest: it verifies.
    verify = subprocess.run([sys.executable, "-m", "pytest_cometlocal.cli", "verify", str(run_dir)],
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # The saved plan passes, unchanged, under pytest.
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "plans"], cwd=tmp_path,
                          env={**os.environ, "PORTAL_PASSWORD": DEMO_PASSWORD}, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout[-3000:]


@pytest.mark.browser
def test_a_secret_with_no_variable_and_a_second_start_are_typed_refusals(demo, env, tmp_path):
    async def script(agent: Agent) -> list[dict[str, Any]]:
        return [await agent("start_session", base_url=demo.url, secrets={"pw": {"env": "NOT_SET_FOR_THE_SERVER"}}),
                await agent("start_session", base_url="not a url"),
                await agent("start_session", base_url=demo.url),
                await agent("start_session", base_url=demo.url),
                await agent("save_plan", path="p.actions.yaml", name="nothing yet"),
                await agent("propose", step={"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}}),
                await agent("propose", step={"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/"}}),
                *[await agent("propose", step={"id": f"poke{i}", "kind": "click", **HEADING}) for i in range(3)],
                await agent("end_session")]

    no_var, bad_url, started, again, empty, opened, same_id, *pokes, ended = anyio.run(converse, tmp_path, env, script)
    assert same_id["error_code"] == "DUPLICATE_STEP_ID" and "'open'" in same_id["message"]
    assert no_var["error_code"] == "SECRET_ENV" and "NOT_SET_FOR_THE_SERVER" in no_var["message"]
    assert bad_url["error_code"] == "INVALID_ARGUMENT"
    assert started["ok"] and again["error_code"] == "SESSION_OPEN"
    assert empty["error_code"] == "NO_STEPS" and ended["ok"]
    # The policy holds across proposals: a third click from the same, unchanged page is a halt.
    assert opened["ok"] and [p["ok"] for p in pokes] == [True, True, False]
    assert pokes[2]["error_code"] == "POLICY_HALT" and pokes[2]["details"]["policy_reason"] == "same_state_revisit", pokes[2]


def test_without_the_sdk_the_command_says_how_to_install_it(tmp_path):
    code = ("import sys, builtins\nreal = builtins.__import__\n"
            "def fake(name, *a, **k):\n    if name.startswith('mcp'): raise ModuleNotFoundError(\"No module named 'mcp'\")\n"
            "    return real(name, *a, **k)\nbuiltins.__import__ = fake\n"
            "from pytest_cometlocal.cli import main\nsys.exit(main(['mcp']))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2 and "pip install 'pytest-cometlocal[mcp]'" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.browser
def test_sigterm_finishes_the_open_sessions_run(demo, env, tmp_path):
    """A server stopped with SIGTERM mid-session still leaves a run that ends and verifies."""
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "pytest_cometlocal.cli", "mcp", "--workdir", str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path)
    try:
        def send(message: dict[str, Any], answer: bool = True) -> dict[str, Any] | None:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            proc.stdin.flush()
            return json.loads(proc.stdout.readline()) if answer else None

        send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                          "clientInfo": {"name": "test", "version": "1"}}})
        send({"method": "notifications/initialized"}, answer=False)
        for i, (tool, args) in enumerate([("start_session", {"base_url": demo.url}),
                                          ("propose", {"step": {"id": "open", "kind": "navigate",
                                                                "target": {"type": "url", "url": "/login"}}})]):
            reply = send({"id": 2 + i, "method": "tools/call", "params": {"name": tool, "arguments": args}})
            assert '\\"ok\\": true' in json.dumps(reply), reply
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
    (run,) = (tmp_path / "cometlocal-runs").iterdir()
    last = json.loads((run / "trace.jsonl").read_text().splitlines()[-1])
    assert last["event_type"] == "run_finished"
    verify = subprocess.run([sys.executable, "-m", "pytest_cometlocal.cli", "verify", str(run)],
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, verify.stdout
