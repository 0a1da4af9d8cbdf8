"""v1.3's browser state at load (no browser): each mistake in a cookie or storage step or check is one
problem, of its rule, located at its key (file line and column); the valid forms pass and are v1.3.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.model.actionspec import describe_step, format_version
from pytest_cometlocal.contract.model.conditions import describe_condition
from tests.support import mark_at, only, only_problems, only_valid, plan


def step(text: str, extra: str = "") -> str:
    return plan(text, extra=extra)


ASSERT = "- id: a\n  kind: assert\n  postconditions:\n    - "

PROBLEMS = [
    # (plan, rule, key path, where it points, message or None)
    (step("- {id: c, kind: set_cookie, cookie: {name: t}}"), "INPUTS", "steps[0].cookie", "{name: t}",
     "set_cookie's cookie needs 'value'"),
    (step("- {id: c, kind: set_cookie}"), "INPUTS", "steps[0].cookie", "{id: c", "'set_cookie' needs 'cookie'"),
    (step("- {id: c, kind: set_cookie, cookie: {name: 'a;b', value: v}}"), "COOKIE_NAME", "steps[0].cookie.name",
     "'a;b'", None),
    (step("- {id: c, kind: set_cookie, cookie: {name: t, value: v, same_site: None}}"), "INPUTS",
     "steps[0].cookie.same_site", "None}", "same_site: None needs secure: true (browsers drop such a cookie)"),
    (step("- {id: c, kind: set_cookie, cookie: {name: t, value: v, same_site: none, secure: true}}"), "SCHEMA",
     "steps[0].cookie.same_site", "none,", None),
    (step("- {id: c, kind: set_cookie, cookie: {name: t, value: v, url: /x, domain: a}}"), "SCHEMA",
     "steps[0].cookie", "{name: t", None),
    (step("- {id: c, kind: set_cookie, cookie: {name: t, value: v, url: 'ftp://h/'}}"), "URL",
     "steps[0].cookie.url", "'ftp", "a cookie's url is an absolute http(s) URL"),
    (step("- {id: c, kind: set_cookie, cookie: {name: t, value: v, domain: evil.example}}",
          extra="allowlist: [127.0.0.1]\n"), "ALLOWLIST", "steps[0].cookie.domain", "evil.example",
     "host evil.example is outside the plan's allowlist"),
    (step("- {id: c, kind: clear_cookies, cookie: {name: t, http_only: true}}"), "INPUTS",
     "steps[0].cookie.http_only", "true}", "'http_only' is not used by clear_cookies (only name, domain and path)"),
    (step("- {id: c, kind: click, target: {type: testid, id: x}, cookie: {name: t}}"), "INPUTS", "steps[0].cookie",
     "{name: t}", "'cookie' is not used by 'click' (only clear_cookies and set_cookie)"),
    (step("- {id: s, kind: set_storage_item, area: local, key: k}"), "INPUTS", "steps[0].value", "{id: s",
     "'set_storage_item' needs a value"),
    (step("- {id: s, kind: set_storage_item, key: k, value: v}"), "INPUTS", "steps[0].area", "{id: s",
     "'set_storage_item' needs 'area'"),
    (step("- {id: s, kind: set_storage_item, area: disk, key: k, value: v}"), "SCHEMA", "steps[0].area", "disk",
     None),
    (step("- {id: s, kind: clear_storage, area: local, key: a, key_matches: b}"), "INPUTS",
     "steps[0].key_matches", "b}", "clear_storage takes key or key_matches, not both"),
    (step("- {id: s, kind: clear_storage, area: local, key_matches: '(('}"), "REGEX", "steps[0].key_matches",
     "'((", None),
    (step("- {id: s, kind: clear_storage, area: local, value: v}"), "INPUTS", "steps[0].value", "v}",
     "'value' is not used by 'clear_storage' (only fill, set_storage_item and select)"),
    (step("- {id: s, kind: set_storage_item, area: local, key: k, value: v, target: {type: testid, id: x}}"),
     "INPUTS", "steps[0].target", "{type: testid", "'set_storage_item' takes no target"),
    (step(ASSERT + "{kind: cookie, args: {name: t, absent: true, equals: x}}"), "SCHEMA",
     "steps[0].postconditions[0].args", "{name: t", None),
    (step(ASSERT + "{kind: cookie, args: {name: t, absent: true, http_only: true}}"), "SCHEMA",
     "steps[0].postconditions[0].args", "{name: t", None),
    (step(ASSERT + "{kind: cookie, args: {name: t, absent: false}}"), "SCHEMA",
     "steps[0].postconditions[0].args.absent", "false", None),
    (step(ASSERT + "{kind: cookie, args: {name: t, same_site: strict}}"), "SCHEMA",
     "steps[0].postconditions[0].args.same_site", "strict", None),
    (step(ASSERT + "{kind: cookie, args: {name: t, expires: forever}}"), "SCHEMA",
     "steps[0].postconditions[0].args.expires", "forever", None),
    (step(ASSERT + "{kind: storage_item, args: {area: local, key: k, absent: true, pointer: /a}}"), "SCHEMA",
     "steps[0].postconditions[0].args", "{area", None),
    (step(ASSERT + "{kind: cookie_count, args: {name: t}}"), "SCHEMA", "steps[0].postconditions[0].args.count",
     "{name", "required key 'count' is missing (or, v1.3, a number check: greater_than, less_than, between, one_of)"),
    (step(ASSERT + "{kind: cookie_count, args: {name: 'a=b', count: 1}}"), "COOKIE_NAME",
     "steps[0].postconditions[0].args.name", "'a=b'", None),
    (step(ASSERT + "{kind: storage_items, args: {area: local, key_matches: '(('}}"), "REGEX",
     "steps[0].postconditions[0].args.key_matches", "'((", None),
    (step(ASSERT + "{kind: storage_items, args: {area: local, key_matches: a, every: {matches: '(('}}}"), "REGEX",
     "steps[0].postconditions[0].args.every.matches", "'((", None),
    (step(ASSERT + "{kind: storage_items, args: {area: local, key_matches: a, some: {pointer: x}}}"), "POINTER",
     "steps[0].postconditions[0].args.some.pointer", "x}", None),
    (step(ASSERT + "{kind: storage_items, args: {area: local, key_matches: a, every: {}, some: {}}}"), "SCHEMA",
     "steps[0].postconditions[0].args", "{area", None),
    (step(ASSERT + "{kind: storage_items, args: {area: local, key_matches: a, count: 0, every: {}}}"), "SCHEMA",
     "steps[0].postconditions[0].args", "{area", None),
    (step(ASSERT + "{kind: storage_items, args: {area: local, key_matches: a, every: {equals: 1}}}"), "SCHEMA",
     "steps[0].postconditions[0].args.every", "{equals", None),
    (step(ASSERT + "{kind: storage_equals, args: {area: local, equals: {a: '${secrets.S}'}}}",
          extra="secrets: {S: {env: S}}\n"), "INTERPOLATION", "steps[0].postconditions[0].args.equals", "{a:", None),
]


@pytest.mark.parametrize(("text", "rule", "key_path", "at", "message"), PROBLEMS,
                         ids=[f"{p[1]}-{i}" for i, p in enumerate(PROBLEMS)])
def test_a_state_mistake_is_one_located_problem(validate, text, rule, key_path, at, message):
    line, col = mark_at(text, at)
    only(only_problems(validate(text, env={"S": "x"})), rule, key_path, line, col, message)


VALID = step("""\
- {id: open, kind: navigate, target: {type: url, url: /}}
- {id: c1, kind: set_cookie, cookie: {name: t, value: "${secrets.S}", http_only: true, secure: true, same_site: None}}
- {id: c2, kind: set_cookie, cookie: {name: t, value: v, domain: .127.0.0.1, path: /app, expires: 3600}}
- {id: c3, kind: set_cookie, cookie: {name: t, value: v, url: "http://127.0.0.1:8000/"}}
- {id: c4, kind: clear_cookies}
- {id: c5, kind: clear_cookies, cookie: {name: t, domain: 127.0.0.1, path: /}}
- {id: s1, kind: set_storage_item, area: session, key: k, value: "${secrets.S}"}
- {id: s2, kind: clear_storage, area: local}
- {id: s3, kind: clear_storage, area: local, key_matches: "^todo-"}
- {id: s4, kind: clear_storage, area: local, key: k}
- id: a
  kind: assert
  postconditions:
    - {kind: cookie, args: {name: t, absent: true}}
    - {kind: cookie, args: {name: t, equals: v, http_only: false, secure: false, domain: 127.0.0.1, path: /, same_site: Lax, expires: session}}
    - {kind: cookie_count, args: {count: 0}}
    - {kind: cookie_count, args: {name: t, domain: 127.0.0.1, count: 2}}
    - {kind: storage_item, args: {area: local, key: k, absent: true}}
    - {kind: storage_items, args: {area: local, key_matches: "^todo-", count: 2, every: {pointer: /done, equals: false}}}
    - {kind: storage_items, args: {area: local, key_matches: "^todo-", some: {pointer: /title, matches: milk}}}
    - {kind: storage_equals, args: {area: session, equals: {tab: todos, filters: {show: all}}}}
