"""JSON values as conditions read and compare them (v1.2): JSON Pointer (RFC 6901) and JSON equality.

Pure logic: ``parse`` checks a pointer's syntax (validation reports it,
located at the pointer), ``resolve`` walks a parsed JSON value with it, and
``compare`` is ``storage_item``'s and ``cookie``'s ``equals`` / ``matches`` /
``length``. Kept in one place so every reader of stored or returned JSON
shares one grammar and one equality.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_cometlocal.contract.model.checks.numbers import number_keys
from pytest_cometlocal.contract.numbers import compare_number
from pytest_cometlocal.contract.patterns import compiled

_BAD_ESCAPE = re.compile(r"~(?![01])")
_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")

MISSING = object()
"""What ``resolve`` returns when the pointer names nothing in the value."""


def parse(pointer: str) -> list[str]:
    """The pointer's reference tokens, unescaped; ``""`` is the whole value.

    Raises ValueError naming what is wrong: a pointer that does not start with
    ``/``, or a ``~`` not followed by ``0`` or ``1``.
    """
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON pointer is empty or starts with '/': {pointer!r}")
    if _BAD_ESCAPE.search(pointer):
        raise ValueError(f"'~' in a JSON pointer must be written ~0 or ~1: {pointer!r}")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def resolve(document: Any, pointer: str) -> Any:
    """The value ``pointer`` names in ``document``, or ``MISSING``.

    An array index is a decimal without leading zeros (``-``, the end of an
    array, names nothing to read).
    """
    value = document
    for token in parse(pointer):
        if isinstance(value, dict):
            if token not in value:
                return MISSING
            value = value[token]
        elif isinstance(value, list):
            if not _INDEX.match(token) or int(token) >= len(value):
                return MISSING
            value = value[int(token)]
        else:
            return MISSING
    return value


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``, ``1`` is ``1.0``; objects by keys, arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def as_text(value: Any) -> str:
    """A value's string form: a string as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def compare(value: Any, args: Any) -> tuple[bool, dict[str, Any]]:
    """``equals`` / ``matches`` / ``length`` of ``args`` (whichever was written; none: it holds) on
    ``value``; and what to add to ``observed``. (v1.3) The number keys instead, when written
    (contract/numbers.py)."""
    if number_keys(args):
        return compare_number(value, args)
    if "equals" in args.model_fields_set:
        return json_equal(value, args.equals), {}
    if getattr(args, "matches", None) is not None:
        return compiled(args.matches).search(as_text(value)) is not None, {}
    if getattr(args, "length", None) is not None:
        if not isinstance(value, (str, list, dict)):
            return False, {"problem": "the value is not a string, array or object"}
        return len(value) == args.length, {"length": len(value)}
    return True, {}
