"""Pages that misbehave can never hang the suite (issue 10).

Every misbehaviour runs in ONE inner pytest session (a module fixture: a browser
and a session cost seconds to start), in a subprocess with a hard timeout: a
session that does not finish in time is a hang, and fails every test saying so.
Its conftest.py serves ``misbehaving.py`` on 127.0.0.1. Each misbehaving plan
must end with the expected typed outcome (its error code in the JUnit report
and in the trace, a trace whose every line parses with seq 1..n and ends with
``run_finished``, a run folder that verifies), and the healthy plan collected
after it, on the same browser, must pass. The output has no Python traceback
and no internal error. Each misbehaviour's test reads its pair; the last, all.

No timing is asserted: the hard timeout only tells a hang from an end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.page.observation import UNPAINTED
from tests.reliability import procs
from tests.support import plan

pytestmark = pytest.mark.browser
# What tests/conftest.py's lean_inner_runs (a function fixture) sets: the module's session sets it itself.
LEAN_ADDOPTS = "-p no:hypothesispytest -p no:cacheprovider --assert=plain -p no:playwright"

REPO = Path(__file__).resolve().parents[2]
ERROR_CODES_DOC = REPO / "docs" / "error-codes.md"

# The module's session, none of whose plans hangs, ends well within this; one
# that is still running then has hung.
HARD_TIMEOUT_S = 300

CONFTEST = """
import pytest
from tests.reliability.misbehaving import MisbehavingServer

@pytest.fixture(scope="session")
def misbehaving_server():
    with MisbehavingServer() as server:
        yield server

@pytest.fixture
def cometlocal_base_url(misbehaving_server):
    return misbehaving_server.url
"""

NO_RETRY = "policy: {retry_on: []}\n"


def healthy(name: str) -> str:
    return plan(name=name, steps="""\
  - {id: open, kind: navigate, target: {type: url, url: /healthy}, postconditions: [{kind: title_contains, args: {text: Healthy}}]}
  - id: go
    kind: click
    target: {type: role, role: button, name: Go, exact: true}
    postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: "#out"}, text: done}}]
""")


@dataclass(frozen=True)
class Case:
    """Plan A of one misbehaviour and what it must end with.

    ``codes``: the acceptable error codes; ``None`` among them means the plan
    may pass. ``steps``: the step ids the error may be raised at. With
    ``any_typed``, ``codes`` is not pinned: a pass, or any documented code but
    those that say the page crashed or froze (it did neither).
    """

    steps_text: str
    codes: tuple[str | None, ...] = ()
    steps: tuple[str, ...] = ()
    extra: str = NO_RETRY
    any_typed: bool = False
    unpainted: bool = False  # the page never gets a body: no observation waits for its picture

    def allowed(self) -> set[str | None]:
        if self.any_typed:
            return (documented_codes() - {"BROWSER_CRASHED", "PAGE_UNRESPONSIVE"}) | {None}
        return set(self.codes)

    def plan(self, name: str) -> str:
        return plan(self.steps_text, name, extra=self.extra)


# Every code the contract defines and docs/error-codes.md documents: the
# outcome of a misbehaviour whose exact code is not pinned must be one of them.
def documented_codes() -> set[str]:
    doc = ERROR_CODES_DOC.read_text(encoding="utf-8")
    return {code.value for code in ErrorCode if f"`{code.value}`" in doc}


CASES: dict[str, Case] = {
    # 1. The click handler never returns: the click itself never gets its answer.
    "spin_click": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /spin-click}}
  - {id: press, kind: click, target: {type: role, role: button, name: Spin, exact: true}}
""", ("PAGE_UNRESPONSIVE",), ("press",)),
    # 2. The page's own timer freezes it, no action involved. The button the
    # click step waits for appears 1 s after load and the freeze starts in the
    # next task, so it begins while the click step looks for its target (or,
    # on a very slow machine, while the navigate step still observes the page).
    "spin_timer": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /spin-timer}}
  - {id: late, kind: click, target: {type: role, role: button, name: Late, exact: true}}
