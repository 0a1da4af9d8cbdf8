"""Suggested targets (issue 13), in a real Chromium against pages served on 127.0.0.1 by the test.

A stale target (a renamed button, a reworded label, a link whose text
changed, a test id that is gone) fails TARGET_NOT_FOUND and suggests the
target that is on the page now, first; every suggestion, put in the plan,
makes the step pass; the same page gives the same suggestions; a passing
step does no suggestion work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_cometlocal.executor.suggest import suggester as S
from tests.support import Run, plan, run_text, served_pages

APP = """<!doctype html><title>App</title>
<nav aria-label="Main"><a href="/app#reports">Monthly reports</a> <a href="/app#help">Help</a></nav>
<form aria-label="Profile" id="profile" onsubmit="return false">
<label for="email">Email address</label><input id="email">
<label for="fullname">Full name</label><input id="fullname">
<button type="button" data-testid="save-profile" onclick="document.getElementById('out').textContent='saved'">Save changes</button>
<button type="button">Cancel</button>
</form>
<p id="out" data-testid="outcome"></p>
<section aria-label="Danger zone">
<button type="button">Delete</button>
<button type="button" data-testid="delete-second">Delete</button>
<button type="button">Delete</button>
</section>
"""

# The first click renames its button and puts a twin in another section, earlier on the page.
MOVED = """<!doctype html><title>Moved</title>
<section id="b"></section>
<form id="a"><button type="button" id="save-a">Save</button></form>
<script>
document.getElementById('save-a').addEventListener('click', (e) => {
  e.target.textContent = 'Save now';
  document.getElementById('b').innerHTML = '<button type="button" id="save-b">Save now</button>';
});
</script>
"""

HOST = '<!doctype html><title>Host</title><iframe id="inner" src="/inner"></iframe>'
INNER = '<!doctype html><title>Inner</title><button type="button">Inner action</button>'

SECRET = "4242-9999"
SHOWS_SECRET = f'<!doctype html><title>Pay</title><button type="button">Send to {SECRET}</button>'

# Streamlit's shape (issue 24): two grids in containers with test ids, one in a hidden tab; an empty overlay.
GRIDS = """<!doctype html><title>Grids</title>
<div id="portal" data-testid="portal" style="position:fixed;top:0;left:0"></div>
<main>
<div data-testid="stElementContainer"><div data-testid="stDataFrame" style="width:300px;height:80px"
  onclick="document.title='grid clicked'"><canvas width="300" height="80"></canvas></div></div>
<div data-testid="stTab" style="display:none"><div data-testid="stElementContainer">
  <div data-testid="stDataFrame" style="width:300px;height:80px"><canvas width="300" height="80"></canvas></div></div></div>
</main>
"""

PAGES = {"/app": APP, "/moved": MOVED, "/host": HOST, "/inner": INNER, "/pay": SHOWS_SECRET, "/grids": GRIDS}


@pytest.fixture(scope="module")
def site():
    with served_pages(PAGES) as url:
        yield url


@pytest.fixture
def go(tmp_path: Path, chromium, site: str):
    """go(plan_text) -> Run, against the test's own site."""
    return lambda text, env=None: run_text(chromium, tmp_path, text, site, env)


def flow(value: Any) -> str:
    """A target as the flow-style YAML a plan line holds."""
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10_000).strip()


def step_plan(step: str, page: str = "/app", extra_steps: str = "", timeout_ms: int = 600) -> str:
    """A short timeout keeps a failing step short; a plan expected to pass gets PASSING_MS (a loaded machine).
    The navigation always gets PASSING_MS: under load a page can take longer than a failing step may wait."""
    return plan(f"- {{id: open, kind: navigate, timeout_ms: {PASSING_MS}, target: {{type: url, url: {page}}}}}\n"
                f"{extra_steps}{step}\n",
                name="s", timeout_ms=timeout_ms)


PASSING_MS = 10_000


def click(target: dict[str, Any], kind: str = "click", extra: str = "") -> str:
    return f"- {{id: act, kind: {kind}, target: {flow(target)}{extra}}}"


