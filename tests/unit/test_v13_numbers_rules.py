"""(v1.3) Numbers and element checks without a browser: reading a value as a number, ``compare_number``,
rule NUMBER (and SCHEMA / INTERPOLATION / REGEX) located in the plan's text, typed ``${saved.X}``,
format_version, describe_condition and the importer's rows.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from pytest_cometlocal.contract.json_values import compare
from pytest_cometlocal.contract.model.actionspec import V13_ARG_KEYS, V13_CONDITION_KINDS, format_version
from pytest_cometlocal.contract.model.conditions import ELEMENT_KINDS, CookieArgs, describe_condition
from pytest_cometlocal.contract.model.checks.numbers import NUMBER_KEYS, NumberChecks
from pytest_cometlocal.contract.numbers import compare_number, read_number
from pytest_cometlocal.executor.http import saves
from pytest_cometlocal.executor.http.saved import SavedValues
from pytest_cometlocal.executor.http.exchange import HttpResponse
from tests.support import mark_at, only, only_problems, only_valid, plan


@pytest.mark.parametrize("value, number", [
    ("3", Decimal(3)), (" -4.50 \n", Decimal("-4.50")), ("+.5", Decimal("0.5")), ("1e3", Decimal(1000)),
    ("2.", Decimal(2)), ("1E-2", Decimal("0.01")), (7, Decimal(7)), (0.1, Decimal("0.1")),
    (12345678901234567890, Decimal(12345678901234567890)),
])
def test_a_number_is_read_from_its_whole_text_or_as_a_json_number(value, number):
    assert read_number(value) == number


@pytest.mark.parametrize("value", ["", "1,234", "$5", "5 items", "inf", "NaN", "Infinity", "0x10", "1e", ".", "-",
                                   "١٢", True, False, None, [1], {"a": 1}, float("inf"), float("nan")])
def test_anything_else_is_not_a_number(value):
    assert read_number(value) is None


def checks(**keys) -> NumberChecks:
    return NumberChecks(**keys)


@pytest.mark.parametrize("value, keys, ok, extra", [
    ("5", {"greater_than": 4}, True, {}),
    ("5", {"greater_than": 5}, False, {"failed_checks": ["greater_than"]}),
    (5, {"less_than": "5.01"}, True, {}),
    ("0.3", {"between": [0.3, "0.3"]}, True, {}),  # decimal: 0.3 is 0.3
    ("11", {"between": [1, 10], "greater_than": 20}, False, {"failed_checks": ["greater_than", "between"]}),
    ("2", {"one_of": [1, 2.0]}, True, {}),
    ("N/A", {"one_of": ["N/A", 0]}, True, {}),  # a string entry is the text, exactly
    ("n/a", {"one_of": ["N/A", 0]}, False, {"problem": "the value is not a number", "failed_checks": ["one_of"]}),
    ("n/a", {"one_of": ["N/A"]}, False, {"failed_checks": ["one_of"]}),  # strings only: no number needed
    ("abc", {"less_than": 3}, False, {"problem": "the value is not a number"}),
    ("3", {"less_than": "${saved.x}"}, False, {"problem": "less_than: the bound is not a number",
                                               "bound": "${saved.x}"}),
    (3, {"greater_than": 1, "less_than": 4, "between": [3, 3], "one_of": [3]}, True, {}),  # a count
    ("5", {}, True, {}),
])
def test_compare_number(value, keys, ok, extra):
    assert compare_number(value, checks(**keys)) == (ok, extra)


def test_json_values_compare_takes_the_number_keys_instead():
    args = CookieArgs(name="n", greater_than=2)
    assert compare("3", args) == (True, {})
    assert compare(True, args) == (False, {"problem": "the value is not a number"})
    assert V13_ARG_KEYS >= set(NUMBER_KEYS)
    assert {"element_css", "element_in_viewport", "element_html_contains"} <= V13_CONDITION_KINDS & ELEMENT_KINDS


NUMBERS = '''\
- id: read
  kind: assert
  target: {type: testid, id: total}
  postconditions:
    - {kind: element_text_contains, args: {greater_than: "${vars.low}", less_than: 1e3}}
    - {kind: element_value_equals, args: {target: {type: css, selector: "#qty"}, between: [1, 9]}}
    - {kind: storage_item, args: {area: local, key: cart, pointer: /n, one_of: [1, "many"]}}
    - {kind: element_css, args: {property: background-color, equals: "rgb(255, 0, 0)"}}
    - {kind: element_in_viewport, args: {ratio: 0.5}}
    - {kind: element_html_contains, args: {text: "<b>"}}
- {id: plain, kind: assert, target: {type: testid, id: total}, postconditions: [{kind: element_text_contains, args: {text: "4"}}]}
'''


def test_a_plan_with_numbers_and_element_checks_validates_and_is_v13(validate):
    steps = only_valid(validate(plan(NUMBERS, extra="vars: {low: \"3\"}\n"))).plan.steps
    assert [format_version(s) for s in steps] == ["v1.3", "v1"]
    described = [describe_condition(c, steps[0].target) for c in steps[0].postconditions]
    assert described == [
        "element_text_contains (testid=total, greater_than=3, less_than=1000.0)",
        "element_value_equals (css=#qty, between=[1, 9])",
        "storage_item (area=local, key=cart, pointer=/n, one_of=[1, 'many'])",
        "element_css (testid=total, property=background-color, equals=rgb(255, 0, 0))",
        "element_in_viewport (testid=total, ratio=0.5)",
        "element_html_contains (testid=total, text=<b>)",
    ]


def _one(condition: str) -> str:
    return f"- {{id: s, kind: assert, target: {{type: testid, id: x}}, postconditions: [{condition}]}}\n"


@pytest.mark.parametrize("condition, at, rule, key, message", [
    ("{kind: element_text_contains, args: {text: a, greater_than: 1}}", "greater_than: ^1", "NUMBER",
     "steps[0].postconditions[0].args.greater_than",
     "element_text_contains takes text or number checks (greater_than, less_than, between, one_of), not both"),
    ("{kind: storage_item, args: {area: local, key: k, equals: '1', one_of: [1]}}", "one_of: ^[1]", "NUMBER",
     "steps[0].postconditions[0].args.one_of", None),
    ("{kind: element_value_equals, args: {between: [5, 1]}}", "between: ^[5", "NUMBER",
     "steps[0].postconditions[0].args.between", "between's low (5) is above its high (1): nothing is between them"),
    ("{kind: element_attr_equals, args: {attr: a, less_than: 'ten'}}", "^'ten'", "NUMBER",
     "steps[0].postconditions[0].args.less_than", None),
    ("{kind: cookie, args: {name: n, one_of: [1, '${secrets.pw}']}}", "^'${secrets", "INTERPOLATION",
     "steps[0].postconditions[0].args.one_of[1]", None),
    ("{kind: element_text_contains, args: {}}", "^{}", "SCHEMA", "steps[0].postconditions[0].args.text",
     "required key 'text' is missing (or, v1.3, a number check: greater_than, less_than, between, one_of)"),
    ("{kind: element_css, args: {property: backgroundColor, equals: x}}", "^backgroundColor", "SCHEMA",
     "steps[0].postconditions[0].args.property", None),
    ("{kind: element_css, args: {property: color, matches: '('}}", "^'('", "REGEX",
     "steps[0].postconditions[0].args.matches", None),
    ("{kind: element_in_viewport, args: {ratio: 1.5}}", "^1.5", "SCHEMA",
     "steps[0].postconditions[0].args.ratio", None),
])
def test_a_number_or_element_check_mistake_is_located_at_its_key(validate, condition, at, rule, key, message):
    text = plan(_one(condition), extra="secrets: {pw: {env: PW}}\n")
    line, col = mark_at(text, at)
    only(only_problems(validate(text, env={"PW": "x"})), rule, key, line, col, message)


def test_an_element_check_without_a_target_on_a_step_without_one_is_condition_target(validate):
    text = plan("- {id: s, kind: assert, postconditions: [{kind: element_in_viewport}]}\n")
    only(only_problems(validate(text)), "CONDITION_TARGET", "steps[0].postconditions[0]",
         mark_at(text, "element_in_viewport")[0])


def test_a_bound_from_vars_must_be_a_number_at_load(validate):
    text = plan(_one("{kind: element_text_contains, args: {greater_than: \"${vars.n}\"}}"), extra="vars: {n: many}\n")
    only(only_problems(validate(text)), "NUMBER", "steps[0].postconditions[0].args.greater_than",
         mark_at(text, "greater_than")[0])


def _response(body: bytes = b'{"id": 7, "price": 4.5, "name": "x"}') -> HttpResponse:
    return HttpResponse(url="http://h/api", status=201, headers=[("location", "/api/7")], body=body)


TYPED = '''\
- {id: get, kind: request, method: GET, url: /api, save: {id: /id, price: /price, name: /name, st: status, loc: "header:Location"}}
- id: post
  kind: request
  method: POST
  url: "/api/${saved.id}?p=${saved.price}"
  json: {id: "${saved.id}", all: ["${saved.price}", "${saved.name}", "${saved.st}"], text: "n${saved.id}"}
  postconditions:
    - {kind: response_json, args: {pointer: /id, equals: "${saved.id}", }}
    - {kind: response_json, args: {pointer: /p, greater_than: "${saved.price}", one_of: ["${saved.name}", "${saved.id}"]}}
    - {kind: response_header, args: {name: X-Id, equals: "${saved.id}"}}
'''


def test_a_whole_saved_reference_keeps_the_json_type_where_any_value_is_taken(validate):
    steps = only_valid(validate(plan(TYPED))).plan.steps
    values, missing = saves.take(_response(), steps[0].save)
    assert missing is None and values == {"id": 7, "price": 4.5, "name": "x", "st": 201, "loc": "/api/7"}
    store = SavedValues()
    store.keep(values)
    post = store.apply(steps[1])
    assert post.url == "/api/7?p=4.5"  # text, inside a longer string
    assert post.json_body == {"id": 7, "all": [4.5, "x", 201], "text": "n7"}
    eq, num, header = (c.args for c in post.postconditions)
    assert eq.equals == 7 and (num.greater_than, num.one_of) == (4.5, ["x", 7])
    assert header.equals == "7"  # a header is text
    assert store.values == {"id": "7", "price": "4.5", "name": "x", "st": "201", "loc": "/api/7"}


GO = {"type": "testid", "id": "go"}


@pytest.mark.parametrize("check, condition", [
    ('expect(page.get_by_test_id("go")).to_have_css("color", "rgb(255, 0, 0)")',
     {"kind": "element_css", "args": {"target": GO, "property": "color", "equals": "rgb(255, 0, 0)"}}),
    ('expect(page.get_by_test_id("go")).to_have_css("background-color", re.compile("^rgb"))',
     {"kind": "element_css", "args": {"target": GO, "property": "background-color", "matches": "^rgb"}}),
    ('expect(page.get_by_test_id("go")).to_be_in_viewport()', {"kind": "element_in_viewport", "args": {"target": GO}}),
    ('expect(page.get_by_test_id("go")).to_be_in_viewport(ratio=0.5)',
     {"kind": "element_in_viewport", "args": {"target": GO, "ratio": 0.5}}),
])
def test_the_look_checks_are_imported(tmp_path, check, condition):
    from tests.planners.test_codegen_import import GOTO, imported

    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("go").click()\n' + check)
    assert code == 0, plan
    assert plan["steps"][-1]["postconditions"][-1] == condition


@pytest.mark.parametrize("call", [
    'expect(page.get_by_test_id("go")).to_have_css("backgroundColor", "red")',
    'expect(page.get_by_test_id("go")).to_be_in_viewport(ratio=2)',
])
def test_a_look_check_the_plan_cannot_say_is_reported(tmp_path, capsys, call):
    from tests.planners.test_codegen_import import GOTO, imported

    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("go").click()\n' + call)
    assert code == 1 and plan is None
    assert "not imported: expect(locator)." in capsys.readouterr().err


def test_a_failed_number_check_says_which_in_its_line():
    from pytest_cometlocal.contract.failure_lines import reason_of

    assert reason_of("cookie", {"value": "5", "failed_checks": ["greater_than"]}) == \
        "the number is not greater than the bound"
    assert reason_of("element_text_contains", {"count": 1, "text": "N/A", "problem": "the value is not a number"}) == \
        "the value is not a number"
    assert reason_of("element_css", {"count": 2}) == "the target matches 2 elements, not one"


def test_the_mcp_propose_description_names_the_number_keys_and_element_checks():
    from pytest_cometlocal.agent.server import PROPOSE_DESCRIPTION

    assert all(name in PROPOSE_DESCRIPTION for name in (*NUMBER_KEYS, "element_css", "element_in_viewport",
                                                        "element_html_contains"))


# -- (v1.3) counts take the number keys too: element_count_equals, cookie_count, storage_items, request_seen


@pytest.mark.parametrize("condition", [
    "{kind: element_count_equals, args: {target: {type: css, selector: li}, greater_than: 2}}",
    "{kind: cookie_count, args: {name: sid, between: [1, 3]}}",
    "{kind: storage_items, args: {area: local, key_matches: ^todo-, where: {pointer: /done, equals: true}, less_than: 3}}",
    "{kind: storage_items, args: {area: local, key_matches: ^todo-, every: {pointer: /price, greater_than: 0}}}",
    "{kind: request_seen, args: {url: '**/api', one_of: [1, 2]}}",
])
def test_a_count_takes_the_number_keys_and_the_step_is_v1_3(validate, condition):
    valid = only_valid(validate(plan(f"""\
        - id: a
          kind: assert
          postconditions: [{condition}]
        """)))
    assert format_version(valid.plan.steps[0]) == "v1.3"


@pytest.mark.parametrize("condition, key", [
    ("{kind: element_count_equals, args: {target: {type: css, selector: li}, count: 2, greater_than: 2}}",
     "args.greater_than"),
    ("{kind: cookie_count, args: {count: 1, less_than: 3}}", "args.less_than"),
    ("{kind: storage_items, args: {area: local, key_matches: ^t, count: 1, one_of: [1]}}", "args.one_of"),
    ("{kind: storage_items, args: {area: local, key_matches: ^t, where: {pointer: /n, greater_than: x}}}",
     "args.where.greater_than"),
    ("{kind: request_seen, args: {url: '**/api', count: 1, between: [0, 2]}}", "args.between"),
])
def test_a_count_and_a_number_key_together_or_a_bad_bound_is_rule_number_located(validate, condition, key):
    (problem,) = only_problems(validate(plan(f"""\
        - id: a
          kind: assert
          postconditions: [{condition}]
        """))).problems
    assert problem.rule == "NUMBER" and problem.key_path.endswith(f"postconditions[0].{key}"), problem


def test_element_count_equals_still_needs_count_or_a_number_key(validate):
    (problem,) = only_problems(validate(plan("""\
        - id: a
          kind: assert
          postconditions: [{kind: element_count_equals, args: {target: {type: css, selector: li}}}]
        """))).problems
    assert problem.rule == "SCHEMA" and problem.key_path.endswith("args.count"), problem
