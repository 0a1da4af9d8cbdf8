"""Authoring at scale through pytest, in a real Chromium against the demo portal:
step groups at run time, the suite config, shared login state and data-driven plans."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.plugin.shared_session import once
from tests.support import OUTCOMES_CONFTEST, PORTAL_CONFTEST, read_outcomes, read_trace, write

pytestmark = pytest.mark.browser

SUITE = """\
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
policy: {retries_per_action: 0, hard_cap_steps: 40}
"""

LOGIN_GROUP = """\
description: sign in to the demo portal
vars: {password: demo}
save_storage_state: signed_in
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
  - id: user
    kind: fill
    target: {type: label, text: User name, exact: true}
    value: ${vars.user}
  - id: password
    kind: fill
    target: {type: label, text: Password, exact: true}
    value: ${vars.password}
  - id: submit
    kind: click
    target: {type: testid, id: login-submit}
    postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
"""

USER = "clerk-4711-longname"  # the session cookie holds the user name: long enough to be masked

LOGIN_PLAN = f"""\
name: login
steps:
  - use: groups/login.steps.yaml
    with: {{user: {USER}}}
"""

DASHBOARD_PLAN = """\
name: dashboard
storage_state: signed_in
steps:
  - {id: open, kind: navigate, target: {type: url, url: /dashboard}, postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]}
  - id: greeting
    kind: assert
    postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: greeting}, text: Welcome}}]