""", ("PAGE_UNRESPONSIVE",), ("late", "open")),
    # 3. Busy, not frozen: the page changes on every animation frame and still
    # answers, so it is never PAGE_UNRESPONSIVE. The plan passes: one click
    # cannot reach the same-state limit (same_state_revisits: 2), and with the
    # frame counter in the visible text no two observations share a state key.
    "raf": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /raf}, postconditions: [{kind: title_contains, args: {text: Animated}}]}
  - id: press
    kind: click
    target: {type: role, role: button, name: Press, exact: true}
    postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: "#out"}, text: pressed}}]
""", (None,)),
    # 4. The click allocates until the renderer dies of V8 heap exhaustion. Its
    # timeout is well above the time the renderer takes to die (a few seconds:
    # about 4 GB of heap to fill), so the crash, not a bound, ends the step.
    "oom": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /oom}}
  - {id: allocate, kind: click, timeout_ms: 30000, target: {type: role, role: button, name: Allocate, exact: true}}
""", ("BROWSER_CRASHED",), ("allocate",)),
    # 5. A page that reloads itself forever, then a step whose postcondition holds
    # on every copy of the page: typed, whatever it is, or a pass.
    "refresh": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /refresh}}
  - {id: check, kind: assert, postconditions: [{kind: title_contains, args: {text: Refreshing}}]}
""", any_typed=True),
    # 5b. The same, with a postcondition that can never hold.
    "refresh_unmet": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /refresh}}
  - {id: check, kind: assert, postconditions: [{kind: title_contains, args: {text: Nowhere}}]}
""", ("POSTCONDITION_FAILED", "NAVIGATION_TIMEOUT"), ("open", "check")),
    # 6. The body arrives one byte a second: load never comes in time, and the
    # document never gets as far as its <body>, so it is never painted.
    "drip": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /drip}}
""", ("NAVIGATION_TIMEOUT",), ("open",), unpainted=True),
    # 7. The server reads the request and never answers.
    "silent": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /silent}}
""", ("NAVIGATION_TIMEOUT",), ("open",)),
    # 8. The connection is reset (RST) after the request is read.
    "reset": Case("""\
  - {id: open, kind: navigate, target: {type: url, url: /reset}}
