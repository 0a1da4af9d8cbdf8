"""Rule INPUTS for the step keys v1.1 and later added, and rule KEY (press's key), REGEX (switch_page's page).

Each key is a row of ``_KEY_KINDS``: the kinds it belongs to and whether they need it. A step is
checked for its own kind's keys and for the keys it wrote (an unwritten key is None: nothing to
report), so a step pays for the keys it has, not for the table.
"""

from __future__ import annotations

from typing import Callable

from pytest_cometlocal.contract.model.actionspec import CLICK_KEYS, ActionSpec
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.patterns import regex_problems
from pytest_cometlocal.contract.validate.keys import key_problem

Report = Callable[[Loc, str, str], None]

# Each v1.1 key and the kinds it belongs to (rule INPUTS); a required key is missing otherwise
# (required by every kind it belongs to, or by those of a set: scroll's `to` is optional, drag's is not).
_KEY_KINDS: dict[str, tuple[frozenset[str], bool | frozenset[str]]] = {
    # (v1.3) set_storage_item's and clear_storage's ``key`` is the storage key (rule KEY is press's).
    "key": (frozenset({"press", "set_storage_item", "clear_storage"}), frozenset({"press", "set_storage_item"})),
    "to": (frozenset({"drag", "scroll"}), frozenset({"drag"})),  # (v1.3) scroll's place (checks.check_scroll_to)
    "direction": (frozenset({"scroll"}), False),
    **{k: (frozenset({"click"}), False) for k in CLICK_KEYS},
    "ms": (frozenset({"advance_clock"}), True),  # v1.2
    "opens": (frozenset({"click", "press"}), False),  # v1.2
    "page": (frozenset({"switch_page"}), True),  # v1.2
    "viewport": (frozenset({"set_viewport"}), True),  # v1.3
    "bypass_cache": (frozenset({"reload"}), False),  # v1.3
    "event": (frozenset({"dispatch_event"}), True),  # v1.3 (actions)
    "detail": (frozenset({"dispatch_event"}), False),  # v1.3
    "position": (frozenset({"click", "hover"}), False),  # v1.3
    "delay_ms": (frozenset({"fill"}), False),  # v1.3
    "force": (frozenset({"click", "fill", "check", "uncheck"}), False),  # v1.3
    "cookie": (frozenset({"set_cookie", "clear_cookies"}), frozenset({"set_cookie"})),  # v1.3 (state)
    "area": (frozenset({"set_storage_item", "clear_storage"}), True),  # v1.3 (state)
    "key_matches": (frozenset({"clear_storage"}), False),  # v1.3 (state)
}
KEY_NAMES = frozenset(_KEY_KINDS)
_ORDER = {name: i for i, name in enumerate(_KEY_KINDS)}
# Each kind's own keys, in the table's order (read for every step: listed once, at import).
_KIND_KEYS: dict[str, list[str]] = {
    kind: [name for name, (kinds, _required) in _KEY_KINDS.items() if kind in kinds]
    for kinds, _required in _KEY_KINDS.values() for kind in kinds}


def _in_order(names: frozenset[str] | set[str]) -> list[str]:
    return sorted(names, key=_ORDER.__getitem__)


def check_extension_inputs(step: ActionSpec, loc: Loc, add: Report, written: frozenset[str] | None = None) -> None:
    """INPUTS and KEY for the v1.1 keys: each on its own kind only; press needs a key in the
    closed grammar (contract/validate/keys.py), drag a ``to``.

    ``written``: the step's written keys (step/index.py); only those and the step kind's own keys
    are read, in the table's order (None: every key of the table)."""
    kind = step.kind
    if written is None:
        names = list(_KEY_KINDS)
    else:
        own = _KIND_KEYS.get(kind, [])  # none for a kind with no key of the table (an extension kind's name too)
        extra = written & KEY_NAMES
        names = _in_order(extra.union(own)) if extra else own
    for name in names:
        kinds, required = _KEY_KINDS[name]
        value = getattr(step, name)
        if kind in kinds:
            if (required if isinstance(required, bool) else kind in required) and value is None:
                add(loc + (name,), f"'{kind}' needs {name!r}", "INPUTS")
        elif value is not None:
            *others, last = sorted(kinds)
            owners = f"{', '.join(others)} and {last}" if others else last
            add(loc + (name,), f"{name!r} is not used by '{kind}' (only {owners})", "INPUTS")
    if kind == "press" and step.key is not None:
        problem = key_problem(step.key)
        if problem:
            add(loc + ("key",), problem, "KEY")
    if step.modifiers is not None and len(set(step.modifiers)) < len(step.modifiers):
        add(loc + ("modifiers",), "a modifier is listed twice", "INPUTS")
    if step.page is not None:  # v1.2: switch_page's url_matches (patterns.py's bounded compile)
        for where, problem in regex_problems(step.page, loc + ("page",)):
            add(where, problem, "REGEX")
