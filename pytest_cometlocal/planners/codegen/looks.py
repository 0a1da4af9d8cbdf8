"""(v1.3) What ``expect(locator)``'s look checks become: rows of codegen/steps.py's ``CHECKS``.

``to_have_css("color", "rgb(255, 0, 0)")`` is ``element_css`` with ``equals``
(a ``re.compile(...)`` value: ``matches``, searched as Playwright searches it);
``to_be_in_viewport()`` / ``to_be_in_viewport(ratio=0.5)`` is
``element_in_viewport``. A call these rows cannot take (a property name the
plan's CSS grammar refuses, another keyword) returns None: the importer
reports it with its line, it never guesses.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_cometlocal.contract.model.checks.element_looks import CSS_PROPERTY
from pytest_cometlocal.planners.codegen.targets import no_reference

_OPTIONS = frozenset({"timeout"})  # keyword arguments that do not change what is checked


def _css(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
    if len(args) != 2 or set(kwargs) - _OPTIONS or not isinstance(args[0], str) or not re.match(CSS_PROPERTY, args[0]):
        return None
    value = args[1]
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "re" and isinstance(value[1], str):
        return {"kind": "element_css", "args": {"target": target, "property": args[0],
                                                "matches": no_reference(value[1])}}
    if not isinstance(value, str):
        return None
    return {"kind": "element_css", "args": {"target": target, "property": args[0], "equals": no_reference(value)}}


def _in_viewport(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
    ratio = kwargs.get("ratio")
    if args or set(kwargs) - _OPTIONS - {"ratio"}:
        return None
    if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 <= ratio <= 1):
        return None
    return {"kind": "element_in_viewport", "args": {"target": target, **({"ratio": ratio} if ratio is not None else {})}}


LOOK_CHECKS = {
    "to_have_css": _css,
    "to_be_in_viewport": _in_viewport,
}
