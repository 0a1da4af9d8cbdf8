"""(v1.3) Reading a value as a number, and the number checks (``greater_than``, ``less_than``, ``between``,
``one_of``) of contract/model/checks/numbers.py.

Pure logic, shared by every condition that takes the number keys: the element
text / value / attribute checks, storage_item, cookie, response_json and
response_header, and the counts (cookie_count, storage_items, request_seen),
which pass their count (an int). Numbers are compared as ``Decimal``, so
``0.1`` is ``0.1`` and a long integer id keeps every digit.

API::

    read_number(value) -> Decimal | None
        A JSON number (int or finite float; not a bool) as it is; a string whose whole text, trimmed,
        is a decimal in JSON / decimal syntax (sign, digits, a decimal point, an exponent:
        ``-3``, ``+4.50``, ``.5``, ``1e3``); anything else (``"1,234"``, ``"$5"``, ``"inf"``,
        ``"NaN"``, ``true``, ``null``, an object) is None.

    compare_number(value, args) -> (ok, observed_extra)
        ``args``: any object with the number keys as attributes (a NumberChecks model; a key not
        written is None). Every key written must hold. ``value``: what the condition read (a text,
        a JSON value, a count). ``observed_extra`` is what to add to the failed condition's
        ``observed`` (empty when it holds): ``problem`` ("the value is not a number", or
        "<key>: the bound ... is not a number" when a ``${saved.X}`` bound was not one), ``bound``
        (that bound, as text: mask it), ``failed_checks`` (the keys that did not hold). Nothing
        in it is the value itself: the caller shows the value, masked, as it always does.
        With no number key written it holds, ``{}``.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any, Callable

from pytest_cometlocal.contract.model.checks.numbers import number_keys

NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
NOT_A_NUMBER = "the value is not a number"
# (rule NUMBER) A bound written as a string: a number's text, or a whole saved reference.
WHOLE_SAVED = re.compile(r"\$\{saved\.[A-Za-z_][A-Za-z0-9_]*\}")


def read_number(value: Any) -> Decimal | None:
    """The number ``value`` is, or None (see the module's docstring)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if len(text) <= 400 and NUMBER_TEXT.fullmatch(text):
            return Decimal(text)
    return None


def bound_problem(key: str, bound: Any) -> str | None:
    """Rule NUMBER at load: why ``bound`` cannot be a bound of ``key`` (None: it can). A string is
    a number's text or a whole ``${saved.X}``; ``one_of`` takes any string (compared exactly)."""
    if key == "one_of" and isinstance(bound, str):
        return None
    if read_number(bound) is not None or (isinstance(bound, str) and WHOLE_SAVED.fullmatch(bound)):
        return None
    return f"{key} takes a number (or \"${{saved.NAME}}\" / \"${{vars.NAME}}\" giving one): {bound!r} is not one"


def _text_of(value: Any) -> str:
    """A value's string form, as json_values.as_text (which imports this module) gives it."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def compare_number(value: Any, args: Any, mask: Callable[[str], str] = str) -> tuple[bool, dict[str, Any]]:
    """The number keys of ``args`` on ``value``: (whether all hold, what to add to ``observed``). ``mask``: how a
    bound is shown (a ``${saved.X}`` bound is page or server data: the caller's redactor)."""
    keys = number_keys(args)
    if not keys:
        return True, {}
    bounds: dict[str, list[Decimal]] = {}
    for key in keys:
        written = getattr(args, key)
        entries = written if isinstance(written, list) else [written]
        if key == "one_of":
            continue
        numbers = [read_number(b) for b in entries]
        for b, n in zip(entries, numbers):
            if n is None:
                return False, {"problem": f"{key}: the bound is not a number", "bound": mask(_text_of(b))}
        bounds[key] = numbers  # type: ignore[assignment]
    number = read_number(value)
    failed: list[str] = []
    for key in keys:
        if key == "one_of":
            if not _one_of(value, number, args.one_of):
                failed.append(key)
            continue
        if number is None:
            return False, {"problem": NOT_A_NUMBER}
        b = bounds[key]
        held = (number > b[0] if key == "greater_than" else number < b[0] if key == "less_than"
                else b[0] <= number <= b[1])
        if not held:
            failed.append(key)
    if not failed:
        return True, {}
    if number is None and any(read_number(e) is not None for e in args.one_of if not isinstance(e, str)):
        return False, {"problem": NOT_A_NUMBER, "failed_checks": failed}
    return False, {"failed_checks": failed}


def _one_of(value: Any, number: Decimal | None, entries: list[Any]) -> bool:
    """A string entry is the value's text exactly; a number entry (or a saved number) the value as a number."""
    text = _text_of(value)
    for entry in entries:
        if isinstance(entry, str):
            if entry == text:
                return True
        elif number is not None and (n := read_number(entry)) is not None and n == number:
            return True
    return False


_WORDS = {"greater_than": "greater than {}", "less_than": "less than {}", "between": "between {} and {}",
          "one_of": "one of {}"}


def describe_numbers(args: Any, mask: Callable[[str], str] = str) -> str:
    """The number keys of ``args`` in words, for a failure's sentence: ``greater than 2 and less than 10``
    (each bound shown through ``mask``)."""
    parts = []
    for key in number_keys(args):
        written = getattr(args, key)
        if key == "between":
            parts.append(_WORDS[key].format(*(mask(_text_of(b)) for b in written)))
        elif key == "one_of":
            parts.append(_WORDS[key].format(", ".join(mask(_text_of(e)) for e in written)))
        else:
            parts.append(_WORDS[key].format(mask(_text_of(written))))
    return " and ".join(parts)
