"""Map a key path (as pydantic or the rules report it) back to a file position.

Pydantic puts union tags into error locations (``steps.0.target.role.name``
for a role target); the walk skips a part that is not a key of the current
mapping when it is that mapping's ``type``/``kind`` value or a known union tag,
so the reported key path is the one the user wrote.
"""

from __future__ import annotations

from typing import Any, Iterable

from pytest_cometlocal.contract.model.problems import Mark, format_key_path
from pytest_cometlocal.contract.model.targets import SCROLL_TAGS

_UNION_TAGS = frozenset({"single", "alternatives"}) | SCROLL_TAGS  # (v1.3) scroll's place
_GENERIC = frozenset({"str", "int", "float", "bool", "none", "list", "dict", "constrained-str", "constrained-int"})


def _is_generic(part: Any) -> bool:
    return isinstance(part, str) and ("[" in part or part in _GENERIC)


def locate(root: Any, loc: Iterable[Any], fallback: Mark, key: bool = False, tags: bool = True) -> tuple[Mark, str]:
    """Return (mark, clean key path) for ``loc`` inside the loaded document ``root``.

    ``root`` is usually a YDict from the loader; plain dicts and lists (a
    planner's proposal) work too, with the fallback mark.

    With ``key=True`` the mark of the last key itself is returned (for unknown
    keys) instead of its value's. ``tags=False`` for paths written by the
    rules, which never contain union tags (a ``url`` target's field ``url``
    is then a key, not a tag).
    """
    node = root
    mark = getattr(root, "mark", fallback)
    path: list[Any] = []
    parts = list(loc)
    navigating = True
    entered = True  # pydantic puts a union tag right after entering a tagged mapping
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if navigating and isinstance(part, str) and part in _UNION_TAGS:
            continue
        if navigating and isinstance(node, dict):
            if tags and entered and isinstance(part, str) and part in (node.get("type"), node.get("kind")):
                entered = False
                continue
            entered = False
            if isinstance(part, str) and part in node:
                marks = getattr(node, "key_marks" if (key and last) else "value_marks", None)
                mark = marks[part] if marks else mark
                node = node[part]
                path.append(part)
                entered = True
                continue
            if isinstance(part, str) and part in _UNION_TAGS:
                continue
            navigating = False
        elif navigating and isinstance(node, list):
            if isinstance(part, int) and 0 <= part < len(node):
                marks = getattr(node, "item_marks", None)
                mark = marks[part] if marks else mark
                node = node[part]
                path.append(part)
                entered = True
                continue
            if isinstance(part, str) and (part in _UNION_TAGS or _is_generic(part)):
                continue
            navigating = False
        elif navigating and isinstance(part, str) and (part in _UNION_TAGS or _is_generic(part)):
            continue
        else:
            navigating = False
        if _is_generic(part) or part in _UNION_TAGS:
            continue
        path.append(part)
    return mark, format_key_path(tuple(path))
