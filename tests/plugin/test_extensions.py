"""Issue 48: extensions under pytest, in one inner session against the demo portal, under ``-n 2``.

One inner session (started once per process; its result is shared by the tests here) runs a suite
whose conftest.py registers extension kinds and an observer hook, and whose plans use them:

- ``x_note`` (an action): logs its args, attaches them, writes the sha256 of the token it got next to
  the conftest (so the test knows the real secret reached it), returns the token;
- ``x_title_has`` (a condition, polled): the page's title contains ``text``;
- ``x_boom`` (an action) raises a RuntimeError naming the secret: EXTENSION_FAILED;
- ``x_refuse`` (a condition) raises ``StepFailed("POSTCONDITION_FAILED", ...)`` naming the secret;
- ``x_reach`` (an action) has the page fetch an outside host (another loopback name, counting hits),
  then navigates the page there;
- ``x_wait`` (an action, ``ms`` between 1 and 5000): a plan giving ``ms: 0`` is invalid at load;
- ``x_dup`` registered twice and ``click`` registered: both refused, a plan using ``x_dup`` is invalid;
- ``pytest_cometlocal_run_finished`` appends one JSON line per finished run to runs.jsonl.

The secret (``${secrets.token}``) goes into args of x_note, x_boom and x_refuse; afterwards no file of
the inner session's folder (run folders, junit xml, the captured terminal output) holds its bytes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.plugin.shared_session import once
from tests.support import TEXTS_CONFTEST, OutsideServer, read_outcomes, read_trace, write

pytestmark = pytest.mark.browser

SECRET = "tok-Q7x9-SECRET-b41e"  # distinctive: it must appear in no file the session writes
TIMEOUT = 300

CONFTEST = TEXTS_CONFTEST + '''
import hashlib, os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from pytest_cometlocal.extensions import ExtensionContext, KindRegistry, StepFailed

HERE = Path(__file__).parent


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    token: str


def note(ctx: ExtensionContext) -> dict:
    token = ctx.args.token
    with open(HERE / "received.txt", "a", encoding="utf-8") as fh:
        fh.write(hashlib.sha256(token.encode()).hexdigest() + "\\n")
    ctx.log("noted " + ctx.args.text + " with " + token, token=token)
    ctx.evidence.attach("note.txt", "the token is " + token)
    ctx.evidence.attach("note.json", json.dumps({"token": token}), kind="json")
    return {"echo": token, "text": ctx.args.text}


class Text(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


def title_has(ctx: ExtensionContext):
    title = ctx.page.title()
    return ctx.args.text in title, {"title": title}


class Token(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str


def boom(ctx: ExtensionContext):
    raise RuntimeError("boom with " + ctx.args.token)


def refuse(ctx: ExtensionContext):
    raise StepFailed("POSTCONDITION_FAILED", "no row for " + ctx.args.token, {"token": ctx.args.token})


def reach(ctx: ExtensionContext) -> dict:
    url = os.environ["OUTSIDE_URL"] + "/fetched"
    fetched = ctx.page.evaluate(
        "url => fetch(url).then(r => 'status ' + r.status, e => 'refused: ' + e.message)", url)
    ctx.log("fetched", result=fetched)
    if os.environ.get("REACH_NAVIGATE"):
        ctx.page.goto(os.environ["OUTSIDE_URL"] + "/navigated", timeout=ctx.remaining_ms)
    return {"fetch": fetched}


class Wait(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ms: int = Field(ge=1, le=5000)


def wait(ctx: ExtensionContext):
    ctx.page.wait_for_timeout(ctx.args.ms)


def pytest_cometlocal_register_kinds(registry: KindRegistry) -> None:
    registry.action("x_note", perform=note, args=Note, side_effect=False)
    registry.condition("x_title_has", check=title_has, args=Text)
    registry.action("x_boom", perform=boom, args=Token)
    registry.condition("x_refuse", check=refuse, args=Token, polled=False)
    registry.action("x_reach", perform=reach)
    registry.action("x_wait", perform=wait, args=Wait, side_effect=False)
    registry.action("x_dup", perform=wait, args=Wait)
    registry.action("x_dup", perform=wait, args=Wait)  # DUP_LINE
    registry.action("click", perform=wait)  # CLICK_LINE


def pytest_cometlocal_run_finished(run: dict) -> None:
    with open(HERE / "runs.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(run, sort_keys=True) + "\\n")
'''

HEAD = """\
name: {name}
secrets: {{token: {{env: EXT_TOKEN}}}}
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{{kind: host_in_allowlist}}]
  postconditions: [{{kind: host_in_allowlist}}]
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /login}}}}
"""

PLANS = {
    "note.actions.yaml": HEAD.format(name="note") + """\
  - id: note
    kind: x_note
    args: {text: hello, token: "${secrets.token}"}
    postconditions: [{kind: x_title_has, args: {text: Sign in}}]
