"""The page origin's storage as a whole (v1.3): ``storage_items`` and ``storage_equals``, and the actions
``set_storage_item`` and ``clear_storage``.

``storage_items`` is for the per-record store, one item per record under a generated key
(``todo-1f3a…``): it finds the items by a key pattern (the plan's bounded regex, matched here, not in
the page), counts them, and holds a check (storage_item's vocabulary) on every one or some one.
``storage_equals`` compares the whole area with a map. The actions act on the current page's
origin: a page without one (about:blank, before any navigation) has no storage to act on, a typed
failure rather than the browser's SecurityError. What is recorded is masked and cut: keys and
values in ``observed``, and only the area, keys and counts in ``action_executed`` (never a value).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.contract.model.checks.numbers import number_keys
from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.load.interpolation import resolve_secrets
from pytest_cometlocal.contract.errors import PatternTimeout
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.contract.patterns import compiled
from pytest_cometlocal.executor.browser.cookies import count_holds
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Page

# Every item of an area as [key, value] pairs (scripts/storage_items.js).
STORAGE_ITEMS_JS = load_script(__package__, "storage_items.js")
# setItem, removeItem of some keys, or clear (scripts/storage_write.js).
STORAGE_WRITE_JS = load_script(__package__, "storage_write.js")
# The most keys (and items) a failure lists, and the most of one stored string it shows (UTF-8 bytes).
KEYS_SEEN = 50
SHOWN_BYTES = 2 * 1024
TRUNCATED = "\n... (truncated)"


def shown(text: str, mask: Callable[[str], str]) -> str:
    """A stored string as a failure may record it: masked, then cut (marked)."""
    text = mask(text)
    data = text.encode("utf-8")
    if len(data) <= SHOWN_BYTES:
        return text
    return data[:SHOWN_BYTES - len(TRUNCATED)].decode("utf-8", errors="ignore") + TRUNCATED


def read_area(page: Page, area: str) -> list[tuple[str, str]] | str:
    """The area's items in its order, or why it cannot be read (one line)."""
    try:
        items = page.evaluate(STORAGE_ITEMS_JS, [area])
    except Exception as exc:
        if is_crash(exc):
            raise
        return "the page's storage cannot be read: " + str(exc).splitlines()[0][:200]
    if not isinstance(items, list) or not all(isinstance(i, list) and len(i) == 2 for i in items):
        return "the page's storage cannot be read: the page answered something else"
    return [(str(k), str(v)) for k, v in items]


def item_check(raw: str, check: Any) -> tuple[bool, dict[str, Any]]:
    """storage_item's look at one stored string (``pointer``, then ``equals`` / ``matches`` / ``length``)."""
    value: Any = raw
    if check.pointer is not None:
        try:
            value = json_values.resolve(json.loads(raw), check.pointer)
        except ValueError:
            return False, {"problem": "the item is not JSON"}
        if value is json_values.MISSING:
            return False, {"problem": "the pointer names nothing in the item"}
    ok, more = json_values.compare(value, check)
    return ok, ({"value": json_values.as_text(value)} if check.pointer is not None else {}) | more


def _storage_items(cond: Any, ctx: Any, phase: str) -> tuple[bool, Any]:
    args, mask = cond.args, ctx.mask_text
    items = read_area(ctx.page, args.area)
    if isinstance(items, str):
        return False, {"area": args.area, "problem": items}
    pattern = compiled(args.key_matches)
    found = [(k, v) for k, v in items if pattern.search(k)]
    if args.where is not None:  # only the items that meet it are counted and checked
        found = [(k, v) for k, v in found if item_check(v, args.where)[0]]
    observed: dict[str, Any] = {"area": args.area, "count": len(found), "keys": [mask(k) for k, _ in found[:KEYS_SEEN]]}
    ok, more = count_holds(args, len(found), mask)
    observed.update(more)  # which number check the count broke
    quantifier = "every" if args.every is not None else "some" if args.some is not None else None
    if args.count is None and not number_keys(args) and (quantifier is None or not found):
        ok = ok and bool(found)
        if not found:
            observed["problem"] = "no key matches key_matches" + (" (and meets where)" if args.where else "")
    if quantifier is not None and found:
        check = getattr(args, quantifier)
        looks = [(k, v, *item_check(v, check)) for k, v in found]
        if quantifier == "every" and (bad := next((look for look in looks if not look[2]), None)):
            key, raw, _ok, more = bad
            observed["failing"] = {"key": mask(key), "item": shown(raw, mask),
                                   **{n: shown(v, mask) if isinstance(v, str) else v for n, v in more.items()}}
            ok = False
        elif quantifier == "some" and not any(look[2] for look in looks):
            observed["problem"] = "no item meets the check"
            ok = False
    return ok, observed


