"""(v1.2) HTTP calls and stubs in a recording, as ``cometlocal import`` reads them.

A hand-written Playwright test sets up data with ``page.request.post(url, data=...)``
(or ``context.request.*``), checks the answer with ``expect(response).to_be_ok()`` or
``assert response.status == 201``, and stubs a service with
``page.route("**/api/*", lambda route: route.fulfill(json=...))``. These become a
``request`` step (its checks the step's ``response_*`` postconditions) and the plan's
``routes:``. Only literal arguments are taken; what has no plan equivalent (a
``multipart`` body, a route handler that is not one ``fulfill`` / ``abort``, a
response used for something else) is ``CannotMap`` with the reason: reported with
its line like every statement left out. Pure ``ast`` reading; nothing is run.
"""

from __future__ import annotations

import ast
import re
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import urlencode

from pytest_cometlocal.planners.errors import CannotMap

if TYPE_CHECKING:
    from pytest_cometlocal.planners.codegen.parse import Recorded

# APIRequestContext's methods -> the step's method (fetch takes method=, GET by default).
METHODS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "head": "HEAD",
           "fetch": None}
# The registered 2xx codes: what ``to_be_ok()`` / ``response.ok`` accept, as a response_status list.
OK_STATUSES = [s.value for s in HTTPStatus if 200 <= s.value < 300]


def _literal(node: ast.AST, what: str) -> Any:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compile" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and len(node.args) == 1:
        return {"pattern": _literal(node.args[0], what)}
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise CannotMap(f"{what} is not a literal (a variable or an expression)") from None


def _owner(node: ast.AST, owners: set[str], attr: str | None) -> bool:
    """``NAME`` (or ``NAME.<attr>``) where NAME is a page or the context."""
    if attr is not None:
        if not (isinstance(node, ast.Attribute) and node.attr == attr):
            return False
        node = node.value
    return isinstance(node, ast.Name) and node.id in owners


# -- reading ---------------------------------------------------------------------------

def request_call(node: ast.AST, owners: set[str]) -> ast.Call | None:
    """``page.request.post(...)`` / ``context.request.get(...)`` (awaited or not), else None."""
    node = node.value if isinstance(node, ast.Await) else node
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in METHODS
            and _owner(node.func.value, owners, "request")):
        return node
    return None


def read_request(call: ast.Call) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """(method, url) and the literal keywords of a request call."""
    method = METHODS[call.func.attr]  # type: ignore[union-attr]
    args = [_literal(a, "the URL") for a in call.args]
    kwargs = {k.arg: _literal(k.value, f"{k.arg}=") for k in call.keywords if k.arg}
    if any(k.arg is None for k in call.keywords):
        raise CannotMap("request(**...) does not map: give its keywords one by one")
    url = args[0] if args else kwargs.pop("url", None)
    if len(args) > 1 or not isinstance(url, str) or not url:
        raise CannotMap(f"request.{call.func.attr}() maps with one literal URL")  # type: ignore[union-attr]
    if method is None:  # fetch(url, method="POST")
        method = str(kwargs.pop("method", "GET")).upper()
        if method not in METHODS.values():
            raise CannotMap(f"request.fetch(method={method!r}): a request step's method is GET, POST, PUT, PATCH, "
                            "DELETE or HEAD")
    return (method, url), kwargs


def route_call(node: ast.AST, owners: set[str]) -> ast.Call | None:
    """``page.route(...)`` / ``context.route(...)``, else None."""
    node = node.value if isinstance(node, ast.Await) else node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "route" \
            and _owner(node.func.value, owners, None):
        return node
    return None


_FULFILL_KEYS = {"status": "status", "json": "json", "body": "body", "path": "file", "headers": "headers"}


