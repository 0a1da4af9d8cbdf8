"""The closed grammars of two v1.1 inputs: a ``press`` key (rule KEY) and an aria-snapshot template.

A key is one key name with optional modifiers joined by ``+`` (``Enter``,
``Shift+Tab``, ``ControlOrMeta+Enter``, ``Control++``). The grammar is closed so
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


def snapshot_problem(snapshot: str) -> str | None:
    """Why an aria-snapshot template cannot be one (Playwright's templates are YAML lists)."""
    try:
        tree = yaml.safe_load(snapshot)
    except yaml.YAMLError as exc:
        return f"the aria snapshot is not valid YAML: {str(exc).splitlines()[0]}"
    if not isinstance(tree, list) or not tree:
        return "an aria snapshot is a YAML list of '- role \"name\"' entries"
    return None