- {id: old, kind: assert, postconditions: [{kind: cookie, args: {name: t, equals: v}}]}
""", extra="allowlist: [127.0.0.1]\nsecrets: {S: {env: S}}\n")


def test_the_state_forms_are_valid_and_v13(validate):
    steps = {s.id: s for s in only_valid(validate(VALID, env={"S": "x"})).plan.steps}
    assert {i: format_version(s) for i, s in steps.items()} == {
        "open": "v1", **dict.fromkeys(["c1", "c2", "c3", "c4", "c5", "s1", "s2", "s3", "s4", "a"], "v1.3"),
        "old": "v1.2"}
    assert [describe_step(steps[i]) for i in ("c1", "c2", "c4", "c5", "s1", "s2", "s3", "s4")] == [
        "set cookie t", "set cookie t on .127.0.0.1/app", "clear cookies", "clear cookies (t on 127.0.0.1/)",
        "set session storage item k", "clear local storage", "clear local storage (key_matches ^todo-)",
        "clear local storage (key k)"]
    shown = [describe_condition(c) for c in steps["a"].postconditions]
    assert shown[0] == "cookie (name=t, absent=True)"
    assert shown[5].startswith("storage_items (area=local, key_matches=^todo-, count=2, every=")
    # The secret stays a reference in the validated step: its value is the executor's only.
    assert steps["c1"].cookie.value == "${secrets.S}" and "x" not in describe_step(steps["s1"])


# -- cometlocal import (planners/codegen/state.py): Playwright's cookie and storage calls


def test_cookie_and_storage_calls_import_as_state_steps(tmp_path):
    from tests.planners.test_codegen_import import GOTO, imported

    code, plan = imported(tmp_path, GOTO + """\
