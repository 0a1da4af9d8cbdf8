"""The plan's regular expressions: found by field, compiled once with a bounded cost (rule REGEX).

A plan's regexes are untrusted input, and Python's ``re`` can fail on one in
more ways than ``re.error``: ``a{4294967296}`` raises OverflowError, a
thousand nested groups a RecursionError in its recursive parser, a huge
pattern a MemoryError. So a pattern is held to a length and a group-nesting
limit *before* it is compiled, and every exception compiling it becomes a
problem. The executor compiles through ``compiled`` too (the same cached
object), so a pattern that validated is never compiled another way at run time.

Matching is bounded too (issue 46). Python's ``re`` cannot be stopped: ``(a+)+$``
against a long page text spins for hours holding the GIL, and no step timeout
can interrupt it. So a pattern is matched with the ``regex`` module (VERSION0,
``re``'s own dialect; contract/pattern_text.py escapes the two things it reads
otherwise), whose ``timeout=`` makes a match give up: ``BoundedPattern`` takes
at most ``MATCH_SECONDS`` a match, or less when the condition's deadline
(``matching_until``) is nearer, and raises PatternTimeout, which its caller
locates at its field. ``re`` still decides what compiles, so rule REGEX says
what it said before; a pattern whose repeats would make ``regex`` expand too
much (``MAX_REPEAT_WEIGHT``), or that it cannot compile, is REGEX too.
(benchmarks/bench_regex.py measures the choice against google-re2 and ``re``.)

The regex-valued fields are a table (``REGEX_FIELDS``): a new one is a row,
and ``regex_problems`` finds every one inside any model of the plan.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import time
from typing import Any, Callable, Iterator

from pydantic import BaseModel

from pytest_cometlocal.contract.errors import PatternError, PatternTimeout
from pytest_cometlocal.contract.pattern_text import scan
from pytest_cometlocal.contract.model.conditions import (
    AttrPatternArgs, CookieArgs, DownloadArgs, PatternArgs, ResponseHeaderArgs, ResponseJsonArgs, StorageItemArgs,
    TargetPatternArgs,
)
from pytest_cometlocal.contract.model.checks.browser_state import ItemCheck, StorageItemsArgs
from pytest_cometlocal.contract.model.checks.element_looks import CssArgs
from pytest_cometlocal.contract.model.plan import AuthSignals, UrlPattern
from pytest_cometlocal.contract.model.checks.traffic import RequestBodyArgs
from pytest_cometlocal.contract.model.targets import PageSpec
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.model.base import can_hold, nested_fields

# Patterns match URLs and file names: a few hundred characters is already a lot.
MAX_PATTERN_LENGTH = 2000
# Python's parser recurses once per group level (RecursionError near 300 levels).
MAX_GROUP_NESTING = 50
# ``regex`` expands counted repeats when compiling: (?:a{100}){1000} costs ~0.1 s, ten times that ~1 s.
MAX_REPEAT_WEIGHT = 100_000
# The most one match may take. A sane pattern takes about a millisecond on 100 KB of text.
MATCH_SECONDS = 1.0
# The least, even at a deadline: a last look still gets to match a sane pattern.
MIN_MATCH_SECONDS = 0.05

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("cometlocal_match_deadline", default=None)

# Each model that holds a regex, and the names of its regex-valued fields.
REGEX_FIELDS: dict[type[BaseModel], tuple[str, ...]] = {
    PatternArgs: ("pattern",),       # url_matches
    DownloadArgs: ("filename",),     # download_started
    AuthSignals: ("url_pattern",),   # auth_signals
    PageSpec: ("url_matches",),      # (v1.2) switch_page's page
    TargetPatternArgs: ("pattern",),  # (v1.2) element_text_matches, element_value_matches
    AttrPatternArgs: ("pattern",),    # (v1.2) element_attr_matches
    StorageItemArgs: ("matches",),    # (v1.2) storage_item
    CookieArgs: ("matches",),         # (v1.2) cookie
    UrlPattern: ("pattern",),         # (v1.2) a route's url: {pattern: REGEX}
    ResponseJsonArgs: ("matches",),   # (v1.2) response_json
    StorageItemsArgs: ("key_matches",),  # (v1.3) storage_items
    ItemCheck: ("matches",),  # (v1.3) storage_items' every / some
    ResponseHeaderArgs: ("matches",),  # (v1.2) response_header (and v1.3 request_seen's request_header)
    RequestBodyArgs: ("matches",),    # (v1.3) request_seen's request_body
    CssArgs: ("matches",),  # (v1.3) element_css
}


_REGEX_MODELS = frozenset(REGEX_FIELDS)  # a frozenset keeps its hash: the caches' keys are cheap


class BoundedPattern:
    """A plan's pattern as the run matches it: ``re``'s meaning, each match bounded in time.

    ``search`` and ``fullmatch`` are ``re``'s (a match object or None); one that
    runs out of time raises PatternTimeout instead of spinning on."""

    __slots__ = ("pattern", "_engine")

    def __init__(self, pattern: str, engine: Any):
        self.pattern, self._engine = pattern, engine

    def search(self, text: str, timeout: float | None = None) -> Any:
        return self._bounded(self._engine.search, text, timeout)

    def fullmatch(self, text: str, timeout: float | None = None) -> Any:
        return self._bounded(self._engine.fullmatch, text, timeout)

    def _bounded(self, match: Callable[..., Any], text: str, timeout: float | None) -> Any:
        seconds = match_seconds() if timeout is None else timeout
        try:
            return match(text, timeout=seconds)
        except TimeoutError:
            raise PatternTimeout(self.pattern, len(text), seconds) from None

    def __repr__(self) -> str:
        return f"BoundedPattern({self.pattern!r})"


def match_seconds() -> float:
    """How long the next match may take: MATCH_SECONDS, or what is left before ``matching_until``'s deadline."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return MATCH_SECONDS
    return min(MATCH_SECONDS, max(deadline - time.monotonic(), MIN_MATCH_SECONDS))


