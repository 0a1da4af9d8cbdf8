"""ActionSpec v1 (and its v1.1 extension): one step of a plan, as the executor receives it.

An ActionSpec is complete: ``defaults`` have been merged in, ``${vars.X}``
substituted and the U-rules checked, so the executor never has to guess.
``${secrets.X}`` references stay as references until the executor uses them,
so a validated ActionSpec (and every trace line that serialises it) is free of
secret values.

v1.1 (docs/plan-format.md, "v1.1") only adds: six kinds, the keys ``key``,
``to``, ``direction`` and ``click``'s ``button``/``click_count``/``modifiers``.
v1.2 (docs/plan-format.md, "v1.2") adds the kinds, keys and conditions listed in
``V12_KINDS``, ``V12_STEP_KEYS`` and ``V12_CONDITION_KINDS``, and the role targets' filters;
v1.3 those of the ``V13_*`` rows; v1.4 only plan and suite config keys (plan.py's ``V14_*``).
``format_version`` tells which of the formats a step needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Callable, Iterable, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.input_events import DomEvent, EventInit, Position
from pytest_cometlocal.contract.model.checks.browser_state import COOKIE_ATTRS, Area, CookieSpec
from pytest_cometlocal.contract.model.codes import Criticality
from pytest_cometlocal.contract.model.checks.extension import (
    EXTENSION_KIND_PATTERN, ExtensionArgs, is_extension_kind,
)
from pytest_cometlocal.contract.model.conditions import EXTENSION_CONDITION_KINDS, Condition
from pytest_cometlocal.contract.model.targets import Opens, PageSpec, TargetSpec, describe_target
from pytest_cometlocal.contract.model.targets import ROLE_FILTERS as _ROLE_FILTERS
from pytest_cometlocal.contract.model.targets import ToSpec, Viewport, describe_place, is_place

ActionKind = Literal[
    "navigate", "click", "fill", "select", "upload", "wait_for", "assert", "stop",
    "press", "hover", "check", "uncheck", "drag", "scroll",  # v1.1
    "advance_clock",  # v1.2 (settings)
    "go_back", "go_forward", "reload", "switch_page", "close_page",  # v1.2 (pages)
    "request",  # v1.2 (HTTP steps)
    "set_viewport",  # v1.3 (scroll, viewport, reload)
    "focus", "blur", "dispatch_event",  # v1.3 (actions)
    "set_cookie", "clear_cookies", "set_storage_item", "clear_storage",  # v1.3 (state)
]
ACTION_KINDS: tuple[str, ...] = get_args(ActionKind)
V1_KINDS = frozenset({"navigate", "click", "fill", "select", "upload", "wait_for", "assert", "stop"})
# (v1.2) Kinds that act on the run's pages, not on an element: they take no target.
PAGE_KINDS = frozenset({"go_back", "go_forward", "reload", "switch_page", "close_page"})
V12_KINDS: frozenset[str] = frozenset({"advance_clock", "request"}) | PAGE_KINDS
# (v1.3) Kinds that act on the browser's cookies or the page origin's storage: no target.
STATE_KINDS = frozenset({"set_cookie", "clear_cookies", "set_storage_item", "clear_storage"})
EXTENSION_KINDS = frozenset(ACTION_KINDS) - V1_KINDS - V12_KINDS - STATE_KINDS


@dataclass(frozen=True)
class KindRow:
    """What the format says of one action kind: the validator's rules, same-state counting, retries
    and the executor's step flow (executor/step/actions.py ``ACTIONS``) all read this one row."""

    # Same-state revisits count it (a step that changes, or may change, the page): advance_clock fires
    # the page's due timers; the page kinds move, reload, switch or close pages. A request is counted
    # unless its method is read-only (``effect_kind``).
    side_effect: bool = True
    retried: bool = True  # retry_on may repeat it: wait_for and assert have no side effect to do again
    resolves_target: bool = False  # the step's element is resolved before its preconditions
    waits: bool = False  # its postconditions are what it waits for: unmet is NAVIGATION_TIMEOUT
    checks: bool = False  # its postconditions are checks (assert_checked): post_phase "assert"
    ends_run: bool = False  # checks its preconditions, then ends the run (policy.allow_stop)

    @property
    def post_phase(self) -> str:
        return "assert" if self.checks else "post"


