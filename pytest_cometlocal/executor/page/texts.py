"""Text as the text conditions read it: Playwright's own text assertions' reading, and what a failure shows.

(v1.2) Also the checks that read an element's text, value or attribute and
compare it (``ELEMENT_CHECKS``: rows of page/conditions.py's ``EVALUATORS``),
and ``element_texts_equal``, the texts of all of a target's matches in order.
(v1.3) And v1's ``element_text_contains``, ``element_value_equals`` and
``element_attr_equals`` (``NUMBER_CHECKS``), which take the number keys
(contract/model/checks/numbers.py) instead of their comparison key: the text, value or
attribute read as a number (contract/numbers.py's ``compare_number``).

``element_text_contains``, ``toast_contains`` and ``upload_completed``'s
``text`` read an element's text as ``toHaveText`` / ``toContainText`` do
(scripts/element_text.js): its text content, not its rendered ``innerText``,
so a name a page draws in two inline elements, flex children or blocks reads
as one word, as a person reads it. The wanted text is normalized the same way
(``normalize``) before it is looked for. A failure records what was read,
masked, cut at ``SEEN_LIMIT``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.contract.model.checks.numbers import number_keys
from pytest_cometlocal.contract.numbers import compare_number
from pytest_cometlocal.contract.validate.checks import list_entry_pattern
from pytest_cometlocal.contract.patterns import compiled
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.page.locators import condition_locators, matches_now
from pytest_cometlocal.executor.scripts import load_script, read_script

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.page.conditions import CheckContext  # whose EVALUATORS these are rows of

# An element's text as Playwright's toHaveText reads it (scripts/element_text.js).
ELEMENT_TEXT_JS = load_script(__package__, "element_text.js")

# A locator's count and its one element's value, as input_value reads a form control (scripts/element_value.js).
ELEMENT_VALUE_JS = load_script(__package__, "element_value.js")

# The shown toasts' texts, the page's text and whether the page shows a text (scripts/shown_texts.js).
SHOWN_TEXTS_JS = load_script(__package__, "shown_texts.js", element_text=read_script(__package__, "element_text.js"))

# The texts of a target's matches, in order (scripts/element_texts.js). (v1.2)
ELEMENT_TEXTS_JS = load_script(__package__, "element_texts.js", element_text=read_script(__package__, "element_text.js"))
# How long one look at an aria snapshot may take: poll (and scroll's loop) looks again. (v1.1)
ARIA_LOOK_MS = 10

# The most of an aria snapshot kept or shown, in UTF-8 bytes, after masking (``aria_cut``): a failed
# aria_snapshot_matches' actual (v1.1), a failure's evidence and the agent's page view (step/evidence.py).
MAX_ARIA_BYTES = 20 * 1024

# The most texts of a list, or names, a failure shows. (v1.2)
TEXTS_SEEN = 50

# The most of a text a failed condition records, in UTF-8 bytes, after masking.
SEEN_LIMIT = 2 * 1024
TRUNCATED = "\n... (truncated)"

# JavaScript's \s and String.trim's set (Python's \s differs: it has \x1c-\x1f and \x85, not \ufeff).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_SPACES = re.compile(f"[{_JS_SPACE}]+")
_DROPPED = re.compile("[\u200b\u00ad]")


def normalize(text: str) -> str:
    """Playwright's normalizeWhiteSpace: zero-width spaces and soft hyphens dropped, trimmed, runs of
    whitespace made one space. The wanted text of a condition goes through it, as toContainText's does."""
    return _SPACES.sub(" ", _DROPPED.sub("", text)).strip(" ")


def element_text(locator: Locator) -> tuple[int, str]:
    """How many elements ``locator`` matches now and, when one, its text, normalized ("" otherwise).

    One round trip (``evaluate_all``), which also counts: ``locator.evaluate`` makes three (wait for
    the element, read it, release its handle), and a count of its own would be a fourth."""
    got = locator.evaluate_all(ELEMENT_TEXTS_JS, 1)
    return got["count"], got["texts"][0] if got["count"] == 1 else ""


def element_value(locator: Locator) -> tuple[int, str]:
    """How many elements ``locator`` matches now and, when one, its value as ``input_value`` reads it
    ("" otherwise). An <input>, <textarea> or <select> is read with the count, in one round trip;
    another element (a label, which input_value follows to its control) through ``input_value``."""
    got = locator.evaluate_all(ELEMENT_VALUE_JS)
    if got["count"] == 1 and got["value"] is None:
        return 1, locator.input_value(timeout=1000)
    return got["count"], got["value"] or ""


def shown_texts(page: Page, toast_selector: str, wanted: str | None) -> dict[str, Any]:
    """``{toasts, page, shown}``: the shown toasts' texts, the page's text, and whether the page shows ``wanted``."""
    return page.evaluate(SHOWN_TEXTS_JS, [toast_selector, wanted])


def seen(text: str, mask: Callable[[str], str]) -> str:
    """A text read from the page as a failure may record it: masked, then cut at SEEN_LIMIT (marked)."""
    return clip_utf8(mask(text), SEEN_LIMIT)[0]


def first_lines(text: str, limit: int) -> tuple[str, bool]:
    """``text``'s whole lines that fit in ``limit`` UTF-8 bytes (a first line too long for it is cut
    at a character); and whether anything was left out. The MCP server's aria view uses it too."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    head = data[:limit].decode("utf-8", "ignore")
    return (head[:head.rfind("\n") + 1] if "\n" in head else head), True


def clip_utf8(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` UTF-8 bytes, at the end of a line when it has several, and
    marked as cut; and whether it was."""
    head, cut = first_lines(text, limit - len(TRUNCATED.encode()))
    return (head.removesuffix("\n") + TRUNCATED, True) if cut else (text, False)


