"""What the browser stores for the page, as the v1.2 conditions ``storage_item`` and ``cookie`` read it
(and v1.3's ``absent`` and cookie attributes).

One item of the page origin's ``localStorage`` / ``sessionStorage`` (one
evaluate), or the cookies the context sends with the page's URL; then the JSON
Pointer and the comparison (contract/json_values.py). ``observed`` holds the
stored strings as read: the condition's row (page/conditions.py) masks and
cuts them (``item``, ``value``) before they are recorded.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.model.checks.browser_state import COOKIE_ATTRS
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Page

# One item of local or session storage, or null (scripts/storage_item.js).
STORAGE_ITEM_JS = load_script(__package__, "storage_item.js")
# The most cookie names a failure lists.
NAMES_SEEN = 50


def storage_item(page: Page, args: Any) -> tuple[bool, dict[str, Any]]:
    """The item in the current page's origin; with a pointer, the JSON value it names; then compared."""
    shown: dict[str, Any] = {"area": args.area}
    try:
        raw = page.evaluate(STORAGE_ITEM_JS, [args.area, args.key])
    except Exception as exc:
        if is_crash(exc):
            raise
        return False, {**shown, "problem": "the page's storage cannot be read: " + str(exc).splitlines()[0][:200]}
    if args.absent:  # (v1.3) holds when there is no such item
        return raw is None, {**shown, "item": raw, **({"problem": "the item exists"} if raw is not None else {})}
    if raw is None:
        return False, {**shown, "item": None, "problem": "no such item in the page's origin"}
    shown["item"] = raw
    value: Any = raw
    if args.pointer is not None:
        try:
            value = json_values.resolve(json.loads(raw), args.pointer)
        except ValueError:
            return False, {**shown, "problem": "the item is not JSON"}
        if value is json_values.MISSING:
            return False, {**shown, "problem": "the pointer names nothing in the item"}
        shown["value"] = json_values.as_text(value)
    elif "equals" in args.model_fields_set and not isinstance(args.equals, str):
        args = args.model_copy(update={"equals": json_values.as_text(args.equals)})  # (v1.3) a saved number, as text
    ok, more = json_values.compare(value, args)
    return ok, {**shown, **more}


def cookie(page: Page, args: Any) -> tuple[bool, dict[str, Any]]:
    """A cookie of that name sent with the current page's URL (the first, when several paths set one)."""
    try:
        cookies = page.context.cookies(page.url)
    except Exception as exc:
        if is_crash(exc):
            raise
        cookies = []
    found = [c for c in cookies if c["name"] == args.name]
    if args.absent:  # (v1.3) holds when none is sent
        return not found, ({"value": found[0]["value"], "problem": "the cookie is sent with the page's URL"} if found
                           else {"value": None})
    if not found:
        return False, {"value": None, "cookies": [c["name"] for c in cookies[:NAMES_SEEN]]}
    ok, more = json_values.compare(found[0]["value"], args)
    asked = [a for a in COOKIE_ATTRS if getattr(args, a) is not None]
    if asked:  # (v1.3) the attributes it was set with: all of them shown, the ones written compared
        attributes = cookie_attributes(found[0])
        differ = [a for a in asked if not _same(a, attributes[a], getattr(args, a))]
        more = {**attributes, **more, **({"problem": f"the cookie's {', '.join(differ)} differ"} if ok and differ else {})}
        ok = ok and not differ
    return ok, {"value": found[0]["value"], **more}


def cookie_attributes(cookie: dict[str, Any]) -> dict[str, Any]:
    """(v1.3) A cookie's attributes in the plan's words: ``expires`` is ``session`` (none: -1) or ``persistent``."""
    return {"http_only": cookie["httpOnly"], "secure": cookie["secure"], "domain": cookie["domain"],
            "path": cookie["path"], "same_site": cookie.get("sameSite"),
            "expires": "session" if cookie.get("expires", -1) < 0 else "persistent"}


def same_domain(a: str, b: str) -> bool:
    """A cookie's domain as the browser holds it (``.example.com`` for a domain cookie) and as written:
    the leading dot ignored on both sides, case too."""
    return a.lstrip(".").lower() == b.lstrip(".").lower()


def _same(name: str, seen: Any, wanted: Any) -> bool:
    return same_domain(seen, wanted) if name == "domain" else seen == wanted
