"""v1.3's browser state in a real Chromium, against the portal's /v13/state pages (demo/pages/v13_state.py).

The per-record store (one localStorage key per to-do, generated ids) is counted and checked by
``storage_items``; the storage and cookie steps change what the checks then see; a secret set as
a cookie or a storage item is nowhere in the run folder; each failure is typed, with what was seen.
"""

from __future__ import annotations

import json
import textwrap

from pytest_cometlocal.runs.verify import verify_run
from tests.support import opened as _opened

INPUT = "{type: label, text: What needs to be done?, exact: true}"
SECRET = "tok-9f8e7d6c5b4a"
ITEM = '{"title":"Seeded","completed":false}'


def opened(url: str, *parts: str, **plan_args: str) -> str:
    return _opened(url, "".join(textwrap.dedent(p) for p in parts), **plan_args)


def add(title: str, n: int) -> str:
    return (f"- {{id: type{n}, kind: fill, target: {INPUT}, value: \"{title}\"}}\n"
            f"- {{id: add{n}, kind: press, key: Enter, target: {INPUT}}}\n")


def metadata(r) -> dict[str, dict]:
    """Each step's action_executed metadata, less what every action records (duration, blocked requests)."""
    return {e["step_id"]: {k: v for k, v in e["metadata"].items() if k not in ("duration_ms", "blocked_requests")}
            for e in r.events if e["event_type"] == "action_executed"}


def failed(r, kind: str) -> list[dict]:
    return [c.model_dump(mode="json")["observed"] for c in r.error.failed_conditions if c.kind == kind]


