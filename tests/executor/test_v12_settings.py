"""(v1.2) browser: settings and clock.at in a real Chromium, through pytest sessions against the
demo portal (/v12/settings shows the date, an amount, the zone, the width, touch and the user agent).

- ``clock.at``: the page shows the time the plan pins, not the machine's (the
  machine's date is not 2024, so any real clock would show another text). Under
  COMETLOCAL_SOAK=1 the same plans run in a second session, with a later real
  clock, and show the same text; CI runs one session (each extra one is a full
  subprocess and browser launch).
- Two plans with different ``browser.locale`` in ONE session each see their own,
  and a wrong setting in that same session fails the check that reads it.
- A device sets the viewport, touch and the user agent.
- A saved sign-in is reused only under the device/locale/time zone it was made under.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import PORTAL_CONFTEST, read_trace, soak, write

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("lean_inner_runs")]

SUITE = """\
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
policy: {retries_per_action: 0}
browser: {timezone: Europe/Berlin}
clock: {at: "2024-03-01T09:30:00+01:00"}
"""


def shows(testid: str, text: str) -> str:
    return f"{{kind: element_text_contains, args: {{target: {{type: testid, id: {testid}}}, text: \"{text}\"}}}}"


def settings_plan(name: str, browser: str, checks: list[tuple[str, str]]) -> str:
    posts = "".join(f"\n      - {shows(t, x)}" for t, x in checks)
    return (f"name: {name}\nbrowser: {browser}\nsteps:\n  - id: open\n    kind: navigate\n"
            f"    target: {{type: url, url: /v12/settings}}\n    postconditions:{posts}\n")


GERMAN = settings_plan("german", "{locale: de-DE}", [
    ("today", "1. März 2024"), ("amount", "1.234.567,891"), ("language", "de-DE"), ("zone", "Europe/Berlin"),
    ("iso", "2024-03-01T08:30Z")])
AMERICAN = settings_plan("american", "{locale: en-US, timezone: America/New_York}", [
    ("today", "March 1, 2024"), ("amount", "1,234,567.891"), ("language", "en-US"), ("zone", "America/New_York"),
    ("iso", "2024-03-01T08:30Z")])
PHONE = settings_plan("phone", "{device: Pixel 7}", [
    ("width", "412"), ("touch", "yes"), ("agent", "Pixel 7")])
WRONG = GERMAN.replace("{locale: de-DE}", "{locale: en-US}")
DESKTOP = settings_plan("desktop", "{viewport: {width: 1000, height: 700}}", [("width", "1000"), ("touch", "no")])
BANNER = """\
name: banner
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /v12/banner}
    postconditions: [{kind: element_attr_equals, args: {target: {type: css, selector: "#banner"}, attr: hidden, value: ""}}]
  - id: ten_seconds
    kind: advance_clock
    ms: 10000
    postconditions: [{kind: element_visible, args: {target: {type: role, role: status}}}]
"""


def manifests(root: Path) -> dict[str, dict]:
    out = {}
    for manifest in (root / "cometlocal-runs").glob("*/run_manifest.json"):
        data = json.loads(manifest.read_text())
        out.setdefault(data["plan"]["name"], []).append(data | {"_dir": str(manifest.parent)})
    return out


def test_locales_devices_and_the_pinned_clock_in_one_session_each_plan_its_own(pytester: pytest.Pytester) -> None:
    """The checks can fail too: ``wrong`` expects German under an American locale and fails showing what it saw."""
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "cometlocal.yaml", SUITE)
    for name, text in {"a_german": GERMAN, "b_american": AMERICAN, "c_phone": PHONE, "d_desktop": DESKTOP,
                       "e_banner": BANNER, "f_wrong": WRONG}.items():
        write(pytester, f"{name}.actions.yaml", text)
    sessions = soak(1, 2)  # under soak, two sessions, two real clocks: the same pinned page text each time
    for session in range(sessions):
        result = pytester.runpytest_subprocess("-v", "-p", "no:randomly")
        result.assert_outcomes(passed=5, failed=1)
        result.stdout.fnmatch_lines(["*f_wrong.actions.yaml::german FAILED*"])
        result.stdout.fnmatch_lines(["*POSTCONDITION_FAILED*"])
    runs = manifests(pytester.path)
    assert all(len(found) == sessions for name, found in runs.items() if name != "german"), runs.keys()
    assert len(runs["german"]) == 2 * sessions  # the right and the wrong German plan
    wrong = [r for r in runs["german"] if r["configuration"]["effective"]["browser"].get("locale") == "en-US"]
    assert len(wrong) == sessions
    german = [r["configuration"] for r in runs["german"]
              if r["configuration"]["effective"]["browser"].get("locale") == "de-DE"][0]
    assert german["effective"]["browser"] == {"locale": "de-DE", "timezone": "Europe/Berlin"}
    assert german["effective"]["clock"] == {"at": "2024-03-01T09:30:00+01:00"}
    assert (german["sources"]["browser"], german["sources"]["clock"]) == ("plan+suite", "suite")
    assert runs["american"][0]["configuration"]["effective"]["browser"]["timezone"] == "America/New_York"
    trace = read_trace(Path(runs["banner"][0]["_dir"]) / "trace.jsonl")
    advanced = [e for e in trace if e["event_type"] == "action_executed" and e["step_id"] == "ten_seconds"]
    assert advanced and advanced[0]["metadata"]["ms"] == 10000
    opened = [e for e in trace if e["event_type"] == "proposal_received" and e["step_id"] == "ten_seconds"]
    assert opened[0]["action_spec"]["schema_version"] == "v1.2"


LOGIN = """\
name: login
save_storage_state: signed_in
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: clerk-4711-longname}
  - {id: password, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
  - id: submit
    kind: click
    target: {type: testid, id: login-submit}
    postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
"""


def dashboard(name: str, browser: str) -> str:
    return (f"name: {name}\nstorage_state: signed_in\n{browser}steps:\n"
            "  - {id: open, kind: navigate, target: {type: url, url: /dashboard}, "
            "postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]}\n")


def test_a_saved_sign_in_is_reused_only_under_the_settings_it_was_made_under(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PORTAL_CONFTEST)
    write(pytester, "cometlocal.yaml", SUITE.replace("browser: {timezone: Europe/Berlin}\n", ""))
    write(pytester, "a_same.actions.yaml", dashboard("same", "browser: {color_scheme: dark}\n"))
    write(pytester, "b_german.actions.yaml", dashboard("german", "browser: {locale: de-DE}\n"))
    write(pytester, "c_login.actions.yaml", LOGIN)
    result = pytester.runpytest_subprocess("-v", "-p", "no:randomly")
    result.assert_outcomes(passed=3)
    runs = manifests(pytester.path)
    # The colour scheme does not matter to a state: the login item's state is reused as it is.
    same = runs["same"][0]["storage_state"]
    assert same["made_by"] == "c_login.actions.yaml::login" and "made_on_demand_in" not in same
    assert "made_under" not in same
    # Another locale: the maker ran again, under it, and that state is another file.
    german = runs["german"][0]["storage_state"]
    assert german["made_under"] == {"locale": "de-DE"} and german["made_on_demand_in"]
    maker = [m for m in runs["login"] if m["_dir"] == german["made_on_demand_in"]][0]
    assert maker["configuration"]["effective"]["browser"] == {"locale": "de-DE"}
    files = sorted(p.name for p in (pytester.path / "cometlocal-runs" / ".storage-state").rglob("*.json"))
    assert len(files) == 2 and files[0] == "signed_in.json" and files[1].startswith("signed_in@")
