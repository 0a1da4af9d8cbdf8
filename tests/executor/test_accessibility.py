"""(v1.2 audits) ``accessibility_clean`` in a real Chromium: the vendored axe-core in an isolated world.

Against the demo portal's /a11y/signup (a field without a label, a low-contrast hint) and two
pages this module serves: a hostile page that fakes ``window.axe`` and overrides the prototypes
and ``JSON.stringify`` axe would use in the page's world, and a quiet page that watches for axe.
Each run checks several things at once (CI budget: a handful of runs in one shared browser).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

import pytest

from pytest_cometlocal.runs.show import show_run
from tests.support import Run, opened, run_text, served_pages

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[2] / "example_plans"
KNOWN = {"label": "critical", "color-contrast": "serious"}  # demo/pages/audit_pages.py's two violations


def example(path: str) -> str:
    return (EXAMPLES / path).read_text(encoding="utf-8")


def blocked(r: Run) -> list[Any]:
    return [b for e in r.events for b in (e.get("metadata") or {}).get("blocked_requests") or []]


def rules(violations: list[dict[str, Any]]) -> dict[str, str]:
    return {v["rule"]: v["impact"] for v in violations}


def test_signup_page_fails_with_its_known_violations_and_fetches_nothing(run, outside):
    before = len(outside.hits)
    r = run(example("negative/accessibility_violations.actions.yaml"))
    assert (r.code, r.error.action_id, r.error.stage) == ("POSTCONDITION_FAILED", "open", "postcondition")
    violations = r.error.details["violations"]
    assert rules(violations) == KNOWN
    label = next(v for v in violations if v["rule"] == "label")
    assert label["targets"] == ['input[type="email"]'] and label["count"] == 1
    assert "label" in label["help"].lower() and label["help_url"].startswith("https://dequeuniversity.com/")
    (fc,) = [fc for fc in r.error.failed_conditions if fc.kind == "accessibility_clean"]
    assert fc.observed["violations"] == violations and fc.observed["axe"] == "4.14.1"
    # axe is read from the package: nothing left the machine, nothing was refused by the guard.
    assert blocked(r) == [] and outside.hits[before:] == []
    # cometlocal show: one line per rule, not one cut-off JSON line.
    shown = show_run(r.run_dir)
    assert "    violations: 2 rule(s)" in shown
    assert '      label (critical): Form elements must have labels; input[type="email"]' in shown


def test_signup_page_passes_its_gates_scoped_and_with_the_known_rules_disabled(run):
    r = run(example("v12/accessibility_signup.actions.yaml"))
    assert r.error is None, r.error
    assert blocked(r) == []


def test_impact_filter_and_target_scope(run):
    r = run(opened("/a11y/signup", """\
- id: critical_only
  kind: assert
  postconditions: [{kind: accessibility_clean, args: {impact_at_least: critical, disable: [label]}}]
- {id: again, kind: reload}
- id: form_only
  kind: assert
  timeout_ms: 500
  postconditions:
    - {kind: accessibility_clean, args: {target: {type: css, selector: "#signup"}, impact_at_least: critical}}