""",
    "title.actions.yaml": HEAD.format(name="title") + """\
  - id: again
    kind: navigate
    target: {type: url, url: /login}
    preconditions: [{kind: x_title_has, args: {text: Sign in}}]
    postconditions: [{kind: x_title_has, args: {text: Sign in}}]
  - {id: click, kind: click, target: {type: role, role: button, name: Sign in, exact: true}}
""",
    # Two plans in one file: the second runs (and passes) after the first's extension raised.
    "boom.actions.yaml": HEAD.format(name="boom") + """\
  - id: boom
    kind: x_boom
    args: {token: "${secrets.token}"}
---
""" + HEAD.format(name="after boom") + """\
  - id: note
    kind: x_note
    args: {text: after, token: "${secrets.token}"}
""",
    "refuse.actions.yaml": HEAD.format(name="refuse") + """\
  - id: look
    kind: x_note
    args: {text: refuse, token: "${secrets.token}"}
    postconditions: [{kind: x_refuse, args: {token: "${secrets.token}"}}]
""",
    "reach.actions.yaml": HEAD.format(name="reach") + """\
  - id: reach
    kind: x_reach
""",
    "bad_args.actions.yaml": HEAD.format(name="bad args") + """\
  - id: wait
    kind: x_wait
    args: {ms: 0}
""",
    "dup.actions.yaml": HEAD.format(name="dup") + """\
  - id: dup
    kind: x_dup
    args: {ms: 10}
  - {id: click, kind: click, target: {type: role, role: button, name: Sign in, exact: true}}
""",
}

RAN = ["note.actions.yaml::note", "title.actions.yaml::title", "boom.actions.yaml::boom",
       "boom.actions.yaml::after boom", "refuse.actions.yaml::refuse", "reach.actions.yaml::reach"]


@dataclass
class Session:
    """What the inner session left: its folder, outcomes, failure texts, the outside host's hits."""

    path: Path
    stdout: str
    outcomes: dict[str, tuple[str, str | None]]
    texts: dict[str, str]
    hits: list[str]
    runs: dict[str, Path] = field(default_factory=dict)  # plan name -> run folder

    def events(self, plan: str) -> list[dict[str, Any]]:
        return read_trace(self.runs[plan] / "trace.jsonl")

    def finished(self, plan: str) -> dict[str, Any]:
        """The run_finished event of a plan's run."""
        return next(e for e in self.events(plan) if e["event_type"] == "run_finished")


