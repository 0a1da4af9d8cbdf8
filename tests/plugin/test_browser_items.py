"""Plan items end to end through pytest: a real Chromium, the demo portal served by the suite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.plugin.shared_session import once
from tests.support import DEFAULTS, PORTAL_CONFTEST, sigint_as_default, write

pytestmark = pytest.mark.browser

LOGIN = """\
name: login
secrets: {pw: {env: PORTAL_PW}}
""" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: "${secrets.pw}"}
  - {id: pw, kind: fill, target: {type: label, text: Password, exact: true}, value: "${secrets.pw}"}
  - id: submit
    kind: click
    target: {type: testid, id: login-submit}
    postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
"""


def test_expect_and_dry_run_outcomes(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "neg.actions.yaml", "name: negative\nexpect: {error_code: TARGET_NOT_FOUND, step: nope}\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: nope, kind: click, timeout_ms: 300, target: {type: testid, id: nope}}
""")
    write(pytester, "crit.actions.yaml", "name: critical\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - id: submit
    kind: click
    criticality: critical
    target: {type: testid, id: login-submit}
    postconditions: [{kind: url_matches, args: {pattern: /dashboard}}]
""")
    result = pytester.runpytest_subprocess("-rs", "--cometlocal-dry-run")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*ACTION_CRITICAL_BLOCKED (dry_run) at step submit*"])