""", timeout_ms=5000))
    # critical_only held: color-contrast is serious, below the floor. The reload destroyed the isolated world,
    # which form_only makes again. form_only: only the label counts, the contrast is listed as below the floor.
    assert (r.code, r.error.action_id) == ("POSTCONDITION_FAILED", "form_only")
    assert rules(r.error.details["violations"]) == {"label": "critical"}
    (fc,) = [fc for fc in r.error.failed_conditions if fc.kind == "accessibility_clean"]
    assert fc.observed["below_impact"] == [{"rule": "color-contrast", "impact": "serious", "count": 1}]


HOSTILE = """<!doctype html><html lang="en"><title>Hostile</title><main><h1>Hostile</h1>
<input type="text" id="tok-s3cr3t-42">
<p data-testid="probe">waiting</p>
<script>
// Each override hides an axe result in the page's world, and leaves the page itself working.
const axeLike = (v) => v && typeof v === "object" && ("violations" in v || "impact" in v || "nodes" in v);
const fake = {run: () => Promise.resolve({violations: []}), getRules: () => []};
window.axe = fake;
for (const name of ["map", "filter", "forEach", "push", "concat", "slice"]) {
  const own = Array.prototype[name];
  Array.prototype[name] = function (...a) { return this.some && Array.prototype.some.call(this, axeLike) ? [] : own.apply(this, a); };
}
const qsa = Element.prototype.querySelectorAll, dqsa = Document.prototype.querySelectorAll;
Element.prototype.querySelectorAll = function (s) { return String(s).includes("cometlocal") ? [] : qsa.call(this, s); };
Document.prototype.querySelectorAll = function (s) { return String(s).includes("cometlocal") ? [] : dqsa.call(this, s); };
const stringify = JSON.stringify;
JSON.stringify = (v, ...a) => (axeLike(v) ? '{"violations":[]}' : stringify(v, ...a));
// What the page can see of an audit: window.axe replaced, or a global added.
const known = new Set(Object.getOwnPropertyNames(window));
setInterval(() => {
  const added = Object.getOwnPropertyNames(window).filter((n) => !known.has(n));
  document.querySelector("[data-testid=probe]").textContent =
    (window.axe === fake ? "axe is the page's own" : "axe was replaced") + "; globals added: " + (added.join(",") || "none");
}, 20);
</script></main></html>"""


def test_a_hostile_page_neither_changes_the_result_nor_sees_axe(tmp_path: Path, chromium):
    with served_pages({"/hostile": HOSTILE}) as url:
        r = run_text(chromium, tmp_path, opened("/hostile", """\
- id: scoped
  kind: assert
  postconditions:
    - {kind: accessibility_clean, args: {target: {type: testid, id: probe}, rules: [wcag2a, wcag2aa, wcag21aa, best-practice]}}
- id: probe
  kind: assert
  postconditions:
    - {kind: element_text_contains, args: {target: {type: testid, id: probe}, text: "axe is the page's own; globals added: none"}}
- id: audit
  kind: assert
  timeout_ms: 500
  postconditions: [{kind: accessibility_clean}]
""", timeout_ms=5000, extra="secrets: {tok: {env: TOK}}\n"), base_url=url, env={"TOK": "s3cr3t"})
    # scoped and probe held: the audits left the page's window as it was. The page's fake axe and broken
    # prototypes change nothing: the missing label is found, its target masked.
    assert (r.code, r.error.action_id) == ("POSTCONDITION_FAILED", "audit")
    (label,) = r.error.details["violations"]
    assert label["rule"] == "label" and label["targets"] and "s3cr3t" not in label["targets"][0]
    assert b"s3cr3t" not in (r.run_dir / "trace.jsonl").read_bytes()
    assert blocked(r) == []


@pytest.fixture
def playwright_server() -> Iterator[str]:
    """``playwright run-server`` on 127.0.0.1, started as tests/plugin/test_remote.py starts it; its ws:// endpoint."""
    from tests.plugin.test_remote import playwright_server as started

    with started() as url:
        yield url


def test_the_isolated_world_works_through_a_playwright_server(chromium, playwright_server: str):
    """--cometlocal-connect: the CDP session the isolated world needs crosses the server's connection."""
    from pytest_cometlocal.contract.model.conditions import AccessibilityClean
    from pytest_cometlocal.executor.audits.accessibility import accessibility_clean
    from pytest_cometlocal.executor.browser.chromium import system_chromium
    from pytest_cometlocal.executor.browser.remote import launch_options_header

    if system_chromium() is None:
        pytest.skip("no system Chromium for the Playwright server to launch")
    browser = chromium.browser().browser_type.connect(
        playwright_server, headers=launch_options_header({"headless": True}, system_chromium()))
    try:
        page = browser.new_page()
        page.set_content("<!doctype html><html lang=en><title>Remote</title><main><h1>Remote</h1><input></main></html>")
        cond = AccessibilityClean.model_validate({"kind": "accessibility_clean"})
        ok, seen = accessibility_clean(cond, SimpleNamespace(page=page, mask_text=str), "post")
        assert not ok and rules(seen["violations"]) == {"label": "critical"}
    finally:
        browser.close()
