"""The allowlist holds for every way a page can leave it; the outside host counts zero hits."""

from __future__ import annotations

import pytest

from tests.browsers import ON_BOTH
from tests.support import DEFAULTS, plan


def outside_hits(outside) -> int:
    return len(outside.hits)


# On both browsers: Firefox once sent a redirect's next hop direct, past the guard's proxy, when the first
# hop's host was a bypassed (allowed) one; the guard now gives it no bypass (executor/browser/network_guard.py).
@ON_BOTH
@pytest.mark.parametrize(
    "start, action",
    [
        ("/redirect?to={outside}/r1", None),
        ("/redirect-chain?to={outside}/r2", None),
        ("/meta-refresh?to={outside}/r3", "wait"),
        ("/post-outside", "{id: leave, kind: click, target: {type: role, role: button, name: Send outside, exact: true}}"),
        ("/popup?to={outside}/r5", "{id: leave, kind: click, target: {type: role, role: button, name: Open popup, exact: true}}"),
        # v1.1: a key press leaves as a click does.
        ("/post-outside", "{id: leave, kind: press, key: Enter, target: {type: role, role: button, name: Send outside, exact: true}}"),
        ("/popup?to={outside}/r6", "{id: leave, kind: press, key: Space, target: {type: role, role: button, name: Open popup, exact: true}}"),
    ],
    ids=["redirect", "redirect-chain", "meta-refresh", "form-post", "popup", "form-post-by-enter", "popup-by-space"],
)
def test_main_frame_escapes_are_domain_blocked(run, outside, start, action):
    before = outside_hits(outside)
    steps = f"  - {{id: open, kind: navigate, target: {{type: url, url: '{start}'}}, preconditions: [{{kind: network_idle}}]}}\n"
    if action == "wait":
        steps += "  - {id: leave, kind: wait_for, timeout_ms: 1500, target: {type: css, selector: body}, postconditions: [{kind: url_matches, args: {pattern: r3}}]}\n"
    elif action:
        steps += "  - " + action + "\n"
    r = run(plan(name="escape", steps=steps))
    assert r.code == "DOMAIN_BLOCKED", (r.code, r.error and r.error.message)
    assert r.error.details["host"] == "localhost"
    assert outside_hits(outside) == before, outside.hits[before:]


def test_subframe_to_outside_is_aborted_and_traced_not_raised(run, outside):
    before = outside_hits(outside)
    r = run(plan(name="iframe", steps="  - {id: open, kind: navigate, target: {type: url, url: /iframe-outside},"
                 " postconditions: [{kind: title_contains, args: {text: Iframe}}]}\n"))
    assert r.error is None, r.error
    executed = next(e for e in r.events if e["event_type"] == "action_executed")
    blocked = executed["metadata"]["blocked_requests"]
    assert blocked and blocked[0]["host"] == "localhost"
    assert outside_hits(outside) == before


def test_critical_click_to_outside_is_action_critical_blocked(run, outside, portal):
    before = outside_hits(outside)
    r = run(plan(name="crit-post", steps="  - {id: open, kind: navigate, target: {type: url, url: /post-outside}}\n"
                 "  - {id: leave, kind: click, criticality: critical, target: {type: role, role: button, name: Send outside, exact: true},"
                 " postconditions: [{kind: url_matches, args: {pattern: landing}}]}\n"))
    assert r.code == "ACTION_CRITICAL_BLOCKED"
    assert r.error.details["critical_reason"] == "unsafe_domain_escape"
    assert outside_hits(outside) == before


def test_wildcard_allowlist_forwards_through_the_guard(run, portal):
    # "*.0.0.1" is not a host pattern anyone would write, but "127.0.0.1" must still
    # be refused when only subdomains are allowed: wildcards never match the bare name.
    r = run("name: wild\nallowlist: ['*.example.test']\n" + DEFAULTS.replace(
        "preconditions: [{kind: host_in_allowlist}]", "preconditions: [{kind: network_idle}]") +
        "steps:\n  - {id: open, kind: navigate, target: {type: url, url: /login}}\n")
    assert r.code == "DOMAIN_BLOCKED" and r.error.details["host"] == "127.0.0.1"


def test_link_click_to_outside_is_blocked(run, outside):
    before = outside_hits(outside)
    r = run(plan(name="link", steps="""\
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
  - {id: pw, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
  - {id: in, kind: click, target: {type: testid, id: login-submit}, postconditions: [{kind: url_matches, args: {pattern: dashboard}}]}
  - {id: leave, kind: click, target: {type: role, role: link, name: Outside site, exact: true}}
"""))
    assert r.code == "DOMAIN_BLOCKED" and r.error.action_id == "leave"
    assert outside_hits(outside) == before
