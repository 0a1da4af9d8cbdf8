"""What a page shows: its viewport's size and (v1.3) a place to scroll to.

``Viewport`` is ``browser.viewport``'s model (v1.2) and ``set_viewport``'s step key
(v1.3): one model, so the plan and the step cannot disagree on what a size is.
It lives here, not in plan.py, because the step model (actionspec.py) needs it and
plan.py imports actionspec.py.

(v1.3) ``scroll``'s ``to`` is a place: an edge (``top``, ``bottom``, ``left``,
``right``) or ``{x, y}``, each coordinate pixels from the start of the scrollable
range (an int >= 0) or a share of that range (``"0%"``-``"100%"``). drag's ``to``
is an element target; both are the one key ``to`` of a step, told apart by shape
(a string or a mapping without ``type``/list: see ``to_shape``), so a mistake in
either is reported against the shape the writer meant.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union, get_args

from pydantic import Discriminator, Field, Tag

from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.targets import Target

Pixels = Annotated[int, Field(ge=1, le=10_000)]


class Viewport(ContractModel):
    width: Pixels
    height: Pixels

    def describe(self) -> str:
        return f"{self.width}x{self.height}"


ScrollEdge = Literal["top", "bottom", "left", "right"]
SCROLL_EDGES: tuple[str, ...] = get_args(ScrollEdge)
# "0%" to "100%", decimals allowed ("12.5%"); nothing above 100.
PERCENT_PATTERN = r"^(?:100(?:\.0+)?|[0-9]{1,2}(?:\.[0-9]+)?)%$"
# Told apart by type, so a wrong value gets the one error of the form it was written in.
Coordinate = Annotated[
    Union[
        Annotated[int, Field(ge=0), Tag("pixels")],
        Annotated[str, Field(pattern=PERCENT_PATTERN), Tag("percent")],
    ],
    Discriminator(lambda v: "percent" if isinstance(v, str) else "pixels"),
]


class ScrollPoint(ContractModel):
    """``{x, y}``: where the scrolled element's view should start; either may be left out (kept as it is)."""

    x: Coordinate | None = None
    y: Coordinate | None = None

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in (("x", self.x), ("y", self.y)) if v is not None) or "(nowhere)"


# The union tags of ``to``'s two new shapes (locate.py skips them in error paths, as "single"/"alternatives").
SCROLL_TAGS = frozenset({"scroll_edge", "scroll_point", "pixels", "percent"})


def to_shape(value: Any) -> str:
    """Which shape ``to`` is written in: drag's target ("single" / "alternatives") or scroll's place.

    A mapping with ``type`` (or any mapping with neither ``x`` nor ``y``) is read as
    a target, so a drag's broken target keeps its target errors; a string is an edge.
    """
    if isinstance(value, list):
        return "alternatives"
    if isinstance(value, str):
        return "scroll_edge"
    if isinstance(value, ScrollPoint):
        return "scroll_point"
    if isinstance(value, dict):
        if "type" not in value and ("x" in value or "y" in value):
            return "scroll_point"
        return "single"
    return "single"


# What a step's ``to`` holds: drag's drop target (one target or alternatives, v1.1) or (v1.3) scroll's place.
ToSpec = Annotated[
    Union[
        Annotated[Target, Tag("single")],
        Annotated[list[Target], Field(min_length=1), Tag("alternatives")],
        Annotated[ScrollEdge, Tag("scroll_edge")],
        Annotated[ScrollPoint, Tag("scroll_point")],
    ],
    Discriminator(to_shape),
]


def is_place(to: Any) -> bool:
    """Whether a validated ``to`` is a scroll place (an edge or ``{x, y}``), not a target."""
    return isinstance(to, (str, ScrollPoint))


def describe_place(to: Any) -> str:
    """``bottom``, ``x=0, y=50%``."""
    return to if isinstance(to, str) else to.describe()
