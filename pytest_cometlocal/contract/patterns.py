"""The plan's regular expressions: found by field, compiled once with a bounded cost (rule REGEX).

A plan's regexes are untrusted input, and Python's ``re`` can fail on one in
more ways than ``re.error``: ``a{4294967296}`` raises OverflowError, a
thousand nested groups a RecursionError in its recursive parser, a huge
pattern a MemoryError. So a pattern is held to a length and a group-nesting
limit *before* it is compiled, and every exception compiling it becomes a
problem. The executor compiles through ``compiled`` too (the same cached
object), so a pattern that validated is never compiled another way at run time.

The regex-valued fields are a table (``REGEX_FIELDS``): a new one is a row,
and ``regex_problems`` finds every one inside any model of the plan.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterator

from pydantic import BaseModel

from pytest_cometlocal.contract.errors import PatternError
from pytest_cometlocal.contract.model.conditions import (
    AttrPatternArgs, CookieArgs, DownloadArgs, PatternArgs, ResponseHeaderArgs, ResponseJsonArgs, StorageItemArgs,
    TargetPatternArgs,
)
from pytest_cometlocal.contract.model.plan import AuthSignals, UrlPattern
from pytest_cometlocal.contract.model.targets import PageSpec
from pytest_cometlocal.contract.model.problems import Loc

# Patterns match URLs and file names: a few hundred characters is already a lot.
MAX_PATTERN_LENGTH = 2000
# Python's parser recurses once per group level (RecursionError near 300 levels).
MAX_GROUP_NESTING = 50

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
    ResponseHeaderArgs: ("matches",),  # (v1.2) response_header
}


def _nesting(pattern: str) -> int:
    """The deepest group nesting of ``pattern`` (escapes and character classes skipped), without recursion."""
    depth = deepest = 0
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                i += 2 if pattern[i + 1] == "]" else 3  # a ']' first in a class is literal
                continue
        elif c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth = max(depth - 1, 0)
        i += 1
    return deepest


@functools.lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str] | str:
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"the pattern is {len(pattern)} characters long; at most {MAX_PATTERN_LENGTH}"
    if _nesting(pattern) > MAX_GROUP_NESTING:
        return f"groups nest more than {MAX_GROUP_NESTING} levels deep"
    try:
        return re.compile(pattern)
    except re.error as exc:
        return str(exc)
    except (OverflowError, RecursionError, MemoryError, ValueError, TypeError) as exc:
        return f"{exc} ({type(exc).__name__})"


def compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, once per process; PatternError when it cannot be (its message, one line)."""
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


def _models(value: Any, loc: Loc, skip: tuple[type, ...]) -> Iterator[tuple[BaseModel, Loc]]:
    """Every model inside ``value`` (lists and dicts walked, ``skip`` classes not), with its key path."""
    stack: list[tuple[Any, Loc]] = [(value, loc)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, BaseModel):
            if skip and isinstance(node, skip) and node is not value:
                continue
            yield node, where
            for name, info in type(node).model_fields.items():
                stack.append((getattr(node, name), where + (info.alias or name,)))
        elif isinstance(node, (list, tuple)):
            stack.extend((item, where + (i,)) for i, item in enumerate(node))
        elif isinstance(node, dict):
            stack.extend((item, where + (key,)) for key, item in node.items())


def regex_problems(model: Any, loc: Loc = (), skip: tuple[type, ...] = ()) -> list[tuple[Loc, str]]:
    """(key path, message) for every regex field in ``model`` that cannot be used.

    ``skip``: model classes not to look inside (the plan's steps, which the step rules check).
    """
    found: list[tuple[Loc, str]] = []
    for node, where in _models(model, loc, skip):
        for name in REGEX_FIELDS.get(type(node), ()):
            value = getattr(node, name)
            if isinstance(value, str):
                problem = pattern_problem(value)
                if problem:
                    found.append((where + (name,), problem))
    return found
