"""(v1.2) A recording's browser settings and clock, as ``cometlocal import`` reads them.

``playwright codegen --device "Pixel 7" --lang de-DE --timezone Europe/Madrid ...``
writes them into the context it makes: ``browser.new_context(**playwright.devices["Pixel 7"],
locale="de-DE", timezone_id="Europe/Madrid", ...)``; those become the plan's ``browser:``
keys, a row per keyword. A hand-written test pins the clock with
``page.clock.install(time=...)`` and moves it with ``page.clock.run_for(ms)``: ``clock.at``
and an ``advance_clock`` step. The time is taken only when it is plain (an ISO string or a
``datetime(...)`` literal, each with its UTC offset): a time without one would be read in the
zone of whichever machine runs the plan (rule ``CLOCK``), and an expression is not guessed.
Pure ``ast`` reading; nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from pytest_cometlocal.planners.errors import CannotMap


def _size(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or set(value) != {"width", "height"}:
        raise CannotMap("viewport= maps as {'width': ..., 'height': ...} only")
    return value


def _same(value: Any) -> Any:
    return value


# new_context(<keyword>=...) -> (the plan's browser key, how the value is carried over).
CONTEXT_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "viewport": ("viewport", _size),
    "locale": ("locale", _same),
    "timezone_id": ("timezone", _same),
    "geolocation": ("geolocation", _same),
    "permissions": ("permissions", _same),
    "color_scheme": ("color_scheme", _same),
    "offline": ("offline", _same),
}


def context_settings(call: ast.Call) -> tuple[dict[str, Any], list[str]]:
    """``new_context(...)``'s keywords as the plan's ``browser:`` keys, and why each other one is left out."""
    browser: dict[str, Any] = {}
    problems: list[str] = []
    for keyword in call.keywords:
        if keyword.arg is None:  # **playwright.devices["Pixel 7"]
            device = _device(keyword.value)
            if device is None:
                problems.append("new_context(**...) maps only as **playwright.devices[\"<name>\"] (browser.device)")
            else:
                browser["device"] = device
            continue
        row = CONTEXT_KEYS.get(keyword.arg)
        if row is None:
            problems.append(f"new_context({keyword.arg}=...) has no browser: key in a plan")
            continue
        try:
            browser[row[0]] = row[1](ast.literal_eval(keyword.value))
        except CannotMap as exc:
            problems.append(str(exc))
        except ValueError:  # not a literal: the key is reported, not guessed
            problems.append(f"new_context({keyword.arg}=...) is not a literal (a variable or an expression)")
    return browser, problems


def _device(node: ast.AST) -> str | None:
    """``playwright.devices["Pixel 7"]`` (or ``p.devices[...]``) -> ``"Pixel 7"``."""
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "devices"
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        return node.slice.value
    return None


_NO_TIME = ("clock.install(time=...) maps to clock.at only from an ISO 8601 string or a datetime(...) literal, "
            "each with its UTC offset")


def clock_at(call: ast.Call) -> str:
    """``page.clock.install(time=...)`` -> the plan's ``clock.at``; :class:`CannotMap` with the reason otherwise."""
    times = [k.value for k in call.keywords if k.arg == "time"] + list(call.args)
    if len(times) != 1 or len(call.keywords) + len(call.args) != 1:
        raise CannotMap("clock.install() without one time does not pin the clock: clock.at needs a time")
    node = times[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            parsed = datetime.fromisoformat(node.value.replace("Z", "+00:00"))
        except ValueError:
            raise CannotMap(f"{_NO_TIME}; {node.value!r} is not ISO 8601") from None
        if parsed.tzinfo is None:
            raise CannotMap(f"{_NO_TIME}; {node.value!r} has none (it would be read in the zone of the machine)")
        return node.value
    return _datetime_literal(node).isoformat()


def _datetime_literal(node: ast.AST) -> datetime:
    """``datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)`` (``datetime.datetime``, ``timezone(timedelta(hours=1))``)."""
    if not (isinstance(node, ast.Call) and _name(node.func) in ("datetime", "datetime.datetime")):
        raise CannotMap(_NO_TIME)
    try:
        parts = [_int(a) for a in node.args]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        tz = keywords.pop("tzinfo", None)
        named = {key: _int(value) for key, value in keywords.items()}
        if tz is None:
            raise CannotMap(f"{_NO_TIME}; this datetime has no tzinfo")
        return datetime(*parts, **named, tzinfo=_tz(tz))
    except CannotMap:
        raise
    except (TypeError, ValueError):
        raise CannotMap(f"{_NO_TIME}; this datetime is not one") from None


def _int(node: ast.AST) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    raise CannotMap(f"{_NO_TIME}; a part of this datetime is not a number")


def _tz(node: ast.AST) -> timezone:
    if _name(node) in ("timezone.utc", "datetime.timezone.utc", "UTC", "datetime.UTC"):
        return timezone.utc
    if isinstance(node, ast.Call) and _name(node.func) in ("timezone", "datetime.timezone") and len(node.args) == 1:
        delta = node.args[0]
        if isinstance(delta, ast.Call) and _name(delta.func) in ("timedelta", "datetime.timedelta") and not delta.args:
            return timezone(timedelta(**{k.arg: _int(k.value) for k in delta.keywords if k.arg}))
    raise CannotMap(f"{_NO_TIME}; its tzinfo is not timezone.utc or timezone(timedelta(...))")


def _name(node: ast.AST) -> str:
    """A dotted name: ``datetime.timezone.utc``; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _name(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


_DURATION = re.compile(r"^(?:(\d+):)?(\d+):(\d+)$")  # Playwright's "mm:ss" / "hh:mm:ss"


def run_for_ms(call: ast.Call) -> int:
    """``page.clock.run_for(N)`` (ms, or ``"mm:ss"`` / ``"hh:mm:ss"``) -> ``advance_clock``'s ``ms``."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Constant):
        raise CannotMap("clock.run_for() maps to advance_clock from a literal number of milliseconds only")
    value = call.args[0].value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = _DURATION.match(value) if isinstance(value, str) else None
    if match is None:
        raise CannotMap("clock.run_for() maps to advance_clock from milliseconds or \"mm:ss\" / \"hh:mm:ss\" only")
    hours, minutes, seconds = (int(g or 0) for g in match.groups())
    return ((hours * 60 + minutes) * 60 + seconds) * 1000
