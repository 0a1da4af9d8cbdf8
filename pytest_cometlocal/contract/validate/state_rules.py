"""The browser-state rules (v1.3): INPUTS, COOKIE_NAME, URL, REGEX, POINTER and ALLOWLIST for the
cookie and storage steps and conditions (docs/validation-rules.md).

Which step keys a kind takes is ``_KEY_KINDS``'s (rules.py); here what is inside them: a cookie to
set has a name and a value and says where by ``url`` or ``domain``, a cookie filter only filters,
``SameSite=None`` needs ``secure`` (browsers drop it otherwise), ``clear_storage`` takes one of
``key`` / ``key_matches``. A condition's regexes are rows of patterns.REGEX_FIELDS; its pointers and
cookie names are checked here, located at the key. A host the plan's own allowlist leaves out is
refused at load (rule ALLOWLIST) as at run time (DOMAIN_BLOCKED), before anything is set.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.allowlist import host_allowed, split_url, url_host
from pytest_cometlocal.contract.load.interpolation import SECRET_REFERENCE
from pytest_cometlocal.contract.model.browser_state import SET_ONLY_COOKIE_KEYS
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.patterns import pattern_problem
from pytest_cometlocal.contract.validate.checks import cookie_name_problem

Report = Callable[[Loc, str, str], None]


def check_state_step(step: Any, loc: Loc, add: Report, allowlist: Iterable[str] | None = None) -> None:
    """INPUTS, COOKIE_NAME, URL, REGEX, ALLOWLIST for set_cookie, clear_cookies and clear_storage."""
    kind, cookie = step.kind, step.cookie
    if cookie is not None and kind in ("set_cookie", "clear_cookies"):
        cloc = loc + ("cookie",)
        if kind == "set_cookie":
            for name in ("name", "value"):
                if getattr(cookie, name) is None:
                    add(cloc, f"set_cookie's cookie needs {name!r}", "INPUTS")
            if cookie.same_site == "None" and not cookie.secure:
                add(cloc + ("same_site",), "same_site: None needs secure: true (browsers drop such a cookie)",
                    "INPUTS")
        else:
            for name in SET_ONLY_COOKIE_KEYS:
                if name in cookie.model_fields_set:
                    add(cloc + (name,), f"{name!r} is not used by clear_cookies (only name, domain and path)",
                        "INPUTS")
        if cookie.name is not None and (problem := cookie_name_problem(cookie.name)):
            add(cloc + ("name",), problem, "COOKIE_NAME")
        url_problem = None
        if cookie.url is not None:
            parts = split_url(SECRET_REFERENCE.sub("SECRET", cookie.url))
            if isinstance(parts, str):
                url_problem = parts
            elif parts.scheme not in ("http", "https") or not parts.netloc:
                url_problem = "a cookie's url is an absolute http(s) URL"
            if url_problem:
                add(cloc + ("url",), url_problem, "URL")
        host = "" if url_problem else cookie_host(cookie)
        if kind == "set_cookie" and host and allowlist is not None and not host_allowed(host, tuple(allowlist)):
            where = cloc + (("url",) if cookie.url is not None else ("domain",))
            add(where, f"host {host} is outside the plan's allowlist", "ALLOWLIST")
    if kind == "clear_storage" and step.key is not None and step.key_matches is not None:
        add(loc + ("key_matches",), "clear_storage takes key or key_matches, not both", "INPUTS")
    if step.key_matches is not None and (problem := pattern_problem(step.key_matches)):
        add(loc + ("key_matches",), problem, "REGEX")


def cookie_host(cookie: Any) -> str:
    """The host a cookie to set belongs to: its domain (a leading dot left out) or its url's; '' for
    neither (the page's URL then) or a host that is a secret."""
    if cookie.domain is not None:
        return "" if SECRET_REFERENCE.search(cookie.domain) else cookie.domain.lstrip(".").lower()
    if cookie.url is not None and not SECRET_REFERENCE.search(cookie.url):
        return url_host(cookie.url)
    return ""


def check_state_conditions(conditions: Iterable[tuple[Any, str, int, Any]], loc: Loc, add: Report) -> None:
    """POINTER (storage_items' every / some), COOKIE_NAME (cookie_count's name filter)."""
    for cond, phase, i, _target in conditions:
        aloc = loc + (phase, i, "args")
        if cond.kind == "storage_items":
            for name in ("every", "some"):
                check = getattr(cond.args, name)
                if check is not None and check.pointer is not None:
                    try:
                        json_values.parse(check.pointer)
                    except ValueError as exc:
                        add(aloc + (name, "pointer"), str(exc), "POINTER")
        elif cond.kind == "cookie_count" and cond.args.name is not None:
            if problem := cookie_name_problem(cond.args.name):
                add(aloc + ("name",), problem, "COOKIE_NAME")