def suggestions_of(r: Run, code: str = "TARGET_NOT_FOUND") -> list[dict[str, Any]]:
    assert r.code == code, (r.code, r.error and r.error.message)
    (raised,) = [e for e in r.events if e["event_type"] == "error_raised"]
    details = raised["error"]["details"]
    assert details["suggestions"] == r.error.details["suggestions"]  # the trace holds what the result holds
    return details["suggestions"]


def with_target(step_kind: str, suggestion: dict[str, Any], value: str | None = None) -> str:
    extra = f", value: {value}" if value else ""
    if "rationale" in suggestion:
        extra += f", metadata: {{target_rationale: {json.dumps(suggestion['rationale'])}}}"
    return click(suggestion["target"], step_kind, extra)


STALE = [
    # (what changed, step kind, stale target, value, the target that is on the page now)
    ("renamed button", "click", {"type": "role", "role": "button", "name": "Save", "exact": True}, None,
     {"type": "role", "role": "button", "name": "Save changes", "exact": True}),
    ("reworded label", "fill", {"type": "label", "text": "E-mail", "exact": True}, "a@b.c",
     {"type": "label", "text": "Email address", "exact": True}),
    ("link text changed", "click", {"type": "text", "text": "Reports", "exact": True}, None,
     {"type": "text", "text": "Monthly reports", "exact": True}),
    ("test id gone", "click", {"type": "testid", "id": "save-button"}, None,
     {"type": "testid", "id": "save-profile"}),
]


@pytest.mark.parametrize("what, kind, stale, value, now", STALE, ids=[s[0] for s in STALE])
def test_a_stale_target_suggests_the_one_on_the_page_first_and_each_suggestion_works(go, what, kind, stale, value, now):
    extra = f", value: {value}" if value else ""
    r = go(step_plan(click(stale, kind, extra)))
    found = suggestions_of(r)
    assert 1 <= len(found) <= 3
    assert found[0]["target"] == now, found
    assert [s["score"] for s in found] == sorted((s["score"] for s in found), reverse=True)
    for s in found:
        assert set(s) >= {"target", "matched", "score", "why"} and s["why"] and s["matched"]
        fixed = go(step_plan(with_target(kind, s, value), timeout_ms=PASSING_MS))
        assert fixed.result.status == "passed", (s, fixed.error and fixed.error.message)


def test_not_unique_gets_narrowing_suggestions_that_each_match_one(go):
    r = go(step_plan(click({"type": "role", "role": "button", "name": "Delete", "exact": True})))
    found = suggestions_of(r, "TARGET_NOT_UNIQUE")
    assert [s["target"] for s in found] == [
        {"type": "testid", "id": "delete-second"},
        {"type": "nth", "base": {"type": "role", "role": "button", "name": "Delete", "exact": True}, "index": 0},
        {"type": "nth", "base": {"type": "role", "role": "button", "name": "Delete", "exact": True}, "index": 2},
    ]
    assert all("in region \"Danger zone\"" in s["matched"] for s in found), found
    assert "rationale" in found[1] and "rationale" not in found[0]
    for s in found:
        fixed = go(step_plan(with_target("click", s), timeout_ms=PASSING_MS))
        assert fixed.result.status == "passed", (s, fixed.error and fixed.error.message)


def test_an_element_condition_on_a_stale_target_gets_suggestions(go):
    check = "- id: act\n  kind: assert\n  postconditions:\n" \
            "    - {kind: element_text_contains, args: {target: {type: testid, id: outcomes}, text: ''}}\n"
    r = go(step_plan(check.replace("text: ''", "text: x")))
    assert r.code == "POSTCONDITION_FAILED"
    found = r.error.details["suggestions"]
    assert found and found[0]["target"] == {"type": "testid", "id": "outcome"}, found


def test_the_same_page_gives_the_same_suggestions(go):
    text = step_plan(click({"type": "role", "role": "button", "name": "Save", "exact": True}))
    first, second = suggestions_of(go(text)), suggestions_of(go(text))
    assert first == second and first


