"""(v1.2) A browser context that cannot be made, in a real Chromium, through pytest sessions against the
demo portal: each is the item's typed failure (not a pytest ERROR at setup with a traceback), with a
run folder that verifies, the code as marker and JUnit property, and the session goes on.

- A zone Chromium does not know, on a machine without a time-zone database (``PYTHONTZPATH`` empty:
  validation checks the zone's shape only, as docs/plan-format.md says): INVALID_ACTIONSPEC, rule
  TIMEZONE, located at ``browser.timezone``'s line.
- ``clock.install`` refused (as an older Playwright server without it would): the seam is made to
  pass a time the real call refuses (``1e300`` s: Invalid date); INVALID_ACTIONSPEC, rule CLOCK.
- A saved sign-in whose file is no longer JSON: INVALID_ACTIONSPEC, rule STORAGE_STATE.
- The browser closing while the context is made (a conftest's context-args fixture closes it):
  BROWSER_CRASHED; the next plan gets a new browser and passes. The same through a Playwright
  server (``--cometlocal-connect``).

The four local refusals run in one session (each inner session costs a Python start and a
browser launch); each seam touches only its own plan.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.plugin.test_remote import no_local_chromium, remote_chromium_args, server  # noqa: F401 (fixtures)
from tests.executor.test_v12_settings import LOGIN  # the demo's sign-in that saves 'signed_in'
from tests.support import PORTAL_CONFTEST, write

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("lean_inner_runs")]

SUITE = """\
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
policy: {retries_per_action: 0}
"""
OPEN = ("steps:\n  - id: open\n    kind: navigate\n    target: {type: url, url: /login}\n"
        "    postconditions: [{kind: title_contains, args: {text: Sign in}}]\n")


def a_plan(name: str, head: str = "") -> str:
    return f"name: {name}\n{head}{OPEN}"


def runs(root: Path) -> dict[str, dict]:
    out = {}
    for manifest in (root / "cometlocal-runs").glob("*/run_manifest.json"):
        data = json.loads(manifest.read_text())
        out[data["plan"]["name"]] = data | {"_dir": manifest.parent}
    return out


def refused(result: pytest.RunResult, root: Path, name: str, code: str) -> dict:
    """The item failed (no setup ERROR, no traceback) with ``code``; its run folder verifies; its error."""
    text = result.stdout.str()
    assert "Traceback" not in text and "playwright._impl" not in text and " ERROR " not in text, text
    run = runs(root)[name]
    assert (run["status"], run["error_code"]) == ("failed", code)
    verification = verify_run(run["_dir"])
    assert verification.ok, verification
    events = [json.loads(line) for line in (run["_dir"] / "trace.jsonl").read_text().splitlines()]
    assert [e["event_type"] for e in events] == ["run_started", "evidence_captured", "error_raised", "run_finished"]
    [case] = [c for c in ElementTree.parse(root / "junit.xml").iter("testcase") if c.get("name") == name]
    assert ("cometlocal.error_code", code) in [(p.get("name"), p.get("value")) for p in case.iter("property")]
    return events[2]["error"]


CLOCK_SEAM = """
from pytest_cometlocal.executor.browser import context_settings

# clock.install refused, as by a Playwright server without it: the real call gets a time it refuses.
context_settings.clock_time = lambda at: 1e300
"""

CORRUPTING = """
def pytest_runtest_setup(item):
    if item.name == "dashboard":  # the state its maker saved is damaged before this item loads it
        for path in (item.config.rootpath / "cometlocal-runs" / ".storage-state").rglob("*.json"):
            path.write_text("{not json")
