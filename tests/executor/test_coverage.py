"""Passing plans that use every action kind, condition kind and target type."""

from __future__ import annotations

import hashlib

from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.contract.model.actionspec import ACTION_KINDS
from pytest_cometlocal.contract.model.conditions import CONDITION_KINDS
from pytest_cometlocal.contract.model.targets import TARGET_TYPES
from tests.support import DEFAULTS

LOGIN_AND_FORM = """\
name: everything
""" + DEFAULTS + """\
policy: {allow_stop: true, same_state_revisits: 4, hard_cap_steps: 80}  # (v1.2) history moves and a POST revisit pages
clock: {at: "2024-03-01T09:30:00+01:00"}
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
    preconditions: [{kind: host_in_allowlist}, {kind: network_idle}]
    postconditions:
      - {kind: url_is, args: {url: /login}}
      - {kind: title_contains, args: {text: Sign in}}
      - {kind: element_count_equals, args: {target: {type: css, selector: "input[type=password]"}, count: 1}}
  - id: user
    kind: fill
    target: {type: label, text: User name, exact: true}
    value: alice
    preconditions: [{kind: element_visible}, {kind: element_enabled}]
    postconditions: [{kind: element_value_equals, args: {value: alice}}]
  - id: pw
    kind: fill
    target: {type: xpath, selector: "//input[@type='password']"}
    value: demo
  - id: submit
    kind: click
    criticality: critical
    target: [{type: text, text: Sign in, exact: true}, {type: testid, id: login-submit}]
    preconditions: [{kind: element_clickable}, {kind: no_blocking_overlay}]
    postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
  - id: greeting
    kind: assert
    postconditions:
      - {kind: element_exists, args: {target: {type: testid, id: greeting}}}
      - {kind: element_text_contains, args: {target: {type: testid, id: greeting}, text: "Welcome, alice"}, severity: critical}
      - {kind: element_attr_equals, args: {target: {type: role, role: link, name: Export CSV}, attr: href, value: /download/report.csv}}
      - {kind: element_css, args: {target: {type: testid, id: greeting}, property: display, equals: block}}  # v1.3
      - {kind: element_in_viewport, args: {target: {type: testid, id: greeting}}}
      - {kind: element_html_contains, args: {target: {type: testid, id: greeting}, text: "Welcome"}}
  - id: second_report_link
    kind: assert
    metadata: {target_rationale: the dashboard lists the same report twice; the second is the archived view}
    postconditions:
      - {kind: element_attr_equals, args: {target: {type: nth, index: 1, base: {type: role, role: link, name: Reports, exact: true}}, attr: href, value: "/reports?view=2"}}
  - id: export
    kind: click
    target: {type: role, role: link, name: Export CSV, exact: true}
    postconditions: [{kind: download_started, args: {filename: "report\\\\.csv$"}}]
  - id: form
    kind: navigate
    target: {type: url, url: /form}
  - id: loaded  # the form says Ready after a 300 ms timer: the plan's clock stands still until it moves
    kind: advance_clock
    ms: 300
  - id: ready
    kind: wait_for
    target: {type: testid, id: status}
    postconditions: [{kind: element_text_contains, args: {text: Ready}}]
  - id: country
    kind: select
    target: {type: label, text: Country, exact: true}
    value: Spain
    postconditions: [{kind: element_value_equals, args: {value: ES}}]
  - id: attach
    kind: upload
    target: {type: label, text: Attachment, exact: true}
    file_ref: files/invoice.txt
    postconditions: [{kind: upload_completed, args: {text: Uploaded invoice.txt}}]
  - id: subject
    kind: fill
    target: {type: testid, id: subject}
    value: Printer
  - id: send
    kind: click
    target: {type: role, role: button, name: Send request}
    postconditions: [{kind: toast_contains, args: {text: Request sent}}]
  - id: frame
    kind: navigate
    target: {type: url, url: /frame}
  - id: inner
    kind: click
    target: {type: frame, selector: "#inner-frame", inner: {type: testid, id: inner-button}}
    postconditions:
      - {kind: element_text_contains, args: {target: {type: frame, selector: "#inner-frame", inner: {type: testid, id: inner-result}}, text: Inner done}}
  # v1.1: the demo portal's single-page widgets.
  - {id: spa_search, kind: navigate, target: {type: url, url: /spa/search}}
  - id: query
    kind: fill
    target: {type: label, text: Search, exact: true}
    value: dune
  - id: apply
    kind: press
    key: Enter
    preconditions: [{kind: element_focused, args: {target: {type: label, text: Search, exact: true}}}]
    postconditions: [{kind: element_text_contains, args: {target: {type: role, role: status}, text: 'Results for "dune": 2'}}]
  - {id: spa_menu, kind: navigate, target: {type: url, url: /spa/menu}}
  - id: open_menu
    kind: hover
    target: {type: text, text: Products, exact: true}
    postconditions: [{kind: element_visible, args: {target: {type: role, role: menuitem, name: Laptops}}}]
  - id: laptops
    kind: click
    target: {type: role, role: menuitem, name: Laptops}
    click_count: 2
    postconditions: [{kind: element_text_contains, args: {target: {type: role, role: status}, text: "Picked: Laptops"}}]
  - {id: spa_listbox, kind: navigate, target: {type: url, url: /spa/listbox}}
  - id: pick_country
    kind: select
    target: {type: role, role: combobox, name: Country}
    value: New Zealand
    postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: "#chosen"}, text: "Country: New Zealand"}}]
  - {id: spa_toggles, kind: navigate, target: {type: url, url: /spa/toggles}}
  - id: terms
    kind: check
    target: {type: label, text: Accept the terms, exact: true}
    postconditions: [{kind: element_checked}]
  - id: no_news
    kind: uncheck
    target: {type: label, text: Subscribe to the newsletter, exact: true}
    postconditions: [{kind: element_checked, args: {checked: false}}]
  - id: toggles_shown
    kind: assert
    postconditions:
      - {kind: aria_snapshot_matches, args: {target: {type: css, selector: "fieldset"}, snapshot: '- radio "Basic" [checked]'}}
  - id: audits  # (v1.2) the audit conditions: a clean region of the accessibility page, and its picture
    kind: navigate
    target: {type: url, url: /a11y/signup}
    postconditions:
      - {kind: accessibility_clean, args: {target: {type: testid, id: newsletter}}}
      - {kind: screenshot_matches, args: {name: newsletter, target: {type: testid, id: newsletter}}}
  - {id: spa_sortable, kind: navigate, target: {type: url, url: /spa/sortable}}
  - id: ship_first
    kind: drag
    target: {type: testid, id: task-ship}
    to: {type: testid, id: task-write}
    postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: "#order"}, text: "Order: Ship, Write, Review"}}]
  # The grid of /spa/grid renders rows on a timer once scrolling stops, which the plan's clock holds
  # (test_v11_scroll.py scrolls it): this page adds its paragraph on the scroll event itself.
  - {id: long_page, kind: navigate, target: {type: url, url: /v12/clock}}
  - id: to_more
    kind: scroll
    timeout_ms: 20000
    postconditions: [{kind: element_visible, args: {target: {type: testid, id: more}}}]
  - {id: todos, kind: navigate, target: {type: url, url: /v12/todos}}
  - id: todo_text
    kind: fill
    target: {type: label, text: What needs to be done?, exact: true}
    value: Buy milk
    postconditions:
      - {kind: element_value_contains, args: {text: milk}}
      - {kind: element_value_matches, args: {pattern: "^Buy"}}
  - id: add_todo
    kind: press
    key: Enter
    target: {type: label, text: What needs to be done?, exact: true}
    postconditions:
      - {kind: element_texts_equal, args: {target: {type: testid, id: todo-item}, texts: [Buy milk]}}
      - {kind: element_text_matches, args: {target: {type: testid, id: count}, pattern: "^1 item left$"}}
      - {kind: storage_item, args: {area: local, key: todos-v12, pointer: /0/title, equals: Buy milk}}
      - {kind: element_hidden, args: {target: {type: testid, id: empty}}}
  - id: complete
    kind: check
    target: {type: role, role: checkbox, name: Toggle Buy milk}
    postconditions:
      - {kind: element_attr_matches, args: {target: {type: testid, id: todo-item}, attr: class, pattern: "(^| )completed( |$)"}}
  - id: filter_done
    kind: click
    target: {type: role, role: button, name: Completed, exact: true}
    postconditions: [{kind: cookie, args: {name: todo-filter, equals: completed}}]
  - {id: chapters, kind: navigate, target: {type: url, url: /chapters/1}}
  - id: next_chapter
    kind: click
    target: {type: role, role: link, name: Next chapter}
    postconditions: [{kind: url_matches, args: {pattern: "/chapters/2$"}}]
  - id: back
    kind: go_back
    postconditions: [{kind: url_matches, args: {pattern: "/chapters/1$"}}]
  - id: forward
    kind: go_forward
    postconditions: [{kind: url_matches, args: {pattern: "/chapters/2$"}}]
  - id: again
    kind: reload
    postconditions: [{kind: url_matches, args: {pattern: "/chapters/2$"}}]
  - {id: tabs, kind: navigate, target: {type: url, url: /tabs}}
  - id: open_help
    kind: click
    target: {type: role, role: link, name: Open help in a new tab}
    opens: page
    postconditions: [{kind: url_matches, args: {pattern: "/tabs/help$"}}, {kind: page_count_equals, args: {count: 2}}]
  - id: to_first
    kind: switch_page
    page: {index: 0}
    postconditions: [{kind: url_matches, args: {pattern: "/tabs$"}}]
  - id: to_help
    kind: switch_page
    page: {url_matches: "/tabs/help$"}
    postconditions: [{kind: url_matches, args: {pattern: "/tabs/help$"}}]
  - id: close_help
    kind: close_page
    postconditions: [{kind: page_count_equals, args: {count: 1}}]
  - {id: store, kind: navigate, target: {type: url, url: /v13/state/todos}}  # (v1.3) the browser's state
  - id: seed
    kind: set_storage_item
    area: local
    key: todo-1
    value: '{"title": "Seed", "completed": true}'
    postconditions:
      - {kind: storage_items, args: {area: local, key_matches: "^todo-", where: {pointer: /completed, equals: true}, count: 1}}
  - id: forget
    kind: clear_storage
    area: session
    postconditions: [{kind: storage_equals, args: {area: session, equals: {}}}]
  - id: flavour
    kind: set_cookie
    cookie: {name: flavour, value: mint}
    postconditions: [{kind: cookie_count, args: {name: flavour, count: 1}}]
  - id: no_flavour
    kind: clear_cookies
    cookie: {name: flavour}
    postconditions: [{kind: cookie_count, args: {name: flavour, count: 0}}]
  - {id: actions, kind: navigate, target: {type: url, url: /v13/actions}}  # (v1.3) the actions
  - id: focus_name
    kind: focus
    target: {type: label, text: Name, exact: true}
    postconditions: [{kind: element_focused}]
  - id: blur_name
    kind: blur
    target: {type: label, text: Name, exact: true}
    postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: focus-status}, text: blurred name}}]
  - id: submit_signup
    kind: dispatch_event
    event: submit
    target: {type: role, role: form, name: Signup}
    postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: event-status}, text: submit}}]
  - id: narrow
    kind: set_viewport
    viewport: {width: 800, height: 600}
  - {id: notes, kind: navigate, target: {type: url, url: /v13/traffic}}  # (v1.3) the page's own requests
  - id: save_note
    kind: click
    target: {type: role, role: button, name: Save note, exact: true}
    postconditions:
      - {kind: element_text_contains, args: {target: {type: testid, id: status}, text: note}}
      - {kind: request_seen, args: {url: "**/v13/api/notes", method: POST}}
  - id: api_call  # (v1.2) an HTTP call through the context's client; the portal's upload answers JSON
    kind: request
    method: POST
    url: /upload
    headers: {X-Filename: note.txt}
    body: hello
    save: {stored: /name}
    postconditions:
      - {kind: response_status, args: {status: [200, 201]}}
      - {kind: response_json, args: {pointer: /size, equals: 5}}
      - {kind: response_header, args: {name: content-type, matches: json}}
  - id: tick
    kind: advance_clock
    ms: 1000
  - id: done
    kind: stop
"""