def _storage_equals(cond: Any, ctx: Any, phase: str) -> tuple[bool, Any]:
    """Exactly the keys of ``equals``; a string compares the stored string, any other JSON value the stored
    string read as JSON."""
    args, mask = cond.args, ctx.mask_text
    items = read_area(ctx.page, args.area)
    if isinstance(items, str):
        return False, {"area": args.area, "problem": items}
    stored = dict(items)
    differ = [k for k, want in args.equals.items() if k in stored and not _same_item(stored[k], want)]
    missing = [k for k in args.equals if k not in stored]
    extra = [k for k in stored if k not in args.equals]
    observed: dict[str, Any] = {"area": args.area,
                                "items": {mask(k): shown(v, mask) for k, v in list(stored.items())[:KEYS_SEEN]}}
    for name, keys in (("missing", missing), ("extra", extra), ("differ", differ)):
        if keys:
            observed[name] = [mask(k) for k in keys[:KEYS_SEEN]]
    return not (missing or extra or differ), observed


def _same_item(raw: str, want: Any) -> bool:
    if isinstance(want, str):
        return raw == want
    try:
        return json_values.json_equal(json.loads(raw), want)
    except ValueError:
        return False


STORAGE_EVALUATORS = {"storage_items": _storage_items, "storage_equals": _storage_equals}


def _origin(actions: Any, attempt: Any) -> str:
    """The page's origin, or the step's typed failure: a page on about:blank (or data:) has no storage."""
    url = actions.ctx.page.url
    if url.startswith(("http://", "https://")):
        return url
    spec = attempt.spec
    url = actions.ctx.run.redactor.text(url)
    failed = FailedCondition(kind="page_has_origin", args={"area": spec.area}, phase="pre", observed={"url": url})
    raise actions.failures.fail(attempt, ErrorCode.PRECONDITION_FAILED, "execution",
                                f"{spec.kind} acts on the page origin's {spec.area} storage, and the page ({url}) has "
                                "no origin: navigate to the application first", failed_conditions=[failed])


def _write(actions: Any, attempt: Any, keys: list[str] | None, value: str | None) -> None:
    actions.ctx.page.evaluate(STORAGE_WRITE_JS, [attempt.spec.area, keys, value])


def set_storage_item(actions: Any, attempt: Any) -> dict[str, Any]:
    """``key`` set to ``value`` in the page origin's area (either may be a ``${secrets.X}``)."""
    spec, secrets, mask = attempt.spec, actions.ctx.settings.secrets, actions.ctx.run.redactor.text
    _origin(actions, attempt)
    key = resolve_secrets(spec.key, secrets)
    _write(actions, attempt, [key], resolve_secrets(spec.value, secrets))
    return {"area": spec.area, "key": mask(key)}


def clear_storage(actions: Any, attempt: Any) -> dict[str, Any]:
    """The item ``key``, the items whose key ``key_matches`` searches, or (neither) the whole area."""
    spec, mask = attempt.spec, actions.ctx.run.redactor.text
    _origin(actions, attempt)
    items = read_area(actions.ctx.page, spec.area)
    present = [] if isinstance(items, str) else [k for k, _ in items]
    if spec.key is not None:
        keys: list[str] | None = [resolve_secrets(spec.key, actions.ctx.settings.secrets)]
        cleared = sum(k in present for k in keys)
    elif spec.key_matches is not None:
        pattern = compiled(spec.key_matches)
        try:
            keys = [k for k in present if pattern.search(k)]
        except PatternTimeout as exc:  # the plan's regex gave up on a key: rule REGEX at it, nothing cleared
            raise actions.failures.pattern_gave_up(attempt, "execution", "key_matches", exc) from None
        cleared = len(keys)
    else:
        keys, cleared = None, len(present)
    _write(actions, attempt, keys, None)
    which = {"key": mask(spec.key)} if spec.key else {"key_matches": spec.key_matches} if spec.key_matches else {}
    return {"area": spec.area, **which, "cleared": cleared}