context.add_cookies([{"name": "theme", "value": "dark", "url": "http://127.0.0.1:8000/", "httpOnly": True, "sameSite": "Lax"}, {"name": "b", "value": "2", "domain": "127.0.0.1", "path": "/"}])
page.context.clear_cookies(name="theme")
context.clear_cookies()
page.evaluate("localStorage.clear()")
page.evaluate("sessionStorage.setItem('k', 'v')")
page.evaluate('localStorage.removeItem("todo-1")')
""")
    assert code == 0
    steps = [{k: v for k, v in s.items() if k != "id"} for s in plan["steps"][1:]]
    assert steps == [
        {"kind": "set_cookie", "cookie": {"name": "theme", "value": "dark", "url": "http://127.0.0.1:8000/",
                                          "http_only": True, "same_site": "Lax"}},
        {"kind": "set_cookie", "cookie": {"name": "b", "value": "2", "domain": "127.0.0.1", "path": "/"}},
        {"kind": "clear_cookies", "cookie": {"name": "theme"}},
        {"kind": "clear_cookies"},
        {"kind": "clear_storage", "area": "local"},
        {"kind": "set_storage_item", "area": "session", "key": "k", "value": "v"},
        {"kind": "clear_storage", "area": "local", "key": "todo-1"},
    ]


@pytest.mark.parametrize("call, why", [
    ('context.add_cookies([{"name": "a", "value": "b", "url": "http://127.0.0.1:8000/", "expires": 1999999999}])',
     "expires= is an absolute time"),
    ("context.add_cookies(cookies)", "not a literal"),
    ('page.evaluate("document.title = 1")', "a plan runs no page code"),
    ('page.evaluate("localStorage.setItem(\'k\')")', "takes 2 argument(s)"),
])
def test_a_state_call_that_does_not_map_is_reported(tmp_path, capsys, call, why):
    from tests.planners.test_codegen_import import GOTO, imported

    code, plan = imported(tmp_path, GOTO + call + "\n")
    assert code == 1 and plan is None and why in capsys.readouterr().err