def test_browser_killed_mid_plan_leaves_a_valid_trace_and_next_plan_runs(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST + """
import os, pathlib, signal, threading, time

def _kill_chromium_soon():
    # Kill only once the run is inside its slow step, however loaded the machine is.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        traces = list(pathlib.Path("cometlocal-runs").glob("*-dies-*/trace.jsonl"))
        if traces and '"action_started","step_id":"slow"' in traces[0].read_text().replace(" ", ""):
            break
        time.sleep(0.05)
    time.sleep(0.3)
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            stat = open(f"/proc/{pid}/environ", "rb").read()
        except OSError:
            continue
        if b"chrom" in cmd and b"--type=" not in cmd and f"COMETLOCAL_KILL_TAG={me}".encode() in stat:
            os.kill(int(pid), signal.SIGKILL)

@pytest.fixture(autouse=True)
def killer(request):
    os.environ["COMETLOCAL_KILL_TAG"] = str(os.getpid())
    if request.node.name == "dies":
        threading.Thread(target=_kill_chromium_soon, daemon=True).start()
""")
    write(pytester, "a.actions.yaml", "name: dies\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: slow, kind: navigate, timeout_ms: 15000, target: {type: url, url: "/slow?ms=10000"}}
---
name: survives
""" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}, postconditions: [{kind: title_contains, args: {text: Sign in}}]}
""")
    result = pytester.runpytest_subprocess("-v", "-p", "no:randomly")
    result.stdout.fnmatch_lines(["*a.actions.yaml::dies FAILED*", "*a.actions.yaml::survives PASSED*"])
    result.stdout.fnmatch_lines(["*BROWSER_CRASHED at step 'slow'*"])
    runs = sorted((pytester.path / "cometlocal-runs").iterdir())
    dies = next(r for r in runs if "-dies-" in r.name)
    lines = (dies / "trace.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["event_type"] == "run_finished"


def test_sigint_during_a_run_leaves_valid_traces(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "a.actions.yaml", "name: slow\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: slow, kind: navigate, timeout_ms: 20000, target: {type: url, url: "/slow?ms=15000"}}
""")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(pytester.path)],
                            cwd=pytester.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, preexec_fn=sigint_as_default)
    deadline = time.monotonic() + 30
    trace = None
    while time.monotonic() < deadline:
        found = list((pytester.path / "cometlocal-runs").glob("*/trace.jsonl")) if (pytester.path / "cometlocal-runs").exists() else []
        if found and "action_started" in found[0].read_text() and '"slow"' in found[0].read_text():
            trace = found[0]
            break
        time.sleep(0.1)
    assert trace is not None, "the run never reached the slow step"
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out.decode()[-2000:]
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["event_type"] == "run_finished" and events[-1]["metadata"]["status"] == "interrupted"


def test_context_args_fixture_gives_http_credentials(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST + """
@pytest.fixture
def cometlocal_context_args():
    return {"http_credentials": {"username": "demo", "password": "demo"}}
""")
    write(pytester, "a.actions.yaml", "name: protected\nauth_signals: {status: [401]}\n" + DEFAULTS + """\
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /protected}
    postconditions: [{kind: title_contains, args: {text: Protected}}]
""")
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=1)
    (run_dir,) = (pytester.path / "cometlocal-runs").iterdir()
    assert next((run_dir / "evidence").rglob("*.png"), None) is None  # a passing normal step keeps hashes only
    dom = json.loads(next((run_dir / "evidence" / "dom").glob("*_after.json")).read_text())
    assert dom["title"] == "Protected"


@pytest.mark.parametrize("mode, kept", [("off", set()), ("on", {"pass", "fail"}), ("retain-on-failure", {"fail"})])
def test_playwright_tracing_modes(pytester: pytest.Pytester, mode: str, kept: set[str]) -> None:
    import zipfile

    from pytest_cometlocal.runs.verify import verify_run

    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "a.actions.yaml", "name: pass\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
---
name: fail
""" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: gone, kind: click, timeout_ms: 300, target: {type: testid, id: gone}}
""")
    result = pytester.runpytest_subprocess("--cometlocal-tracing", mode, "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    traced = set()
    for run_dir in (pytester.path / "cometlocal-runs").iterdir():
        assert verify_run(run_dir).ok
        manifest = json.loads((run_dir / "evidence_manifest.json").read_text())
        zips = [f for f in manifest["files"] if f["kind"] == "playwright_trace"]
        if zips:
            traced.add(json.loads((run_dir / "run_manifest.json").read_text())["plan"]["name"])
            with zipfile.ZipFile(run_dir / zips[0]["uri"]) as archive:
                events = archive.read("trace.trace").decode()
            assert '"title":"step open"' in events
    assert traced == kept


def test_xdist_two_workers_give_same_outcomes_folders_and_reports(pytester: pytest.Pytester) -> None:
    import xml.etree.ElementTree as ET

    pytester.makeconftest(PORTAL_CONFTEST)
    for i in range(3):
        write(pytester, f"ok{i}.actions.yaml", f"name: ok {i}\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
""")
        # 1 s, not 200 ms: the observation before the step is bounded by the step's timeout plus 2 s, which a
        # loaded machine once ran out of (NAVIGATION_TIMEOUT instead of TARGET_NOT_FOUND).
        write(pytester, f"bad{i}.actions.yaml", f"name: bad {i}\n" + DEFAULTS + """\
steps:
  - {id: gone, kind: click, timeout_ms: 1000, target: {type: testid, id: gone}}
""")
    serial = pytester.runpytest_subprocess("-p", "no:randomly")
    serial.assert_outcomes(passed=3, failed=3)
    result = pytester.runpytest_subprocess("-n", "2", "--junitxml=junit.xml", "--alluredir=allure-results")
    result.assert_outcomes(passed=3, failed=3)
    runs = list((pytester.path / "cometlocal-runs").iterdir())
    assert len(runs) == 12 and len({r.name for r in runs}) == 12  # serial's 6 are still there: nothing wiped
    props = [p.get("value") for p in ET.parse(pytester.path / "junit.xml").iter("property") if p.get("name") == "cometlocal.error_code"]
    assert props == ["TARGET_NOT_FOUND"] * 3
    assert len(list((pytester.path / "allure-results").glob("*-result.json"))) == 6
    assert (pytester.path / "allure-results" / "categories.json").is_file()


# Five tests' plans share one inner session (their conftest and options agree; a session costs seconds to
# start). Each file name sorts so that the plans of the frame test come first: "first" is the session's first
# item. The session runs once per process, in the first test's folder (a failure is kept, not rerun).
SECRET = "Zq9-secret-value-7781"
SHARED_STEPS = "steps:\n  - {id: open, kind: navigate, target: {type: url, url: /login}}\n"
SHARED_PLANS = {
    "a_first.actions.yaml": "name: first\n" + DEFAULTS + SHARED_STEPS,
    "b_second.actions.yaml": "name: second\n" + DEFAULTS + SHARED_STEPS,
    "login.actions.yaml": LOGIN,  # wrong password: fails with full evidence
    "wrong_title.actions.yaml": "name: wrong title\n" + DEFAULTS + """\
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
    postconditions: [{kind: title_contains, args: {text: Nowhere}}]
""",
    "pages.actions.yaml": "name: pages\nparametrize: {page: [login, reports]}\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: "/${vars.page}"}, postconditions: [{kind: url_matches, args: {pattern: "${vars.page}$"}}]}
""",
    **{f"{name}.actions.yaml": f"name: missing {name}\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: gone, kind: click, timeout_ms: 1000, target: {type: testid, id: gone}}
""" for name in ("one", "two")},  # 1 s: as in the xdist test above, 300 ms is short for a loaded machine
}


