"""(v1.2) The plan keys' rules that need more than the models' types, located at the key
(``add(loc, message, rule)``, as rules.py): DEVICE, LOCALE, TIMEZONE, PERMISSION, CLOCK for
``browser:`` and ``clock:``, ROUTE and PATH_CONFINEMENT for ``routes:``.

- ``browser.device`` is a name of Playwright's device registry (did-you-mean on a miss);
- ``browser.locale`` is a Unicode BCP 47 language id as Chromium takes it
  (language, script, region, variants, none twice): the plan's pattern lets
  ``en-12``, ``zh-yue`` or ``en-GB-oed`` through, which Chromium refuses when
  the first page opens;
- ``browser.timezone`` is an IANA zone of the time-zone database Python sees
  (``zoneinfo.available_timezones()``: the system's, or the ``tzdata`` package),
  less the files of that database that are no zone (``localtime``, which
  Chromium refuses). On a machine with neither, the zone's shape alone is
  checked and Chromium is the judge when the context opens (a refusal is then
  the run's INVALID_ACTIONSPEC, rule TIMEZONE: executor/browser/context_failure.py);
- ``browser.geolocation`` needs ``geolocation`` in ``browser.permissions``;
- ``clock.at`` is an ISO 8601 time with its UTC offset (``Z`` or ``+01:00``): a
  time without one would be read in the zone of the machine that runs it;
- ``advance_clock`` needs ``clock.at`` (its plan's or its suite config's).

``routes:`` (``check_routes``): a route answers (``respond``) or aborts
(``abort: true``), never both and never neither, and its answer has at most one body kind (rule ROUTE);
its ``json`` is JSON (no NaN or infinity: ROUTE); it names no ``${saved.X}`` (SAVED: routes are installed
before the first step, when nothing is saved). A ``file`` is
confined like ``file_ref``: relative to the folder of the file that declares
the route (the plan's, or the suite config's for a suite route), no absolute
path, no ``..``, no symlink out (rule PATH_CONFINEMENT, ``confine``'s own
messages). It is read here, once, and held to MAX_ROUTE_FILE_BYTES, so a run
never meets a missing or huge stub file; the bytes travel with the ValidPlan.
The regex of ``{pattern: REGEX}`` is contract/patterns.py's (rule REGEX).
"""

from __future__ import annotations

import difflib
import math
import re
import zoneinfo
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from pytest_cometlocal.contract.devices import DeviceRegistryUnavailable, device_registry
from pytest_cometlocal.contract.errors import ConfinementError
from pytest_cometlocal.contract.load.interpolation import SAVED_REFERENCE
from pytest_cometlocal.contract.load.paths import confine
from pytest_cometlocal.contract.load.safe_yaml import load_documents
from pytest_cometlocal.contract.model.plan import MAX_ROUTE_FILE_BYTES, Plan, Route
from pytest_cometlocal.contract.model.problems import Loc, Mark, SourceMark
from pytest_cometlocal.contract.validate.locate import locate
from pytest_cometlocal.contract.validate.validated import PlanSource

Report = Callable[[Loc, str, str], None]
ZONE_SHAPE = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*$")


# Files of a system's zoneinfo folder that Python lists but that name no zone: Chromium refuses them.
NOT_ZONES = frozenset({"localtime", "posixrules"})
# A Unicode BCP 47 language id (UTS #35), the form Chromium's setLocaleOverride takes: language,
# script?, region?, variants (no extlang, no extension: one-letter subtags fail the plan's pattern).
LOCALE_ID = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"
                       r"((?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*)$")


@lru_cache(maxsize=1)
def known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones()) - NOT_ZONES


# Rule CLOCK's message for an advance_clock without clock.at: a plan's, and an MCP session's proposal (agent/).
NO_CLOCK = "advance_clock needs the clock installed: set `clock: {at: ...}` in the plan or its suite config"


def check_settings(plan: Plan, add: Report) -> None:
    """Every settings rule of one plan (nothing runs for a plan without ``browser``/``clock``)."""
    if plan.browser is not None:
        check_browser(plan, add)
    if plan.clock is not None:
        problem = clock_problem(plan.clock.at)
        if problem:
            add(("clock", "at"), problem, "CLOCK")
    else:
        steps = [(s, ("steps", i)) for i, s in enumerate(plan.steps)]
        if plan.recovery:
            steps += [(s, ("recovery", "steps", i)) for i, s in enumerate(plan.recovery.steps)]
        for step, loc in steps:
            if step.kind == "advance_clock":
                add(loc + ("kind",), NO_CLOCK, "CLOCK")


