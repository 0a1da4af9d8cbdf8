"""The context's cookies (v1.3): the ``cookie_count`` condition and the ``set_cookie`` / ``clear_cookies`` actions.

A cookie is set only on a host of the allowlist, judged before it is set (DOMAIN_BLOCKED, as a
navigation's host is): a cookie is sent with every later request to its host, so setting one is
something leaving for that host. Its value may be a ``${secrets.X}``: it is resolved here, at the
last moment, and never recorded; what ``action_executed`` records is the cookie's name, where it
was set and its attributes (masked), never its value. Domains compare with a leading dot ignored
(``stored.same_domain``), as a plan cannot know how the browser writes a domain cookie.
"""

from __future__ import annotations

import time
from typing import Any

from pytest_cometlocal.contract.model.checks.numbers import number_keys
from pytest_cometlocal.contract.numbers import compare_number
from pytest_cometlocal.contract.allowlist import host_allowed, url_host
from pytest_cometlocal.contract.load.interpolation import resolve_secrets
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.browser.stored import NAMES_SEEN, same_domain


# A cookie's attributes as the plan writes them, and as Playwright's add_cookies takes them.
_PLAYWRIGHT_NAMES = {"http_only": "httpOnly", "secure": "secure", "same_site": "sameSite"}


def count_holds(args: Any, count: int, mask: Any = str) -> tuple[bool, dict[str, Any]]:
    """Whether ``count`` is what the condition asks for (``count``, or the number keys: contract/numbers.py),
    and what a number check that broke adds to ``observed`` (its bound shown through ``mask``)."""
    if number_keys(args):
        return compare_number(count, args, mask)
    return args.count is None or args.count == count, {}


def _cookie_count(cond: Any, ctx: Any, phase: str) -> tuple[bool, Any]:
    """The context's cookies with the name and domain asked for (each filter optional), counted."""
    args = cond.args
    found = [c for c in ctx.page.context.cookies()
             if (args.name is None or c["name"] == args.name)
             and (args.domain is None or same_domain(c["domain"], args.domain))]
    names = [ctx.mask_text(f"{c['name']}@{c['domain']}{c['path']}") for c in found[:NAMES_SEEN]]
    ok, more = count_holds(args, len(found), ctx.mask_text)
    return ok, {"count": len(found), "cookies": names, **more}


COOKIE_EVALUATORS = {"cookie_count": _cookie_count}


def _page_url(actions: Any) -> str:
    """Where a cookie without ``url`` or ``domain`` goes: the page's URL, or the base URL before any page."""
    url = actions.ctx.page.url
    return url if url.startswith(("http://", "https://")) else (actions.ctx.settings.base_url or "")


def set_cookie(actions: Any, attempt: Any) -> dict[str, Any]:
    """One cookie into the context, its host held to the allowlist first."""
    ctx, spec = actions.ctx, attempt.spec.cookie
    secrets, mask = ctx.settings.secrets, ctx.run.redactor.text
    cookie: dict[str, Any] = {"name": resolve_secrets(spec.name, secrets), "value": resolve_secrets(spec.value, secrets)}
    if spec.domain is not None:
        domain = resolve_secrets(spec.domain, secrets)
        cookie.update(domain=domain, path=spec.path or "/")
        host, url = domain.lstrip(".").lower(), f"http://{domain.lstrip('.')}/"
    else:
        url = resolve_secrets(spec.url, secrets) if spec.url is not None else _page_url(actions)
        if not url:
            raise actions.failures.fail(attempt, ErrorCode.INVALID_ACTIONSPEC, "execution",
                                        "set_cookie has no URL: no page is open, the plan has no base_url, and the "
                                        "cookie gives no url or domain", details={"key": "cookie"})
        host = url_host(url)
        if spec.path is not None:
            cookie.update(domain=host, path=spec.path)
        else:
            cookie["url"] = url
    if not host or not host_allowed(host, ctx.settings.allowlist):
        actions.safety.domain_blocked(attempt, url, before_request=True)
    for name, playwright_name in _PLAYWRIGHT_NAMES.items():
        if getattr(spec, name) is not None:
            cookie[playwright_name] = getattr(spec, name)
    if isinstance(spec.expires, int):
        cookie["expires"] = int(time.time()) + spec.expires
    ctx.page.context.add_cookies([cookie])
    return {"cookie": mask(cookie["name"]), "host": mask(host), "path": cookie.get("path", "/"),
            **{name: getattr(spec, name) for name in ("http_only", "secure", "same_site", "expires")
               if getattr(spec, name) is not None}}


def clear_cookies(actions: Any, attempt: Any) -> dict[str, Any]:
    """The context's cookies that have the name, domain and path asked for (each optional; none: all)."""
    context, spec = actions.ctx.page.context, attempt.spec.cookie
    if spec is None or (spec.name is None and spec.domain is None and spec.path is None):
        cleared = len(context.cookies())
        context.clear_cookies()
        return {"cleared": cleared}
    secrets = actions.ctx.settings.secrets
    name = resolve_secrets(spec.name, secrets) if spec.name is not None else None
    found = [c for c in context.cookies()
             if (name is None or c["name"] == name) and (spec.domain is None or same_domain(c["domain"], spec.domain))
             and (spec.path is None or c["path"] == spec.path)]
    for c in found:
        context.clear_cookies(name=c["name"], domain=c["domain"], path=c["path"])
    mask = actions.ctx.run.redactor.text
    return {"cleared": len(found), **{k: mask(v) for k, v in (("cookie", name), ("domain", spec.domain),
                                                                ("path", spec.path)) if v is not None}}
