"""(v1.3) Rule INPUTS for ``to``, the one key of two kinds: drag's drop target, scroll's place.

The model reads ``to`` by its shape (contract/model/view.py); which shape belongs to
which kind is decided here, located at ``to`` (or at ``direction``), so a drag with
``to: bottom`` or a scroll with a target ``to`` is refused at load, never at run time.
"""

from __future__ import annotations

from typing import Callable

from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.problems import Loc

Report = Callable[[Loc, str, str], None]


def check_scroll_to(step: ActionSpec, loc: Loc, add: Report) -> None:
    """INPUTS: a place ``to`` on scroll only, a target ``to`` on drag only; scroll's ``to`` and ``direction``
    exclude each other; ``{x, y}`` names at least one of them."""
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