def check_browser(plan: Plan, add: Report) -> None:
    browser = plan.browser
    assert browser is not None
    if browser.device is not None:
        problem = device_problem(browser.device)
        if problem:
            add(("browser", "device"), problem, "DEVICE")
    if browser.locale is not None:
        problem = locale_problem(browser.locale)
        if problem:
            add(("browser", "locale"), problem, "LOCALE")
    if browser.timezone is not None:
        problem = zone_problem(browser.timezone)
        if problem:
            add(("browser", "timezone"), problem, "TIMEZONE")
    if browser.permissions is not None and len(set(browser.permissions)) < len(browser.permissions):
        add(("browser", "permissions"), "a permission is listed twice", "PERMISSION")
    if browser.geolocation is not None and "geolocation" not in (browser.permissions or []):
        add(("browser", "geolocation"), "geolocation needs the `geolocation` permission: add it to "
            "browser.permissions", "PERMISSION")


def device_problem(name: str) -> str | None:
    try:
        names = device_registry()
    except DeviceRegistryUnavailable as exc:
        return str(exc)
    if name in names:
        return None
    close = difflib.get_close_matches(name, list(names), n=3, cutoff=0.6)
    lowered = [n for n in names if n.lower() == name.lower()]
    hint = lowered or close
    return (f"unknown device {name!r}: not in Playwright's device registry"
            + (f" (did you mean {', '.join(repr(n) for n in hint)}?)" if hint else
               " (`cometlocal schema` cannot list them; Playwright's docs and `playwright.devices` do)"))


def locale_problem(locale: str) -> str | None:
    """What Chromium would refuse in a locale the plan's pattern lets through (its shape is checked already)."""
    match = LOCALE_ID.match(locale)
    variants = match.group(1).lower().split("-")[1:] if match else []
    if match and len(set(variants)) == len(variants):
        return None
    why = "a variant is repeated" if match else "subtags: language (2-3 letters), then script (4 letters), region " \
        "(2 letters or 3 digits), variants (5-8 characters, or a digit and 3), in that order"
    return f"{locale!r} is not a locale Chromium takes ({why}), such as 'de-DE', 'zh-Hant-TW', 'de-CH-1901'"


def zone_problem(zone: str) -> str | None:
    zones = known_zones()
    if zones:
        if zone in zones:
            return None
        close = difflib.get_close_matches(zone, list(zones), n=3, cutoff=0.7)
        return (f"unknown time zone {zone!r}: an IANA zone such as 'Europe/Madrid'"
                + (f" (did you mean {', '.join(repr(z) for z in close)}?)" if close else ""))
    if ZONE_SHAPE.match(zone):
        return None  # no time-zone database here: Chromium judges the name when the context opens
    return f"malformed time zone {zone!r}: an IANA zone such as 'Europe/Madrid'"


def clock_problem(at: str) -> str | None:
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        return f"clock.at must be an ISO 8601 time such as '2024-03-01T09:30:00+01:00' (got {at!r})"
    if when.tzinfo is None:
        return (f"clock.at needs its UTC offset ('Z' or '+01:00'), else it would be read in the zone of the "
                f"machine that runs it (got {at!r})")
    return None


# The plan keys a browser may refuse when the run's context is made: where each is written is kept
# (PlanSource.setting_marks), so a refusal at run time is located as a load-time problem is.
SETTING_KEYS = ("browser", "clock", "storage_state")


def setting_marks(tree: Mapping[str, Any]) -> dict[str, Mark]:
    """``browser``, ``browser.<key>``, ``clock``, ``clock.at``, ``storage_state`` -> where the value is written
    (a SourceMark naming the suite config for a key that came from it)."""
    marks: dict[str, Mark] = {}
    value_marks = getattr(tree, "value_marks", None)
    for key in SETTING_KEYS:
        if key not in tree or value_marks is None:
            continue
        marks[key] = value_marks[key]
        inner = tree[key]
        for sub in inner if isinstance(inner, Mapping) and hasattr(inner, "value_marks") else ():
            marks[f"{key}.{sub}"] = inner.value_marks[sub]
    return marks