def read_route(call: ast.Call) -> dict[str, Any]:
    """One entry of the plan's ``routes:`` from ``route(url, lambda route: route.fulfill(...) | route.abort())``."""
    if len(call.args) != 2 or call.keywords:
        raise CannotMap("route() maps as route(URL, lambda route: route.fulfill(...) or route.abort()) only "
                        "(a plan's routes have no times=)")
    url = _literal(call.args[0], "the route's URL")
    if not (isinstance(url, str) or (isinstance(url, dict) and isinstance(url.get("pattern"), str))):
        raise CannotMap("a route's URL is a glob string or re.compile(...)")
    handler = call.args[1]
    body = handler.body if isinstance(handler, ast.Lambda) and len(handler.args.args) == 1 else None
    body = body.value if isinstance(body, ast.Await) else body
    name = handler.args.args[0].arg if isinstance(handler, ast.Lambda) and handler.args.args else ""
    if not (isinstance(body, ast.Call) and isinstance(body.func, ast.Attribute)
            and isinstance(body.func.value, ast.Name) and body.func.value.id == name
            and body.func.attr in ("fulfill", "abort")):
        raise CannotMap("a route handler maps only as a lambda calling route.fulfill(...) or route.abort() "
                        "(continue_, fallback and handlers with logic have no plan equivalent)")
    if body.func.attr == "abort":
        if len(body.args) + len(body.keywords) > 1:
            raise CannotMap("route.abort() takes at most its error code")
        return {"url": url, "abort": True}
    if body.args:
        raise CannotMap("route.fulfill() maps with keywords (status=, json=, body=, path=, headers=)")
    respond: dict[str, Any] = {}
    for keyword in body.keywords:
        if keyword.arg != "content_type" and keyword.arg not in _FULFILL_KEYS:
            raise CannotMap(f"route.fulfill({keyword.arg}=...) has no plan equivalent (status, json, body as text, "
                            "path, headers, content_type)")
        value = _literal(keyword.value, f"fulfill({keyword.arg}=)")
        if keyword.arg == "content_type":
            respond.setdefault("headers", {})["Content-Type"] = value
        elif keyword.arg == "body" and not isinstance(value, str):
            raise CannotMap("route.fulfill(body=...) maps as text only (bytes: put them in a file, path=)")
        else:
            key = _FULFILL_KEYS[keyword.arg]
            respond[key] = {**respond.get(key, {}), **value} if key == "headers" else value
    if sum(k in respond for k in ("json", "body", "file")) > 1:
        raise CannotMap("route.fulfill() with more than one of json=, body=, path= does not map (rule BODY)")
    return {"url": url, "respond": respond}


def response_check(node: ast.AST, responses: set[str]) -> tuple[str, dict[str, Any]] | None:
    """``expect(response).to_be_ok()`` or an ``assert`` on a response: (the response's name, its condition).

    None when ``node`` is not about a response; CannotMap when it is but does not map.
    """
    node = node.value if isinstance(node, ast.Await) else node
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name) and node.func.value.func.id == "expect"
            and len(node.func.value.args) == 1 and _owner(node.func.value.args[0], responses, None)):
        name = node.func.value.args[0].id  # type: ignore[attr-defined]
        if node.func.attr != "to_be_ok" or node.args or node.keywords:
            raise CannotMap(f"expect(response).{node.func.attr}() does not map (to_be_ok() does)")
        return name, {"kind": "response_status", "args": {"status": OK_STATUSES}}
    if not isinstance(node, ast.Assert):
        return None
    test = node.test
    if _owner(test, responses, "ok"):
        return test.value.id, {"kind": "response_status", "args": {"status": OK_STATUSES}}  # type: ignore[attr-defined]
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        for read in _ASSERTS:
            found = read(test.left, test.ops[0], test.comparators[0], responses)
            if found is not None:
                return found
    names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)} & responses
    if names:
        raise CannotMap("this assert on a response does not map (response.status == N or in [...], response.ok, "
                        "response.json()[...] == VALUE, response.headers[NAME] == VALUE, 'TEXT' in response.headers[NAME])")
    return None


def _status(left: ast.AST, op: ast.cmpop, right: ast.AST, responses: set[str]) -> tuple[str, dict] | None:
    if not _owner(left, responses, "status") or not isinstance(op, (ast.Eq, ast.In)):
        return None
    status = _literal(right, "the status")
    good = isinstance(status, int) if isinstance(op, ast.Eq) else (
        isinstance(status, (list, tuple)) and all(isinstance(s, int) for s in status))
    if not good:
        raise CannotMap("response.status is compared with a number (==) or a list of numbers (in)")
    return left.value.id, {"kind": "response_status",  # type: ignore[attr-defined]
                           "args": {"status": list(status) if isinstance(status, tuple) else status}}