_ACTS, _ON_ELEMENT = KindRow(), KindRow(resolves_target=True)  # press's and scroll's target is optional
# One row per kind of ``ActionKind``.
KINDS: dict[str, KindRow] = {
    "navigate": _ACTS, "click": _ON_ELEMENT, "fill": _ON_ELEMENT, "select": _ON_ELEMENT, "upload": _ON_ELEMENT,
    "wait_for": KindRow(side_effect=False, retried=False, waits=True),
    "assert": KindRow(side_effect=False, retried=False, checks=True),
    "stop": KindRow(side_effect=False, ends_run=True),
    "press": _ON_ELEMENT, "hover": _ON_ELEMENT, "check": _ON_ELEMENT, "uncheck": _ON_ELEMENT, "drag": _ON_ELEMENT,
    "scroll": _ON_ELEMENT,
    "advance_clock": _ACTS,  # needs the plan's clock.at (rule CLOCK)
    **dict.fromkeys(sorted(PAGE_KINDS), _ACTS), "request": _ACTS,
    "set_viewport": _ACTS,  # v1.3: resizes the active page (media queries may change what it shows)
    "focus": _ON_ELEMENT, "blur": _ON_ELEMENT, "dispatch_event": _ON_ELEMENT,  # v1.3
    # v1.3 (state): the browser's cookies and storage change, the page does not (no same-state visit counted).
    **dict.fromkeys(sorted(STATE_KINDS), KindRow(side_effect=False)),
}
SIDE_EFFECT_KINDS = frozenset(k for k, row in KINDS.items() if row.side_effect)
NEVER_RETRIED_KINDS = frozenset(k for k, row in KINDS.items() if not row.retried)
# Kinds whose target may be left out: press acts on what has focus, scroll on the page.
TARGETLESS_KINDS = frozenset({"assert", "stop", "press", "scroll"})
# Kinds that never take a target: advance_clock acts on the clock, the page kinds on the active page (rule INPUTS).
NO_TARGET_KINDS = frozenset({"advance_clock", "request", "set_viewport"}) | PAGE_KINDS | STATE_KINDS
# U1: actions that need exactly one element (when they have a target).
SINGLE_TARGET_KINDS = frozenset({"click", "fill", "select", "upload", "press", "hover", "check", "uncheck", "drag", "scroll",
                                 "focus", "blur", "dispatch_event"})

