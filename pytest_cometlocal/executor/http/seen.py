"""(v1.3) ``request_seen``: the page's own requests in a window, filtered, checked and counted.

The row of page/conditions.py's EVALUATORS (``SEEN_EVALUATORS``). It reads
``CheckContext.traffic`` (a ``TrafficLook``): the requests started since the
step began (its attempt's marks, taken as it is counted, before its
preconditions), or since an earlier step began (``since``). Of those, the
ones whose URL (the route glob, or the regex searched) and ``method`` match are
*matching*; a matching request that finished *passes* when every check
written holds on it. A ``request_*`` check reads what the page sent; a
``response_*`` check needs an answer (a server's or a route's): a request the
network guard refused, a route aborted or the network failed never passes one.

- Without ``count`` it holds once one matching request was answered and passes.
- With ``count`` it holds when exactly that many matching requests pass (an
  unanswered one too, when no response_* check is written: it was sent), and
  it is decided only when none of the matching requests is still in flight.
  More than ``count`` can never become fewer: the look is ``final`` and poll
  stops (the step fails at once instead of waiting for its timeout).

Each matching request that finished is evidence once per attempt:
``evidence/http/<tag>_seen_<n>.json`` (n: its place in the run's traffic), the
exchange masked as a request step's (exchange.evidence_document) and hashed.
What a failure shows lists the matching requests (method, masked URL, how they
ended, the first check that failed, the evidence file), at most 20.

A ``request_json`` / ``request_body`` check on a request whose browser gave no
body (Firefox through WebDriver BiDi: http/traffic.py, issue 49) cannot be
decided: ``BodyUnavailable``, the step fails PRECONDITION_FAILED with
``details`` ``{"condition": "request_seen", "unavailable": "request_body_available",
"browser": B, "problem": "the browser does not give request bodies (B)", "request": ...}``,
never "the request's body is not JSON", and never a POSTCONDITION_FAILED a
negative plan could take for the mismatch it expects. It is carried as
accessibility_clean's refusal is (audits/accessibility.py's docstring says why).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

from pytest_cometlocal.contract.model.checks.numbers import number_keys
from pytest_cometlocal.contract.numbers import compare_number, describe_numbers, read_number
from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.model.checks.traffic import OBSERVED_REQUESTS, checks_of, glob_regex
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import StepRefused
from pytest_cometlocal.contract.patterns import compiled
from pytest_cometlocal.executor.http.exchange import evidence_document
from pytest_cometlocal.executor.http.response_checks import header_holds

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.http.traffic import Exchange

VALUE_LIMIT = 200  # the most characters of a compared value a failure's ``problem`` shows


class BodyUnavailable(StepRefused):
    """A body check on a request whose browser gave no body: PRECONDITION_FAILED (module docstring)."""

    def __init__(self, browser: str, phase: str, request: dict[str, Any]):
        problem = f"the browser does not give request bodies ({browser})"
        super().__init__(ErrorCode.PRECONDITION_FAILED, f"request_seen cannot check the request's body: {problem}",
                         {"condition": "request_seen", "unavailable": "request_body_available", "browser": browser,
                          "problem": problem, "request": request},
                         "precondition" if phase == "pre" else "postcondition")


@dataclass
class TrafficLook:
    """What request_seen reads beside the page: the window's requests and where their evidence goes."""

    window: Callable[[str | None], list[Exchange] | None]  # since a step id (None: this step); None: not run
    record: Callable[[Exchange], str | None]  # the exchange written as evidence (once per attempt): its uri
    provisional: bool = False  # the look-ahead's: the step looks again itself, with its own window


class SeenContext(Protocol):
    """What request_seen reads of page/conditions.py's CheckContext (this room may not import the page room)."""

    traffic: TrafficLook | None
    mask_text: Callable[[str], str]
    resolve_text: Callable[[str], str]