"""


def manifests(root: Path, under: str = "") -> dict[str, dict]:
    """The run manifests by plan name, of the plans whose file is under the folder ``under`` (if given)."""
    out = {}
    for manifest in (root / "cometlocal-runs").glob("*/run_manifest.json"):
        data = json.loads(manifest.read_text())
        if data["plan"]["file"].startswith(under):
            out[data["plan"]["name"]] = data | {"_dir": str(manifest.parent)}
    return out


def make_suite(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "cometlocal.yaml", SUITE)
    (pytester.path / "groups").mkdir()
    write(pytester, "groups/login.steps.yaml", LOGIN_GROUP)
    write(pytester, "a_dashboard.actions.yaml", DASHBOARD_PLAN)
    write(pytester, "b_login.actions.yaml", LOGIN_PLAN)


def test_saved_login_is_reused_and_the_login_page_is_never_shown(pytester: pytest.Pytester) -> None:
    make_suite(pytester)
    result = pytester.runpytest_subprocess("-v", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    # The plan that saves the state runs first, although its file sorts last.
    result.stdout.fnmatch_lines(["*b_login.actions.yaml::login PASSED*", "*a_dashboard.actions.yaml::dashboard PASSED*"])
    runs = manifests(pytester.path)
    assert set(runs) == {"login", "dashboard"}
    login_trace = read_trace(Path(runs["login"]["_dir"]) / "trace.jsonl")
    saved = [e["metadata"]["storage_state_saved"] for e in login_trace if "storage_state_saved" in e.get("metadata", {})]
    assert len(saved) == 1 and saved[0]["name"] == "signed_in" and saved[0]["cookies"] == 1
    # Group steps carry prefixed ids and name the plan line and the group line.
    received = [e for e in login_trace if e["event_type"] == "proposal_received"]
    assert [e["step_id"] for e in received] == ["login.open", "login.user", "login.password", "login.submit"]
    assert received[1]["metadata"]["source"] == ["b_login.actions.yaml:3", "groups/login.steps.yaml:8"]

    dash = runs["dashboard"]
    assert dash["storage_state"]["name"] == "signed_in"
    # The saving plan ran first, as an item: the manifest names it as the maker, and nothing ran on demand.
    assert dash["storage_state"]["made_by"] == "b_login.actions.yaml::login"
    assert "made_on_demand_in" not in dash["storage_state"]
    assert dash["storage_state"]["sha256"] == saved[0]["sha256"]
    dash_trace = read_trace(Path(dash["_dir"]) / "trace.jsonl")
    urls = {sig["url"] for e in dash_trace for k in ("state_signature_before", "state_signature_after")
            if (sig := e.get(k))}
    assert urls and not any("/login" in u for u in urls), urls
    assert dash_trace[-1]["event_type"] == "run_finished" and dash_trace[-1]["metadata"]["status"] == "passed"
    # The suite config's values are in force and recorded with their source.
    conf = dash["configuration"]
    assert conf["suite_config"] == "cometlocal.yaml"
    assert conf["sources"]["defaults"] == "suite" and conf["sources"]["policy"] == "suite"
    assert conf["effective"]["policy"]["hard_cap_steps"] == 40 and conf["effective"]["defaults"]["timeout_ms"] == 5000

    # The state file lives under the output folder, owner-only; its values reach no artifact.
    state_files = list((pytester.path / "cometlocal-runs" / ".storage-state").rglob("*.json"))
    assert [p.name for p in state_files] == ["signed_in.json"]
    assert state_files[0].stat().st_mode & 0o077 == 0
    cookie = json.loads(state_files[0].read_text())["cookies"][0]["value"]
    assert USER in cookie
    # The run that starts from the state shows the user on the page; its artifacts mask the value.
    dash_files = [p for p in Path(dash["_dir"]).rglob("*") if p.is_file()]
    for path in dash_files:
        assert cookie.encode() not in path.read_bytes(), path
    assert dash["redaction_policy"]["secret_count"] >= 1  # the state's values joined the masked values


# Four cases that select only the dashboards (``-k dashboard``) share one inner session (a session costs
# seconds to start): each in a folder of its own, with a state of its own name (states are named per session,
# so no folder's saver can make another's). It runs once per process, in the first asking test's folder.
SELECTED = {
    # Only the dashboard is selected: the login plan is run once, on demand, in its own run folder.
    "ondemand": {},
    # The maker fails: every plan that needs its state errors.
    "failing": {"groups/login.steps.yaml": LOGIN_GROUP.replace("{password: demo}", "{password: wrong}"),
                "c_dashboard.actions.yaml": DASHBOARD_PLAN.replace("name: dashboard", "name: dashboard two")},
    # Issue 24: a typo in one saver's ``with:`` (it comes first) must not take the state from the others.
    "invalid": {"a_typo.actions.yaml": LOGIN_PLAN.replace("name: login", "name: typo").replace("{user:", "{usr:"),
                "c_dashboard.actions.yaml": DASHBOARD_PLAN.replace("name: dashboard", "name: dashboard two")},
    # No plan saves the state.
    "nobody": None,
}


def state_of(case: str) -> str:
    return f"signed_in_{case}"


def selected(pytester: pytest.Pytester, case: str) -> tuple[pytest.RunResult, dict[str, tuple], dict[str, dict]]:
    """The shared ``-k dashboard`` session's result, the outcomes of ``case``'s items (node ids inside its
    folder) and the manifests of its runs by plan name."""
    result, path = once("authoring -k dashboard", lambda: _run_selected(pytester))
    outcomes = {nodeid.split("/", 1)[1]: outcome for nodeid, outcome in read_outcomes(path / "outcomes.jsonl").items()
                if nodeid.startswith(f"{case}/")}
    return result, outcomes, manifests(path, f"{case}/")


def _run_selected(pytester: pytest.Pytester) -> tuple[pytest.RunResult, Path]:
    pytester.makeconftest(OUTCOMES_CONFTEST)
    write(pytester, "cometlocal.yaml", SUITE)
    for name, extra in SELECTED.items():
        files = {"a_dashboard.actions.yaml": DASHBOARD_PLAN} if extra is None else {
            "groups/login.steps.yaml": LOGIN_GROUP, "a_dashboard.actions.yaml": DASHBOARD_PLAN,
            "b_login.actions.yaml": LOGIN_PLAN, **extra}
        for file, text in files.items():
            text = text.replace("storage_state: signed_in", f"storage_state: {state_of(name)}")
            write(pytester, f"{name}/{file}", text)
    result = pytester.runpytest_subprocess("-v", "-p", "no:randomly", "-k", "dashboard")
    # ondemand: 1 passed, 1 deselected; failing: 2 errors, 1 deselected; invalid: 2 passed, 2 deselected;
    # nobody: 1 error
    result.assert_outcomes(passed=3, errors=3, deselected=4)
    return result, pytester.path


def test_a_plan_needing_a_state_runs_its_maker_on_demand(pytester: pytest.Pytester) -> None:
    _, outcomes, runs = selected(pytester, "ondemand")
    assert outcomes == {"a_dashboard.actions.yaml::dashboard": ("passed", None)}  # the login plan deselected
    assert set(runs) == {"login", "dashboard"}
    assert f"storage state '{state_of('ondemand')}'" in runs["login"]["plan"]["purpose"]
    assert runs["dashboard"]["storage_state"]["made_on_demand_in"] == runs["login"]["_dir"]


def test_a_failing_maker_errors_every_plan_that_needs_its_state(pytester: pytest.Pytester) -> None:
    result, outcomes, runs = selected(pytester, "failing")
    assert set(outcomes) == {"a_dashboard.actions.yaml::dashboard", "c_dashboard.actions.yaml::dashboard two"}
    assert {outcome for outcome, _ in outcomes.values()} == {"error"}
    result.stdout.fnmatch_lines([f"*storage state '{state_of('failing')}' could not be made: its maker"
                                 " failing/b_login.actions.yaml::login failed"
                                 " with POSTCONDITION_FAILED at step 'login.submit'*"])
    assert len(runs) == 1  # the maker ran once, not once per plan


def test_an_invalid_saver_is_never_the_maker_while_a_valid_one_saves_the_state(pytester: pytest.Pytester) -> None:
    """Issue 24: a typo in one saver's ``with:`` (it comes first) must not take the state from the others."""
    # Only the dashboards run: the state is made on demand, by the first *valid* saver.
    _, outcomes, runs = selected(pytester, "invalid")
    assert outcomes == {"a_dashboard.actions.yaml::dashboard": ("passed", None),
                        "c_dashboard.actions.yaml::dashboard two": ("passed", None)}  # both savers deselected
    assert set(runs) == {"login", "dashboard", "dashboard two"}  # the maker ran once; the typo plan never ran
    for name in ("dashboard", "dashboard two"):
        assert runs[name]["storage_state"]["made_by"] == "invalid/b_login.actions.yaml::login"
        assert runs[name]["storage_state"]["made_on_demand_in"] == runs["login"]["_dir"]


