"""(v1.2) The conditions on a request step's last response: ``response_status``, ``response_json``,
``response_header``; rows of page/conditions.py's EVALUATORS.

They read ``CheckContext.response`` (the HttpResponse the step's call ended
with), never the page. What a failure records is the response as
exchange.observed shows it: status, headers and body, cut at 4 KB and masked.
The comparison of a JSON value is the one ``storage_item`` uses
(contract/json_values.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.model.checks.numbers import number_keys
from pytest_cometlocal.contract.numbers import compare_number
from pytest_cometlocal.contract.patterns import compiled
from pytest_cometlocal.executor.http.exchange import observed

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.http.exchange import HttpResponse


class ResponseContext(Protocol):
    """What these conditions read of page/conditions.py's ``CheckContext``: named here, since this room
    may not import the page room (which imports it)."""

    response: HttpResponse | None
    mask_text: Callable[[str], str]
    resolve_text: Callable[[str], str]


Evaluator = Callable[["Condition", ResponseContext, str], tuple[bool, Any]]
# The most characters of a JSON value ``observed`` shows beside the body.
VALUE_LIMIT = 1_000


def _response_status(cond: Condition, ctx: ResponseContext, phase: str) -> tuple[bool, Any]:
    response = ctx.response
    wanted = cond.args.status if isinstance(cond.args.status, list) else [cond.args.status]
    ok = response is not None and response.status in wanted
    return ok, {"status": response.status} if ok else observed(response, ctx.mask_text)


def _response_json(cond: Condition, ctx: ResponseContext, phase: str) -> tuple[bool, Any]:
    response = ctx.response
    if response is None:
        return False, observed(None, ctx.mask_text)
    document = response.json()
    if document is json_values.MISSING:
        return False, observed(response, ctx.mask_text, problem="the body is not JSON")
    value = json_values.resolve(document, cond.args.pointer)
    if value is json_values.MISSING:
        return False, observed(response, ctx.mask_text, problem="the pointer names nothing in the body")
    args = cond.args
    if "equals" in args.model_fields_set and isinstance(args.equals, str):
        args = args.model_copy(update={"equals": ctx.resolve_text(args.equals)})
    ok, more = json_values.compare(value, args)
    more = {k: ctx.mask_text(v) if isinstance(v, str) else v for k, v in more.items()}  # (v1.3) a saved bound
    shown = {"value": ctx.mask_text(json_values.as_text(value))[:VALUE_LIMIT], **more}
    return ok, shown if ok else observed(response, ctx.mask_text, **shown)


def header_holds(value: str, args: Any, resolve_text: Callable[[str], str]) -> tuple[bool, dict[str, Any]]:
    """A header's value against ``equals``, ``matches`` or (v1.3) the number keys: response_header's, and
    request_seen's request_header / response_header (http/seen.py)."""
    if number_keys(args):
        return compare_number(value, args)
    if args.equals is not None:
        return value == resolve_text(args.equals), {}
    if args.matches is not None:
        return compiled(args.matches).search(value) is not None, {}
    return True, {}


def _response_header(cond: Condition, ctx: ResponseContext, phase: str) -> tuple[bool, Any]:
    response = ctx.response
    if response is None:
        return False, observed(None, ctx.mask_text)
    value = response.header(cond.args.name)
    args = cond.args
    ok, more = header_holds(value, args, ctx.resolve_text) if value is not None else (False, {})
    if ok:
        return True, {"value": ctx.mask_text(value)}
    more = {"value": ctx.mask_text(value), **{k: ctx.mask_text(v) if isinstance(v, str) else v
                                              for k, v in more.items()}} if more else more
    return False, observed(response, ctx.mask_text, **({"problem": "no such header"} if value is None else more))


# One row per response condition kind (contract/model/conditions.py RESPONSE_KINDS).
RESPONSE_EVALUATORS: dict[str, Evaluator] = {
    "response_status": _response_status,
    "response_json": _response_json,
    "response_header": _response_header,
}