def traffic_look(events: Any, run: Any, attempt: Any) -> TrafficLook:
    """The look of one attempt: ``events`` the run's PageEvents, ``run`` its RunFolder (evidence, redactor)."""
    def window(since: str | None) -> list[Exchange] | None:
        marks = attempt.marks if since is None else events.step_marks.get(since)
        return None if marks is None else events.exchanges_since(marks)

    def record(exchange: Exchange) -> str | None:
        tag = attempt.tag
        if tag in exchange.evidence:
            return exchange.evidence[tag]
        headers, body, response, missing = exchange.read()
        request = {"method": exchange.method, "url": exchange.url, "headers": headers, "body": body}
        document = {**evidence_document(request, response, [], run.redactor.text), "source": "page",
                    **{k: v for k, v in exchange.state().items() if k != "status"},
                    **({"response_body_missing": missing} if missing else {})}
        ref = run.evidence.add_json("http_exchange", f"http/{tag}_seen_{exchange.number:04d}.json", document,
                                    step_id=attempt.spec.id)
        attempt.evidence.append(ref)
        exchange.evidence[tag] = ref.uri
        return ref.uri

    return TrafficLook(window, record, provisional=attempt.tag == "ahead")


@functools.lru_cache(maxsize=256)
def _glob(glob: str) -> re.Pattern[str]:
    return re.compile(glob_regex(glob))


def _url_matcher(url: Any, ctx: SeenContext) -> Callable[[str], bool]:
    if isinstance(url, str):
        rx = _glob(ctx.resolve_text(url))
        return lambda u: rx.match(u) is not None
    pattern = compiled(url.pattern)
    return lambda u: pattern.search(u) is not None


def _compared(value: Any, args: Any, ctx: SeenContext, where: str) -> str | None:
    """None when ``value`` meets the check's equals / matches / length (json_values.compare), else why not."""
    if "equals" in args.model_fields_set and isinstance(args.equals, str):
        args = args.model_copy(update={"equals": ctx.resolve_text(args.equals)})
    ok, more = json_values.compare(value, args)
    if ok:
        return None
    shown = ctx.mask_text(json_values.as_text(value))[:VALUE_LIMIT]
    return more.get("problem") or f"{where} is {shown}"


