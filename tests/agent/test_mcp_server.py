"""Issue 14's agent planner: ``cometlocal mcp`` driven through the MCP SDK's own client over stdio,
against the demo portal served by this test process on 127.0.0.1."""

from __future__ import annotations

import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.demo.portal import DEMO_PASSWORD

mcp = pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install -e '.[test]' installs it")
import anyio  # noqa: E402  (mcp's own dependency)
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

LIMIT_S = 180  # the whole conversation; a hang fails instead of hanging the suite
BASE = {"timeout_ms": 5000}
USER_NAME = {"type": "label", "text": "User name", "exact": True}
HEADING = {"target": {"type": "role", "role": "heading", "name": "Sign in", "exact": True}}
SERVER = [sys.executable, "-m", "pytest_cometlocal.cli", "mcp"]


class Agent:
    def __init__(self, session: ClientSession):
        self.session = session
        self.said: list[str] = []  # every answer, as text, to search for leaks

    async def __call__(self, tool: str, **args: Any) -> dict[str, Any]:
        result = await self.session.call_tool(tool, args)
        text = "".join(getattr(c, "text", "") for c in result.content)
        self.said.append(text)
        assert result.structured_content == json.loads(text), "the text and the structured answer differ"
        return result.structured_content


def converse(workdir: Path, env: dict[str, str], script) -> Any:
    """Run ``script`` against a fresh server, on a thread of its own: this thread may already hold an event
    loop (Playwright's sync API leaves one in any thread that used the suite's Chromium)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, _converse, workdir, env, script).result(timeout=LIMIT_S + 30)


async def _converse(workdir: Path, env: dict[str, str], script) -> Any:
    params = StdioServerParameters(command=SERVER[0], args=[*SERVER[1:], "--workdir", str(workdir)], env=env,
                                   cwd=str(workdir))
    with anyio.fail_after(LIMIT_S), (workdir / "server.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await script(Agent(session))


@pytest.fixture
def env() -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH", "COMETLOCAL_CHROMIUM",
                                                              "PLAYWRIGHT_BROWSERS_PATH")}
    return {**keep, "PORTAL_PASSWORD": DEMO_PASSWORD, "PYTHONUNBUFFERED": "1"}


def trace_of(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]


def verify(run_dir: Path) -> None:
    proc = subprocess.run([*SERVER[:3], "verify", str(run_dir)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.browser
def test_an_agent_logs_in_is_refused_twice_and_saves_a_plan_that_passes_under_pytest(portal, outside, env, tmp_path):
    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["early"] = await agent("propose", step={"id": "x", "kind": "navigate", "target": {"type": "url", "url": "/"}})
        out["start"] = await agent("start_session", base_url=portal.url, name="agent login",
                                   secrets={"password": {"env": "PORTAL_PASSWORD"}})
        out["open"] = await agent("propose", step={"id": "open_login", "kind": "navigate",
                                                   "target": {"type": "url", "url": "/login"}, **BASE})
        out["look"] = await agent("observe")
        out["user"] = await agent("propose", step={"id": "user", "kind": "fill", "value": "alice", "target": USER_NAME})
        # A label target without exact or normalize_ws (rule U2): refused before it touches the field.
        out["invalid"] = await agent("propose", step={"id": "bad", "kind": "fill", "value": "mallory",
                                                      "target": {"type": "label", "text": "User name"}})
        out["kept"] = await agent("propose", step={"id": "user_kept", "kind": "assert", "postconditions": [
            {"kind": "element_value_equals", "args": {"target": USER_NAME, "value": "alice"}}]})
        out["password"] = await agent("propose", step={"id": "password", "kind": "fill", "value": "${secrets.password}",
                                                       "target": {"type": "label", "text": "Password", "exact": True}})
        out["sign_in"] = await agent("propose", step={
            "id": "sign_in", "kind": "click", "target": {"type": "testid", "id": "login-submit"},
            "postconditions": [{"kind": "url_matches", "args": {"pattern": "/dashboard$"}}]})
        # (Its host_in_allowlist precondition is polled until the step's timeout: a short one keeps the test short.)
        out["blocked"] = await agent("propose", step={"id": "leave", "kind": "navigate", "timeout_ms": 1000,
                                                      "target": {"type": "url", "url": outside.url + "/landing"}})
        out["outside"] = await agent("save_plan", path="../elsewhere.actions.yaml", name="x")
        # An absolute path is taken only inside the working folder (issue 24); this one is outside it.
        out["absolute"] = await agent("save_plan", path=str(tmp_path.parent / "abs.actions.yaml"), name="x")
        out["suffix"] = await agent("save_plan", path="plans/login.yaml", name="x")
        out["saved"] = await agent("save_plan", path="plans/login.actions.yaml", name="agent login")
        out["end"] = await agent("end_session")
        out["said"] = agent.said
        return out

    hits_before = len(outside.hits)
    out = converse(tmp_path, env, script)
    assert out["early"] == {"ok": False, "error_code": "NO_SESSION", "message": "no session: call start_session first"}
    assert out["start"]["ok"] and out["start"]["allowlist"] == ["127.0.0.1"]
    assert out["open"]["ok"] and out["open"]["observation"]["url"] == portal.url + "/login"
    # observe: the login form's fields and button are among the candidates, each offered once.
    look = out["look"]
    assert look["url"] == portal.url + "/login" and look["title"] and 0 < len(look["candidates"]) <= 50
    targets = [c["target"] for c in look["candidates"]]
    assert len({json.dumps(t, sort_keys=True) for t in targets}) == len(targets)
    assert {"type": "role", "role": "button", "name": "Sign in", "exact": True} in targets
    assert {"type": "label", "text": "Password", "exact": True} in targets
    assert look["inputs"] == [{"label": "User name", "type": "input"}, {"label": "Password", "type": "password"}]
    # An invalid proposal: INVALID_ACTIONSPEC with located problems (U2), and the page did not change.
    invalid = out["invalid"]
    assert invalid["ok"] is False and invalid["error_code"] == "INVALID_ACTIONSPEC", invalid
    assert invalid["stage"] == "proposal_validation" and invalid["details"]["violated_rules"] == ["U2"]
    assert invalid["observation"]["url"] == portal.url + "/login"
    assert out["kept"]["ok"], out["kept"]  # the field still holds "alice", not "mallory"
    assert out["user"]["ok"] and out["password"]["ok"], (out["user"], out["password"])
    assert out["sign_in"]["ok"] and out["sign_in"]["observation"]["url"] == portal.url + "/dashboard", out["sign_in"]
    # Off the allowlist: DOMAIN_BLOCKED, and the outside server saw nothing.
    blocked = out["blocked"]
    assert blocked["ok"] is False and blocked["error_code"] == "DOMAIN_BLOCKED" and blocked["action_id"] == "leave"
    assert len(outside.hits) == hits_before
    assert {out[k]["error_code"] for k in ("outside", "absolute", "suffix")} == {"PATH_REFUSED"}
    assert not (tmp_path.parent / "elsewhere.actions.yaml").exists() and not (tmp_path.parent / "abs.actions.yaml").exists()
    assert out["saved"]["ok"] and out["saved"]["steps"] == 5
    assert out["end"] == {"ok": True, "run_dir": out["start"]["run_dir"], "status": "failed"}  # the last step failed
    run_dir = Path(out["start"]["run_dir"])
    assert run_dir.parent == tmp_path / "cometlocal-runs"
    # The rejected proposal is in the trace, and nothing was done for it.
    trace = trace_of(run_dir)
    assert any(e["event_type"] == "proposal_rejected" and e["step_id"] == "bad" for e in trace)
    assert not any(e["event_type"] == "action_started" and e["step_id"] == "bad" for e in trace)
    assert trace[0]["metadata"]["planner"] == "mcp" and trace[-1]["event_type"] == "run_finished"
    # The secret: never in an answer, the server's log, the run folder; the saved plan refers to it.
    plan_file = tmp_path / "plans" / "login.actions.yaml"
    plan = plan_file.read_text()
    assert "value: ${secrets.password}" in plan and "secrets: {password: {env: PORTAL_PASSWORD}}" in plan
    assert "leave" not in plan and "bad" not in plan and "mallory" not in plan
    assert DEMO_PASSWORD not in "\n".join(out["said"])
    log = (tmp_path / "server.log").read_text()
    assert DEMO_PASSWORD not in log and "Traceback" not in log
    files = [p for p in run_dir.rglob("*") if p.is_file() and p.suffix not in (".png", ".jpeg")]
    assert any(p.name == "trace.jsonl" for p in files)
    for path in [*files, plan_file]:
        assert DEMO_PASSWORD.encode() not in path.read_bytes(), path
    # The run folder is as under pytest: it verifies.
    verify(run_dir)
    # The saved plan passes, unchanged, under pytest.
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "plans"], cwd=tmp_path,
                          env={**os.environ, "PORTAL_PASSWORD": DEMO_PASSWORD}, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout[-3000:]
    assert plan_file.read_text() == plan


@pytest.mark.browser
def test_refusals_are_typed_candidates_are_unique_and_eof_finishes_the_run(portal, env, tmp_path):
    """Everything refused answers {ok: false, error_code, message}; the policy holds across proposals; every
    candidate observe offers matches exactly one element; the client leaving mid-session still ends the run."""
    (tmp_path / "mine.actions.yaml").write_text("# a plan the server did not write\n")

    async def script(agent: Agent) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["no_var"] = await agent("start_session", base_url=portal.url, secrets={"pw": {"env": "NOT_SET_FOR_THE_SERVER"}})
        out["bad_url"] = await agent("start_session", base_url="not a url")
        out["off_list"] = await agent("start_session", base_url=portal.url, allowlist=["example.com"])
        out["bad_host"] = await agent("start_session", base_url=portal.url, allowlist=["127.0.0.1", "bad host!"])
        out["no_base"] = await agent("start_session")
        out["started"] = await agent("start_session", base_url=portal.url + "/")
        out["again"] = await agent("start_session", base_url=portal.url)
        out["empty"] = await agent("save_plan", path="p.actions.yaml", name="nothing yet")
        out["not_object"] = await agent("propose", step="kind: navigate")
        out["opened"] = await agent("propose", step={"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}})
        out["same_id"] = await agent("propose", step={"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/"}})
        look = await agent("observe")
        out["candidates"] = look["candidates"]
        out["checks"] = [await agent("propose", step={"id": f"unique_{i}", "kind": "assert", "postconditions": [
            {"kind": "element_count_equals", "args": {"target": c["target"], "count": 1}}]})
            for i, c in enumerate(look["candidates"])]
        out["pokes"] = [await agent("propose", step={"id": f"poke{i}", "kind": "click", **HEADING}) for i in range(3)]
        out["theirs"] = await agent("save_plan", path="mine.actions.yaml", name="x")
        out["saved"] = [await agent("save_plan", path="again.actions.yaml", name="twice") for _ in range(2)]
        return out  # no end_session: the client just leaves

    out = converse(tmp_path, env, script)
    assert out["no_var"]["error_code"] == "SECRET_ENV" and "NOT_SET_FOR_THE_SERVER" in out["no_var"]["message"]
    for key in ("bad_url", "off_list", "bad_host", "no_base", "not_object"):
        assert out[key]["ok"] is False and out[key]["error_code"] == "INVALID_ARGUMENT", out[key]
    assert "not in the allowlist" in out["off_list"]["message"] and "allowlist[1]" in out["bad_host"]["message"]
    assert out["started"]["ok"] and out["started"]["base_url"] == portal.url
    assert out["again"]["error_code"] == "SESSION_OPEN" and out["empty"]["error_code"] == "NO_STEPS"
    assert out["opened"]["ok"]
    assert out["same_id"]["error_code"] == "DUPLICATE_STEP_ID" and "'open'" in out["same_id"]["message"]
    # Each candidate, checked by the executor itself: exactly one element.
    assert len(out["candidates"]) >= 4
    assert all(c["ok"] for c in out["checks"]), [c for c in out["checks"] if not c["ok"]]
    # The policy holds across proposals: a third click from the same, unchanged page is a halt.
    pokes = out["pokes"]
    assert [p["ok"] for p in pokes] == [True, True, False]
    assert pokes[2]["error_code"] == "POLICY_HALT" and pokes[2]["details"]["policy_reason"] == "same_state_revisit"
    # save_plan never replaces a file it did not write; its own, it does.
    assert out["theirs"]["error_code"] == "PATH_EXISTS"
    assert (tmp_path / "mine.actions.yaml").read_text() == "# a plan the server did not write\n"
    assert [s["ok"] for s in out["saved"]] == [True, True]
    # The client left without end_session: the run still finished, and verifies.
    (run_dir,) = (tmp_path / "cometlocal-runs").iterdir()
    assert trace_of(run_dir)[-1]["event_type"] == "run_finished"
    verify(run_dir)


def test_without_the_sdk_the_command_says_how_to_install_it(tmp_path):
    code = ("import sys, builtins\nreal = builtins.__import__\n"
            "def fake(name, *a, **k):\n    if name.startswith('mcp'): raise ModuleNotFoundError(\"No module named 'mcp'\")\n"
            "    return real(name, *a, **k)\nbuiltins.__import__ = fake\n"
            "from pytest_cometlocal.cli import main\nsys.exit(main(['mcp']))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2 and "pip install 'pytest-cometlocal[mcp]'" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.browser
def test_sigterm_finishes_the_open_sessions_run(portal, env, tmp_path):
    """A server stopped with SIGTERM mid-session still leaves a run that ends and verifies."""
    proc = subprocess.Popen([*SERVER, "--workdir", str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=tmp_path)
    watchdog = threading.Timer(LIMIT_S, proc.kill)  # a read that never returns ends with the process
    watchdog.start()
    try:
        def send(message: dict[str, Any], answer: bool = True) -> dict[str, Any] | None:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            proc.stdin.flush()
            return json.loads(proc.stdout.readline()) if answer else None

        send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                          "clientInfo": {"name": "test", "version": "1"}}})
        send({"method": "notifications/initialized"}, answer=False)
        for i, (tool, args) in enumerate([("start_session", {"base_url": portal.url}),
                                          ("propose", {"step": {"id": "open", "kind": "navigate",
                                                                "target": {"type": "url", "url": "/login"}}})]):
            reply = send({"id": 2 + i, "method": "tools/call", "params": {"name": tool, "arguments": args}})
            assert reply["result"]["structuredContent"]["ok"] is True, reply
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 128 + signal.SIGTERM
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    (run_dir,) = (tmp_path / "cometlocal-runs").iterdir()
    assert trace_of(run_dir)[-1]["event_type"] == "run_finished"
    verify(run_dir)
