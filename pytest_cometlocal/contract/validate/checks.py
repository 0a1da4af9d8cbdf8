"""The v1.2 checks' context rules: REGEX, POINTER, ROLE_FILTER, INTERPOLATION AXE_RULE, SNAPSHOT_NAME, COOKIE_NAME and
PICTURES_EXTRA (v1.2); v1.3's browser state: INPUTS, COOKIE_NAME, URL, REGEX, POINTER and ALLOWLIST; and
(v1.3) NUMBER, the number keys' (``check_numbers``).

A v1.2 condition's plain pattern args are rows of ``patterns.REGEX_FIELDS``,
compiled with every other pattern of the plan; here only what is not a plain
field: each ``/…/`` entry of ``element_texts_equal`` (rule REGEX). A role target's filter is held to the roles ARIA defines it
for (targets.ROLE_FILTER_ROLES). A storage item's or cookie's ``equals`` /
``matches`` cannot name a secret: what they compare with is page data, shown
in a failure.

(v1.3) Which step keys a state kind takes is ``_KEY_KINDS``'s (step/inputs.py); here what is inside them: a
cookie to set has a name and a value and says where by ``url`` or ``domain``, a cookie filter only
filters, ``SameSite=None`` needs ``secure`` (browsers drop it otherwise), ``clear_storage`` takes one
of ``key`` / ``key_matches``. A host the plan's own allowlist leaves out is refused at load (rule
ALLOWLIST) as at run time (DOMAIN_BLOCKED), before anything is set. An ``accessibility_clean``'s ``disable`` names rules the vendored
axe-core has (AXE_RULE): a misspelt id would silently disable nothing; its target is
in the main frame, where its isolated world is (CONDITION_TARGET).
(v1.3) ``to``'s two shapes on their own kinds (INPUTS, ``check_scroll_to``).
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any, Callable, Iterable

from pytest_cometlocal.contract.load.interpolation import SECRET_REFERENCE
from pytest_cometlocal.contract import json_values as pointer
from pytest_cometlocal.contract.allowlist import host_allowed, split_url, url_host
from pytest_cometlocal.contract.model.checks.browser_state import SET_ONLY_COOKIE_KEYS
from pytest_cometlocal.contract.model.checks.numbers import NUMBER_KEYS, NumberChecks, number_keys
from pytest_cometlocal.contract.numbers import bound_problem, read_number
from pytest_cometlocal.contract.model.checks.audits import AXE_RULE_IDS, AXE_VERSION, pictures_missing, snapshot_name_problem
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.model.base import can_hold, nested_fields
from pytest_cometlocal.contract.model.targets import ROLE_FILTER_ROLES, ROLE_FILTERS
from pytest_cometlocal.contract.patterns import pattern_problem

Report = Callable[[Loc, str, str], None]

# The args whose values are compared with page data and so cannot name a secret.
NO_SECRET_ARGS: dict[str, tuple[str, ...]] = {"storage_item": ("equals", "matches"), "cookie": ("equals", "matches"),
                                              "storage_items": ("where", "every", "some"), "storage_equals": ("equals",)}  # v1.3


# The condition kinds ``check_v12_conditions`` and ``check_state_conditions`` look at: a step without
# one gives them nothing to report (contract/validate/step/index.py).
V12_CONDITION_KINDS = frozenset({"element_texts_equal", "storage_item", "accessibility_clean", "screenshot_matches",
                                 "cookie", *NO_SECRET_ARGS})
STATE_CONDITION_KINDS = frozenset({"storage_items", "cookie_count"})


def cookie_name_problem(name: str) -> str | None:
    """Why no cookie can have ``name`` (rule COOKIE_NAME), or None: the cookie grammar (RFC 6265, as
    Chromium reads it) has no control character, ';' or '=' in a name, and trims the spaces around it,
    so such a condition could only ever fail, or a CR/LF would split the header it is written in."""
    if bad := sorted({c for c in name if c < " " or c == "\x7f" or c in ";="}):
        return (f"a cookie name cannot hold {', '.join(repr(c) for c in bad)}: no control character, ';' or '=' "
                "(the cookie grammar)")
    if name != name.strip(" "):
        return "a cookie name cannot start or end with a space: browsers trim it, so it would never match"
    return None


def list_entry_pattern(entry: str) -> str | None:
    """An ``element_texts_equal`` entry written ``/…/`` is a regex (its inside); any other is a text."""
    return entry[1:-1] if len(entry) >= 2 and entry.startswith("/") and entry.endswith("/") else None


def check_v12_conditions(conditions: Iterable[tuple[Any, str, int, Any]], loc: Loc, add: Report) -> None:
    """REGEX (each ``/…/`` entry; the plain pattern args are rows of patterns.REGEX_FIELDS), POINTER (storage_item's JSON pointer) and
    INTERPOLATION (no secret in a storage item's or cookie's equals / matches), AXE_RULE (accessibility_clean's
    disable names rules of the vendored axe-core) and CONDITION_TARGET (its target is not in a frame)."""
    for cond, phase, i, _target in conditions:
        kind = cond.kind
        aloc = loc + (phase, i, "args")
        if kind == "element_texts_equal":
            for j, entry in enumerate(cond.args.texts):
                inner = list_entry_pattern(entry)
                if inner is not None and (problem := pattern_problem(inner)):
                    add(aloc + ("texts", j), problem, "REGEX")
        elif kind == "storage_item" and cond.args.pointer is not None:
            try:
                pointer.parse(cond.args.pointer)
            except ValueError as exc:
                add(aloc + ("pointer",), str(exc), "POINTER")
        elif kind == "accessibility_clean":
            target = cond.args.target
            for j, t in enumerate(target if isinstance(target, list) else [target]):
                if t is not None and t.type == "frame":
                    add(aloc + ("target",) + ((j,) if isinstance(target, list) else ()), "accessibility_clean audits "
                        "the page's main frame: a frame's element cannot be its target", "CONDITION_TARGET")
            for j, rule in enumerate(cond.args.disable):
                if rule not in AXE_RULE_IDS:
                    near = get_close_matches(rule, sorted(AXE_RULE_IDS), n=1)
                    add(aloc + ("disable", j), f"{rule!r} is not a rule of axe-core {AXE_VERSION}"
                        + (f"; did you mean {near[0]!r}?" if near else ""), "AXE_RULE")
        elif kind == "screenshot_matches":
            if problem := snapshot_name_problem(cond.args.name):
                add(aloc + ("name",), problem, "SNAPSHOT_NAME")  # (v1.2) it becomes a file name beside the plan
            if missing := pictures_missing():
                add(aloc, f"screenshot_matches compares pictures with {' and '.join(missing)}, not installed: "
                    "pip install 'pytest-cometlocal[pictures]'", "PICTURES_EXTRA")
        elif kind == "cookie" and (problem := cookie_name_problem(cond.args.name)):
            add(aloc + ("name",), problem, "COOKIE_NAME")
        for name in NO_SECRET_ARGS.get(kind, ()):
            if name in cond.args.model_fields_set and SECRET_REFERENCE.search(repr(getattr(cond.args, name))):
                add(aloc + (name,), f"{kind}'s {name} cannot name a secret: it is compared with page data, "
                    "which a failure shows", "INTERPOLATION")


def check_role_filters(targets: Iterable[tuple[Any, Loc, int]], add: Report) -> None:
    """ROLE_FILTER: each filter of a role target only with the roles ARIA defines it for."""
    for t, tloc, _depth in targets:
        if t.type != "role" or t.model_fields_set.isdisjoint(ROLE_FILTERS):  # a filter not written is None
            continue
        for name, value in t.filters.items():
            roles = ROLE_FILTER_ROLES[name]
            if roles is not None and t.role not in roles:
                add(tloc + (name,), f"{name!r} does not apply to role {t.role!r} (only {', '.join(sorted(roles))})",
                    "ROLE_FILTER")


def check_scroll_to(step: Any, loc: Loc, add: Report) -> None:
    """(v1.3) INPUTS for ``to``, the one key of two kinds: a place (an edge or ``{x, y}``) on scroll only,
    a target on drag only, located at ``to``; scroll's ``to`` and ``direction`` exclude each other (at
    ``direction``); ``{x, y}`` names at least one of them. The model reads ``to`` by its shape
    (targets.to_shape); which shape belongs to which kind is decided here, at load, never at run time."""
    kind, to = step.kind, step.to
    if to is None:
        return
    place = step.scroll_place
    if kind == "drag" and place is not None:
        add(loc + ("to",), "drag's `to` is the element to drop on (a target); a place to scroll to "
            "(top, bottom, left, right, {x, y}) is scroll's", "INPUTS")
    elif kind == "scroll":
        if place is None:
            add(loc + ("to",), "scroll's `to` is a place: top, bottom, left, right or {x, y} (pixels or "
                "\"0%\"-\"100%\"); a target `to` is drag's (scroll's container is its `target`)", "INPUTS")
        elif not isinstance(place, str) and place.x is None and place.y is None:
            add(loc + ("to",), "scroll's `to: {x, y}` needs x or y", "INPUTS")
        if step.direction is not None:
            add(loc + ("direction",), "scroll takes `to` (one move to a place) or `direction` (scrolls until "
                "the postconditions hold), not both", "INPUTS")


# -- (v1.3) browser state


def check_state_step(step: Any, loc: Loc, add: Report, allowlist: Iterable[str] | None = None) -> None:
    """INPUTS, COOKIE_NAME, URL, REGEX, ALLOWLIST for set_cookie, clear_cookies and clear_storage."""
    kind, cookie = step.kind, step.cookie
    if cookie is not None and kind in ("set_cookie", "clear_cookies"):
        cloc = loc + ("cookie",)
        if kind == "set_cookie":
            for name in ("name", "value"):
                if getattr(cookie, name) is None:
                    add(cloc, f"set_cookie's cookie needs {name!r}", "INPUTS")
            if cookie.same_site == "None" and not cookie.secure:
                add(cloc + ("same_site",), "same_site: None needs secure: true (browsers drop such a cookie)",
                    "INPUTS")
        else:
            for name in SET_ONLY_COOKIE_KEYS:
                if name in cookie.model_fields_set:
                    add(cloc + (name,), f"{name!r} is not used by clear_cookies (only name, domain and path)",
                        "INPUTS")
        if cookie.name is not None and (problem := cookie_name_problem(cookie.name)):
            add(cloc + ("name",), problem, "COOKIE_NAME")
        url_problem = None
        if cookie.url is not None:
            parts = split_url(SECRET_REFERENCE.sub("SECRET", cookie.url))
            if isinstance(parts, str):
                url_problem = parts
            elif parts.scheme not in ("http", "https") or not parts.netloc:
                url_problem = "a cookie's url is an absolute http(s) URL"
            if url_problem:
                add(cloc + ("url",), url_problem, "URL")
        host = "" if url_problem else cookie_host(cookie)
        if kind == "set_cookie" and host and allowlist is not None and not host_allowed(host, tuple(allowlist)):
            where = cloc + (("url",) if cookie.url is not None else ("domain",))
            add(where, f"host {host} is outside the plan's allowlist", "ALLOWLIST")
    if kind == "clear_storage" and step.key is not None and step.key_matches is not None:
        add(loc + ("key_matches",), "clear_storage takes key or key_matches, not both", "INPUTS")
    if step.key_matches is not None and (problem := pattern_problem(step.key_matches)):
        add(loc + ("key_matches",), problem, "REGEX")


def cookie_host(cookie: Any) -> str:
    """The host a cookie to set belongs to: its domain (a leading dot left out) or its url's; '' for
    neither (the page's URL then) or a host that is a secret."""
    if cookie.domain is not None:
        return "" if SECRET_REFERENCE.search(cookie.domain) else cookie.domain.lstrip(".").lower()
    if cookie.url is not None and not SECRET_REFERENCE.search(cookie.url):
        return url_host(cookie.url)
    return ""


def check_state_conditions(conditions: Iterable[tuple[Any, str, int, Any]], loc: Loc, add: Report) -> None:
    """POINTER (storage_items' every / some), COOKIE_NAME (cookie_count's name filter)."""
    for cond, phase, i, _target in conditions:
        aloc = loc + (phase, i, "args")
        if cond.kind == "storage_items":
            for name in ("where", "every", "some"):
                check = getattr(cond.args, name)
                if check is not None and check.pointer is not None:
                    try:
                        pointer.parse(check.pointer)
                    except ValueError as exc:
                        add(aloc + (name, "pointer"), str(exc), "POINTER")
        elif cond.kind == "cookie_count" and cond.args.name is not None:
            if problem := cookie_name_problem(cond.args.name):
                add(aloc + ("name",), problem, "COOKIE_NAME")


def check_numbers(conditions: Iterable[tuple[Any, str, int, Any]], loc: Loc, add: Report) -> None:
    """(v1.3) NUMBER, for each condition whose args take the number keys (contract/model/checks/numbers.py), located
    at the key: a kind's own comparison key and a number key are not written together (which would decide?);
    a kind that needs a comparison (element_text_contains' text, element_value_equals' and
    element_attr_equals' value) has one of them (SCHEMA, as the missing key was before v1.3); each bound is a
    number, a number's text (``${vars.X}`` is text by then) or a whole ``"${saved.X}"`` (read at run time;
    not a number then fails the condition with that reason), one_of also takes strings (compared exactly);
    between's low is not above its high; no number key names a secret (INTERPOLATION: it is compared with
    page data, which a failure shows)."""
    for cond, phase, i, _target in conditions:
        if can_hold(type(cond.args), _NUMBER_MODELS):  # most args cannot: not walked
            for args, aloc in _number_models(cond.args, loc + (phase, i, "args")):
                _check_number_keys(cond, args, aloc, add)


_NUMBER_MODELS = frozenset({NumberChecks})


def _number_models(args: Any, aloc: Loc) -> list[tuple[Any, Loc]]:
    """The args and the models inside them (storage_items' where / every / some, request_seen's checks, one
    or a list) that take the number keys, each with where it is written."""
    found = [(args, aloc)] if isinstance(args, NumberChecks) else []
    for name, _key in nested_fields(type(args), _NUMBER_MODELS):  # only fields that can hold one (most args: none)
        value = getattr(args, name, None)
        entries = value if isinstance(value, list) else [value]
        for j, entry in enumerate(entries):
            if isinstance(entry, NumberChecks):
                found.append((entry, aloc + (name,) + ((j,) if isinstance(value, list) else ())))
    return found


def _check_number_keys(cond: Any, args: Any, aloc: Loc, add: Report) -> None:
    written = args.model_fields_set
    if written.isdisjoint(NUMBER_KEYS) and not (args.COMPARISON_REQUIRED and written.isdisjoint(args.COMPARED)):
        return  # the common case: no number key, and the comparison the kind needs (if any) is written
    own = [k for k in args.COMPARED if k in written]
    keys = number_keys(args)
    if own and keys:
        add(aloc + (keys[0],), f"{cond.kind} takes {own[0]} or number checks ({', '.join(NUMBER_KEYS)}), "
            "not both", "NUMBER")
    elif args.COMPARISON_REQUIRED and not own and not keys:  # the key v1.2's model required, as it said it
        add(aloc + (args.COMPARED[0],), f"required key {args.COMPARED[0]!r} is missing (or, v1.3, a number "
            f"check: {', '.join(NUMBER_KEYS)})", "SCHEMA")
    for key in keys:
        written = getattr(args, key)
        entries = written if isinstance(written, list) else [written]
        for j, bound in enumerate(entries):
            where = aloc + (key,) + ((j,) if isinstance(written, list) else ())
            if isinstance(bound, str) and SECRET_REFERENCE.search(bound):
                add(where, f"{cond.kind}'s {key} cannot name a secret: it is compared with page data, "
                    "which a failure shows", "INTERPOLATION")
            elif problem := bound_problem(key, bound):
                add(where, problem, "NUMBER")
        if key == "between":
            low, high = (read_number(b) for b in written)
            if low is not None and high is not None and low > high:
                add(aloc + (key,), f"between's low ({written[0]}) is above its high ({written[1]}): "
                    "nothing is between them", "NUMBER")