def test_the_per_record_store_is_counted_checked_set_and_cleared(run):
    r = run(opened("/v13/state/todos", add("Buy milk", 1), add("Walk the dog", 2), add("Call mum", 3), """\
        - id: done
          kind: check
          target: {type: label, text: Toggle Walk the dog, exact: true}
          postconditions:
            - {kind: storage_items, args: {area: local, key_matches: "^todo-[0-9]+$", count: 3}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", every: {pointer: /title, matches: "^[A-Z]"}}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", some: {pointer: /completed, equals: true}}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", count: 3, every: {pointer: "", length: 2}}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-"}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", where: {pointer: /completed, equals: true}, count: 1}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", where: {pointer: /completed, equals: false}, between: [2, 2]}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", greater_than: 2, less_than: 4}}
            - {kind: element_count_equals, args: {target: {type: testid, id: todo-item}, greater_than: 2}}
            - {kind: storage_item, args: {area: local, key: todos, absent: true}}
            - {kind: storage_equals, args: {area: session, equals: {tab: todos, filters: {show: all, sort: [title]}}}}
        - id: seed
          kind: set_storage_item
          area: local
          key: todo-000000000000
          value: '""" + ITEM + """'
          postconditions:
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", count: 4}}
            - {kind: storage_item, args: {area: local, key: todo-000000000000, pointer: /title, equals: Seeded}}
        - id: again
          kind: navigate
          target: {type: url, url: /v13/state/todos}
          postconditions:
            - {kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: [Seeded, /.+/, /.+/, /.+/]}}
        - id: clear_done
          kind: click
          target: {type: role, role: button, name: Clear completed}
          postconditions:
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", count: 3, every: {pointer: /completed, equals: false}}}
        - id: clear_todos
          kind: clear_storage
          area: local
          key_matches: "^todo-"
          postconditions:
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", count: 0}}
            - {kind: storage_item, args: {area: local, key: settings, pointer: /theme, equals: light}}
        - id: clear_settings
          kind: clear_storage
          area: local
          key: settings
          postconditions: [{kind: storage_equals, args: {area: local, equals: {}}}]
        - id: clear_session
          kind: clear_storage
          area: session
          postconditions: [{kind: storage_equals, args: {area: session, equals: {}}}]
        """))
    assert r.result.status == "passed", r.error and r.error.message
    versions = {e["step_id"]: e["action_spec"]["schema_version"] for e in r.events if e.get("action_spec")}
    assert (versions["done"], versions["seed"], versions["clear_todos"], versions["add1"]) == ("v1.3", "v1.3", "v1.3", "v1.1")
    assert r.manifest["format_versions"] == ["v1", "v1.1", "v1.2", "v1.3"]
    executed = metadata(r)
    assert executed["seed"] == {"area": "local", "key": "todo-000000000000"}  # the key, never the value
    assert executed["clear_todos"] == {"area": "local", "key_matches": "^todo-", "cleared": 3}
    assert executed["clear_done"] == {} and executed["clear_session"] == {"area": "session", "cleared": 2}
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_cookies_their_attributes_and_a_secret_set_then_cleared(run):
    r = run(opened("/v13/state/cookies", """\
        - id: sent
          kind: assert
          postconditions:
            - {kind: cookie, args: {name: session_id, http_only: true, secure: false, same_site: Strict, expires: session, path: /, domain: 127.0.0.1}}
            - {kind: cookie, args: {name: prefs, equals: compact, expires: persistent, path: /v13, same_site: Lax}}
            - {kind: cookie, args: {name: seen, http_only: false}}
            - {kind: cookie, args: {name: token, absent: true}}
            - {kind: cookie_count, args: {count: 3}}
            - {kind: cookie_count, args: {name: prefs, domain: .127.0.0.1, count: 1}}
        - id: token
          kind: set_cookie
          cookie: {name: token, value: "${secrets.TOKEN}", http_only: true, same_site: Lax}
          postconditions:
            - {kind: cookie, args: {name: token, http_only: true, same_site: Lax, expires: session}}
            - {kind: cookie_count, args: {count: 4}}
        - id: shown
          kind: set_cookie
          cookie: {name: shown, value: "${secrets.TOKEN}", path: /, expires: 600}
          postconditions: [{kind: cookie, args: {name: shown, expires: persistent, http_only: false}}]
        - id: stored
          kind: set_storage_item
          area: session
          key: api_token
          value: "${secrets.TOKEN}"
          postconditions: [{kind: storage_items, args: {area: session, key_matches: "^api_", count: 1, every: {length: 16}}}]
        - id: reload
          kind: navigate
          target: {type: url, url: /v13/state/cookies}
          postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: cookies}, text: "shown=${secrets.TOKEN}"}}]
        - id: drop_prefs
          kind: clear_cookies
          cookie: {name: prefs}
          postconditions:
            - {kind: cookie, args: {name: prefs, absent: true}}
            - {kind: cookie_count, args: {count: 4}}
        - id: drop_all
          kind: clear_cookies
          postconditions: [{kind: cookie_count, args: {count: 0}}]
        """, extra="secrets: {TOKEN: {env: STATE_TOKEN}}\n"), env={"STATE_TOKEN": SECRET})
    assert r.result.status == "passed", r.error and r.error.message
    executed = metadata(r)
    assert executed["token"] == {"cookie": "token", "host": "127.0.0.1", "path": "/", "http_only": True,
                                 "same_site": "Lax"}
    assert executed["drop_prefs"] == {"cleared": 1, "cookie": "prefs"} and executed["drop_all"] == {"cleared": 4}
    # The secret reached the page (document.cookie shows it, `reload` held) and the session area: every file of
    # the run folder masks it.
    leaked = [name for name, data in r.files().items() if SECRET.encode() in data]
    assert leaked == []
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_a_state_check_that_does_not_hold_says_what_it_saw(run):
    r = run(opened("/v13/state/todos", add("Buy milk", 1), add("Walk the dog", 2), """\
        - id: check
          kind: assert
          timeout_ms: 1000
          postconditions:
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", count: 3}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", every: {pointer: /completed, equals: true}}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", some: {pointer: /title, equals: Sleep}}}
            - {kind: storage_items, args: {area: local, key_matches: "^nothing-"}}
            - {kind: storage_items, args: {area: local, key_matches: "^todo-", where: {pointer: /completed, equals: true}, greater_than: 0}}
            - {kind: storage_item, args: {area: local, key: settings, absent: true}}
            - {kind: storage_equals, args: {area: session, equals: {tab: list, extra: "1"}}}
            - {kind: cookie, args: {name: nope, http_only: true}}
            - {kind: cookie_count, args: {count: 2}}
        """))
    assert (r.code, r.error.action_id, r.error.stage) == ("POSTCONDITION_FAILED", "check", "postcondition")
    counted, every, some, none, done = failed(r, "storage_items")
    assert done == {"area": "local", "count": 0, "keys": [], "failed_checks": ["greater_than"]}
    keys = counted["keys"]
    assert counted == {"area": "local", "count": 2, "keys": keys} and all(k.startswith("todo-") for k in keys)
    assert every["failing"]["key"] in keys and every["failing"]["value"] == "false"
    assert every["failing"]["item"] in ('{"title":"Buy milk","completed":false}', '{"title":"Walk the dog","completed":false}')
    assert some["problem"] == "no item meets the check"
    assert none == {"area": "local", "count": 0, "keys": [], "problem": "no key matches key_matches"}
    assert failed(r, "storage_item") == [{"area": "local", "item": '{"theme":"light"}', "problem": "the item exists"}]
    (session,) = failed(r, "storage_equals")
    assert (session["missing"], session["differ"], session["items"]["tab"]) == (["extra"], ["tab"], "todos")
    assert session["extra"] == ["filters"]
    assert failed(r, "cookie") == [{"value": None, "cookies": []}]
    assert failed(r, "cookie_count") == [{"count": 0, "cookies": []}]


def test_a_state_step_fails_typed_before_it_acts(run):
    blank = run(textwrap.dedent("""\
        name: t
        defaults: {criticality: normal, timeout_ms: 2000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
        steps:
          - {id: early, kind: set_storage_item, area: local, key: k, value: v}
        """))
    assert (blank.code, blank.error.action_id, blank.error.stage) == ("PRECONDITION_FAILED", "early", "execution")
    (cond,) = blank.error.failed_conditions
    assert (cond.kind, cond.observed) == ("page_has_origin", {"url": "about:blank"})
    assert "no origin" in blank.error.message
    away = run(opened("/v13/state/cookies", """\
        - {id: away, kind: set_cookie, cookie: {name: t, value: v, domain: .outside.example}}
        - {id: after, kind: assert, postconditions: [{kind: cookie, args: {name: t, absent: true}}]}
        """))
    assert (away.code, away.error.action_id, away.error.stage) == ("DOMAIN_BLOCKED", "away", "execution")
    assert (away.error.details["host"], away.error.details["stopped_before_request"]) == ("outside.example", True)
    assert not any(e["event_type"] == "action_executed" and e["step_id"] == "away" for e in away.events)
    assert json.dumps(away.error.details["allowlist"]) == '["127.0.0.1"]'