NEWSLETTER_PICTURE = """\
name: newsletter picture
""" + DEFAULTS + """\
steps:
  - id: audits
    kind: navigate
    target: {type: url, url: /a11y/signup}
    timeout_ms: 1500
    postconditions:
      - {kind: screenshot_matches, args: {name: newsletter, target: {type: testid, id: newsletter}}}
"""


def test_every_kind_condition_and_target_in_one_passing_plan(run, tmp_path):
    files = tmp_path / "plans" / "files"
    files.mkdir(parents=True)
    (files / "invoice.txt").write_bytes(b"Invoice 1\n")
    # screenshot_matches's baseline: the would-be baseline of a first run without one, reviewed as-is.
    first = run(NEWSLETTER_PICTURE)
    assert first.error is not None and first.error.details["baseline"] == "missing", first.error
    (would_be,) = [e["uri"] for e in first.evidence["files"] if e["metadata"].get("role") == "would_be_baseline"]
    baseline = tmp_path / "plans" / first.error.details["baseline_file"]
    baseline.parent.mkdir(parents=True, exist_ok=True)
    baseline.write_bytes((first.run_dir / would_be).read_bytes())
    r = run(LOGIN_AND_FORM)
    assert r.error is None, r.error
    assert r.result.status == "stopped"

    spec = [e["action_spec"] for e in r.events if e["event_type"] == "proposal_received"]
    kinds = {s["kind"] for s in spec}
    assert kinds == set(ACTION_KINDS)
    used_conditions = {c["kind"] for s in spec for phase in ("preconditions", "postconditions") for c in s[phase]}
    assert used_conditions == set(CONDITION_KINDS)

    def target_types(t):
        if isinstance(t, list):
            for x in t:
                yield from target_types(x)
        elif isinstance(t, dict):
            yield t["type"]
            for key in ("inner", "base"):
                if key in t:
                    yield from target_types(t[key])

    used_targets = set()
    for s in spec:
        used_targets.update(target_types(s.get("target")))
        for phase in ("preconditions", "postconditions"):
            for c in s[phase]:
                used_targets.update(target_types(c.get("args", {}).get("target")))
    assert used_targets == set(TARGET_TYPES)

    # Alternatives: the testid alternative wins over text (U4), and every attempt is traced.
    checked = next(e for e in r.events if e["event_type"] == "preconditions_checked" and e["step_id"] == "submit")
    resolution = checked["metadata"]["target_resolution"]
    assert resolution["resolved"] == "get_by_test_id('login-submit')"

    # The download is in the evidence with its hash.
    downloads = [f for f in r.evidence["files"] if f["kind"] == "download"]
    assert len(downloads) == 1
    data = (r.run_dir / downloads[0]["uri"]).read_bytes()
    assert data == b"id,amount\n1,120.00\n" and hashlib.sha256(data).hexdigest() == downloads[0]["sha256"]

    # The upload was inspected first.
    inspected = next(e for e in r.events if e["event_type"] == "inspection_finished")
    assert inspected["metadata"]["status"] == "ok"
    assert inspected["metadata"]["doc_hash"] == hashlib.sha256(b"Invoice 1\n").hexdigest()

    # Every evidence file is listed with its hash; critical steps carry the extended pack.
    for entry in r.evidence["files"]:
        assert hashlib.sha256((r.run_dir / entry["uri"]).read_bytes()).hexdigest() == entry["sha256"]
    submit_kinds = {f["kind"] for f in r.evidence["files"] if f["step_id"] == "submit"}
    assert {"dom_snapshot_partial", "html_full", "screenshot"} <= submit_kinds

    # The step sequence of a normal step is the contract's.
    assert r.types("user") == [
        "observation_captured", "proposal_received", "proposal_accepted", "action_compiled",
        "preconditions_checked", "action_started", "action_executed", "postconditions_checked", "evidence_captured",
    ]
    assert r.types("greeting")[-2] == "assert_checked"
    assert verify_run(r.run_dir).ok


def test_warning_condition_is_recorded_not_failed(run):
    r = run("name: warn\n" + DEFAULTS + """\
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
    postconditions: [{kind: title_contains, args: {text: Absent}, severity: warning}]
""")
    assert r.error is None
    warned = [e for e in r.events if e["event_type"] == "postconditions_checked" and e["metadata"].get("warnings")]
    assert warned[0]["metadata"]["warnings"][0]["observed"] == {"title": "Sign in"}