def test_when_no_saver_is_valid_the_error_names_each_and_its_first_problem(pytester: pytest.Pytester) -> None:
    make_suite(pytester)
    write(pytester, "a_typo.actions.yaml", LOGIN_PLAN.replace("name: login", "name: typo").replace("{user:", "{usr:"))
    write(pytester, "b_login.actions.yaml", LOGIN_PLAN.replace("steps:", "stpes: []\nsteps:"))
    result = pytester.runpytest_subprocess("-v", "-p", "no:randomly")
    # The two savers fail as invalid plans; the dashboard errors at setup, naming both, and nothing runs.
    result.assert_outcomes(failed=2, errors=1)
    result.stdout.fnmatch_lines([
        "*storage state 'signed_in' could not be made: no plan that saves it is valid",
        "*  a_typo.actions.yaml::typo: groups/login.steps.yaml:*'with' sets usr, which the group does not use*",
        "*  b_login.actions.yaml::login: b_login.actions.yaml:2:1 stpes: unknown key*",
    ])
    assert manifests(pytester.path).keys() == {"typo", "login"}  # the invalid plans' records; no on-demand run


def test_a_state_nobody_saves_is_a_clear_setup_error(pytester: pytest.Pytester) -> None:
    result, outcomes, _ = selected(pytester, "nobody")
    assert outcomes == {"a_dashboard.actions.yaml::dashboard": ("error", None)}
    result.stdout.fnmatch_lines([f"*storage state '{state_of('nobody')}' is saved by no collected plan*"])


def test_group_step_failure_names_plan_and_group_lines(pytester: pytest.Pytester) -> None:
    make_suite(pytester)
    write(pytester, "groups/login.steps.yaml", LOGIN_GROUP.replace("login-submit", "no-such-button")
          .replace("    target: {type: testid, id: no-such-button}", "    timeout_ms: 300\n    target: {type: testid, id: no-such-button}"))
    result = pytester.runpytest_subprocess("b_login.actions.yaml")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*TARGET_NOT_FOUND at step 'login.submit' (click, normal)"
                                 " — b_login.actions.yaml:3 -> groups/login.steps.yaml:16*"])
    (run,) = manifests(pytester.path).values()
    error = [e for e in read_trace(Path(run["_dir"]) / "trace.jsonl") if e["event_type"] == "error_raised"][0]["error"]
    assert error["details"]["source"] == ["b_login.actions.yaml:3", "groups/login.steps.yaml:16"]


