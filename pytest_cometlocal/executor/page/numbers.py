"""(v1.3) The element checks that compare a text, a value or an attribute, with the number keys.

``element_text_contains``, ``element_value_equals`` and ``element_attr_equals``:
their v1 comparison (``text`` contained, ``value`` equal), or, when the
condition writes number keys instead (contract/model/numbers.py), the text /
value / attribute read as a number and checked (contract/numbers.py's
``compare_number``). Rows of page/conditions.py's ``EVALUATORS`` through its
``_on_element`` (exactly one element, U1): ``(locator, args, ctx) -> (holds,
observed)``. What a number check's failure shows is masked and cut as texts are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.contract.model.numbers import number_keys
from pytest_cometlocal.contract.numbers import compare_number
from pytest_cometlocal.executor.page.texts import element_text, element_value, normalize, seen, shown_values

if TYPE_CHECKING:
    from playwright.sync_api import Locator

    from pytest_cometlocal.executor.page.conditions import CheckContext


def _numbers(value: str | None, args: Any, ctx: CheckContext) -> tuple[bool, dict[str, Any]]:
    """The number keys on a text read from the page (an absent attribute is not a number)."""
    ok, more = compare_number(value, args) if value is not None else (False, {"problem": "the attribute is absent"})
    return ok, shown_values(more, ctx.mask_text)


def _text_contains(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    """As ``toContainText``: the element's text and the wanted text both normalized (page/texts.py; counted).
    (v1.3) Or the whole text, normalized, read as a number."""
    count, content = element_text(locator)
    if number_keys(args):
        ok, more = _numbers(content, args, ctx) if count == 1 else (False, {})
        return ok, {"count": count, "text": seen(content, ctx.mask_text), **more}
    ok = count == 1 and normalize(ctx.resolve_text(args.text)) in content
    return ok, {"count": count, "text": seen(content, ctx.mask_text)}


def _attr_equals(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    value = locator.get_attribute(args.attr, timeout=1000)
    if number_keys(args):
        ok, more = _numbers(value, args, ctx)
        return ok, {"count": 1, "attr": args.attr, "value": None if value is None else seen(value, ctx.mask_text),
                    **more}
    return value == ctx.resolve_text(args.value), {"count": 1, "value": value}


def _value_equals(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    count, value = element_value(locator)
    if number_keys(args):
        ok, more = _numbers(value, args, ctx) if count == 1 else (False, {})
        return ok, {"count": count, "value": seen(value, ctx.mask_text), **more}
    return count == 1 and value == ctx.resolve_text(args.value), {"count": count, "value": value}


NUMBER_CHECKS: dict[str, Callable[[Locator, Any, CheckContext], tuple[bool, Any]]] = {
    "element_text_contains": _text_contains,
    "element_attr_equals": _attr_equals,
    "element_value_equals": _value_equals,
}
# Those that count their element in their own look (page/conditions.py's _on_element ``counted``).
NUMBER_COUNTED = frozenset({"element_text_contains", "element_value_equals"})