def aria_cut(snapshot: str, mask: Callable[[str], str], *, marked: bool = False) -> tuple[str, bool]:
    """An aria snapshot as it may be kept or shown: masked first, then cut after the last whole line that
    fits ``MAX_ARIA_BYTES``, so a cut never leaves part of a secret; and whether lines were left out.
    ``marked``: a last line ``... (truncated)`` says so, within the bound (a failed condition's ``actual``;
    the evidence file and the agent's view say it beside the text)."""
    masked = mask(snapshot)
    return clip_utf8(masked, MAX_ARIA_BYTES) if marked else first_lines(masked, MAX_ARIA_BYTES)



def shown_values(observed: dict[str, Any], mask: Callable[[str], str]) -> dict[str, Any]:
    """(v1.2) ``observed`` as a failure may record it: each string masked and cut (``seen``), each
    list's strings masked (at most TEXTS_SEEN of them)."""
    def one(value: Any) -> Any:
        if isinstance(value, str):
            return seen(value, mask)
        if isinstance(value, list):
            return [seen(v, mask) if isinstance(v, str) else v for v in value[:TEXTS_SEEN]]
        return value
    return {key: one(value) for key, value in observed.items()}


# -- (v1.2) checks of one element's text, value or attribute: ``(locator, args, ctx) -> (holds, observed)``
# Those in COUNTED count their element in the same look: ``observed.count`` is the count now, and a
# count other than 1 never holds (page/conditions.py's _on_element then counts no more).


def _text_matches(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    count, content = element_text(locator)
    ok = count == 1 and compiled(args.pattern).search(content) is not None
    return ok, {"count": count, "text": seen(content, ctx.mask_text)}


def _value_contains(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    count, value = element_value(locator)
    return count == 1 and ctx.resolve_text(args.text) in value, {"count": count, "value": seen(value, ctx.mask_text)}


def _value_matches(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    count, value = element_value(locator)
    ok = count == 1 and compiled(args.pattern).search(value) is not None
    return ok, {"count": count, "value": seen(value, ctx.mask_text)}


def _attr_matches(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    """An absent attribute reads as ``""``, as toHaveClass reads it; ``observed.value`` is null then."""
    value = locator.get_attribute(args.attr, timeout=1000)
    ok = compiled(args.pattern).search(value or "") is not None
    return ok, {"count": 1, "attr": args.attr, "value": None if value is None else seen(value, ctx.mask_text)}


ELEMENT_CHECKS: dict[str, Callable[[Locator, Any, CheckContext], tuple[bool, Any]]] = {
    "element_text_matches": _text_matches,
    "element_value_contains": _value_contains,
    "element_value_matches": _value_matches,
    "element_attr_matches": _attr_matches,
}
COUNTED = frozenset({"element_text_matches", "element_value_contains", "element_value_matches"})


def _text_is(text: str, entry: str, ctx: CheckContext) -> bool:
    """An entry written ``/…/`` is a regex the whole text must match; any other is the text, normalized."""
    pattern = list_entry_pattern(entry)
    if pattern is not None:
        return compiled(pattern).fullmatch(text) is not None
    return text == normalize(ctx.resolve_text(entry))


def element_texts_equal(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """(v1.2) toHaveText([...]): as many matches as entries, each one's text its entry, in document
    order. Any alternative may hold; a failure shows the first one's texts (at most TEXTS_SEEN)."""
    wanted = cond.args.texts
    first = None
    for locator in condition_locators(ctx.page, cond.args.target, ctx.step_locator, ctx.step.target) or []:
        got = locator.evaluate_all(ELEMENT_TEXTS_JS, max(len(wanted), TEXTS_SEEN))
        if got["count"] == len(wanted) and all(_text_is(t, e, ctx) for t, e in zip(got["texts"], wanted)):
            return True, {"count": got["count"]}
        first = first or got
    if first is None:
        return False, {"count": 0, "texts": []}
    return False, {"count": first["count"], "texts": [seen(t, ctx.mask_text) for t in first["texts"][:TEXTS_SEEN]]}


def aria_snapshot_matches(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """(v1.1) Playwright's own matcher (partial match, /regex/ names), given a short timeout per look.

    The template's secrets are resolved here and go nowhere else: the matcher's
    message, which quotes the template, is not kept. A failure records the
    actual snapshot, masked, then cut to MAX_ARIA_BYTES (``aria_cut``).
    """
    from playwright.sync_api import expect  # the page room loads Playwright only where it calls it

    if cond.args.target is None:
        locator = ctx.page.locator("body")
    else:
        locator, found = ctx.locate(cond.args.target)  # CheckContext.locate: this room's conditions.py
        if locator is None:
            return False, found or {"count": 0}
    try:
        expect(locator).to_match_aria_snapshot(ctx.resolve_text(cond.args.snapshot), timeout=ARIA_LOOK_MS)
        return True, {"count": 1}
    except AssertionError:
        pass
    except Exception as exc:
        if is_crash(exc):
            raise
        return False, {"error": type(exc).__name__, "message": ctx.mask_text(str(exc).splitlines()[0][:200])}
    try:
        snapshot = locator.aria_snapshot(timeout=1000)
    except Exception as exc:
        if is_crash(exc) or (gone := matches_now(locator)) is None:
            raise
        return False, gone
    actual, truncated = aria_cut(snapshot, ctx.mask_text, marked=True)
    return False, {"count": 1, "actual": actual, **({"truncated": True} if truncated else {})}


# -- (v1.3) v1's text, value and attribute checks, with the number keys


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