""", ("NAVIGATION_FAILED",), ("open",)),
}


# ---------------------------------------------------------------------------
# Running an inner session


@dataclass
class Item:
    name: str
    outcome: str  # passed | failed | error | skipped
    properties: dict[str, str] = field(default_factory=dict)
    text: str = ""


@dataclass
class Inner:
    path: Path
    output: str
    returncode: int
    items: dict[str, Item]
    runs: dict[str, Path]  # plan name -> its run folder


def _kill_tree(proc: subprocess.Popen, tag: str) -> None:
    """The inner pytest, everything below it, and any Chromium it started (found by its tag)."""
    below = procs.descendants(proc.pid)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # its own session: started with start_new_session
    except ProcessLookupError:
        pass
    procs.kill(below)
    procs.kill(procs.tagged_chromium(tag))


def _where_it_stood(runs: Path) -> str:
    """The last event of every run folder, to say where a hung session stood."""
    lines = []
    for trace in sorted(runs.glob("*/trace.jsonl")):
        text = trace.read_text(encoding="utf-8", errors="replace").splitlines()
        try:
            last = json.loads(text[-1])
            where = f"seq {last['seq']} {last['event_type']} (step {last.get('step_id')}) at {last['ts_utc']}"
        except (IndexError, ValueError, KeyError):
            where = (text[-1][:200] if text else "(empty trace)")
        lines.append(f"  {trace.parent.name}: {where}")
    return "\n".join(lines) or "  (no run folder)"


def _read_junit(path: Path) -> dict[str, Item]:
    items: dict[str, Item] = {}
    for case in ET.parse(path).iter("testcase"):
        outcome = "passed"
        text = ""
        for kind in ("failure", "error", "skipped"):
            found = case.find(kind)
            if found is not None:
                outcome = {"failure": "failed"}.get(kind, kind)
                text = (found.get("message") or "") + "\n" + (found.text or "")
                break
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        items[case.get("name")] = Item(case.get("name"), outcome, props, text)
    return items


def run_inner(path: Path, plans: list[str], hard_timeout: float = HARD_TIMEOUT_S) -> Inner:
    """Run ``plans`` (in this order, one session) under ``path``; fail on a hang."""
    (path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (path / "plans.actions.yaml").write_text("---\n".join(plans), encoding="utf-8")
    runs = path / "runs"
    tag = uuid.uuid4().hex
    env = dict(os.environ, PYTHONUNBUFFERED="1", COMETLOCAL_TEST_TAG=tag,
               PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    cmd = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-v", "-rA",
           "--junitxml=junit.xml", f"--cometlocal-output={runs}", "plans.actions.yaml"]
    proc = subprocess.Popen(cmd, cwd=path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=hard_timeout)
        hung = False
    except subprocess.TimeoutExpired:
        _kill_tree(proc, tag)
        out, _ = proc.communicate(timeout=30)
        hung = True
    finally:
        procs.kill(procs.tagged_chromium(tag))  # none should be left; never leave one behind
    if hung:
        (path / "inner-output.txt").write_bytes(out)
        pytest.fail(f"HANG: the inner pytest session did not finish within {hard_timeout} s (killed).\n"
                    f"Where each run stood (last trace event):\n{_where_it_stood(runs)}\n"
                    f"Last output:\n{out.decode(errors='replace')[-3000:]}", pytrace=False)
    output = out.decode(errors="replace")
    (path / "inner-output.txt").write_text(output, encoding="utf-8")  # for whoever reads a failure
    assert (path / "junit.xml").is_file(), f"no JUnit report (exit {proc.returncode}):\n{output[-3000:]}"
    folders = {}
    for manifest in runs.glob("*/run_manifest.json"):
        folders[json.loads(manifest.read_text(encoding="utf-8"))["plan"]["name"]] = manifest.parent
    return Inner(path, output, proc.returncode, _read_junit(path / "junit.xml"), folders)


# ---------------------------------------------------------------------------
# What every outcome must look like


def assert_no_raw_failure(inner: Inner) -> None:
    for needle in ("Traceback", "INTERNALERROR", "internal_error"):
        assert needle not in inner.output, f"{needle!r} in the inner session's output:\n{inner.output[-4000:]}"


def check_trace(run_dir: Path, code: str | None) -> list[dict]:
    """Every line parses, seq is 1..n, run_finished closes it (with ``code``), the folder verifies."""
    lines = (run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    finished = events[-1]
    assert finished["event_type"] == "run_finished", finished
    assert finished["metadata"]["status"] != "internal_error", finished
    assert finished["metadata"]["error_code"] == code, finished
    raised = [e for e in events if e["event_type"] == "error_raised"]
    if code is None:
        assert not raised and finished["metadata"]["status"] == "passed", finished
    else:
        assert raised and raised[-1]["error"]["error_code"] == code, raised[-1:] or events[-3:]
    verification = verify_run(run_dir)
    assert verification.ok, verification.problems
    return events


def assert_plan_outcome(inner: Inner, name: str, case: Case) -> str | None:
    """Plan ``name`` ended as ``case`` says: its code (or a pass), in the report and in its trace."""
    item = inner.items.get(name)
    assert item is not None, f"plan {name!r} was not reported: {sorted(inner.items)}\n{inner.output[-3000:]}"
    assert item.outcome in ("passed", "failed"), (item.outcome, item.text[-2000:])
    code = item.properties.get("cometlocal.error_code")
    if item.outcome == "passed":
        assert code is None, item.properties
    else:
        assert code is not None, f"{name}: a raw failure, not a typed one (no error code):\n{item.text[-3000:]}"
    allowed = case.allowed()
    assert code in allowed, (f"{name}: expected {sorted(map(str, allowed))}, got {code or 'a pass'}:\n"
                             f"{item.text[-3000:]}")
    if code is not None:
        assert f"`{code}`" in ERROR_CODES_DOC.read_text(encoding="utf-8"), f"{code} is not documented in docs/error-codes.md"
        assert item.text.lstrip().startswith(code) or f"{code} at step" in item.text, item.text[-2000:]
        if case.steps:
            assert item.properties.get("cometlocal.step_id") in case.steps, item.properties
        run_dir = Path(item.properties["cometlocal.run_dir"])
    else:
        run_dir = inner.runs[name]
    events = check_trace(run_dir, code)
    if code is not None:
        assert_evidence_or_gaps(run_dir, [e for e in events if e["event_type"] == "error_raised"][-1]["error"])
    if case.unpainted:
        assert_no_wait_for_a_picture(events)
    return code


# What the errors contract asks of every error's evidence, and of failures at these stages or critical steps.
WITH_PAGE = ("execution", "postcondition")


def assert_evidence_or_gaps(run_dir: Path, error: dict) -> None:
    """The error has a dom_snapshot_partial (a file holding the URL), and every piece the
    contract asks for is either among its evidence or named in ``details.evidence_gaps``."""
    refs = error["evidence_refs"]
    gaps = error["details"].get("evidence_gaps", [])
    assert all(set(gap) == {"kind", "reason"} and gap["reason"] for gap in gaps), gaps
    gap_kinds = [gap["kind"] for gap in gaps]
    partial = [ref for ref in refs if ref["kind"] == "dom_snapshot_partial"]
    assert partial, f"{error['error_code']}: no dom_snapshot_partial among {refs}"
    for ref in partial:
        snapshot = json.loads((run_dir / ref["uri"]).read_text(encoding="utf-8"))
        assert snapshot["url"] and {"title", "visible_anchors", "visible_inputs"} <= set(snapshot), snapshot
        if snapshot.get("source") == "executor":  # taken without the renderer: says why, and what was last seen
            assert snapshot["reason"] and "last_observation" in snapshot, snapshot
    assert (error["state_before"] is not None) != ("state_signature" in gap_kinds), (error["state_before"], gaps)
    pictures = {ref["metadata"].get("which") for ref in refs if ref["kind"] == "screenshot"}
    assert pictures <= {"before", "after"}, refs
    # Every failure shows the page before and at the failure, or says why it cannot.
    assert len(pictures) + gap_kinds.count("screenshot") == 2, (refs, gaps)
    has_html = any(ref["kind"] == "html_full" for ref in refs)
    assert not (has_html and "html_full" in gap_kinds), gaps
    if error["stage"] in WITH_PAGE or error["criticality"] == "critical":
        assert has_html or "html_full" in gap_kinds, (refs, gaps)
    if error["error_code"] == "NAVIGATION_TIMEOUT":
        assert isinstance(error["details"].get("timeout_ms"), int), error["details"]


def assert_no_wait_for_a_picture(events: list[dict]) -> None:
    """Every look at a page with no body yet says so, instead of a capture that timed out."""
    signatures = [sig for e in events for sig in (e["state_signature_before"], e["state_signature_after"])
                  if sig and sig["screenshot_hash"] is None]
    assert signatures, "the page was never observed without a picture"
    assert {sig["metadata"].get("screenshot_error") for sig in signatures} == {UNPAINTED}, signatures


def assert_healthy_passed(inner: Inner, name: str) -> None:
    item = inner.items.get(name)
    assert item is not None, f"plan {name!r} was not reported: {sorted(inner.items)}\n{inner.output[-3000:]}"
    assert item.outcome == "passed", f"{name} did not pass after a misbehaving plan:\n{item.text[-3000:]}"
    check_trace(inner.runs[name], None)


# ---------------------------------------------------------------------------
# The tests


# Every misbehaving plan, each followed by a healthy one, after a healthy first plan.
HEALTHY = ["healthy first", *(f"healthy after {name}" for name in CASES)]
PLANS = [healthy(HEALTHY[0]), *(p for name, c in CASES.items() for p in (c.plan(name), healthy(f"healthy after {name}")))]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Inner:
    """The module's one inner session: every test reads its case from it. A hang fails here, and so every
    test of the module, with where each run stood."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_ADDOPTS", LEAN_ADDOPTS)
        return run_inner(tmp_path_factory.mktemp("mixed"), PLANS)


@pytest.mark.parametrize("name", list(CASES))
def test_misbehaving_page_ends_typed_and_the_next_plan_passes(mixed: Inner, name: str) -> None:
    assert_no_raw_failure(mixed)
    names = list(mixed.items)
    assert name in names and names[names.index(name) + 1] == f"healthy after {name}", names  # same browser, next
    assert_plan_outcome(mixed, name, CASES[name])  # a pass only where allowed, else a typed failure
    assert_healthy_passed(mixed, f"healthy after {name}")


def test_mixed_suite_with_every_misbehaviour_finishes_typed(mixed: Inner) -> None:
    assert_no_raw_failure(mixed)
    assert len(mixed.items) == len(PLANS), sorted(mixed.items)
    assert mixed.returncode == pytest.ExitCode.TESTS_FAILED, mixed.output[-3000:]  # typed failures, nothing worse
    for name, case in CASES.items():
        assert_plan_outcome(mixed, name, case)
    for name in HEALTHY:
        assert_healthy_passed(mixed, name)
