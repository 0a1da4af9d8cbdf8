"""(v1.3) The page's own requests as a condition: ``request_seen``; and the v1.2 response vocabulary it reuses.

``request_seen`` looks at the requests the page itself sent (fetch, XHR, a
form, a beacon, an image) in a window of the run: since the step began, or
since an earlier step (``since``). Its filters (``url``, ``method``) say which
requests it is about; its checks (``request_*``, ``response_*``) what each of
them must carry; ``count`` how many may pass (0: none was sent). The checks
are the v1.2 ``response_*`` conditions' models (kept here, beside their new
use, and imported by conditions.py under the same names, so the published
schemas keep their ``$defs``), plus ``RequestBodyArgs``.

``url`` is a glob as a route's (Playwright's ``context.route`` glob, matched
against the full URL) or ``{pattern: REGEX}``; ``glob_regex`` is that glob's
meaning as a Python regex, so the executor matches a request exactly as a
route would take it. ``count`` or the number keys (``COUNT_KEYS``) ask for a
number of passing requests.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from pytest_cometlocal.contract.model.base import ContractModel, at_most_one, exactly_one  # noqa: F401
from pytest_cometlocal.contract.model.codes import Severity
from pytest_cometlocal.contract.model.checks.numbers import NUMBER_KEYS, NumberChecks, number_keys

NonEmpty = Annotated[str, Field(min_length=1)]
HttpStatus = Annotated[int, Field(ge=100, le=599)]
# The methods a request_seen may filter on: every method a page's request may have that a route takes.
SeenMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
# The keys that say how many requests must pass; ``count`` alone today (numbers adds its keys here).
COUNT_KEYS: tuple[str, ...] = ("count", *NUMBER_KEYS)
# The most requests one request_seen lists in its ``observed`` (a page that polls sends many).
OBSERVED_REQUESTS = 20


class UrlPattern(ContractModel):
    """``url: {pattern: REGEX}``: a Python regular expression searched in the request's full URL (rule REGEX)."""

    pattern: NonEmpty


class ResponseStatusArgs(ContractModel):  # v1.2: a code, or a list of the codes that hold
    status: HttpStatus | Annotated[list[HttpStatus], Field(min_length=1)]


