"""JSON Pointer (RFC 6901), as ``storage_item`` reads a stored JSON value (v1.2).

Pure logic, no JSON library of its own: ``parse`` checks a pointer's syntax
(validation reports it, located at the pointer), ``resolve`` walks a parsed
JSON value with it. Kept here so every reader of pointers (conditions today,
HTTP responses tomorrow) shares one grammar.
"""

from __future__ import annotations

import re
from typing import Any

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