def test_position_from_the_trace_puts_the_target_where_it_was_first(go):
    """Two buttons are named like the stale target; the one where an earlier step found it comes first,
    though the other comes first in the document."""
    save = {"type": "role", "role": "button", "name": "Save", "exact": True}
    r = go(step_plan(click(save).replace("id: act", "id: again"), page="/moved",
                     extra_steps=click(save, extra=f", timeout_ms: {PASSING_MS}").replace("id: act", "id: first") + "\n"))
    # the first click must pass: PASSING_MS, as a loaded machine needs (600 ms failed it at load ~10)
    found = suggestions_of(r)
    assert [s["target"] for s in found[:2]] == [{"type": "css", "selector": "#save-a"},
                                               {"type": "css", "selector": "#save-b"}], found
    assert "where the target was before (100% of its ancestors)" in found[0]["why"]
    assert "100%" not in found[1]["why"]


def test_a_passing_step_does_no_suggestion_work(go, monkeypatch):
    calls: list[Any] = []
    real = S.suggest
    monkeypatch.setattr(S, "suggest", lambda *a, **k: calls.append(a) or real(*a, **k))
    passed = go(step_plan(click({"type": "role", "role": "button", "name": "Save changes", "exact": True}),
                          timeout_ms=PASSING_MS))
    assert passed.result.status == "passed" and calls == []
    failed = go(step_plan(click({"type": "role", "role": "button", "name": "Save", "exact": True})))
    assert failed.code == "TARGET_NOT_FOUND" and len(calls) == 1


def test_a_spent_budget_gives_fewer_suggestions_and_says_so(go, monkeypatch):
    monkeypatch.setattr(S, "MAX_CHECKS", 2)  # the look at the three matches, then one target checked
    r = go(step_plan(click({"type": "role", "role": "button", "name": "Delete", "exact": True})))
    found = suggestions_of(r, "TARGET_NOT_UNIQUE")
    assert [s["target"] for s in found] == [{"type": "testid", "id": "delete-second"}]
    assert r.error.details["suggestions_note"].startswith("stopped after 2 checks")


def test_a_page_with_nothing_close_gets_no_suggestion(go):
    r = go(step_plan(click({"type": "role", "role": "button", "name": "Export to spreadsheet", "exact": True})))
    assert suggestions_of(r) == []


def test_a_target_in_a_frame_gets_suggestions_in_the_same_frame(go):
    stale = {"type": "frame", "selector": "#inner", "inner": {"type": "role", "role": "button", "name": "Inner act", "exact": True}}
    r = go(step_plan(click(stale), page="/host"))
    found = suggestions_of(r)
    assert [s["target"] for s in found] == [{**stale, "inner": {**stale["inner"], "name": "Inner action"}}]
    fixed = go(step_plan(with_target("click", found[0]), page="/host", timeout_ms=PASSING_MS))
    assert fixed.result.status == "passed", fixed.error and fixed.error.message


def test_a_secret_on_the_page_never_reaches_a_suggestion(go):
    text = step_plan(click({"type": "role", "role": "button", "name": "Send", "exact": True}), page="/pay")
    r = go(text.replace("name: s\n", "name: s\nsecrets: {card: {env: CARD}}\n"), {"CARD": SECRET})
    assert suggestions_of(r) == []  # masked, the only close target would not work; unmasked, it would leak
    assert r.error.details["suggestions_note"] == "1 suggestion(s) naming a secret left out"
    assert SECRET not in json.dumps(r.error.details)
    for path in r.run_dir.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".html"):
            assert SECRET not in path.read_text(encoding="utf-8"), path


def test_only_the_last_attempt_of_a_retried_step_does_suggestion_work(go, monkeypatch):
    """A click's TARGET_NOT_FOUND put in policy.retry_on: three attempts, one suggestion look.

    (v1.1: a wait_for is never retried, so a click stands in for the wait_for this test used.)
    """
    calls: list[Any] = []
    real = S.suggest
    monkeypatch.setattr(S, "suggest", lambda *a, **k: calls.append(a) or real(*a, **k))
    act = click({"type": "testid", "id": "save-button"})
    r = go(step_plan(act).replace("name: s\n", "name: s\npolicy: {retry_on: [TARGET_NOT_FOUND], backoff_ms: [0]}\n"))
    assert r.code == "TARGET_NOT_FOUND" and r.error.details["attempts"] == 3
    assert len(calls) == 1
    assert r.error.details["suggestions"][0]["target"] == {"type": "testid", "id": "save-profile"}