def _json(left: ast.AST, op: ast.cmpop, right: ast.AST, responses: set[str]) -> tuple[str, dict] | None:
    keys: list[Any] = []
    while isinstance(left, ast.Subscript):
        keys.insert(0, _literal(left.slice, "a key into the JSON body"))
        left = left.value
    if not (keys and isinstance(left, ast.Call) and not left.args and _owner(left.func, responses, "json")):
        return None
    if not isinstance(op, ast.Eq):
        raise CannotMap("response.json()[...] maps compared with == only")
    pointer = "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in keys)
    return left.func.value.id, {"kind": "response_json",  # type: ignore[attr-defined]
                                "args": {"pointer": pointer, "equals": _literal(right, "the expected value")}}


def _header(node: ast.AST, responses: set[str]) -> tuple[str, str] | None:
    if isinstance(node, ast.Subscript) and _owner(node.value, responses, "headers"):
        name = _literal(node.slice, "a header name")
        if isinstance(name, str):
            return node.value.value.id, name  # type: ignore[attr-defined]
    return None


def _headers(left: ast.AST, op: ast.cmpop, right: ast.AST, responses: set[str]) -> tuple[str, dict] | None:
    if isinstance(op, ast.Eq) and (found := _header(left, responses)):
        return found[0], {"kind": "response_header",
                          "args": {"name": found[1], "equals": _literal(right, "the header's value")}}
    if isinstance(op, ast.In) and (found := _header(right, responses)):
        text = _literal(left, "the text")
        return found[0], {"kind": "response_header", "args": {"name": found[1], "matches": re.escape(str(text))}}
    return None


_ASSERTS: list[Callable[[ast.AST, ast.cmpop, ast.AST, set[str]], tuple[str, dict] | None]] = [
    _status, _json, _headers]


# -- mapping ----------------------------------------------------------------------------

_REQUEST_KEYS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "data": lambda v: {"body": v} if isinstance(v, str) else {"json": v},
    "form": lambda v: {"form": v},
    "headers": lambda v: {"headers": v},
    "timeout": lambda v: {"timeout_ms": int(v)},
}


def request_step(call: Recorded, url: str) -> dict[str, Any]:
    """The ``request`` step of a recorded call (``url``: the URL as the plan writes it)."""
    method = call.args[0]
    kwargs = dict(call.kwargs)
    params = kwargs.pop("params", None)
    if params is not None:
        if not isinstance(params, dict):
            raise CannotMap("params= maps as a dict of query parameters")
        url += ("&" if "?" in url else "?") + urlencode(params)
    step: dict[str, Any] = {"kind": "request", "method": method, "url": url}
    for key, value in kwargs.items():
        row = _REQUEST_KEYS.get(key)
        if row is None or (key == "data" and isinstance(value, bytes)):
            raise CannotMap(f"request.{method.lower()}({key}=...) has no plan equivalent (data as JSON or text, "
                            "form, headers, params, timeout)")
        step.update(row(value))
    if sum(k in step for k in ("json", "form", "body")) > 1:
        raise CannotMap("a request with more than one of data= and form= does not map (rule BODY)")
    return step


def traffic_wait(call: ast.AST, name: str, page: str | None) -> tuple[str] | None:
    """(v1.3) ``page.expect_response(URL)`` / ``page.expect_request(URL)`` (one literal glob or URL, on the
    page) around one action: ``(URL,)``, which becomes that action's ``request_seen`` (codegen.steps);
    anything else (a regex, a predicate, a timeout, another page): None, reported as a wait."""
    if name not in ("expect_request", "expect_response") or not isinstance(call, ast.Call):
        return None
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if not (isinstance(owner, ast.Name) and owner.id == page) or len(call.args) != 1 or call.keywords:
        return None
    url = call.args[0]
    return (url.value,) if isinstance(url, ast.Constant) and isinstance(url.value, str) and url.value else None