@contextlib.contextmanager
def matching_until(deadline: float) -> Iterator[None]:
    """Inside: no match runs past ``deadline`` (``time.monotonic()``), so a condition polled until its
    timeout is never held past it by a pattern."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


_COMPILE_FAULTS = (OverflowError, RecursionError, MemoryError, ValueError, TypeError)


@functools.lru_cache(maxsize=512)
def _compile(pattern: str) -> BoundedPattern | str:
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"the pattern is {len(pattern)} characters long; at most {MAX_PATTERN_LENGTH}"
    scanned = scan(pattern, verbose=False)
    if scanned.nesting > MAX_GROUP_NESTING:
        return f"groups nest more than {MAX_GROUP_NESTING} levels deep"
    try:
        checked = re.compile(pattern)  # the plan's dialect: what re refuses is refused
    except re.error as exc:
        return str(exc)
    except _COMPILE_FAULTS as exc:
        return f"{exc} ({type(exc).__name__})"
    if checked.flags & re.VERBOSE:
        scanned = scan(pattern, verbose=True)
    if scanned.scoped_verbose:
        return "(?x:...) scoped to a group cannot be matched in bounded time; put (?x) at the start"
    if scanned.weight > MAX_REPEAT_WEIGHT:
        return (f"its counted repeats, multiplied through their groups, come to {scanned.weight:,}; "
                f"at most {MAX_REPEAT_WEIGHT:,}")
    import regex  # here, not at the top: ~20-40 ms, paid only by a process that compiles a plan regex

    try:
        engine = regex.compile(scanned.engine_text, regex.VERSION0)
    except (regex.error, *_COMPILE_FAULTS) as exc:
        return f"the bounded matcher cannot compile it: {exc}"
    return BoundedPattern(pattern, engine)


def compiled(pattern: str) -> BoundedPattern:
    """``pattern`` compiled, once per process, bounded when it matches; PatternError when it cannot be
    (its message, one line)."""
    result = _compile(pattern)
    if isinstance(result, str):
        raise PatternError(f"invalid regular expression: {result}")
    return result


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used, or None when it compiles within the limits."""
    try:
        compiled(pattern)
    except PatternError as exc:
        return str(exc)
    return None


_SCALAR = (str, int, float, bool, type(None))


def _models(value: Any, loc: Loc, skip: tuple[type, ...]) -> Iterator[tuple[BaseModel, Loc]]:
    """Every model inside ``value`` (lists and dicts walked, ``skip`` classes not), with its key path."""
    stack: list[tuple[Any, Loc]] = [(value, loc)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, BaseModel):
            if skip and isinstance(node, skip) and node is not value:
                continue
            yield node, where
            for name, key in nested_fields(type(node), _REGEX_MODELS):  # only fields that can hold a regex model
                child = getattr(node, name)
                if child is not None:
                    stack.append((child, where + (key,)))
        elif isinstance(node, (list, tuple)):
            stack.extend((item, where + (i,)) for i, item in enumerate(node) if not isinstance(item, _SCALAR))
        elif isinstance(node, dict):
            stack.extend((item, where + (key,)) for key, item in node.items() if not isinstance(item, _SCALAR))


def may_hold_regex(model: BaseModel) -> bool:
    """Whether ``model`` can hold a regex field at any depth (its class's fields say; model/base.py ``can_hold``)."""
    return can_hold(type(model), _REGEX_MODELS)


def regex_problems(model: Any, loc: Loc = (), skip: tuple[type, ...] = ()) -> list[tuple[Loc, str]]:
    """(key path, message) for every regex field in ``model`` that cannot be used.

    ``skip``: model classes not to look inside (the plan's steps, which the step rules check).
    A model whose class cannot hold a regex field (most condition args) is not walked.
    """
    found: list[tuple[Loc, str]] = []
    if isinstance(model, BaseModel) and not may_hold_regex(model):
        return found
    for node, where in _models(model, loc, skip):
        for name in REGEX_FIELDS.get(type(node), ()):
            value = getattr(node, name)
            if isinstance(value, str):
                problem = pattern_problem(value)
                if problem:
                    found.append((where + (name,), problem))
    return found


def gave_up(model: Any, exc: PatternTimeout) -> dict[str, Any]:
    """What a condition whose pattern gave up observed: the field of ``model`` it came from, and why."""
    field = next((name for name in REGEX_FIELDS.get(type(model), ()) if getattr(model, name, None) == exc.pattern),
                 None)
    texts = getattr(model, "texts", None)  # element_texts_equal's /.../ entries
    if field is None and isinstance(texts, list) and f"/{exc.pattern}/" in texts:
        field = f"texts[{texts.index(f'/{exc.pattern}/')}]"
    field = field or "pattern"
    return {"error": "PatternTimeout", "field": field, "message": f"{field}: {exc}"}


def gave_up_in(observed: Any) -> bool:
    """Whether a condition's ``observed`` is ``gave_up``'s: it decides the condition (poll stops), as looking
    again would spin as long again."""
    return isinstance(observed, dict) and observed.get("error") == "PatternTimeout"
