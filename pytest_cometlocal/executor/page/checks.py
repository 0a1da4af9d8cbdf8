"""The v1.2 checks, looked at once each (page/conditions.py polls them): rows of ``EVALUATORS``.

``ELEMENT_CHECKS`` look at the one element their target resolves to
(conditions.py wraps them as it wraps v1's); ``PAGE_CHECKS`` look at what is
not one element: a target's visible matches (``element_hidden``), a list's
texts in order, the origin's storage and cookies. Texts are read as
Playwright's text assertions read them (texts.py); whatever a failure shows is
masked, then cut at 2 KB (a list at 50 texts).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.contract.model import pointer
from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.validate.checks import list_entry_pattern
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.page.locators import compile_target
from pytest_cometlocal.executor.page.texts import element_text, normalize, seen
from pytest_cometlocal.executor.scripts import load_script, read_script

if TYPE_CHECKING:
    from playwright.sync_api import Locator

    from pytest_cometlocal.executor.page.conditions import CheckContext

# The texts of a target's matches, in order (scripts/element_texts.js).
ELEMENT_TEXTS_JS = load_script(__package__, "element_texts.js", element_text=read_script(__package__, "element_text.js"))
# One item of local or session storage (scripts/storage_item.js).
STORAGE_ITEM_JS = load_script(__package__, "storage_item.js")
# The most texts of a list a failure shows.
TEXTS_SEEN = 50


# -- one element ------------------------------------------------------------------


def _text_matches(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    content = element_text(locator)
    return re.search(args.pattern, content) is not None, {"count": 1, "text": seen(content, ctx.mask_text)}


def _value_contains(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    value = locator.input_value(timeout=1000)
    return ctx.resolve_text(args.text) in value, {"count": 1, "value": seen(value, ctx.mask_text)}


def _value_matches(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    value = locator.input_value(timeout=1000)
    return re.search(args.pattern, value) is not None, {"count": 1, "value": seen(value, ctx.mask_text)}


def _attr_matches(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    """An absent attribute reads as ``""``, as toHaveClass reads it; ``observed.value`` is null then."""
    value = locator.get_attribute(args.attr, timeout=1000)
    ok = re.search(args.pattern, value or "") is not None
    return ok, {"count": 1, "attr": args.attr, "value": None if value is None else seen(value, ctx.mask_text)}


ELEMENT_CHECKS: dict[str, Callable[[Locator, Any, CheckContext], tuple[bool, Any]]] = {
    "element_text_matches": _text_matches,
    "element_value_contains": _value_contains,
    "element_value_matches": _value_matches,
    "element_attr_matches": _attr_matches,
}


# -- what is not one element --------------------------------------------------------


def _locators(spec: Any, ctx: CheckContext) -> list[Locator] | None:
    """The locators a condition's target names: its alternatives, else the step's resolved element."""
    if spec is None:
        if ctx.step_locator is not None:
            return [ctx.step_locator]
        spec = ctx.step.target
        if spec is None or isinstance(spec, T.UrlTarget):
            return None
    return [compile_target(ctx.page, alt) for alt in (spec if isinstance(spec, list) else [spec])]


def _element_hidden(cond: Any, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """No visible match (none at all, or all hidden): toBeHidden, with no U1. Alternatives name the
    same element, so every one of them must show nothing."""
    locators = _locators(cond.args.target, ctx)
    if locators is None:
        return False, {"error": "no target"}
    seen_ = [(loc.count(), loc.filter(visible=True).count()) for loc in locators]
    ok = all(visible == 0 for _count, visible in seen_)
    if len(seen_) == 1:
        return ok, {"count": seen_[0][0], "visible": seen_[0][1]}
    return ok, {"counts": [c for c, _v in seen_], "visible": [v for _c, v in seen_]}


def _text_is(text: str, entry: str, ctx: CheckContext) -> bool:
    """An entry written ``/…/`` is a regex the whole text must match; any other is the text, normalized."""
    pattern = list_entry_pattern(entry)
    if pattern is not None:
        return re.fullmatch(pattern, text) is not None
    return text == normalize(ctx.resolve_text(entry))


def _element_texts_equal(cond: Any, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """toHaveText([...]): as many matches as entries, each one's text its entry, in document order.
    Any alternative may hold; a failure shows the first one's texts."""
    wanted = cond.args.texts
    first = None
    for locator in _locators(cond.args.target, ctx) or []:
        got = locator.evaluate_all(ELEMENT_TEXTS_JS, max(len(wanted), TEXTS_SEEN))
        if got["count"] == len(wanted) and all(_text_is(t, e, ctx) for t, e in zip(got["texts"], wanted)):
            return True, {"count": got["count"]}
        first = first or got
    if first is None:
        return False, {"count": 0, "texts": []}
    return False, {"count": first["count"], "texts": [seen(t, ctx.mask_text) for t in first["texts"][:TEXTS_SEEN]]}


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``, ``1`` is ``1.0``; objects by keys, arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _as_text(value: Any) -> str:
    """A value's string form: a string as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _compare(value: Any, args: Any) -> tuple[bool, dict[str, Any]]:
    """storage_item's and cookie's ``equals`` / ``matches`` / ``length`` (whichever was written) on ``value``."""
    given = args.model_fields_set
    if "equals" in given:
        return _json_equal(value, args.equals), {}
    if getattr(args, "matches", None) is not None:
        return re.search(args.matches, _as_text(value)) is not None, {}
    if getattr(args, "length", None) is not None:
        if not isinstance(value, (str, list, dict)):
            return False, {"problem": "the value is not a string, array or object"}
        return len(value) == args.length, {"length": len(value)}
    return True, {}


def _storage_item(cond: Any, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """The item in the current page's origin; with a pointer, the JSON value it names."""
    args = cond.args
    shown: dict[str, Any] = {"area": args.area}
    try:
        raw = ctx.page.evaluate(STORAGE_ITEM_JS, [args.area, args.key])
    except Exception as exc:
        if is_crash(exc):
            raise
        return False, {**shown, "problem": "the page's storage cannot be read: "
                       + ctx.mask_text(str(exc).splitlines()[0][:200])}
    if raw is None:
        return False, {**shown, "item": None, "problem": "no such item in the page's origin"}
    shown["item"] = seen(raw, ctx.mask_text)
    value: Any = raw
    if args.pointer is not None:
        try:
            value = pointer.resolve(json.loads(raw), args.pointer)
        except ValueError:
            return False, {**shown, "problem": "the item is not JSON"}
        if value is pointer.MISSING:
            return False, {**shown, "problem": "the pointer names nothing in the item"}
        shown["value"] = seen(_as_text(value), ctx.mask_text)
    ok, more = _compare(value, args)
    return ok, {**shown, **more}


def _cookie(cond: Any, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """A cookie of that name sent with the current page's URL (the first, when several paths set one)."""
    try:
        cookies = ctx.page.context.cookies(ctx.page.url)
    except Exception as exc:
        if is_crash(exc):
            raise
        cookies = []
    found = [c for c in cookies if c["name"] == cond.args.name]
    if not found:
        return False, {"value": None, "cookies": [ctx.mask_text(c["name"]) for c in cookies[:TEXTS_SEEN]]}
    value = found[0]["value"]
    ok, more = _compare(value, cond.args)
    return ok, {"value": seen(value, ctx.mask_text), **more}


PAGE_CHECKS: dict[str, Callable[[Any, CheckContext, str], tuple[bool, Any]]] = {
    "element_hidden": _element_hidden,
    "element_texts_equal": _element_texts_equal,
    "storage_item": _storage_item,
    "cookie": _cookie,
}