def shared(pytester: pytest.Pytester) -> tuple[pytest.RunResult, Path]:
    """The shared session's result and folder (run in the first asking test's folder)."""
    return once("browser_items", lambda: _run_shared(pytester))


def _run_shared(pytester: pytest.Pytester) -> tuple[pytest.RunResult, Path]:
    pytester.makeconftest(PORTAL_CONFTEST)
    for name, text in SHARED_PLANS.items():
        write(pytester, name, text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PORTAL_PW", SECRET)
        result = pytester.runpytest_subprocess("-v", "-p", "no:randomly", "--junitxml=junit.xml", "-rA")
    # every plan did what it is written for: first, second and the two rows pass, the others fail
    result.assert_outcomes(passed=4, failed=4)
    return result, pytester.path


def runs_of(path: Path, name: str) -> list[Path]:
    """The run folders of the plan ``name``."""
    return sorted(r for r in (path / "cometlocal-runs").iterdir()
                  if (r / "run_manifest.json").is_file()
                  and json.loads((r / "run_manifest.json").read_text())["plan"]["name"] == name)


def test_secret_is_absent_from_every_file_and_the_output(pytester: pytest.Pytester) -> None:
    result, path = shared(pytester)
    output = result.stdout.str() + result.stderr.str()
    assert "POSTCONDITION_FAILED at step 'submit'" in output
    assert SECRET not in output
    assert runs_of(path, "login")
    written = [p for p in path.rglob("*") if p.is_file()]
    assert any(p.name == "trace.jsonl" for p in written) and any(p.suffix == ".html" for p in written)
    for file in written:
        assert SECRET.encode() not in file.read_bytes(), file


def test_failure_text_names_code_step_line_conditions_and_run_folder(pytester: pytest.Pytester) -> None:
    import xml.etree.ElementTree as ET

    result, path = shared(pytester)
    result.stdout.fnmatch_lines([
        "POSTCONDITION_FAILED at step 'open' (navigate, normal) — wrong_title.actions.yaml:8",
        "*failed postcondition title_contains: the title does not contain the text — expected {\"text\": \"Nowhere\"}"
        " — seen {\"title\": \"Sign in\"}*",
        "*run folder: *cometlocal-runs*wrong-title-*",
    ])
    assert "Traceback" not in result.stdout.str()
    (case,) = [c for c in ET.parse(path / "junit.xml").iter("testcase") if c.get("name") == "wrong title"]
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["cometlocal.error_code"] == "POSTCONDITION_FAILED" and props["cometlocal.step_id"] == "open"


def test_verbose_step_lines_and_error_code_summary(pytester: pytest.Pytester) -> None:
    result, _ = shared(pytester)
    result.stdout.fnmatch_lines([
        "*ok   open * navigate * ms",
        "*FAIL gone * click * ms  TARGET_NOT_FOUND: *",
        "*cometlocal failures by error code*",
        "TARGET_NOT_FOUND: 2 — missing one, missing two",
    ])
    result.stdout.fnmatch_lines(["*check it:   cometlocal verify *"])


def test_parametrized_plan_items_have_row_ids_and_own_run_folders(pytester: pytest.Pytester) -> None:
    result, path = shared(pytester)
    result.stdout.fnmatch_lines(["*pages.actions.yaml::pages[[]login] PASSED*",
                                 "*pages.actions.yaml::pages[[]reports] PASSED*"])
    runs = runs_of(path, "pages")
    assert len(runs) == 2
    rows = sorted(json.loads((r / "run_manifest.json").read_text())["plan"]["row_id"] for r in runs)
    assert rows == ["login", "reports"]
    assert 'name="pages[login]"' in (path / "junit.xml").read_text()


def test_the_sessions_runs_share_the_frame_of_an_empty_page(pytester: pytest.Pytester) -> None:
    """The frames of empty pages are a field of each run's context, and the session hands every run the
    same: the first item's first look takes the frame of about:blank, the next item's reuses it."""
    _, path = shared(pytester)
    first_looks = {}
    for name in ("first", "second"):
        (run,) = runs_of(path, name)
        events = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines() if line.strip()]
        look = next(e for e in events if e["event_type"] == "observation_captured")
        first_looks[name] = look["state_signature_before"]
    assert "screenshot_from" not in first_looks["first"]["metadata"]
    assert first_looks["second"]["metadata"]["screenshot_from"] == "blank_page"
    assert first_looks["second"]["screenshot_hash"] == first_looks["first"]["screenshot_hash"]
