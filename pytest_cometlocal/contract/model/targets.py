"""Target v1: how a step names an element, without heuristics.

Nine types, discriminated on ``type``. (And, at the end: a viewport's size and (v1.3) a place to
scroll to, what ``set_viewport`` and scroll's ``to`` name.) A step's ``target`` may also be a list
of alternatives, tried in the U4 order. Rules that need context (U2 exactness,
U3 rationale, frame depth, ``url`` only for ``navigate``) are checked by the
validator, which knows where the target sits; the models check shape only.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union, get_args

from pydantic import Discriminator, Field, Tag, model_serializer, model_validator

from pytest_cometlocal.contract.model.base import ContractModel

NonEmpty = Annotated[str, Field(min_length=1)]

ARIA_ROLES: tuple[str, ...] = (
    "alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption",
    "cell", "checkbox", "code", "columnheader", "combobox", "complementary", "contentinfo",
    "definition", "deletion", "dialog", "directory", "document", "emphasis", "feed", "figure",
    "form", "generic", "grid", "gridcell", "group", "heading", "img", "insertion", "link", "list",
    "listbox", "listitem", "log", "main", "marquee", "math", "menu", "menubar", "menuitem",
    "menuitemcheckbox", "menuitemradio", "meter", "navigation", "none", "note", "option",
    "paragraph", "presentation", "progressbar", "radio", "radiogroup", "region", "row", "rowgroup",
    "rowheader", "scrollbar", "search", "searchbox", "separator", "slider", "spinbutton", "status",
    "strong", "subscript", "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term",
    "textbox", "time", "timer", "toolbar", "tooltip", "tree", "treegrid", "treeitem",
)
AriaRole = Literal[ARIA_ROLES]  # type: ignore[valid-type]

# U4: the deterministic order in which alternative targets are tried.
U4_ORDER: tuple[str, ...] = ("testid", "role", "label", "css", "xpath", "text")


class TestIdTarget(ContractModel):
    """``data-testid`` (or the configured attribute) equal to ``id``."""

    __test__ = False  # not a pytest test class
    type: Literal["testid"]
    id: NonEmpty

    def describe(self) -> str:
        """Short human form used in reports (``describe_target``)."""
        return f"testid={self.id}"


# (v1.2) Playwright's get_by_role filters, each allowed only with the roles ARIA defines it for
# (rule ROLE_FILTER). The lists are Playwright's own (its roleUtils' kAria*Roles, which its
# get_by_role checks) restricted to concrete roles; `level` is kept to headings (1-6) by the plan
# format, and `include_hidden` is not a state: any role takes it.
ROLE_FILTER_ROLES: dict[str, frozenset[str] | None] = {
    "level": frozenset({"heading"}),
    "checked": frozenset({"checkbox", "menuitemcheckbox", "menuitemradio", "option", "radio", "switch", "treeitem"}),
    "expanded": frozenset({
        "application", "button", "checkbox", "columnheader", "combobox", "gridcell", "link", "listbox", "menuitem",
        "menuitemcheckbox", "menuitemradio", "row", "rowheader", "switch", "tab", "treeitem"}),
    "selected": frozenset({"columnheader", "gridcell", "option", "row", "rowheader", "tab", "treeitem"}),
    "pressed": frozenset({"button"}),
    "disabled": frozenset({
        "application", "button", "checkbox", "columnheader", "combobox", "grid", "gridcell", "group", "link",
        "listbox", "menu", "menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "radio",
        "radiogroup", "row", "rowheader", "scrollbar", "searchbox", "separator", "slider", "spinbutton", "switch",
        "tab", "tablist", "textbox", "toolbar", "tree", "treegrid", "treeitem"}),
    "include_hidden": None,
}
ROLE_FILTERS: tuple[str, ...] = tuple(ROLE_FILTER_ROLES)


class RoleTarget(ContractModel):
    """ARIA role plus optional accessible name."""

    # (v1.2) and Playwright's get_by_role filters: ROLE_FILTER_ROLES says which roles take each.
    type: Literal["role"]
    role: AriaRole
    name: NonEmpty | None = None
    exact: bool | None = None
    level: Annotated[int, Field(ge=1, le=6)] | None = None  # v1.2
    checked: bool | None = None  # v1.2
    expanded: bool | None = None  # v1.2
    selected: bool | None = None  # v1.2
    pressed: bool | None = None  # v1.2
    disabled: bool | None = None  # v1.2
    include_hidden: bool | None = None  # v1.2

    @model_serializer(mode="wrap")
    def _unset_filters_left_out(self, handler: Any) -> Any:
        """A v1 role target serializes as it did in v1 (trace records): filters only when set."""
        data = handler(self)
        if isinstance(data, dict):
            for key in ROLE_FILTERS:
                if data.get(key, 0) is None:
                    del data[key]
        return data

    @property
    def filters(self) -> dict[str, bool | int]:
        """The v1.2 filters the target sets, in ROLE_FILTERS order."""
        return {k: getattr(self, k) for k in ROLE_FILTERS if getattr(self, k) is not None}

    def describe(self) -> str:
        """``role=heading[level=2][name="Todos"]``: each filter in brackets, as Playwright's role selector writes them."""
        filters = "".join(f"[{k}={str(v).lower() if isinstance(v, bool) else v}]" for k, v in self.filters.items())
        return f"role={self.role}" + filters + (f'[name="{self.name}"]' if self.name is not None else "")


