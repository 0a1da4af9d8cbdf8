"""Edits on loaded YAML trees that validation makes before the models see them.

The trees are built for one validation alone (or copied with
``loader.copy_tree`` first), so these work in place and keep every position.
"""

from __future__ import annotations

from typing import Any

from .actionspec import DEFAULTABLE_KEYS
from .loader import YDict

Loc = tuple[Any, ...]


def interpolate_in_place(node: Any, fn, path: Loc = ()) -> None:
    """Apply ``fn(path, text)`` to every string value containing ``${``.

    In place: the tree was built for this validation alone. Aliased subtrees
    may be visited twice, which is harmless because the result of
    interpolation never contains a var reference.
    """
    stack: list[tuple[Any, Loc]] = [(node, path)]
    while stack:
        current, loc = stack.pop()
        if isinstance(current, dict):
            items = current.items()
        elif isinstance(current, list):
            items = enumerate(current)
        else:
            continue
        for key, value in items:
            if isinstance(value, str):
                if "${" in value:
                    current[key] = fn(loc + (key,), value)
            elif isinstance(value, (dict, list)):
                if not (loc == () and key in ("vars", "secrets", "parametrize")):
                    stack.append((value, loc + (key,)))


def merge_defaults(step: Any, defaults: YDict) -> Any:
    """A shallow copy of ``step`` with the missing defaultable keys taken from ``defaults``.

    The default's subtree is shared, not copied (nothing mutates it later), and
    keeps the marks of the ``defaults`` block, so an error in it points there.
    """
    if not isinstance(step, YDict) or not any(k in defaults and k not in step for k in DEFAULTABLE_KEYS):
        return step
    merged = YDict(step.mark)
    merged.update(step)
    merged.key_marks.update(step.key_marks)
    merged.value_marks.update(step.value_marks)
    for key in DEFAULTABLE_KEYS:
        if key in defaults and key not in merged:
            merged[key] = defaults[key]
            merged.key_marks[key] = defaults.key_marks[key]
            merged.value_marks[key] = defaults.value_marks[key]
    return merged