def session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Session:
    """The inner session, run once per process in the first test's folder (a failure is kept, not rerun)."""
    return once("extensions", lambda: _run(pytester, monkeypatch))


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Session:
    pytest.importorskip("xdist")
    pytester.makeconftest(CONFTEST)
    for name, text in PLANS.items():
        write(pytester, name, text)
    outside = OutsideServer()
    try:
        monkeypatch.setenv("EXT_TOKEN", SECRET)
        monkeypatch.setenv("OUTSIDE_URL", outside.url)
        monkeypatch.setenv("REACH_NAVIGATE", "1")
        result = pytester.runpytest_subprocess("-n", "2", "-p", "no:randomly", "--junitxml=junit.xml",
                                               "-v", "-rA", timeout=TIMEOUT)
    finally:
        outside.server.shutdown()
    texts: dict[str, str] = {}
    texts_file = pytester.path / "texts.jsonl"
    for line in texts_file.read_text(encoding="utf-8").splitlines() if texts_file.exists() else []:
        report = json.loads(line)
        texts[report["nodeid"]] = texts.get(report["nodeid"], "") + report["text"]
    found = Session(pytester.path, result.stdout.str() + result.stderr.str(),
                    read_outcomes(pytester.path / "outcomes.jsonl"), texts, list(outside.hits))
    for manifest in (pytester.path / "cometlocal-runs").glob("*/run_manifest.json"):
        run_dir = manifest.parent
        started = next(e for e in read_trace(run_dir / "trace.jsonl") if e["event_type"] == "run_started")
        name = json.loads(manifest.read_text(encoding="utf-8")).get("plan_name") or started["metadata"].get("plan")
        found.runs[str(name)] = run_dir
    return found


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Session:
    return session(pytester, monkeypatch)