class LabelTarget(ContractModel):
    """Form control by its label text. U2: ``exact`` or ``normalize_ws`` must be true."""

    type: Literal["label"]
    text: NonEmpty
    exact: bool | None = None
    normalize_ws: bool | None = None

    def describe(self) -> str:
        return f'label="{self.text}"'


class CssTarget(ContractModel):
    type: Literal["css"]
    selector: NonEmpty

    def describe(self) -> str:
        return f"css={self.selector}"


class XPathTarget(ContractModel):
    type: Literal["xpath"]
    selector: NonEmpty

    def describe(self) -> str:
        return f"xpath={self.selector}"


class TextTarget(ContractModel):
    """Element by its text. U2: ``exact`` or ``normalize_ws`` must be true."""

    type: Literal["text"]
    text: NonEmpty
    exact: bool | None = None
    normalize_ws: bool | None = None

    def describe(self) -> str:
        return f'text="{self.text}"'


class FrameTarget(ContractModel):
    """An element inside the iframe ``selector``; one level only."""

    type: Literal["frame"]
    selector: NonEmpty
    inner: "Target"

    def describe(self) -> str:
        return f"frame={self.selector} >> {self.inner.describe()}"


class NthTarget(ContractModel):
    """The ``index``-th (0-based) match of ``base``. U3: needs a rationale."""

    type: Literal["nth"]
    base: "Target"
    index: Annotated[int, Field(ge=0)]

    def describe(self) -> str:
        return f"{self.base.describe()} >> nth={self.index}"


class UrlTarget(ContractModel):
    """A page address; only for ``navigate``. Absolute, or relative to the base URL."""

    type: Literal["url"]
    url: NonEmpty

    def describe(self) -> str:
        return f"url={self.url}"


AnyTarget = Union[
    TestIdTarget, RoleTarget, LabelTarget, CssTarget, XPathTarget, TextTarget,
    FrameTarget, NthTarget, UrlTarget,
]
"""The nine target models; everything else about targets is derived from this union."""

Target = Annotated[AnyTarget, Field(discriminator="type")]

# Each member's ``type: Literal["..."]``, in the union's order.
TARGET_TYPES: tuple[str, ...] = tuple(
    get_args(model.model_fields["type"].annotation)[0] for model in get_args(AnyTarget)
)


def _single_or_list(value: object) -> str:
    return "alternatives" if isinstance(value, list) else "single"


TargetSpec = Annotated[
    Union[
        Annotated[Target, Tag("single")],
        Annotated[list[Target], Field(min_length=1), Tag("alternatives")],
    ],
    Discriminator(_single_or_list),
]
"""What a step's ``target`` holds: one target, or a non-empty list of alternatives."""

FrameTarget.model_rebuild()
NthTarget.model_rebuild()


def u4_rank(target: AnyTarget) -> int:
    """Position of a target in the U4 order; composite targets rank by what they wrap."""
    inner = target
    while isinstance(inner, (FrameTarget, NthTarget)):
        inner = inner.inner if isinstance(inner, FrameTarget) else inner.base
    return U4_ORDER.index(inner.type) if inner.type in U4_ORDER else len(U4_ORDER)


def describe_target(target: AnyTarget | list) -> str:
    """Short human form used in reports: ``role=button[name="Sign in"]``; alternatives joined by ``|``."""
    if isinstance(target, list):
        return " | ".join(t.describe() for t in target)
    return target.describe()


# -- (v1.2) ``page``: how ``switch_page`` names one open page of the run -----------------------
# Exactly one of ``index`` (0 = the first page, in the order the pages were opened),
# ``url_matches`` (a Python regex, searched in the page's URL) or ``title_contains`` (a text in
# its title). Which page matches is decided when the step runs; none or several is a typed error
# (TARGET_NOT_FOUND / TARGET_NOT_UNIQUE, ``details.which: "page"``).

# A step key that names what its action must open (click and press only).
Opens = Literal["page"]


class PageSpec(ContractModel):
    """One open page of the run, by its place, its URL or its title."""

    index: Annotated[int, Field(ge=0)] | None = None
    url_matches: Annotated[str, Field(min_length=1)] | None = None
    title_contains: Annotated[str, Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "PageSpec":
        given = [k for k in ("index", "url_matches", "title_contains") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("page takes exactly one of index, url_matches, title_contains"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self

    def describe(self) -> str:
        """Short human form: ``page 1``, ``page url~/popup``, ``page title~"Sign in"``."""
        if self.index is not None:
            return f"page {self.index}"
        if self.url_matches is not None:
            return f"page url~{self.url_matches}"
        return f'page title~"{self.title_contains}"'


# -- What a page shows: its viewport's size and (v1.3) a place to scroll to ------------------------
# ``Viewport`` is ``browser.viewport``'s model (v1.2) and ``set_viewport``'s step key (v1.3): one
# model, so the plan and the step cannot disagree on what a size is (plan.py imports it from here:
# actionspec.py needs it and plan.py imports actionspec.py).
#
# (v1.3) scroll's ``to`` is a place: an edge (``top``, ``bottom``, ``left``, ``right``) or ``{x, y}``,
# each coordinate pixels from the start of the scrollable range (an int >= 0) or a share of that range
# (``"0%"``-``"100%"``). drag's ``to`` is an element target; both are the one key ``to`` of a step, told
# apart by shape (``to_shape``), so a mistake in either is reported against the shape the writer meant.
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
