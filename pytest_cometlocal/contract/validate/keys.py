"""The closed grammars of two v1.1 inputs: a ``press`` key (rule KEY) and an aria-snapshot template.

A key is one key name with optional modifiers joined by ``+`` (``Enter``,
``Shift+Tab``, ``ControlOrMeta+Enter``, ``Control++``), or (v1.3) a modifier alone
(``Shift``). The grammar is closed so
that ``press`` can never become a way to type text key by key, or to carry a
secret: text goes through ``fill``, which masks it.
"""

from __future__ import annotations

import yaml

from pytest_cometlocal.contract.model.actionspec import MODIFIERS

NAMED_KEYS: frozenset[str] = frozenset({
    "Enter", "Tab", "Escape", "Backspace", "Delete", "Insert", "Home", "End", "PageUp", "PageDown",
    "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Space", *(f"F{n}" for n in range(1, 13)),
})


def split_key(key: str) -> tuple[list[str], str]:
    """(modifiers, key name); a ``+`` key is written last: ``+`` alone or ``Control++``."""
    if key == "+":
        return [], "+"
    if key.endswith("++"):
        return key[:-2].split("+"), "+"
    *modifiers, name = key.split("+")
    return modifiers, name


def key_problem(key: str) -> str | None:
    """Why ``key`` is not in the grammar, or None when it is."""
    if "${" in key:
        return "a key holds no ${secrets...} or ${vars...} reference: text is typed with fill, not key by key"
    modifiers, name = split_key(key)
    if not modifiers and name in MODIFIERS:  # (v1.3) a lone modifier: Shift alone (a key down and up)
        return None
    for modifier in modifiers:
        if modifier not in MODIFIERS:
            return f"{modifier!r} is not a modifier (modifiers: {', '.join(MODIFIERS)})"
    if len(set(modifiers)) < len(modifiers):
        return f"a modifier is repeated in {key!r}"
    if name in NAMED_KEYS or (len(name) == 1 and "!" <= name <= "~"):
        return None
    return (f"{name!r} is not a key: use Enter, Tab, Escape, Backspace, Delete, Insert, Home, End, "
            "PageUp, PageDown, Arrow{Up,Down,Left,Right}, Space, F1-F12 or one printable ASCII character, "
            "with optional modifiers joined by '+'")


# An aria snapshot template's nesting: a page's accessibility tree is rarely 20 deep.
MAX_SNAPSHOT_DEPTH = 64
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def snapshot_problem(snapshot: str) -> str | None:
    """Why an aria-snapshot template cannot be one (Playwright's templates are YAML lists).

    Only its structure is read, from the parser's events: no scalar is
    resolved (``2024-02-30`` or a 5,000-digit number is text to Playwright,
    not a date or an int to build) and nesting is counted, not recursed into.
    """
    depth = items = 0
    top: type | None = None
    anchors: set[str] = set()
    try:
        for event in yaml.parse(snapshot, Loader=_Parser):
            anchor = getattr(event, "anchor", None)
            if isinstance(event, yaml.AliasEvent):
                if anchor not in anchors:
                    return f"the aria snapshot is not valid YAML: alias *{anchor} has no anchor before it"
            elif anchor:
                anchors.add(anchor)
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_SNAPSHOT_DEPTH:
                    return f"the aria snapshot nests deeper than {MAX_SNAPSHOT_DEPTH} levels"
                if top is None:
                    top = type(event)
                elif depth == 2:
                    items += 1
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
            elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                if top is None:
                    top = type(event)
                elif depth == 1:
                    items += 1
            elif isinstance(event, yaml.DocumentStartEvent) and top is not None:
                return "an aria snapshot is one YAML document"
    except yaml.YAMLError as exc:
        parts = [p for p in (getattr(exc, "context", None), getattr(exc, "problem", None)) if p]
        return f"the aria snapshot is not valid YAML: {'; '.join(parts) if parts else str(exc).splitlines()[0]}"
    except (ValueError, RecursionError, MemoryError) as exc:  # pragma: no cover - the parser is iterative
        return f"the aria snapshot cannot be read: {type(exc).__name__}"
    if top is not yaml.SequenceStartEvent or not items:
        return "an aria snapshot is a YAML list of '- role \"name\"' entries"
    return None