def _json_problem(body: bytes | None, args: Any, ctx: SeenContext, what: str) -> str | None:
    try:
        document = json.loads((body or b"").decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return f"the {what}'s body is not JSON"
    value = json_values.resolve(document, args.pointer)
    if value is json_values.MISSING:
        return f"the pointer {args.pointer!r} names nothing in the {what}'s body"
    return _compared(value, args, ctx, f"{what} {args.pointer or 'body'}")


def _header_problem(value: str | None, args: Any, ctx: SeenContext, what: str) -> str | None:
    """response_header's comparison (response_checks.header_holds), on a header of the exchange."""
    if value is None:
        return f"no {what} header {args.name!r}"
    ok, more = header_holds(value, args, ctx.resolve_text)
    if ok:
        return None
    return more.get("problem") or f"{what} header {args.name} is {ctx.mask_text(value)[:VALUE_LIMIT]}"


def _problem(exchange: Exchange, args: Any, ctx: SeenContext, phase: str = "post") -> str | None:
    """The first check that does not hold on a finished request (None: it passes every one)."""
    checks = checks_of(args)
    if not checks:
        return None
    headers, body, response, missing = exchange.read()
    for key, check in checks:
        if key in ("request_json", "request_body") and exchange.body_unavailable:
            raise BodyUnavailable(exchange.body_unavailable, phase,
                                  {"method": exchange.method, "url": ctx.mask_text(exchange.url)})
        if key.startswith("response_") and response is None:
            return ("no response: refused by the allowlist (network guard)" if exchange.blocked
                    else f"no response: {exchange.failure or 'none came'}")
        if key == "request_json":
            problem = _json_problem(body, check, ctx, "request")
        elif key == "request_header":
            problem = _header_problem(headers.get(check.name.lower()), check, ctx, "request")
        elif key == "request_body":
            text = (body or b"").decode("utf-8", errors="replace")
            ok = (text == ctx.resolve_text(check.equals) if check.equals is not None
                  else compiled(check.matches).search(text) is not None)
            problem = None if ok else f"the request's body is {ctx.mask_text(text)[:VALUE_LIMIT]}"
        elif key == "response_status":
            wanted = check if isinstance(check, list) else [check]
            problem = None if response.status in wanted else f"status {response.status}"
        elif key == "response_json":
            problem = missing or _json_problem(response.body, check, ctx, "response")
        else:
            problem = _header_problem(response.header(check.name), check, ctx, "response")
        if problem is not None:
            return problem
    return None


def _shown(exchange: Exchange, ctx: SeenContext, problem: str | None, uri: str | None) -> dict[str, Any]:
    return {"method": exchange.method, "url": ctx.mask_text(exchange.url), **exchange.state(),
            **({"problem": problem} if problem else {}), **({"exchange": uri} if uri else {})}


def request_seen(cond: Condition, ctx: SeenContext, phase: str) -> tuple[bool, Any]:
    look, args = ctx.traffic, cond.args
    if look is None or look.provisional:
        return False, {"problem": "looked at by the step itself"}
    exchanges = look.window(args.since)
    if exchanges is None:
        return False, {"problem": f"step {args.since!r} has not begun in this run", "final": True}
    matches = _url_matcher(args.url, ctx)
    matching = [e for e in exchanges if (args.method is None or e.method == args.method) and matches(e.url)]
    rows, passing, in_flight = [], [], 0
    for exchange in matching:
        if not exchange.done:
            in_flight += 1
            rows.append(_shown(exchange, ctx, None, None))
            continue
        problem = _problem(exchange, args, ctx, phase)
        uri = look.record(exchange) if len(rows) < OBSERVED_REQUESTS else None
        rows.append(_shown(exchange, ctx, problem, uri))
        if problem is None:
            passing.append((exchange, rows[-1]))
    counts = {"seen": len(matching), "passed": len(passing), "in_flight": in_flight}
    if not args.counted:
        hit = next((row for exchange, row in passing if exchange.answered), None)
        if hit is not None:
            return True, {"request": hit, **counts}
        why = ("no matching request was sent" if not matching
               else f"{in_flight} matching request(s) still in flight" if in_flight
               else "no matching request was answered and passed every check")
        return False, {"problem": why, **counts, "requests": rows[:OBSERVED_REQUESTS]}
    if number_keys(args):  # (v1.3) the number keys instead of count: decided once nothing is in flight
        ok, more = compare_number(len(passing), args, ctx.mask_text)
        if ok and not in_flight:
            return True, counts
        why = (f"{in_flight} matching request(s) still in flight" if in_flight
               else f"{len(passing)} matching request(s) passed, which is not "
                    f"{describe_numbers(args, ctx.mask_text)}")
        observed = {"problem": why, **counts, **more, "requests": rows[:OBSERVED_REQUESTS]}
        if _past_the_bound(len(passing), args, more):
            observed["final"] = True  # as for count: more passed than the bound, and more never become fewer
        return False, observed
    wanted = args.count
    if not in_flight and len(passing) == wanted:
        return True, {"count": wanted, **counts}
    observed: dict[str, Any] = {"count": wanted, **counts, "requests": rows[:OBSERVED_REQUESTS]}
    if len(passing) > wanted:
        over = passing[wanted][1]  # the first request past the count: for count 0, the one that was sent
        observed["problem"] = (f"count: {wanted}, but {len(passing)} matching request(s) were sent; "
                               f"{'the first' if wanted == 0 else 'one too many'}: {over['method']} {over['url']}")
        observed["final"] = True  # more can never become fewer: looking again cannot make it hold
    elif in_flight:
        observed["problem"] = f"{in_flight} matching request(s) still in flight"
    else:
        observed["problem"] = f"count: {wanted}, but {len(passing)} matching request(s) passed"
    return False, observed


def _past_the_bound(passed: int, args: Any, more: dict[str, Any]) -> bool:
    """Whether a number check of a count broke upward (less_than, between's high): no later look can mend it."""
    failed = more.get("failed_checks", ())
    high = read_number(args.between[1]) if "between" in failed else None
    return "less_than" in failed or (high is not None and passed > high)


def decided(observed: Any) -> bool:
    """Whether a request_seen's look is final (poll stops): its count was passed already."""
    return isinstance(observed, dict) and observed.get("final") is True


# One row per traffic condition kind (contract/model/checks/traffic.py).
SEEN_EVALUATORS = {"request_seen": request_seen}
