"""(v1.3) What a step's input may carry beside its value: dispatch_event's events and their init keys, and a
point of the element (click's and hover's ``position``).

The closed sets live here so the validator (rule EVENT, contract/actions/rules.py), the executor
(executor/input/) and the importer read one table; ActionSpec holds the fields.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from pytest_cometlocal.contract.model.base import ContractModel

# (v1.3) dispatch_event's events, each of the family whose init keys it takes (Playwright builds a MouseEvent,
# a KeyboardEvent, a FocusEvent or a plain Event from the event's name: its dispatch_event's ``event_init``).
DomEvent = Literal["submit", "change", "input", "blur", "focus", "click", "dblclick", "mousedown", "mouseup",
                   "mouseover", "mouseout", "mouseenter", "mouseleave", "mousemove", "keydown", "keyup", "keypress"]
_EVENT_KEYS = ("bubbles", "cancelable", "composed")
_MODIFIER_KEYS = ("altKey", "ctrlKey", "metaKey", "shiftKey")
EVENT_FAMILIES: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {  # family: (its events, the init keys it takes)
    "plain": (frozenset({"submit", "change", "input"}), _EVENT_KEYS),
    "focus": (frozenset({"focus", "blur"}), (*_EVENT_KEYS, "detail")),
    "mouse": (frozenset({"click", "dblclick", "mousedown", "mouseup", "mouseover", "mouseout", "mouseenter",
                         "mouseleave", "mousemove"}),
              (*_EVENT_KEYS, "detail", "button", "buttons", "clientX", "clientY", "screenX", "screenY", *_MODIFIER_KEYS)),
    "keyboard": (frozenset({"keydown", "keyup", "keypress"}),
                 (*_EVENT_KEYS, "detail", "key", "code", "location", "repeat", "isComposing", *_MODIFIER_KEYS)),
}
EVENT_FAMILY: dict[str, str] = {event: family for family, (events, _keys) in EVENT_FAMILIES.items() for event in events}
Pixels = Annotated[float, Field(ge=0, le=100_000)]
_KeyName = Annotated[str, Field(min_length=1, max_length=32)]


class Position(ContractModel):
    """(v1.3) A point of the element, in CSS pixels from its top-left corner (click's and hover's ``position``)."""

    x: Pixels
    y: Pixels


class EventInit(ContractModel):
    """(v1.3) dispatch_event's ``detail``: the event-init keys, named as the DOM (and Playwright) name them.
    Which of them an event takes depends on its family (``EVENT_FAMILIES``: rule EVENT)."""

    bubbles: bool | None = None
    cancelable: bool | None = None
    composed: bool | None = None
    detail: Annotated[int, Field(ge=0, le=1000)] | None = None
    button: Annotated[int, Field(ge=0, le=4)] | None = None
    buttons: Annotated[int, Field(ge=0, le=31)] | None = None
    clientX: float | None = None
    clientY: float | None = None
    screenX: float | None = None
    screenY: float | None = None
    key: _KeyName | None = None
    code: _KeyName | None = None
    location: Annotated[int, Field(ge=0, le=3)] | None = None
    repeat: bool | None = None
    isComposing: bool | None = None
    altKey: bool | None = None
    ctrlKey: bool | None = None
    metaKey: bool | None = None
    shiftKey: bool | None = None

    def given(self) -> dict[str, Any]:
        """The keys the plan wrote, as Playwright's ``event_init`` takes them."""
        return {k: getattr(self, k) for k in self.model_fields_set if getattr(self, k) is not None}