def locate_setting(source: PlanSource, key: str, data: bytes | None = None) -> tuple[str, Mark]:
    """(file, position) of the plan setting ``key`` (``browser.timezone``, ``clock.at``, ``storage_state``).

    A valid plan's quick load keeps where its ``browser``/``clock`` mappings start, not each inner value:
    with the file's bytes (``data``) the one document is loaded again with positions, for the exact one.
    A key from the suite config names that file. Falls back to the mapping, then to the plan itself.
    """
    marks = source.setting_marks
    mark = marks.get(key) or marks.get(key.partition(".")[0]) or source.mark
    if isinstance(mark, SourceMark):
        return mark.file, Mark(mark.line, mark.col)
    if data is not None:
        try:
            document = load_documents(data, source.file, positions=True)[source.doc_index]
            mark = locate(document.value, key.split("."), mark, tags=False)[0]
        except Exception:  # the bytes are the ones validated; this is only a finer position
            pass
    return source.file, Mark(mark.line, mark.col)


def clock_time(at: str) -> datetime:
    """``clock.at`` as the aware datetime Playwright's ``clock.install`` takes (validated already)."""
    return datetime.fromisoformat(at)


def check_routes(routes: list[Route] | None, add: Report, folder_of: Callable[[int], tuple[Path, str]]) -> dict[int, bytes]:
    """Report each bad route at its key; return the bytes of every route ``file`` that could be read.

    ``folder_of(i)``: the folder route ``i``'s file is relative to, and how a message names it.
    """
    files: dict[int, bytes] = {}
    for i, route in enumerate(routes or ()):
        loc: Loc = ("routes", i)
        if route.respond is not None and route.abort:
            add(loc + ("abort",), "a route either responds or aborts, not both (remove respond or abort)", "ROUTE")
        elif route.respond is None and not route.abort:
            add(loc, "a route needs respond: {status, json | body | file, headers} or abort: true", "ROUTE")
        for where, text in _strings(route.model_dump(by_alias=True, exclude_none=True), loc):
            for name in SAVED_REFERENCE.findall(text):  # installed before the first step: nothing is saved yet
                add(where, f"a route cannot use ${{saved.{name}}}: routes are installed before any step runs, "
                    "when no value is saved yet (use ${vars.X})", "SAVED")
        if route.respond is None:
            continue
        if "json_" in route.respond.model_fields_set and (at := _non_finite(route.respond.json_)) is not None:
            add(loc + ("respond", "json") + at, "a route's json cannot hold NaN or Infinity (.nan, .inf): "
                "they are not JSON", "ROUTE")
        given = route.respond.given()
        if len(given) > 1:
            add(loc + ("respond", given[1]), f"a route's answer has at most one of json, body, file "
                f"(got {', '.join(given)})", "ROUTE")
        if route.respond.file is not None:
            folder, named = folder_of(i)
            read = _read(route.respond.file, folder, named, loc + ("respond", "file"), add)
            if read is not None:
                files[i] = read
    return files


def _strings(value: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    """Every string in a dumped route (keys of a mapping included) with its key path."""
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key, loc + (key,))
            yield from _strings(item, loc + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, loc + (i,))


def _non_finite(value: Any) -> Loc | None:
    """Where in a route's json a NaN or an infinity is (``.nan``, ``.inf`` in YAML), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return ()
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if (inner := _non_finite(item)) is not None:
            return (key,) + inner
    return None


def _read(relative: str, folder: Path, named: str, loc: Loc, add: Report) -> bytes | None:
    try:
        path = confine(relative, folder)
    except ConfinementError as exc:
        add(loc, f"{exc} ({named})", "PATH_CONFINEMENT")
        return None
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise OSError(21, "not a file")
        if size > MAX_ROUTE_FILE_BYTES:
            add(loc, f"'{relative}' is {size} bytes; a route's file holds at most {MAX_ROUTE_FILE_BYTES}", "ROUTE")
            return None
        data = path.read_bytes()
    except OSError as exc:
        add(loc, f"'{relative}' cannot be read ({named}): {exc.strerror or type(exc).__name__}", "ROUTE")
        return None
    if len(data) > MAX_ROUTE_FILE_BYTES:  # it grew between stat and read
        add(loc, f"'{relative}' holds more than {MAX_ROUTE_FILE_BYTES} bytes", "ROUTE")
        return None
    return data