Modifier = Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]
MODIFIERS: tuple[str, ...] = get_args(Modifier)
Direction = Literal["down", "up", "right", "left"]
MouseButton = Literal["left", "right", "middle"]
# The step keys only v1.1 has (on top of its kinds); CLICK_KEYS belong to click only.
CLICK_KEYS: tuple[str, ...] = ("button", "click_count", "modifiers")
EXTENSION_KEYS: tuple[str, ...] = ("key", "to", "direction", *CLICK_KEYS)
# The plan formats, oldest first: the ``schema_version`` of an ActionSpec record is one of them.
# (v1.4) v1.4 adds plan and suite config keys only (plan.V14_PLAN_KEYS, V14_SUITE_KEYS): no step is v1.4,
# a plan that sets ``browser.name`` is (plan.plan_format_versions).
FORMAT_VERSIONS: tuple[str, ...] = ("v1", "v1.1", "v1.2", "v1.3", "v1.4")
# What only v1.2 has (each slice of it adds its own): action kinds, step keys, condition kinds.
# A role target with a filter (targets.ROLE_FILTERS) is v1.2 too. (V12_KINDS is defined above.)
# The plan keys ``browser`` and ``clock`` are plan.V12_PLAN_KEYS.
# ms: advance_clock's; opens: on click/press, page: on switch_page (pages).
# save / save_text: saved values (on request, and on assert / wait_for with a target).
V12_STEP_KEYS: frozenset[str] = frozenset({"ms", "opens", "page", "save", "save_text"})
# (v1.2) The keys of a request step; a step that has one is a request, so v1.2 by its kind.
REQUEST_KEYS: tuple[str, ...] = ("method", "url", "headers", "json", "form", "body")
HTTP_METHODS: tuple[str, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")  # rule METHOD
# GET and HEAD change nothing on the server: a request with one is not a side effect.
READ_ONLY_METHODS = frozenset({"GET", "HEAD"})
SAVE_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
V12_CONDITION_KINDS: frozenset[str] = frozenset({
    "page_count_equals",  # pages
    "element_hidden", "element_text_matches", "element_value_contains", "element_value_matches",
    "element_attr_matches", "element_texts_equal", "storage_item", "cookie",
    "response_status", "response_json", "response_header",  # request
    "accessibility_clean",  # audits
    "screenshot_matches",  # audits
})

# (v1.3) What only v1.3 has (docs/plan-format.md, "Plan format v1.3"); each slice adds its own rows:
# action kinds; step keys (a step that sets one is v1.3); condition kinds; condition arg keys (a key
# that any condition kind takes only from v1.3 on, such as cookie's ``absent`` or a number's
# ``greater_than``: a condition that writes one is v1.3); and named tests of a step for what v1.3
# widened in an older key (a list of values on select, a position on scroll's ``to``).
V13_KINDS: frozenset[str] = frozenset({"set_viewport", "focus", "blur", "dispatch_event"}) | STATE_KINDS
# viewport: set_viewport's size; bypass_cache: reload's (scroll, viewport, reload); event, detail, position,
# delay_ms, force (actions); cookie, area, key_matches (state).
V13_STEP_KEYS: frozenset[str] = frozenset({"viewport", "bypass_cache", "event", "detail", "position", "delay_ms", "force",
                                           "cookie", "area", "key_matches"})
V13_CONDITION_KINDS: frozenset[str] = frozenset({
    "cookie_count", "storage_items", "storage_equals",  # state
    "request_seen",  # traffic (contract/model/checks/traffic.py)
    "element_css", "element_in_viewport", "element_html_contains",  # element checks (model/element_looks.py)
})
V13_ARG_KEYS: frozenset[str] = frozenset({
    "absent", *COOKIE_ATTRS,  # state: cookie's, storage_item's
    "greater_than", "less_than", "between", "one_of",  # numbers (model/numbers.py)
})
V13_STEP_USES: dict[str, Callable[["ActionSpec"], bool]] = {
    "scroll_to_place": lambda step: is_place(step.to),  # scroll's `to: bottom` / `{x, y}`
    "select_list": lambda step: isinstance(step.value, list),  # actions: several options of a multiple select
    "press_modifier": lambda step: step.kind == "press" and step.key in MODIFIERS,  # actions: a lone modifier
}



def _action_kind(value: str) -> str:
    """A built-in action kind, or (extensions) a name an extension may register: rule EXTENSION then
    says whether one did. Any other name reads as a built-in Literal's error did."""
    if value in _BUILT_IN or is_extension_kind(value):
        return value
    raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": _EXPECTED})


_BUILT_IN = frozenset(ACTION_KINDS)
_EXPECTED = ", ".join(f"'{k}'" for k in ACTION_KINDS[:-1]) + f" or '{ACTION_KINDS[-1]}'"
StepKind = Annotated[str, AfterValidator(_action_kind), WithJsonSchema({"anyOf": [
    {"enum": list(ACTION_KINDS), "type": "string"},
    {"type": "string", "pattern": EXTENSION_KIND_PATTERN, "description": "an extension kind (docs/extensions.md)"},
]})]

STEP_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$"
TAG_PATTERN = r"^[a-z][a-z0-9_]*$"


def _number_as_text(value: Any) -> Any:
    """``value: 12345`` in YAML is a number; a form field wants its text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


InputText = Annotated[str, BeforeValidator(_number_as_text)]
SaveName = Annotated[str, Field(pattern=SAVE_NAME_PATTERN)]
StepId = Annotated[str, Field(pattern=STEP_ID_PATTERN)]
TagName = Annotated[str, Field(pattern=TAG_PATTERN)]


class ActionSpec(ContractModel):
    """One executable step (ActionSpec v1)."""

    # (v1.2) ``json`` is read and written under its key; the attribute is ``json_body``.
    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=False, validate_by_alias=True)

    id: StepId
    kind: StepKind  # a built-in ActionKind, or an extension kind's name (docs/extensions.md)
    criticality: Criticality
    target: TargetSpec | None = None
    preconditions: Annotated[list[Condition], Field(min_length=1)]
    postconditions: Annotated[list[Condition], Field(min_length=1)]
    timeout_ms: Annotated[int, Field(gt=0, le=3_600_000)]
    # (v1.3) a list on select only: the options of a multiple select (rule INPUTS).
    value: InputText | Annotated[list[InputText], Field(min_length=1, max_length=100)] | None = None
    file_ref: Annotated[str, Field(min_length=1)] | Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)] | None = None
    # v1.1 keys; each belongs to one kind (rule INPUTS), ``key`` has its own grammar (rule KEY).
    key: Annotated[str, Field(min_length=1)] | None = None
    # drag's drop target (v1.1), or (v1.3) scroll's place: an edge or {x, y} (contract/model/targets.py).
    to: ToSpec | None = None
    direction: Direction | None = None
    button: MouseButton | None = None
    click_count: Literal[1, 2, 3] | None = None
    modifiers: list[Modifier] | None = None
    # v1.2: advance_clock's milliseconds (at most a day).
    ms: Annotated[int, Field(gt=0, le=86_400_000)] | None = None
    # v1.2 keys: ``opens`` on click and press (the action must open a new page), ``page`` on switch_page.
    opens: Opens | None = None
    page: PageSpec | None = None
    # v1.2 request keys (rules METHOD, BODY, SAVE_POINTER); ``json`` is the key, ``json_body`` the attribute
    # (``json`` would shadow pydantic's method).
    method: Annotated[str, Field(json_schema_extra={"enum": list(HTTP_METHODS)})] | None = None
    url: Annotated[str, Field(min_length=1)] | None = None
    headers: dict[Annotated[str, Field(min_length=1)], InputText] | None = None
    json_body: Any = Field(None, alias="json")
    form: dict[Annotated[str, Field(min_length=1)], InputText] | None = None
    body: str | None = None
    # v1.2 saved values: NAME -> a JSON Pointer, ``status`` or ``header:NAME`` (request); the target's text (assert,
    # wait_for).
    save: Annotated[dict[SaveName, str], Field(min_length=1)] | None = None
    save_text: SaveName | None = None
    # v1.3: set_viewport's size (browser.viewport's model); reload's hard reload (the browser's cache bypassed).
    viewport: Viewport | None = None
    bypass_cache: bool | None = None
    # v1.3 (actions): dispatch_event's ``event`` and ``detail``; click's and hover's ``position``; fill's
    # ``delay_ms`` (typed key by key); ``force`` on click, fill, check, uncheck (rules INPUTS, EVENT, FORCE).
    event: DomEvent | None = None
    detail: EventInit | None = None
    position: Position | None = None
    delay_ms: Annotated[int, Field(ge=1, le=1000)] | None = None
    force: bool | None = None
    # v1.3 (state): set_cookie's cookie (clear_cookies' filters); the storage area of set_storage_item and
    # clear_storage, whose ``key`` is the storage key and ``value`` the item's; clear_storage's key pattern.
    cookie: CookieSpec | None = None
    area: Area | None = None
    key_matches: Annotated[str, Field(min_length=1)] | None = None
    # (extensions) an extension kind's input, checked against its registered model (rule EXTENSION).
    args: ExtensionArgs | None = None
    # Factories, not ``[]``/``{}``: pydantic deep-copies a mutable default for every
    # step it validates; the schema still shows the empty default.
    tags: list[TagName] = Field(default_factory=list, json_schema_extra={"default": []})
    metadata: dict[str, Any] = Field(default_factory=dict, json_schema_extra={"default": {}})

    @property
    def alternatives(self) -> list:
        """The step's targets in U4 order (one element for a single target)."""
        if self.target is None:
            return []
        return list(self.target) if isinstance(self.target, list) else [self.target]

    @property
    def drop_target(self) -> Any:
        """``to`` when it is a target (drag's), else None (none, or (v1.3) scroll's place)."""
        return None if self.to is None or is_place(self.to) else self.to

    @property
    def scroll_place(self) -> Any:
        """(v1.3) ``to`` when it is a place to scroll to (an edge or ``{x, y}``), else None."""
        return self.to if is_place(self.to) else None

    @property
    def to_alternatives(self) -> list:
        """``to``'s targets in U4 order (drag's drop target)."""
        to = self.drop_target
        if to is None:
            return []
        return list(to) if isinstance(to, list) else [to]

    @property
    def file_refs(self) -> list[str]:
        if self.file_ref is None:
            return []
        return [self.file_ref] if isinstance(self.file_ref, str) else list(self.file_ref)


def effect_kind(step: ActionSpec) -> str:
    """What same-state counting reads (budget.counted): the kind, or ``request:read`` for a GET or HEAD."""
    kind = step.kind
    return "request:read" if kind == "request" and step.method in READ_ONLY_METHODS else kind


def format_version(step: ActionSpec) -> Literal["v1", "v1.1", "v1.2", "v1.3"]:
    """The oldest format that has everything the step uses: ``"v1.3"`` for a v1.3 kind, step key,
    condition kind or condition arg key (``V13_*``); else ``"v1.2"`` for a v1.2 kind, key or
    condition, or a role target with a filter (anywhere in the step); else ``"v1.1"`` for an
    extension kind, key or condition; else ``"v1"``."""
    conditions = (*step.preconditions, *step.postconditions)
    if _uses_v13(step, conditions):
        return "v1.3"
    if (step.kind in V12_KINDS or any(getattr(step, k, None) is not None for k in V12_STEP_KEYS)
            or any(c.kind in V12_CONDITION_KINDS for c in conditions) or _filters_roles(step, conditions)):
        return "v1.2"
    if step.kind in EXTENSION_KINDS or any(getattr(step, k) is not None for k in EXTENSION_KEYS):
        return "v1.1"
    return "v1.1" if any(c.kind in EXTENSION_CONDITION_KINDS for c in conditions) else "v1"


def _uses_v13(step: ActionSpec, conditions: tuple) -> bool:
    """Whether the step uses anything only v1.3 has (the ``V13_*`` rows)."""
    return (step.kind in V13_KINDS or any(getattr(step, k, None) is not None for k in V13_STEP_KEYS)
            or any(c.kind in V13_CONDITION_KINDS
                   or not (V13_ARG_KEYS.isdisjoint(c.args.model_fields_set) or is_extension_kind(c.kind))
                   for c in conditions)
            or any(uses(step) for uses in V13_STEP_USES.values()))


def _filters_roles(step: ActionSpec, conditions: tuple) -> bool:
    """Whether a role target of the step (its own, drag's ``to``, its conditions') sets a v1.2 filter.

    Read from each model's ``__dict__`` and fields set: this runs for every step a run records."""
    stack = [t for spec in (step.target, step.drop_target) if spec is not None
             for t in (spec if isinstance(spec, list) else (spec,))]
    for c in conditions:
        spec = c.args.__dict__.get("target")
        if spec is not None:
            stack.extend(spec if isinstance(spec, list) else (spec,))
    while stack:
        target = stack.pop()
        kind = target.type
        if kind == "role":
            if any(target.__dict__[k] is not None for k in _ROLE_FILTER_SET & target.model_fields_set):
                return True
        elif kind == "frame":
            stack.append(target.inner)
        elif kind == "nth":
            stack.append(target.base)
    return False


_ROLE_FILTER_SET = frozenset(_ROLE_FILTERS)


def format_versions(steps: Iterable[ActionSpec]) -> list[str]:
    """The format versions ``steps`` use, oldest first: what a run manifest's ``format_versions`` lists."""
    used = {format_version(step) for step in steps}
    return [version for version in FORMAT_VERSIONS if version in used]


def describe_step(step: ActionSpec) -> str:
    """Short human form of what a step does, for reports: ``press Enter on label="Search"``,
    ``drag testid=a to testid=b``, ``scroll down in css=.grid``, ``click testid=go (right button)``."""
    target = describe_target(step.target) if step.target is not None else None
    if step.kind == "press":
        return f"press {step.key}" + (f" on {target}" if target else "") + (" (opens a page)" if step.opens else "")
    if step.kind == "drag":
        drop = step.drop_target
        return f"drag {target} to {describe_target(drop) if drop is not None else '?'}"
    if step.kind == "advance_clock":
        return f"advance clock {step.ms} ms"
    if step.kind == "scroll":
        place = step.scroll_place
        how = f"to {describe_place(place)}" if place is not None else step.direction or "down"
        return f"scroll {how}" + (f" in {target}" if target else "")
    if step.kind == "set_viewport":
        return f"set viewport {step.viewport.describe()}" if step.viewport is not None else "set viewport"
    if step.kind == "request":
        return f"{step.method} {step.url}"
    if step.kind in STATE_KINDS:
        return describe_state_step(step)
    if step.kind == "switch_page" and step.page is not None:
        return f"switch to {step.page.describe()}"
    if step.kind == "reload" and step.bypass_cache:
        return "reload (bypass cache)"
    if step.kind == "dispatch_event":  # (v1.3)
        init = step.detail.given() if step.detail is not None else {}
        return (f"dispatch {step.event} on {target}"
                + (f" ({', '.join(f'{k}={v}' for k, v in sorted(init.items()))})" if init else ""))
    text = step.kind.replace("_", " ") if step.kind in PAGE_KINDS else step.kind + (f" {target}" if target else "")
    how = [f"{step.button} button"] if step.button not in (None, "left") else []
    how += [f"{step.click_count} clicks"] if step.click_count not in (None, 1) else []
    how += ["+".join(step.modifiers)] if step.modifiers else []
    how += ["opens a page"] if step.opens else []
    how += _v13_how(step)
    return text + (f" ({', '.join(how)})" if how else "")


def _v13_how(step: ActionSpec) -> list[str]:
    """(v1.3) What describe_step adds for click's position, select's list, fill's delay and force."""
    how = [f"at {step.position.x:g},{step.position.y:g}"] if step.position is not None else []
    how += [f"{len(step.value)} options"] if isinstance(step.value, list) else []
    how += [f"{step.delay_ms} ms a key"] if step.delay_ms is not None else []
    return how + (["force"] if step.force else [])
def describe_state_step(step: ActionSpec) -> str:
    """(v1.3) ``set cookie theme on /``, ``clear local storage (key_matches ^todo-)``: names, never values."""
    if step.kind == "set_cookie":
        return "set cookie " + (step.cookie.describe() if step.cookie else "?")
    if step.kind == "clear_cookies":
        return "clear cookies" + (f" ({step.cookie.describe()})" if step.cookie else "")
    if step.kind == "set_storage_item":
        return f"set {step.area} storage item {step.key}"
    which = f" (key {step.key})" if step.key else f" (key_matches {step.key_matches})" if step.key_matches else ""
    return f"clear {step.area} storage" + which


class StepDefaults(ContractModel):
    """Plan ``defaults``: filled into every step that lacks the key."""

    criticality: Criticality | None = None
    timeout_ms: Annotated[int, Field(gt=0, le=3_600_000)] | None = None
    preconditions: list[Condition] | None = None
    postconditions: list[Condition] | None = None


DEFAULTABLE_KEYS: tuple[str, ...] = ("criticality", "timeout_ms", "preconditions", "postconditions")