def test_suite_config_precedence(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "cometlocal.yaml", SUITE + "toast_selector: '#suite-toast'\n")
    (pytester.path / "sub").mkdir()
    # A nearer config replaces the outer one for the plans below it.
    write(pytester, "sub/cometlocal.yml", SUITE.replace("timeout_ms: 5000", "timeout_ms: 4000") + "profile: fast\n")
    pytester.makeini("[pytest]\ncometlocal_profile = forensic\n")
    plan = """\
name: {name}
policy: {{retries_per_action: 1}}
defaults: {{timeout_ms: 3000}}
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /login}}}}
"""
    write(pytester, "top.actions.yaml", plan.format(name="top"))
    write(pytester, "sub/low.actions.yaml", plan.format(name="low").replace("defaults: {timeout_ms: 3000}\n", ""))
    pytester.runpytest_subprocess().assert_outcomes(passed=2)
    runs = manifests(pytester.path)
    top, low = runs["top"]["configuration"], runs["low"]["configuration"]
    # policy and defaults merge key by key; the plan's keys win.
    assert top["effective"]["policy"]["retries_per_action"] == 1 and top["effective"]["policy"]["hard_cap_steps"] == 40
    assert top["effective"]["defaults"]["timeout_ms"] == 3000 and top["effective"]["defaults"]["criticality"] == "normal"
    assert top["sources"]["policy"] == "plan+suite" and top["sources"]["toast_selector"] == "suite"
    assert top["effective"]["toast_selector"] == "#suite-toast"
    assert low["suite_config"] == "sub/cometlocal.yml" and low["effective"]["defaults"]["timeout_ms"] == 4000
    assert low["effective"]["toast_selector"] is None and low["sources"]["base_url"] == "default"
    # The execution profile: the suite config's over the ini's; the manifest records it as the profile's name.
    assert (low["effective"]["profile"], low["sources"]["profile"]) == ("fast", "suite")
    assert (top["effective"]["profile"], top["sources"]["profile"]) == ("forensic", "ini")
    assert runs["low"]["execution_profile"]["name"] == "fast" and runs["top"]["execution_profile"]["name"] == "forensic"
    assert runs["top"]["execution_profile"]["runner"] == "pytest"
    # An explicit config replaces the search; the command line's profile wins over everything.
    shutil.rmtree(pytester.path / "cometlocal-runs")
    result = pytester.runpytest_subprocess("--cometlocal-config", "sub/cometlocal.yml", "top.actions.yaml",
                                           "--cometlocal-profile", "balanced")
    result.assert_outcomes(passed=1)
    assert manifests(pytester.path)["top"]["execution_profile"]["name"] == "balanced"
    # A profile that does not exist: a usage error naming the choices, no traceback. Nothing runs, so in process.
    result = pytester.runpytest_inprocess("--cometlocal-profile", "quick")
    assert result.ret == 4 and "invalid choice: 'quick'" in result.stderr.str()
    pytester.makeini("[pytest]\ncometlocal_profile = quick\n")
    result = pytester.runpytest_inprocess()
    assert result.ret == 4 and "ini cometlocal_profile must be balanced, fast, forensic, not 'quick'" in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_a_bad_suite_config_fails_every_plan_naming_its_line(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "cometlocal.yaml", SUITE + "polcy: {}\n")
    write(pytester, "a.actions.yaml", "name: a\nsteps:\n  - {id: open, kind: navigate, target: {type: url, url: /login}}\n")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cometlocal.yaml:7:1 polcy: unknown key 'polcy' in the suite config*"])


def test_parametrized_rows_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "cometlocal.yaml", SUITE)
    write(pytester, "pages.csv", "id,page,title\nsign-in,login,Sign in\nreports,reports,Reports\nhome,,Demo\n")
    write(pytester, "a.actions.yaml", """\
name: pages
parametrize: pages.csv
steps:
  - {id: open, kind: navigate, target: {type: url, url: "/${vars.page}"}, postconditions: [{kind: title_contains, args: {text: "${vars.title}"}}]}
""")
    result = pytester.runpytest_subprocess("-n", "2", "-v", "--junitxml=junit.xml", "--alluredir=allure-results")
    result.assert_outcomes(passed=3)
    runs = list((pytester.path / "cometlocal-runs").glob("*/run_manifest.json"))
    rows = sorted(json.loads(p.read_text())["plan"]["row_id"] for p in runs)
    assert rows == ["home", "reports", "sign-in"] and len({p.parent for p in runs}) == 3
    junit = (pytester.path / "junit.xml").read_text()
    assert all(f'name="pages[{r}]"' in junit for r in rows)
    params = []
    for path in (pytester.path / "allure-results").glob("*-result.json"):
        data = json.loads(path.read_text())
        params.append({p["name"]: p["value"] for p in data.get("parameters", [])})
    assert sorted(p.get("page", "").strip("'") for p in params) == ["", "login", "reports"]