"""

CLOSING = PORTAL_CONFTEST + '''
@pytest.fixture
def cometlocal_context_args(request, cometlocal_browser):
    if request.node.name == "gone":  # the browser goes away while this item's context is being made
        cometlocal_browser.close()
    return {}
'''


def test_each_refused_context_is_its_plans_typed_failure_and_the_session_goes_on(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """One session, four refusals, each its own item's failure; the plans after them pass.

    The seams touch only their own plan: the clock seam only plans with ``clock.at`` (just
    ``pinned``), the corrupting hook only ``dashboard``, the closing fixture only ``gone``.
    """
    monkeypatch.setenv("PYTHONTZPATH", "")  # no time-zone database: validation checks the zone's shape only
    pytester.makeconftest(CLOSING + CLOCK_SEAM + CORRUPTING)
    write(pytester, "cometlocal.yaml", SUITE)
    write(pytester, "a_login.actions.yaml", LOGIN)
    write(pytester, "b_dashboard.actions.yaml", "name: dashboard\nstorage_state: signed_in\n" + OPEN)
    write(pytester, "c_mars.actions.yaml", a_plan("mars", "browser:\n  locale: de-DE\n  timezone: Mars/Olympus\n"))
    write(pytester, "d_fine.actions.yaml", a_plan("fine"))
    write(pytester, "e_pinned.actions.yaml", a_plan("pinned", "clock: {at: '2024-03-01T09:30:00+01:00'}\n"))
    write(pytester, "f_gone.actions.yaml", a_plan("gone", "browser: {locale: de-DE}\n"))
    write(pytester, "g_after.actions.yaml", a_plan("after"))
    result = pytester.runpytest_subprocess("-v", "-p", "no:randomly", "--junitxml=junit.xml")
    result.assert_outcomes(failed=4, passed=3)  # after each refusal the session goes on; after 'gone', a new browser
    # A zone Chromium refuses: located at browser.timezone's line.
    result.stdout.fnmatch_lines([
        "*INVALID_ACTIONSPEC*",
        "*c_mars.actions.yaml:4:13 browser.timezone: the browser refused it*Invalid timezone ID: Mars/Olympus*[[]TIMEZONE]",
        "FAILED c_mars.actions.yaml::mars - INVALID_ACTIONSPEC — c_mars.actions.yaml:4*",
    ])
    error = refused(result, pytester.path, "mars", "INVALID_ACTIONSPEC")
    assert error["details"]["violated_rules"] == ["TIMEZONE"] and error["details"]["during"] == "new_page"
    [problem] = error["details"]["validation_errors"]
    assert (problem["file"], problem["line"], problem["key_path"]) == ("c_mars.actions.yaml", 4, "browser.timezone")
    assert runs(pytester.path)["mars"]["configuration"]["effective"]["browser"]["timezone"] == "Mars/Olympus"
    # A refused clock.install.
    result.stdout.fnmatch_lines(["*e_pinned.actions.yaml:2:* clock.at: the browser refused it*(clock.install)*[[]CLOCK]"])
    error = refused(result, pytester.path, "pinned", "INVALID_ACTIONSPEC")
    assert error["details"]["violated_rules"] == ["CLOCK"] and error["details"]["setting"] == "clock.at"
    # A saved state that is no longer JSON.
    result.stdout.fnmatch_lines(["*b_dashboard.actions.yaml:2:16 storage_state: the browser refused the saved state*"
                                 "cannot be loaded*[[]STORAGE_STATE]"])
    error = refused(result, pytester.path, "dashboard", "INVALID_ACTIONSPEC")
    assert error["details"]["violated_rules"] == ["STORAGE_STATE"] and error["details"]["during"] == "storage_state"
    # The browser closing while the context is made.
    result.stdout.fnmatch_lines(["BROWSER_CRASHED — f_gone.actions.yaml:1",
                                 "  the browser context could not be made (new_context): *closed*"])
    error = refused(result, pytester.path, "gone", "BROWSER_CRASHED")
    assert error["stage"] == "execution" and "setting" not in error["details"]
    assert {name: run["status"] for name, run in runs(pytester.path).items()
            if name in ("login", "fine", "after")} == {"login": "passed", "fine": "passed", "after": "passed"}


@pytest.mark.usefixtures("no_local_chromium")
def test_through_a_playwright_server_a_refusal_and_a_disconnect_are_typed(pytester: pytest.Pytester,
                                                                          server: str,  # noqa: F811
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONTZPATH", "")
    pytester.makeconftest(CLOSING)
    write(pytester, "cometlocal.yaml", SUITE)
    write(pytester, "a.actions.yaml", a_plan("gone"))
    write(pytester, "b.actions.yaml", a_plan("mars", "browser: {timezone: Mars/Olympus}\n"))
    write(pytester, "c.actions.yaml", a_plan("after"))
    result = pytester.runpytest_subprocess("-v", "-p", "no:randomly", "--junitxml=junit.xml",
                                           f"--cometlocal-connect={server}", *remote_chromium_args())
    result.assert_outcomes(failed=2, passed=1)
    assert refused(result, pytester.path, "gone", "BROWSER_CRASHED")["details"]["during"] == "new_context"
    mars = refused(result, pytester.path, "mars", "INVALID_ACTIONSPEC")
    assert mars["details"]["violated_rules"] == ["TIMEZONE"]
    assert runs(pytester.path)["after"]["execution_profile"]["connection"] == "playwright-server"


def test_the_library_run_plan_returns_a_refusal_as_a_failed_run(chromium, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``run_plan`` (the library API) gives a refused context as a failed RunResult with its run folder."""
    from pytest_cometlocal.contract.settings import effective_settings
    from pytest_cometlocal.contract.validate import settings_rules
    from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_text
    from pytest_cometlocal.executor.session import run_plan

    monkeypatch.setattr(settings_rules, "known_zones", lambda: frozenset())  # no time-zone database here
    text = SUITE + a_plan("mars", "browser: {timezone: Mars/Olympus}\n")
    [plan] = validate_text(text, ValidationContext(root=tmp_path, env={}), "mars.actions.yaml")
    result = run_plan(chromium.browser(), plan, tmp_path / "runs", effective_settings(plan, default_base_url="http://127.0.0.1:9"))
    assert (result.status, result.error.error_code.value, result.steps) == ("failed", "INVALID_ACTIONSPEC", [])
    assert result.error.details["violated_rules"] == ["TIMEZONE"]
    assert result.error.details["validation_errors"][0]["line"] == text.splitlines().index(
        "browser: {timezone: Mars/Olympus}") + 1
    assert verify_run(result.run_dir).ok
