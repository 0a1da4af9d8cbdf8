"""(v1.3) Numbers and element checks in a real Chromium, against the portal's /v13/numbers cart.

- each number key holds on an element's text, a field's value, an attribute, a storage item, a
  cookie, a response's JSON and header; a saved number passes on as a number (a request's JSON
  body, ``equals``, a bound);
- a value that is not a number fails with that reason, typed POSTCONDITION_FAILED, masked;
- ``element_css``, ``element_in_viewport``, ``element_html_contains`` hold, and fail with what
  was seen (a secret in the inner HTML masked, in every file).
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.support import opened as _opened

pytestmark = pytest.mark.browser

CART = "/v13/numbers"


def opened(*parts: str, **plan_args: str) -> str:
    return _opened(CART, "".join(textwrap.dedent(p) for p in parts), **plan_args)


def failed(r, kind: str) -> list[dict]:
    return [c.model_dump(mode="json") for c in r.error.failed_conditions if c.kind == kind]


def test_number_keys_hold_on_texts_values_attributes_storage_and_responses(run):
    r = run(opened("""\
        - id: read
          kind: assert
          postconditions:
            - {kind: element_text_contains, args: {target: {type: testid, id: items}, greater_than: 2, less_than: 4}}
            - {kind: element_text_contains, args: {target: {type: testid, id: total}, between: [42.5, 42.5]}}
            - {kind: element_text_contains, args: {target: {type: testid, id: items}, one_of: [1, 3, 5]}}
            - {kind: element_text_contains, args: {target: {type: testid, id: status}, one_of: ["N/A", 0]}}
            - {kind: element_value_equals, args: {target: {type: css, selector: "#qty"}, between: ["${vars.low}", 2]}}
            - {kind: element_attr_equals, args: {target: {type: testid, id: stock}, attr: data-stock, greater_than: 9.99}}
            - {kind: storage_item, args: {area: local, key: cart-v13, pointer: /total, greater_than: 40, less_than: 1e2}}
            - {kind: storage_item, args: {area: local, key: visits, one_of: [5]}}
            - {kind: cookie, args: {name: visits, between: [1, 9]}}
        - {id: count, kind: assert, target: {type: testid, id: items}, save_text: before,
           postconditions: [{kind: element_exists}]}
        - id: add
          kind: click
          target: {type: role, role: button, name: Add one}
          postconditions:
            - {kind: element_text_contains, args: {target: {type: testid, id: items}, greater_than: "${saved.before}"}}
            - {kind: element_text_contains, args: {target: {type: testid, id: total}, one_of: ["56.75"]}}
        - id: cart
          kind: request
          method: GET
          url: /v13/numbers/cart.json
          save: {items: /items, total: /total, st: status}
          postconditions:
            - {kind: response_json, args: {pointer: /items, greater_than: 2}}
            - {kind: response_json, args: {pointer: /count_text, between: [7, 7]}}
            - {kind: response_json, args: {pointer: /ids/2, one_of: [103]}}
            - {kind: response_header, args: {name: X-Total-Count, less_than: 4}}
        - id: echo
          kind: request
          method: POST
          url: /v13/numbers/echo
          json: {qty: "${saved.items}", note: "${saved.items} items", all: ["${saved.total}"], st: "${saved.st}"}
          postconditions:
            - {kind: response_json, args: {pointer: /got/qty, equals: 3}}
            - {kind: response_json, args: {pointer: /got/note, equals: "3 items"}}
            - {kind: response_json, args: {pointer: /got/all, equals: [42.5]}}
            - {kind: response_json, args: {pointer: /got/st, equals: 200}}
            - {kind: response_json, args: {pointer: /got/qty, equals: "${saved.items}"}}
            - {kind: response_json, args: {pointer: /got/all/0, greater_than: "${saved.items}"}}
        - id: stored_typed
          kind: assert
          postconditions:
            - {kind: storage_item, args: {area: local, key: cart-v13, pointer: /items, greater_than: "${saved.items}"}}
            - {kind: storage_item, args: {area: local, key: visits, greater_than: "${saved.items}", one_of: ["${saved.total}", 5]}}
        """, extra="vars: {low: \"2\"}\n"))
    assert r.result.status == "passed", r.error and (r.error.message, r.error.failed_conditions)
    versions = {e["step_id"]: e["action_spec"]["schema_version"] for e in r.events if e.get("action_spec")}
    assert (versions["read"], versions["add"], versions["count"]) == ("v1.3", "v1.3", "v1.2")
    saved = {e["step_id"]: e["metadata"]["saved"] for e in r.events if "saved" in (e.get("metadata") or {})}
    assert saved["cart"] == {"items": "3", "total": "42.5", "st": "200"}  # the trace shows text, as in v1.2
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_a_value_that_is_not_a_number_fails_with_the_reason_masked(run):
    r = run(opened("""\
        - {id: count, kind: assert, target: {type: testid, id: status}, save_text: status,
           postconditions: [{kind: element_exists}]}
        - id: check
          kind: assert
          timeout_ms: 1500
          postconditions:
            - {kind: element_text_contains, args: {target: {type: testid, id: status}, greater_than: 0}}
            - {kind: element_text_contains, args: {target: {type: testid, id: items}, less_than: "${saved.status}"}}
            - {kind: element_text_contains, args: {target: {type: testid, id: items}, between: [4, 10], one_of: [3]}}
            - {kind: element_attr_equals, args: {target: {type: testid, id: stock}, attr: data-missing, greater_than: 0}}
            - {kind: cookie, args: {name: visits, greater_than: 5}}
            - {kind: storage_item, args: {area: local, key: cart-v13, less_than: 1}}
            - {kind: element_value_equals, args: {target: {type: css, selector: "#qty"}, one_of: ["02", 3]}}
        """))
    assert (r.code, r.error.action_id, r.error.stage) == ("POSTCONDITION_FAILED", "check", "postcondition")
    texts = [c["observed"] for c in failed(r, "element_text_contains")]
    assert texts == [
        {"count": 1, "text": "N/A", "problem": "the value is not a number"},
        {"count": 1, "text": "3", "problem": "less_than: the bound is not a number", "bound": "N/A"},
        {"count": 1, "text": "3", "failed_checks": ["between"]},
    ]
    (attr,) = failed(r, "element_attr_equals")
    assert attr["observed"] == {"count": 1, "attr": "data-missing", "value": None, "problem": "the attribute is absent"}
    assert failed(r, "cookie")[0]["observed"] == {"value": "5", "failed_checks": ["greater_than"]}
    assert failed(r, "storage_item")[0]["observed"] == {
        "area": "local", "item": '{"items":3,"total":42.5}', "problem": "the value is not a number"}
    assert failed(r, "element_value_equals")[0]["observed"] == {"count": 1, "value": "2", "failed_checks": ["one_of"]}
    assert verify_run(r.run_dir).ok


def test_element_css_viewport_and_html_hold_and_fail_with_what_was_seen(run):
    steps = """\
        - id: looks
          kind: assert
          target: {type: testid, id: badge}
          postconditions:
            - {kind: element_css, args: {property: color, equals: "rgb(255, 0, 0)"}}
            - {kind: element_css, args: {property: background-color, matches: "^rgb\\\\(255, 255, 0"}}
            - {kind: element_css, args: {property: font-weight, equals: "700"}}
            - {kind: element_in_viewport}
            - {kind: element_in_viewport, args: {ratio: 1}}
            - {kind: element_html_contains, args: {target: {type: testid, id: card}, text: "<strong>Sale</strong> ends"}}
        - id: far
          kind: assert
          timeout_ms: 1500
          postconditions:
            - {kind: element_in_viewport, args: {target: {type: testid, id: note}}}
            - {kind: element_css, args: {target: {type: testid, id: note}, property: color, equals: "rgb(255, 0, 0)"}}
            - {kind: element_html_contains, args: {target: {type: testid, id: note}, text: "${secrets.tok}!"}}
            - {kind: element_html_contains, args: {target: {type: css, selector: "p"}, text: VAT}}
        """
    r = run(opened(steps, extra="secrets: {tok: {env: TOK}}\n"), env={"TOK": "include VAT"})
    assert (r.code, r.error.action_id, r.error.stage) == ("POSTCONDITION_FAILED", "far", "postcondition")
    assert failed(r, "element_in_viewport")[0]["observed"] == {"count": 1, "ratio": 0.0}
    assert failed(r, "element_css")[0]["observed"] == {"count": 1, "property": "color", "value": "rgb(0, 0, 0)"}
    html = [c["observed"] for c in failed(r, "element_html_contains")]
    assert html[0]["count"] == 1 and html[0]["html"].startswith("Prices ") and "include VAT" not in html[0]["html"]
    assert html[1]["count"] > 1  # U1: every <p> of the page, not one
    files = r.files()
    assert not [name for name, data in files.items() if b"include VAT" in data]
    versions = {e["step_id"]: e["action_spec"]["schema_version"] for e in r.events if e.get("action_spec")}
    assert versions["looks"] == "v1.3"
