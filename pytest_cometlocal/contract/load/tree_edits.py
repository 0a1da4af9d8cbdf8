"""Edits on loaded YAML trees that validation makes before the models see them.

The trees are built for one validation alone (or copied with
``loader.copy_tree`` first), so these work in place and keep every position.
"""

from __future__ import annotations

from typing import Any

from pytest_cometlocal.contract.model.actionspec import DEFAULTABLE_KEYS
from pytest_cometlocal.contract.load.safe_yaml import YDict
from pytest_cometlocal.contract.model.problems import Loc


def interpolate_in_place(node: Any, fn, path: Loc = ()) -> None:
    """Apply ``fn(path, text)`` to every string value containing ``${``.

    In place: the tree was built for this validation alone. Aliased subtrees
    may be visited twice, which is harmless because the result of
    interpolation never contains a var reference. At the top of a plan, ``vars``,
    ``secrets`` and ``parametrize`` are not entered (they are the sources).
    A path is built only for a string that needs it: each container on the
    way holds a link to its parent's, not a tuple of its own.
    """
    def loc_of(link: Any, key: Any) -> Loc:
        parts = [key]
        while link is not None:
            link, part = link
            parts.append(part)
        return path + tuple(reversed(parts))

    stack: list[tuple[Any, Any]] = []
    if isinstance(node, list):
        stack.append((node, None))
    elif isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str):
                if "${" in value:
                    node[key] = fn(path + (key,), value)
            elif (path or key not in ("vars", "secrets", "parametrize")) and isinstance(value, (dict, list)):
                stack.append((value, (None, key)))
    dict_, list_, str_ = dict, list, str
    while stack:
        current, link = stack.pop()
        items = current.items() if isinstance(current, dict_) else enumerate(current)
        for key, value in items:
            if isinstance(value, str_):
                if "${" in value:
                    current[key] = fn(loc_of(link, key), value)
            elif isinstance(value, (dict_, list_)):
                stack.append((value, (link, key)))


def merge_defaults(step: Any, defaults: YDict) -> Any:
    """``step`` with the missing defaultable keys taken from ``defaults``, in place.

    In place because every step node belongs to this validation alone (rows
    and group uses are copied first); a step aliased twice gets the same keys
    twice, which is harmless. The default's subtree is shared, not copied
    (nothing mutates it later), and keeps the marks of the ``defaults`` block,
    so an error in it points there.
    """
    if type(step) is not YDict and not isinstance(step, YDict):
        return step
    key_marks, value_marks = step.key_marks, step.value_marks
    # A default without a position of its own has the block's (``MarkMap.default``,
    # what indexing would give), taken without a call per step.
    default_keys, default_values = defaults.key_marks, defaults.value_marks
    for key in DEFAULTABLE_KEYS:
        if key not in step and key in defaults:
            step[key] = defaults[key]
            key_marks[key] = default_keys.get(key, default_keys.default)
            value_marks[key] = default_values.get(key, default_values.default)
    return step
