"""YAML 1.2's core schema for one scalar, as plans are read (``safe_yaml``'s loader, ``fixing``'s nodes).

Only ``true``/``false`` are booleans, ``0123`` and ``11:30`` stay strings, there
are no timestamps; a tag beyond the core ones is refused, never constructed.
"""

from __future__ import annotations

import math
import re
from typing import Any

# Digits of an integer: Python cannot even print one above 4300 decimal digits, and
# hex or octal literals are not held to that; no plan number needs more than 64.
MAX_INT_DIGITS = 64

CORE = "tag:yaml.org,2002:"  # the core tags' prefix
ALLOWED_TAGS = {CORE + t for t in ("str", "int", "float", "bool", "null", "map", "seq")}

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
# Decimal integers without leading zeros: "0123" is a string, as the spec says.
_INT10 = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")

# First characters a null, boolean or number never starts with: such a plain scalar is a string.
NOT_SPECIAL_START = frozenset("abcdeghijklmopqrsuvwxyzABCDEGHIJKLMOPQRSUVWXYZ_/\"'$%&*()[]{}<>=?!@#`|:;,^ ")


def resolve_scalar(value: str, tag: str | None, style: str | None, implicit: Any) -> Any:
    """YAML 1.2 core schema resolution for one scalar."""
    plain = implicit[0] if isinstance(implicit, tuple) else bool(implicit)
    if tag == "!":
        return value  # the non-specific tag "!" makes a string (YAML 1.2, 3.3.2)
    if tag is None:
        if not plain:
            return value  # quoted or block scalar without a tag: always a string
        if value and value[0] in NOT_SPECIAL_START:
            return value  # fast path: cannot be null, bool, int or float
        tag = _implicit_tag(value)
    kind = tag[len(CORE):]
    if kind == "str":
        return value
    if kind == "null":
        if not _NULL.match(value):
            raise ValueError(f"{value!r} is not a null")
        return None
    if kind == "bool":
        if value not in _BOOL:
            raise ValueError(f"{value!r} is not a boolean (only true/false)")
        return _BOOL[value]
    if kind == "int":
        if len(value.lstrip("+-")) > MAX_INT_DIGITS + 2 and (_INT10.match(value) or _INT8.match(value) or _INT16.match(value)):
            raise ValueError(f"integer of {len(value)} characters; at most {MAX_INT_DIGITS} digits")
        if _INT10.match(value):
            return int(value)
        if _INT8.match(value):
            return int(value[2:], 8)
        if _INT16.match(value):
            return int(value[2:], 16)
        raise ValueError(f"{value!r} is not an integer")
    if kind == "float":
        if _INF.match(value):
            return -math.inf if value.startswith("-") else math.inf
        if _NAN.match(value):
            return math.nan
        if _FLOAT.match(value) or _INT10.match(value):
            return float(value)
        raise ValueError(f"{value!r} is not a float")
    raise ValueError(f"tag !!{kind} is not allowed on a scalar")


def _implicit_tag(value: str) -> str:
    if _NULL.match(value):
        return CORE + "null"
    if value in _BOOL:
        return CORE + "bool"
    if _INT10.match(value) or _INT8.match(value) or _INT16.match(value):
        return CORE + "int"
    if _FLOAT.match(value) or _INF.match(value) or _NAN.match(value):
        return CORE + "float"
    return CORE + "str"
