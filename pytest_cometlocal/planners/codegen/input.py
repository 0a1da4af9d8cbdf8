"""(v1.3) What the recorded arguments of plan format v1.3's actions become: the step keys of a row of
``codegen.steps`` (``position``, ``force``, ``event``/``detail``, ``delay_ms``, select's list).

Each reader takes the recorded call and returns the keys to add, or raises ``CannotMap`` with the
reason when the plan cannot say what the call did: a ``position`` with other keys than ``x``/``y``
or a negative one, ``force`` where the plan has none (a hover, a drag), an event outside the closed
set, an init key its event's family does not take (the DOM would drop it), a ``delay`` outside
1-1000 ms. ``press_sequentially`` (and the older ``type``) becomes a ``fill`` with ``delay_ms``: a
plan's fill clears the field first, and types key by key (``delay_ms: 1`` when none was given).
"""

from __future__ import annotations

from typing import Any, get_args

from pytest_cometlocal.contract.model.input_events import EVENT_FAMILIES, EVENT_FAMILY, DomEvent, EventInit
from pytest_cometlocal.planners.codegen.parse import Recorded
from pytest_cometlocal.planners.codegen.targets import no_reference
from pytest_cometlocal.planners.errors import CannotMap

EVENTS: tuple[str, ...] = get_args(DomEvent)
_FORCED = frozenset({"click", "dblclick", "fill", "check", "uncheck", "set_checked"})  # the plan's force: click, fill, check, uncheck
MAX_DELAY_MS = 1_000


def forced(call: Recorded) -> dict[str, Any]:
    """``force=True`` as ``force: true`` where the plan has force; anywhere else it is reported."""
    force = call.kwargs.get("force", False)
    if force is False:
        return {}
    if force is not True:
        raise CannotMap(f"{call.action}(force={force!r}): force is True or False")
    if call.action not in _FORCED:
        raise CannotMap(f"{call.action}(force=True) does not map: force is click's, fill's, check's and uncheck's")
    return {"force": True}


def pointer(call: Recorded) -> dict[str, Any]:
    """click's and hover's ``position={"x": .., "y": ..}`` and ``force=True``."""
    keys = forced(call)
    position = call.kwargs.get("position")
    if position is not None:
        if (not isinstance(position, dict) or set(position) != {"x", "y"}
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in position.values())):
            raise CannotMap(f"{call.action}(position={position!r}): a position is {{'x': px, 'y': px}}, both >= 0")
        keys["position"] = {"x": position["x"], "y": position["y"]}
    return keys


def select_value(call: Recorded) -> str | list[str]:
    """select_option's value: one value or label, or (v1.3) a list of them (a multiple select)."""
    value = call.args[0] if call.args else call.kwargs.get("value", call.kwargs.get("label"))
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [no_reference(v) for v in value]
    if not isinstance(value, str):
        raise CannotMap("select_option() maps with a value or label, or a list of them")
    return no_reference(value)


def typed(call: Recorded) -> dict[str, Any]:
    """``press_sequentially(text, delay=N)``: fill's ``value`` and ``delay_ms``."""
    text = call.args[0] if call.args else call.kwargs.get("text")
    if not isinstance(text, str) or not text:
        raise CannotMap(f"{call.action}() needs one string")
    delay = call.kwargs.get("delay", 1) or 1
    if isinstance(delay, float) and delay.is_integer():
        delay = int(delay)
    if not isinstance(delay, int) or isinstance(delay, bool) or not 1 <= delay <= MAX_DELAY_MS:
        raise CannotMap(f"{call.action}(delay={delay!r}): a plan types with a delay of 1-{MAX_DELAY_MS} ms a key")
    return {"value": no_reference(text), "delay_ms": delay}


def dispatched(call: Recorded) -> dict[str, Any]:
    """``dispatch_event("click", {...})``: ``event`` and ``detail`` (the init keys its family takes)."""
    event = call.args[0] if call.args else call.kwargs.get("type")
    if event not in EVENTS:
        raise CannotMap(f"dispatch_event({event!r}) does not map: the events are {', '.join(EVENTS)}")
    init = call.args[1] if len(call.args) > 1 else call.kwargs.get("event_init")
    if init is None or init == {}:
        return {"event": event}
    takes = EVENT_FAMILIES[EVENT_FAMILY[event]][1]
    if not isinstance(init, dict) or not set(init) <= set(takes):
        raise CannotMap(f"dispatch_event({event!r}, {init!r}): a {EVENT_FAMILY[event]} event's init takes "
                        f"{', '.join(takes)}")
    try:
        EventInit.model_validate(init)
    except ValueError as exc:
        raise CannotMap(f"dispatch_event({event!r}, {init!r}): an init value is out of its range or type "
                        f"({str(exc).splitlines()[1] if len(str(exc).splitlines()) > 1 else exc})") from None
    return {"event": event, "detail": init}