class ResponseJsonArgs(NumberChecks):  # v1.2: the value a JSON Pointer names in the response's body
    COMPARED = ("equals", "matches", "length")
    pointer: str
    equals: Any = None
    matches: str | None = None
    length: Annotated[int, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _one_check(self) -> "ResponseJsonArgs":
        given = [n for n in ("equals", "matches", "length") if n in self.model_fields_set]
        if len(given) > 1 or not (given or number_keys(self)):  # (v1.3) or number keys (rule NUMBER)
            raise ValueError("exactly one of equals, matches, length (or v1.3's number keys)"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self


class ResponseHeaderArgs(NumberChecks):  # v1.2: a header of the response (its name in any case)
    COMPARED = ("equals", "matches")
    name: NonEmpty
    equals: str | None = None
    matches: str | None = None

    @model_validator(mode="after")
    def _one_check(self) -> "ResponseHeaderArgs":
        at_most_one(self, ("equals", "matches"))
        return self


class RequestBodyArgs(ContractModel):  # v1.3: the request's body as text
    equals: str | None = None
    matches: str | None = None

    @model_validator(mode="after")
    def _one_check(self) -> "RequestBodyArgs":
        exactly_one(self, ("equals", "matches"))
        return self


def _one_or_more(model: type) -> Any:
    """A check written once, or a list of them (all must hold)."""
    return model | Annotated[list[model], Field(min_length=1)]  # type: ignore[valid-type]


class RequestSeenArgs(NumberChecks):  # v1.3: ``count``, or the number keys instead (rule NUMBER)
    COMPARED = ("count",)
    url: NonEmpty | UrlPattern
    method: SeenMethod | None = None
    since: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")] | None = None  # a step id
    count: Annotated[int, Field(ge=0)] | None = None
    request_json: _one_or_more(ResponseJsonArgs) | None = None
    request_header: _one_or_more(ResponseHeaderArgs) | None = None
    request_body: RequestBodyArgs | None = None
    response_status: HttpStatus | Annotated[list[HttpStatus], Field(min_length=1)] | None = None
    response_json: _one_or_more(ResponseJsonArgs) | None = None
    response_header: _one_or_more(ResponseHeaderArgs) | None = None

    @property
    def counted(self) -> bool:
        """Whether a number of passing requests is asked for (``count``, or a number key instead)."""
        return any(getattr(self, key, None) is not None for key in COUNT_KEYS)

    @property
    def url_text(self) -> str:
        return self.url if isinstance(self.url, str) else f"/{self.url.pattern}/"


class RequestSeen(ContractModel):  # v1.3
    kind: Literal["request_seen"]
    args: RequestSeenArgs
    severity: Severity = "error"


# The checks of request_seen in the order they are looked at: the request's first, then its answer's.
REQUEST_CHECKS: tuple[str, ...] = ("request_json", "request_header", "request_body")
RESPONSE_CHECKS: tuple[str, ...] = ("response_status", "response_json", "response_header")


def checks_of(args: RequestSeenArgs) -> list[tuple[str, Any]]:
    """(key, one check) for every check written, lists spread, in REQUEST_CHECKS + RESPONSE_CHECKS order."""
    out: list[tuple[str, Any]] = []
    for key in REQUEST_CHECKS + RESPONSE_CHECKS:
        value = getattr(args, key)
        if value is None:
            continue
        if key == "response_status":
            out.append((key, value))
        else:
            out.extend((key, v) for v in (value if isinstance(value, list) else [value]))
    return out


def describe_request_seen(args: RequestSeenArgs) -> str:
    """``request_seen (POST **/api/notes, count=0)``, ``request_seen (GET /api/x/, since=open, 2 checks)``."""
    parts = [" ".join(p for p in (args.method, args.url_text) if p)]
    if args.since:
        parts.append(f"since={args.since}")
    if args.count is not None:
        parts.append(f"count={args.count}")
    checks = checks_of(args)
    if len(checks) == 1:
        key, check = checks[0]
        shown = check if key == "response_status" else check.model_dump(mode="json", exclude_none=True)
        text = " ".join(f"{key}={shown}".split())
        parts.append(text if len(text) <= 60 else text[:59] + "…")
    elif checks:
        parts.append(f"{len(checks)} checks")
    return f"request_seen ({', '.join(parts)})"


def glob_regex(glob: str) -> str:
    """A route glob as a Python regex, with Playwright's meaning (urlMatch's globToRegex): ``*`` any run
    within a path segment, ``**`` across segments (``**/`` also none), ``{a,b}`` alternatives, ``\\``
    escapes the next character; the whole URL must match. Raises ValueError on an unbalanced brace."""
    special = set("$^+.*()|\\?{}[]")
    tokens, in_group, i = ["^"], False, 0
    while i < len(glob):
        c = glob[i]
        if c == "\\" and i + 1 < len(glob):
            tokens.append("\\" + glob[i + 1] if glob[i + 1] in special else glob[i + 1])
            i += 1
        elif c == "*":
            before, stars = glob[i - 1] if i > 0 else None, 1
            while i + 1 < len(glob) and glob[i + 1] == "*":
                stars, i = stars + 1, i + 1
            if stars == 1:
                tokens.append("([^/]*)")
            elif i + 1 < len(glob) and glob[i + 1] == "/":
                tokens.append("((.+/)|)" if before == "/" else "(.*/)")
                i += 1
            else:
                tokens.append("(.*)")
        elif c == "{":
            if in_group:
                raise ValueError(f"glob {glob!r}: a '{{' inside '{{…}}' (nested groups are not supported)")
            in_group = True
            tokens.append("(")
        elif c == "}":
            if not in_group:
                raise ValueError(f"glob {glob!r}: a '}}' without its '{{'")
            in_group = False
            tokens.append(")")
        elif c == ",":
            tokens.append("|" if in_group else "\\,")
        else:
            tokens.append("\\" + c if c in special else c)
        i += 1
    if in_group:
        raise ValueError(f"glob {glob!r}: a '{{' without its '}}'")
    return "".join(tokens) + "$"
