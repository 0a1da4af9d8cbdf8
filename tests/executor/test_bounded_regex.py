"""Issue 46: a plan's catastrophic regex against page data, in a real Chromium, ends in bounded time.

``(a+)+$`` spins for ever in Python's ``re`` against 100 KB of page text (or a 2,000-character URL),
holding the GIL, so no step timeout could stop it. Here every place it can meet the page ends the
plan item with a typed, located error: a condition (``url_matches``, ``element_text_matches``) fails
naming the pattern's field; switch_page's ``page.url_matches`` and a route's ``url: {pattern}``
(matched by Playwright's client on every request) are INVALID_ACTIONSPEC, rule REGEX, at their key.

One pytest session in a subprocess (one Chromium, one served page) runs the three plans; its hard
timeout is the proof that nothing spins: on a matcher without a bound the session never ends.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.support import one_page_conftest, write

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("lean_inner_runs")]

CATASTROPHIC = "(a+)+$"
LONG_PATH = "/" + "a" * 2000 + "!"  # a URL (a+)+$ backtracks on without end, as on the page's text
PAGE = b"<title>Long</title><p data-testid=long>" + b"a" * 100_000 + b"!</p>"

SUITE = """\
defaults:
  criticality: normal
  timeout_ms: 20000  # a pattern that gives up ends its step at once: none waits this long
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
policy: {retries_per_action: 0}
"""
OPEN = f"""\
  - id: open
    kind: navigate
    target: {{type: url, url: "{LONG_PATH}"}}
"""
PLANS = {
    "a_conditions": f"""\
name: conditions
steps:
{OPEN}    postconditions:
      - {{kind: url_matches, args: {{pattern: "{CATASTROPHIC}"}}}}
      - {{kind: element_text_matches, args: {{target: {{type: testid, id: long}}, pattern: "{CATASTROPHIC}"}}}}
""",
    "b_switch_page": f"""\
name: switch
steps:
{OPEN}  - id: pick
    kind: switch_page
    page: {{url_matches: "{CATASTROPHIC}"}}
""",
    "c_route": f"""\
name: route
routes:
  - url: {{pattern: "{CATASTROPHIC}"}}
    abort: true
steps:
{OPEN}""",
}


def errors(root: Path) -> dict[str, dict]:
    """Each plan's error (its error_raised event), after checking its run folder verifies."""
    out = {}
    for manifest in (root / "cometlocal-runs").glob("*/run_manifest.json"):
        run = json.loads(manifest.read_text())
        assert verify_run(manifest.parent).ok
        events = [json.loads(line) for line in (manifest.parent / "trace.jsonl").read_text().splitlines()]
        (error,) = [e["error"] for e in events if e["event_type"] == "error_raised"]
        assert run["error_code"] == error["error_code"]
        out[run["plan"]["name"]] = error
    return out


def test_a_catastrophic_pattern_ends_each_plan_typed_and_located(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(one_page_conftest(PAGE))
    write(pytester, "cometlocal.yaml", SUITE)
    for name, text in PLANS.items():
        write(pytester, f"{name}.actions.yaml", text)
    result = pytester.runpytest_subprocess("-v", "-p", "no:randomly", timeout=240)  # a spinning match: TimeoutExpired
    result.assert_outcomes(failed=3)
    text = result.stdout.str()
    assert "Traceback" not in text and " ERROR " not in text, text
    found = errors(pytester.path)

    conditions = found["conditions"]
    assert (conditions["error_code"], conditions["stage"], conditions["action_id"]) == (
        "POSTCONDITION_FAILED", "postcondition", "open")
    seen = {c["kind"]: c["observed"] for c in conditions["failed_conditions"]}
    assert set(seen) == {"url_matches", "element_text_matches"}
    for observed in seen.values():
        assert (observed["error"], observed["field"]) == ("PatternTimeout", "pattern")
        assert observed["message"].startswith("pattern: the regex gave up after ")

    for name, stage, action, key_path in [("switch", "precondition", "pick", "page.url_matches"),
                                          ("route", "execution", "open", "routes[0].url.pattern")]:
        error = found[name]
        assert (error["error_code"], error["stage"], error["action_id"]) == ("INVALID_ACTIONSPEC", stage, action)
        assert error["details"]["violated_rules"] == ["REGEX"] and error["retryable"] is False
        [problem] = error["details"]["validation_errors"]
        assert (problem["key_path"], problem["rule"]) == (key_path, "REGEX")
        assert error["message"].startswith(f"{key_path}: the regex gave up after ")
