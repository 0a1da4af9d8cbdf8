"""(v1.3) A recording's cookies and storage, as ``cometlocal import`` reads them.

``context.add_cookies([{...}, ...])`` is one ``set_cookie`` step per cookie (Playwright's keys
renamed: ``httpOnly`` is ``http_only``, ``sameSite`` ``same_site``); ``context.clear_cookies(name=...,
domain=..., path=...)`` a ``clear_cookies`` step; ``page.evaluate("localStorage.clear()")``,
``"sessionStorage.removeItem('k')"`` and ``"localStorage.setItem('k', 'v')"`` with literal arguments
are ``clear_storage`` / ``set_storage_item`` steps. Anything else is reported, not guessed: a cookie's
``expires`` is an absolute time (a plan's is seconds from when it is set), and other page scripts are
code a plan does not run. Pure ``ast`` and text reading; nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from pytest_cometlocal.planners.errors import CannotMap

# Playwright's cookie keys -> set_cookie's (``expires`` is left out on purpose: see the docstring).
_COOKIE_KEYS = {"name": "name", "value": "value", "url": "url", "domain": "domain", "path": "path",
                "httpOnly": "http_only", "secure": "secure", "sameSite": "same_site"}
_CLEAR_KEYS = ("name", "domain", "path")
# A whole script of one storage call with plain quoted arguments (no escapes, no expressions).
_QUOTED = r"""(?:'([^'\\]*)'|"([^"\\]*)")"""
_STORAGE_CALL = re.compile(r"^\s*(?:window\.)?(local|session)Storage\.(clear|removeItem|setItem)\(\s*"
                           rf"(?:{_QUOTED}\s*(?:,\s*{_QUOTED}\s*)?)?\)\s*;?\s*$")


def cookie_calls(action: str, call: ast.Call) -> list[dict[str, Any]]:
    """The steps of ``context.add_cookies(...)`` / ``context.clear_cookies(...)``; CannotMap if they do not map."""
    try:  # literals only (dicts of them too): ast's own reading, nothing evaluated
        args = tuple(ast.literal_eval(a) for a in call.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    except ValueError:
        raise CannotMap(f"{action}(): an argument is not a literal (a variable or an expression)") from None
    if any(k.arg is None for k in call.keywords):
        raise CannotMap(f"{action}(**...) does not map: write the cookies out")
    if action == "clear_cookies":
        if args or set(kwargs) - set(_CLEAR_KEYS):
            raise CannotMap("clear_cookies() maps with the keywords name=, domain=, path= only")
        if not all(isinstance(v, str) for v in kwargs.values()):
            raise CannotMap("clear_cookies() maps with plain strings only (a pattern is not a cookie filter)")
        return [{"kind": "clear_cookies", **({"cookie": dict(kwargs)} if kwargs else {})}]
    cookies = args[0] if len(args) == 1 and not kwargs else kwargs.get("cookies") if not args else None
    if not isinstance(cookies, list) or not cookies or not all(isinstance(c, dict) for c in cookies):
        raise CannotMap("add_cookies() maps with a literal list of cookies")
    steps = []
    for cookie in cookies:
        if "expires" in cookie:
            raise CannotMap("a cookie's expires= is an absolute time: set_cookie's expires is seconds from when "
                            "it is set (write it by hand)")
        if unknown := sorted(set(cookie) - set(_COOKIE_KEYS)):
            raise CannotMap(f"add_cookies(): {', '.join(unknown)} has no set_cookie key")
        steps.append({"kind": "set_cookie", "cookie": {_COOKIE_KEYS[k]: v for k, v in cookie.items()}})
    return steps


def storage_script(script: Any) -> dict[str, Any]:
    """The step of ``page.evaluate("localStorage.clear()")`` and its like; CannotMap for any other script."""
    found = _STORAGE_CALL.match(script) if isinstance(script, str) else None
    if found is None:
        raise CannotMap("page.evaluate() does not map: a plan runs no page code (only localStorage / "
                        "sessionStorage .clear(), .removeItem('k') and .setItem('k', 'v') map, with literal arguments)")
    area, call = found.group(1), found.group(2)
    given = [g for g in (found.group(3), found.group(4), found.group(5), found.group(6)) if g is not None]
    wanted = {"clear": 0, "removeItem": 1, "setItem": 2}[call]
    if len(given) != wanted:
        raise CannotMap(f"{area}Storage.{call}() takes {wanted} argument(s)")
    if call == "clear":
        return {"kind": "clear_storage", "area": area}
    if call == "removeItem":
        return {"kind": "clear_storage", "area": area, "key": given[0]}
    return {"kind": "set_storage_item", "area": area, "key": given[0], "value": given[1]}


def on_context(owner: ast.AST, pages: Any) -> bool:
    """Whether a call's owner is a browser context: a name (``context``), or ``page.context``."""
    if isinstance(owner, ast.Attribute) and owner.attr == "context" and isinstance(owner.value, ast.Name):
        owner = owner.value if owner.value.id in pages else owner
    return isinstance(owner, ast.Name)