def test_conftest_kinds_run_under_xdist_and_the_trace_records_them(inner: Session) -> None:
    """Item 1: an action and a condition of a conftest, used by two plans, under -n 2: both pass; the
    trace records the extension call (kind and conftest path) and its log line, with the args masked."""
    assert inner.outcomes["note.actions.yaml::note"] == ("passed", None), inner.stdout[-3000:]
    assert inner.outcomes["title.actions.yaml::title"] == ("passed", None), inner.stdout[-3000:]
    assert "[gw0]" in inner.stdout and "[gw1]" in inner.stdout  # really two workers
    events = inner.events("note")
    executed = [e for e in events if e["event_type"] == "action_executed" and e["step_id"] == "note"]
    assert executed and executed[-1]["metadata"]["extension"] == {"kind": "x_note", "path": "conftest.py"}
    result = executed[-1]["metadata"]["extension_result"]
    assert result == {"echo": "***", "text": "hello"}, result
    logs = [e for e in events if e["event_type"] == "extension_log"]
    assert len(logs) == 1 and logs[0]["step_id"] == "note", logs
    assert logs[0]["metadata"] == {"kind": "x_note", "phase": "action", "message": "noted hello with ***",
                                   "fields": {"token": "***"}}
    # Its attachments are evidence: listed, of kind extension, hashed, masked.
    listed = json.loads((inner.runs["note"] / "evidence_manifest.json").read_text(encoding="utf-8"))["files"]
    attached = {Path(f["uri"]).name: f for f in listed if f["kind"] == "extension"}
    assert sorted(attached) == ["step_001_01_note.txt", "step_001_02_note.json"], attached
    for name, entry in attached.items():
        data = (inner.runs["note"] / entry["uri"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest() and entry["step_id"] == "note"
    assert json.loads((inner.runs["note"] / attached["step_001_02_note.json"]["uri"]).read_text()) == {"token": "***"}


def test_the_run_manifest_lists_the_extensions_loaded(inner: Session) -> None:
    """The manifest lists the kinds loaded (verify and diff tell extension versions apart)."""
    manifest = json.loads((inner.runs["note"] / "run_manifest.json").read_text(encoding="utf-8"))
    listed = {k["name"]: k for k in manifest["extensions"]}
    assert listed["x_note"] == {"name": "x_note", "type": "action", "path": "conftest.py"}
    assert listed["x_title_has"]["type"] == "condition"
    assert "x_dup" not in listed and "click" not in listed


def test_a_secret_in_args_reaches_the_extension_and_no_file(inner: Session) -> None:
    """Item 3: the extension got the real value (it wrote its hash), and no file of the session holds it:
    not the run folders (trace, evidence, attachments, tracebacks), the junit xml or the terminal output."""
    received = (inner.path / "received.txt").read_text(encoding="utf-8").split()
    digest = hashlib.sha256(SECRET.encode()).hexdigest()
    assert received and set(received) == {digest}, received  # note, after boom, refuse: the real token each time
    assert len(received) == 3
    files = [p for p in inner.path.rglob("*") if p.is_file()]
    runs = [p for p in files if "cometlocal-runs" in p.parts]
    assert len(runs) > 20 and (inner.path / "junit.xml").is_file()
    attached = [p for p in runs if p.parent.name == "extensions"]
    assert any(p.name.endswith("note.txt") and b"the token is ***" in p.read_bytes() for p in attached), attached
    leaks = [str(p.relative_to(inner.path)) for p in files if SECRET.encode() in p.read_bytes()]
    assert leaks == []
    assert SECRET not in inner.stdout
    # The failures that carried it (an exception's text, StepFailed's message and details) say *** instead.
    assert "boom with ***" in inner.texts["boom.actions.yaml::boom"]
    assert "no row for ***" in inner.texts["refuse.actions.yaml::refuse"]


def test_an_extension_page_fetching_an_outside_host_is_blocked(inner: Session) -> None:
    """Item 4: the page an extension drives meets the network guard: its fetch and its navigation to a
    host outside the allowlist send nothing (0 requests reach it), and the step fails DOMAIN_BLOCKED."""
    assert inner.hits == []  # 0 requests reached the outside host
    outcome = inner.outcomes["reach.actions.yaml::reach"]
    assert outcome == ("failed", "DOMAIN_BLOCKED"), (outcome, inner.texts.get("reach.actions.yaml::reach"))
    events = inner.events("reach")
    logged = [e["metadata"]["fields"]["result"] for e in events if e["event_type"] == "extension_log"]
    assert len(logged) == 1 and logged[0].startswith("refused"), logged  # the fetch failed in the page
    finished = inner.finished("reach")["metadata"]
    assert finished["status"] == "failed" and finished["error_code"] == "DOMAIN_BLOCKED", finished
    (executed,) = [e["metadata"] for e in events if e["event_type"] == "action_executed" and e["step_id"] == "reach"]
    assert executed["extension_result"] == {"fetch": logged[0]}
    assert [(b["host"], b["url"].rsplit("/", 1)[-1]) for b in executed["blocked_requests"]
            if not b["url"].endswith("/favicon.ico")] == [
        ("localhost", "fetched"), ("localhost", "navigated")], executed["blocked_requests"]
    (raised,) = [e["error"] for e in events if e["event_type"] == "error_raised"]
    assert raised["action_id"] == "reach" and raised["details"]["host"] == "localhost", raised["details"]

def test_an_exception_in_an_extension_is_extension_failed_and_the_next_plan_runs(inner: Session) -> None:
    """Item 5: a raise inside perform is EXTENSION_FAILED at its step, with the exception named and the
    masked traceback kept as evidence; the next plan of the file runs and passes. A condition raising
    StepFailed("POSTCONDITION_FAILED") fails with that code."""
    assert inner.outcomes["boom.actions.yaml::boom"] == ("failed", "EXTENSION_FAILED")
    assert inner.outcomes["boom.actions.yaml::after boom"] == ("passed", None)
    (raised,) = [e["error"] for e in inner.events("boom") if e["event_type"] == "error_raised"]
    assert (raised["error_code"], raised["stage"], raised["action_id"]) == ("EXTENSION_FAILED", "execution", "boom")
    assert raised["message"] == "x_boom raised RuntimeError: boom with ***", raised["message"]
    details = raised["details"]
    assert details["exception"] == "RuntimeError: boom with ***", details  # its type and first line, masked
    assert details["extension"] == {"kind": "x_boom", "path": "conftest.py"}, details
    traceback = inner.runs["boom"] / details["traceback_uri"]
    assert traceback.is_file() and traceback.name == "step_001_extension_traceback.txt", details
    text = traceback.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and "RuntimeError: boom with ***" in text, text
    listed = json.loads((inner.runs["boom"] / "evidence_manifest.json").read_text(encoding="utf-8"))["files"]
    (entry,) = [f for f in listed if f["uri"] == details["traceback_uri"]]  # listed and hashed, kind extension
    assert entry["kind"] == "extension" and entry["step_id"] == "boom"
    assert entry["sha256"] == hashlib.sha256(traceback.read_bytes()).hexdigest()
    # StepFailed from a condition: its code, at the postcondition.
    assert inner.outcomes["refuse.actions.yaml::refuse"] == ("failed", "POSTCONDITION_FAILED")
    assert inner.finished("refuse")["metadata"]["error_code"] == "POSTCONDITION_FAILED"


def test_observer_writes_one_json_line_per_finished_run_under_xdist(inner: Session) -> None:
    """Item 6: pytest_cometlocal_run_finished, in a -n 2 session of eight runs: one valid JSON line each,
    with its status and code (an invalid plan's run folder is a run too: INVALID_ACTIONSPEC, no steps)."""
    lines = (inner.path / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    runs = [json.loads(line) for line in lines]
    assert sorted(r["plan"]["nodeid"] for r in runs) == sorted(
        RAN + ["bad_args.actions.yaml::bad args", "dup.actions.yaml::dup"]), runs
    by_plan = {r["plan"]["name"]: r for r in runs}
    assert {p: (r["status"], r["error_code"]) for p, r in by_plan.items()} == {
        "note": ("passed", None), "title": ("passed", None), "after boom": ("passed", None),
        "boom": ("failed", "EXTENSION_FAILED"), "refuse": ("failed", "POSTCONDITION_FAILED"),
        "reach": ("failed", "DOMAIN_BLOCKED"), "bad args": ("failed", "INVALID_ACTIONSPEC"),
        "dup": ("failed", "INVALID_ACTIONSPEC")}
    assert by_plan["bad args"]["steps"] == [] and by_plan["note"]["steps"], by_plan
    assert all(step["passed"] and step["run_id"] == by_plan["note"]["run_id"] for step in by_plan["note"]["steps"])
    assert all(Path(r["run_dir"]).is_dir() for r in runs)


def test_bad_args_are_located_under_pytest(inner: Session) -> None:
    """Item 2 (pytest): args the kind's model refuses make the item INVALID_ACTIONSPEC, the problem
    located at file:line:col and steps[1].args.ms, rule EXTENSION."""
    assert inner.outcomes["bad_args.actions.yaml::bad args"] == ("failed", "INVALID_ACTIONSPEC")
    text = inner.texts["bad_args.actions.yaml::bad args"]
    line = PLANS["bad_args.actions.yaml"].splitlines().index("    args: {ms: 0}") + 1
    col = PLANS["bad_args.actions.yaml"].splitlines()[line - 1].index("0") + 1
    assert f"bad_args.actions.yaml:{line}:{col}" in text, text
    assert "steps[1].args.ms" in text and "EXTENSION" in text, text


def test_duplicate_and_shadowing_kinds_are_refused_without_a_collection_crash(inner: Session) -> None:
    """Item 7 (pytest): a plan using a kind registered twice is INVALID_ACTIONSPEC with a located EXTENSION
    problem naming both registrations; the other plans of the folder run (click, shadowed, still works)."""
    assert inner.outcomes["dup.actions.yaml::dup"] == ("failed", "INVALID_ACTIONSPEC")
    text = inner.texts["dup.actions.yaml::dup"]
    conftest = (inner.path / "conftest.py").read_text(encoding="utf-8").splitlines()
    first, second = [i for i, line in enumerate(conftest, 1) if 'registry.action("x_dup"' in line]
    plan_line = PLANS["dup.actions.yaml"].splitlines().index("    kind: x_dup") + 1
    assert (f"dup.actions.yaml:{plan_line}:11 steps[1].kind: extension kind 'x_dup' cannot be used: "
            f"conftest.py:{second}: kind 'x_dup' is registered twice (also at conftest.py:{first}): neither is used"
            "  [EXTENSION]") in text, text
    # The conftest's registration of `click` was refused: the built-in click still runs, as itself.
    (clicked,) = [e["metadata"] for e in inner.events("title")
                  if e["event_type"] == "action_executed" and e["step_id"] == "click"]
    assert "extension" not in clicked, clicked
    assert len(inner.outcomes) == len(PLANS) + 1  # every plan collected: no collection error
    assert "error" not in {outcome for outcome, _ in inner.outcomes.values()}
    assert "INTERNALERROR" not in inner.stdout
