"""The v1.2 checks in a real Chromium, against the portal's /v12/todos and /v12/panel.

Each condition holds where the page makes it true, and fails with the right code (by phase)
and with what was seen in ``failed_conditions[].observed``, masked and cut. Role targets'
filters change which elements match, and U1 is judged after them.
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_text
from pytest_cometlocal.runs.verify import verify_run
from tests.support import opened as _opened

INPUT = "{type: label, text: What needs to be done?, exact: true}"


def add(title: str, n: int) -> str:
    """Steps that type ``title`` into the new-todo field and press Enter."""
    return (f"- {{id: type{n}, kind: fill, target: {INPUT}, value: \"{title}\"}}\n"
            f"- {{id: add{n}, kind: press, key: Enter, target: {INPUT}}}\n")


TWO = add("Buy milk", 1) + add("Walk the dog", 2)


def opened(url: str, *parts: str, **plan_args: str) -> str:
    """``tests.support.opened`` with steps written in several pieces, each dedented on its own."""
    return _opened(url, "".join(textwrap.dedent(p) for p in parts), **plan_args)


def failed(r, kind: str) -> dict:
    (cond,) = [c for c in r.error.failed_conditions if c.kind == kind]
    return cond.model_dump(mode="json")


def test_the_todo_checks_hold_as_the_page_changes(run):
    r = run(opened("/v12/todos", """\
        - id: empty
          kind: assert
          postconditions:
            - {kind: element_hidden, args: {target: {type: css, selector: "#footer"}}}
            - {kind: element_hidden, args: {target: {type: css, selector: ".no-such-thing"}}}
            - {kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: []}}
        """, TWO, """\
        - id: stored
          kind: assert
          postconditions:
            - {kind: storage_item, args: {area: local, key: todos-v12}}
            - {kind: storage_item, args: {area: local, key: todos-v12, pointer: "", length: 2}}
            - {kind: storage_item, args: {area: local, key: todos-v12, pointer: /0/title, equals: Buy milk}}
            - {kind: storage_item, args: {area: local, key: todos-v12, pointer: /1, equals: {title: Walk the dog, completed: false}}}
            - {kind: storage_item, args: {area: local, key: todos-v12, matches: '"completed":false.*"completed":false'}}
            - {kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: [Buy milk, "/Walk .+/"]}}
            - {kind: element_text_matches, args: {target: {type: testid, id: count}, pattern: '^2 items left$'}}
            - {kind: element_hidden, args: {target: {type: testid, id: empty}}}
            - {kind: element_hidden, args: {target: {type: role, role: button, name: Clear completed}}}
            - {kind: element_visible, args: {target: {type: css, selector: "#footer"}}}
        - id: done
          kind: check
          target: {type: label, text: Toggle Buy milk, exact: true}
          postconditions:
            - {kind: element_attr_matches, args: {target: {type: css, selector: "li:first-child"}, attr: class, pattern: "(^| )completed( |$)"}}
            - {kind: element_attr_matches, args: {target: {type: css, selector: "li:nth-child(2)"}, attr: class, pattern: "^(?!.*(^| )completed( |$))"}}
            - {kind: element_attr_matches, args: {target: {type: css, selector: "li:nth-child(2)"}, attr: title, pattern: "^$"}}
            - {kind: storage_item, args: {area: local, key: todos-v12, pointer: /0/completed, equals: true}}
            - {kind: element_text_matches, args: {target: {type: testid, id: count}, pattern: '^1 item left$'}}
            - {kind: element_visible, args: {target: {type: role, role: button, name: Clear completed}}}
        - id: active
          kind: click
          target: {type: role, role: button, name: Active, exact: true}
          postconditions:
            - {kind: cookie, args: {name: todo-filter, equals: active}}
            - {kind: cookie, args: {name: todo-filter, matches: "^act"}}
            - {kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: [Walk the dog]}}
        - id: reload_keeps_them
          kind: navigate
          target: {type: url, url: /v12/todos}
          postconditions:
            - {kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: [Buy milk, Walk the dog]}}
            - {kind: cookie, args: {name: todo-filter}}
        """))
    assert r.result.status == "passed", r.error and r.error.message
    versions = {e["step_id"]: e["action_spec"]["schema_version"] for e in r.events if e.get("action_spec")}
    assert (versions["stored"], versions["add1"], versions["type1"]) == ("v1.2", "v1.1", "v1")
    assert r.manifest["format_versions"] == ["v1", "v1.1", "v1.2"]
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


# (condition in the last step, what observed must be); the page holds two items, none done.
FAILURES = [
    ("{kind: storage_item, args: {area: local, key: todos-v12, pointer: /2/title}}",
     {"area": "local", "item": '[{"title":"Buy milk","completed":false},{"title":"Walk the dog","completed":false}]',
      "problem": "the pointer names nothing in the item"}),
    ("{kind: storage_item, args: {area: local, key: todos-v12, pointer: '', length: 3}}",
     {"area": "local", "item": '[{"title":"Buy milk","completed":false},{"title":"Walk the dog","completed":false}]',
      "value": '[{"title":"Buy milk","completed":false},{"title":"Walk the dog","completed":false}]', "length": 2}),
    ("{kind: storage_item, args: {area: session, key: todos-v12}}",
     {"area": "session", "item": None, "problem": "no such item in the page's origin"}),
    ("{kind: storage_item, args: {area: local, key: todos-v12, pointer: /0/completed, equals: 0}}",
     {"area": "local", "item": '[{"title":"Buy milk","completed":false},{"title":"Walk the dog","completed":false}]',
      "value": "false"}),
    ("{kind: cookie, args: {name: todo-filter}}", {"value": None, "cookies": []}),
    ("{kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: [Buy milk]}}",
     {"count": 2, "texts": ["Buy milk", "Walk the dog"]}),
    ("{kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: [Buy milk, /Walk/]}}",
     {"count": 2, "texts": ["Buy milk", "Walk the dog"]}),
    ("{kind: element_hidden, args: {target: {type: testid, id: todo-item}}}", {"count": 2, "visible": 2}),
    ("{kind: element_text_matches, args: {target: {type: testid, id: count}, pattern: '^1 item'}}",
     {"count": 1, "text": "2 items left"}),
    ("{kind: element_attr_matches, args: {target: {type: css, selector: 'li:first-child'}, attr: class, pattern: completed}}",
     {"count": 1, "attr": "class", "value": None}),
    ("{kind: element_value_contains, args: {target: " + INPUT + ", text: milk}}", {"count": 1, "value": ""}),
    ("{kind: element_value_matches, args: {target: " + INPUT + ", pattern: '.'}}", {"count": 1, "value": ""}),
]


@pytest.mark.parametrize(("condition", "observed"), FAILURES, ids=[f[0].split(",")[0][8:] + str(i) for i, f in enumerate(FAILURES)])
def test_a_check_that_does_not_hold_fails_with_what_was_seen(run, condition: str, observed: dict):
    r = run(opened("/v12/todos", TWO, f"""\
        - {{id: check, kind: assert, timeout_ms: 1500, postconditions: [{condition}]}}
        """))
    assert (r.code, r.error.action_id, r.error.stage) == ("POSTCONDITION_FAILED", "check", "postcondition")
    kind = condition.split(",")[0].split(": ")[1]
    assert failed(r, kind)["observed"] == observed
    assert "suggestions" not in r.error.details  # a count is what these check, not a wrong target


def test_a_check_in_the_preconditions_is_precondition_failed(run):
    r = run(opened("/v12/todos", """\
        - id: clear
          kind: click
          timeout_ms: 1500
          target: {type: css, selector: "#clear"}
          preconditions: [{kind: storage_item, args: {area: local, key: todos-v12, pointer: /0/completed, equals: true}}]
        """))
    assert (r.code, r.error.action_id) == ("PRECONDITION_FAILED", "clear")
    assert failed(r, "storage_item")["observed"] == {"area": "local", "item": None,
                                                   "problem": "no such item in the page's origin"}


def test_a_stored_secret_is_masked_and_a_long_item_is_cut(run):
    long_title = "x" * 3000
    r = run(opened("/v12/todos", add("${secrets.pw}", 1) + add(long_title, 2), """\
        - id: check
          kind: assert
          timeout_ms: 1500
          postconditions:
            - {kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: [a, b]}}
        - id: never
          kind: assert
        """, extra="secrets: {pw: {env: PW}}\n"), env={"PW": "Zebra-7731-qx"})
    observed = failed(r, "element_texts_equal")["observed"]
    assert observed["texts"][0] == "[secret:pw]" or "Zebra" not in observed["texts"][0]
    assert "Zebra-7731-qx" not in observed["texts"][0] and len(observed["texts"][1].encode()) <= 2048
    assert observed["texts"][1].endswith("(truncated)")
    assert "Zebra-7731-qx" not in (r.run_dir / "trace.jsonl").read_text()


def test_a_failed_check_says_why_before_the_cut_in_the_failure_text_and_in_show(run, tmp_path):
    """Three stored to-dos (one the secret, one long): the pointer names nothing. The item is printed after the
    reason, so pytest's 160-character and show's 140-character cuts fall on it, not on the explanation."""
    from pytest_cometlocal.plugin.reporting.report import failure_text
    from pytest_cometlocal.runs.show import show_run
    from tests.support import only_valid

    text = opened("/v12/todos", add("${secrets.pw}", 1) + add("Walk the dog " * 20, 2) + add("Buy milk", 3), """\
        - id: check
          kind: assert
          timeout_ms: 1500
          postconditions: [{kind: storage_item, args: {area: local, key: todos-v12, pointer: /3/title, equals: Bread}}]
        """, extra="secrets: {pw: {env: PW}}\n")
    r = run(text, env={"PW": "Zebra-7731-qx"})
    assert failed(r, "storage_item")["observed"]["problem"] == "the pointer names nothing in the item"
    path = tmp_path / "plans" / "t.actions.yaml"
    plan = only_valid(validate_text(path.read_bytes(), ValidationContext(root=tmp_path, plan_path=path,
                                                                          env={"PW": "Zebra-7731-qx"}),
                                    file="plans/t.actions.yaml"))
    reported = failure_text(plan, r.error, r.run_dir)
    shown = show_run(r.run_dir)
    for out, prefix in ((reported, "  failed assert check "), (shown, "    failed assert check ")):
        (line,) = [ln for ln in out.splitlines() if ln.startswith(prefix)]
        assert line.startswith(prefix + "storage_item: the pointer names nothing in the item — expected "), line
        expected = line.index('"equals": "Bread"')
        assert line.index(" — seen ") > expected and "…" in line, line  # the long item is cut, after the reason
        assert "Zebra-7731-qx" not in out


# -- role targets' filters ----------------------------------------------------------


def test_role_filters_change_the_matches_and_u1_is_judged_after_them(run):
    r = run(opened("/v12/panel", """\
        - id: levels
          kind: assert
          postconditions:
            - {kind: element_count_equals, args: {target: {type: role, role: heading}, count: 4}}
            - {kind: element_count_equals, args: {target: {type: role, role: heading, level: 2}, count: 2}}
            - {kind: element_text_contains, args: {target: {type: role, role: heading, level: 3}, text: Advanced}}
            - {kind: element_count_equals, args: {target: {type: role, role: checkbox}, count: 3}}
            - {kind: element_count_equals, args: {target: {type: role, role: checkbox, checked: true}, count: 1}}
            - {kind: element_count_equals, args: {target: {type: role, role: checkbox, disabled: true}, count: 1}}
            - {kind: element_count_equals, args: {target: {type: role, role: paragraph}, count: 0}}
            - {kind: element_count_equals, args: {target: {type: role, role: paragraph, include_hidden: true}, count: 1}}
            - {kind: element_exists, args: {target: {type: role, role: tab, selected: true, name: Day}}}
        - id: sms
          kind: click
          target: {type: role, role: checkbox, checked: false, disabled: false}
          postconditions: [{kind: element_count_equals, args: {target: {type: role, role: checkbox, checked: true}, count: 2}}]
        - id: more
          kind: click
          target: {type: role, role: button, expanded: false}
          postconditions:
            - {kind: element_exists, args: {target: {type: role, role: button, expanded: true, name: More options}}}
            - {kind: element_visible, args: {target: {type: role, role: paragraph}}}
        - id: mute
          kind: click
          target: {type: role, role: button, pressed: false, name: Mute}
          postconditions: [{kind: element_exists, args: {target: {type: role, role: button, pressed: true, name: Mute}}}]
        - id: week
          kind: click
          target: {type: role, role: tab, selected: false}
          postconditions: [{kind: element_text_contains, args: {target: {type: role, role: tab, selected: true}, text: Week}}]
        - id: work
          kind: click
          target: {type: role, role: button, name: Use work address}
          postconditions:
            - {kind: element_value_contains, args: {target: {type: label, text: Email, exact: true}, text: "@work."}}
            - {kind: element_value_matches, args: {target: {type: label, text: Email, exact: true}, pattern: '^ada\\.lovelace@'}}
        """))
    assert r.result.status == "passed", r.error and (r.error.action_id, r.error.message)
    compiled = [e["metadata"]["compiled"] for e in r.events if e["event_type"] == "action_compiled" and e["step_id"] == "sms"]
    assert compiled[0] == ["get_by_role('checkbox', checked=False, disabled=False)"]


def test_without_the_filter_the_same_role_is_not_unique(run):
    r = run(opened("/v12/panel", """\
        - {id: sms, kind: click, timeout_ms: 1500, target: {type: role, role: checkbox, disabled: false}}
        """))
    assert (r.code, r.error.action_id) == ("TARGET_NOT_UNIQUE", "sms")


def test_a_filter_that_leaves_nothing_is_target_not_found_with_a_suggestion_by_name(run):
    r = run(opened("/v12/panel", """\
        - {id: mute, kind: click, timeout_ms: 1500, target: {type: role, role: button, name: Mute, pressed: true}}
        """))
    assert (r.code, r.error.action_id) == ("TARGET_NOT_FOUND", "mute")
    assert r.error.details["attempts"][0]["compiled"] == "get_by_role('button', name='Mute', pressed=True)"
    suggested = [s["target"] for s in r.error.details["suggestions"]]
    assert {"type": "role", "role": "button", "name": "Mute", "exact": True} in suggested, suggested
