"""(v1.2) The rules of a ``request`` step's keys and of saved values on a step: METHOD, BODY, SAVE_POINTER,
URL and INPUTS.

A request needs a method (one of the six, in capitals) and a url (absolute
http(s), or relative to the base URL); at most one of ``json`` / ``form`` /
``body``; each ``save`` source a JSON Pointer, ``status`` or ``header:NAME``.
Those keys belong to ``request`` only, ``save_text`` to an ``assert`` or
``wait_for`` with a target, and the response_* conditions to a request's
postconditions (they read its response). A step that uses none of it pays
a few attribute tests.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.allowlist import split_url
from pytest_cometlocal.contract.load.interpolation import SECRET_REFERENCE
from pytest_cometlocal.contract.model.actionspec import HTTP_METHODS, ActionSpec
from pytest_cometlocal.contract.model.conditions import RESPONSE_KINDS
from pytest_cometlocal.contract.model.problems import Loc

Report = Callable[[Loc, str, str], None]

HEADER_PREFIX = "header:"
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP header name (RFC 9110 token)
# The keys of a request (YAML key, attribute): only a request takes them.
_REQUEST_ONLY = (("method", "method"), ("url", "url"), ("headers", "headers"), ("json", "json_body"),
                 ("form", "form"), ("body", "body"), ("save", "save"))
_BODIES = (("json", "json_body"), ("form", "form"), ("body", "body"))
# The step attributes ``check_request`` reads on a step of another kind: a step with none of them, and no
# response_* condition, gives it nothing to report (contract/validate/step/index.py).
REQUEST_KEYS = frozenset({attr for _key, attr in _REQUEST_ONLY} | {"save_text"})
SAVE_TEXT_KINDS = frozenset({"assert", "wait_for"})


def save_problem(source: str) -> str | None:
    """Why ``source`` is not a save source (rule SAVE_POINTER), or None."""
    if source == "status":
        return None
    if source.startswith(HEADER_PREFIX):
        if not _TOKEN.match(source[len(HEADER_PREFIX):]):
            return f"'header:' needs a header name after it: {source!r}"
        return None
    try:
        json_values.parse(source)
    except ValueError as exc:
        return f"save takes a JSON Pointer, 'status' or 'header:NAME': {exc}"
    return None


def check_request(step: ActionSpec, loc: Loc, add: Report) -> None:
    """METHOD, BODY, SAVE_POINTER, URL and INPUTS for the request keys, ``save_text`` and response_* conditions."""
    kind = step.kind
    if kind == "request":
        _check_request_step(step, loc, add)
    else:
        for key, attr in _REQUEST_ONLY:
            if getattr(step, attr) is not None:
                add(loc + (key,), f"{key!r} is not used by '{kind}' (only request)", "INPUTS")
    if step.save_text is not None:
        if kind not in SAVE_TEXT_KINDS:
            add(loc + ("save_text",), f"'save_text' is not used by '{kind}' (only assert and wait_for)", "INPUTS")
        elif step.target is None:
            add(loc + ("save_text",), f"save_text needs the {kind}'s target: it stores that element's text", "INPUTS")
    for phase in ("preconditions", "postconditions"):
        for i, cond in enumerate(getattr(step, phase)):
            if cond.kind in RESPONSE_KINDS and (kind != "request" or phase == "preconditions"):
                add(loc + (phase, i, "kind"), f"{cond.kind} reads a request's response: only in a request step's "
                    "postconditions", "INPUTS")


def _check_request_step(step: ActionSpec, loc: Loc, add: Report) -> None:
    if step.method is None:
        add(loc + ("method",), f"'request' needs a method ({', '.join(HTTP_METHODS)})", "METHOD")
    elif step.method not in HTTP_METHODS:
        hint = " (write it in capitals)" if step.method.upper() in HTTP_METHODS else ""
        add(loc + ("method",), f"method {step.method!r} is not one of {', '.join(HTTP_METHODS)}{hint}", "METHOD")
    if step.url is None:
        add(loc + ("url",), "'request' needs a url", "INPUTS")
    else:
        parts = split_url(SECRET_REFERENCE.sub("SECRET", step.url))
        if isinstance(parts, str):
            add(loc + ("url",), parts, "URL")
        elif parts.scheme and parts.scheme not in ("http", "https"):
            add(loc + ("url",), f"scheme '{parts.scheme}' is not allowed; use http or https", "URL")
        elif not parts.scheme and parts.netloc:
            add(loc + ("url",), "scheme-relative URLs ('//host') are not allowed", "URL")
    given = [key for key, attr in _BODIES if getattr(step, attr) is not None]
    for key in given[1:]:
        add(loc + (key,), f"a request takes at most one of json, form, body (it has {', '.join(given)})", "BODY")
    for name, source in (step.save or {}).items():
        if problem := save_problem(source):
            add(loc + ("save", name), problem, "SAVE_POINTER")


def saved_names(step: Any) -> list[str]:
    """The names a step saves (``save`` keys, ``save_text``)."""
    return [*(step.save or {}), *([step.save_text] if step.save_text else [])]
