"""Form controls: what ``check`` and ``uncheck`` (v1.1) do to a checkbox, radio or switch, and ``select`` to a dropdown.

Playwright's own ``check`` insists that the element itself takes the click,
but many UI kits hide the native input and let its ``<label>`` take the
pointer; then every check would be OVERLAY_BLOCKING. So the control's state
is read here (``scripts/checked_state.js``: native ``checked``, or
``aria-checked`` for the roles checkbox, radio, switch and menuitemcheckbox),
the click goes to the control or to its own label (``scripts/pointer_target.js``),
and the state is polled until it is the one asked for, within the step's
``timeout_ms``. A control already in that state is not clicked (idempotent).
Anything else taking the pointer is left to Playwright's click, whose error
names it (OVERLAY_BLOCKING, action_failure.py).

``select`` on a custom dropdown (v1.1): open it, then click the one option named by the step's value.

A native ``<select>`` keeps v1's ``select_option``; so does anything that is
no dropdown at all (Playwright's own error then names it). An element with
role ``combobox`` or ``listbox``, or a button with ``aria-haspopup``, is a
custom dropdown (``scripts/dropdown_kind.js``): it is clicked, and the
visible elements with role ``option`` whose accessible name equals the value
(Playwright's exact role-name match: whitespace normalized, case kept) are
polled for in the frame of the dropdown until they appear or ``timeout_ms``
runs out, with no fixed sleep. Exactly one is clicked; none or several is
OptionNotFound, with the names of the options that were shown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.errors import CheckedStateNotReached, NotCheckable, OptionNotFound
from pytest_cometlocal.executor.page.locators import call_ms, poll_until
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator, Page

# A label, or an element inside one, stands for the label's control (scripts/control_of.js).
CONTROL_OF_JS = load_script(__package__, "control_of.js")
CHECKED_STATE_JS = load_script(__package__, "checked_state.js", control_of=CONTROL_OF_JS)
POINTER_TARGET_JS = load_script(__package__, "pointer_target.js", control_of=CONTROL_OF_JS)


@dataclass(frozen=True)
class ControlState:
    """What ``checked_state.js`` read of the element: its kind and checked state, if it has one."""

    checkable: bool
    kind: str | None  # "checkbox" | "radio" | "switch" | "menuitemcheckbox"
    checked: bool | None
    tag: str
    role: str | None = None
    type: str | None = None

    def described(self) -> dict[str, Any]:
        """The element as a failed condition's ``observed`` shows it."""
        return {"tag": self.tag, "role": self.role, "type": self.type, "kind": self.kind, "checked": self.checked}


def read_state(locator: Locator, deadline: float) -> ControlState:
    return ControlState(**locator.evaluate(CHECKED_STATE_JS, timeout=call_ms(deadline)))


def can_set(state: ControlState, checked: bool) -> bool:
    """A radio is unchecked only by checking another one of its group."""
    return state.checkable and (checked or state.kind != "radio")


def set_checked(page: Page, locator: Locator, checked: bool, timeout_ms: int, force: bool = False) -> dict[str, Any]:
    """Make the control ``locator`` resolves to checked (or unchecked); returns what action_executed records.
    ``force`` (v1.3) is Playwright's click's: no actionability checks on the control or its label.

    Raises NotCheckable, CheckedStateNotReached, or what Playwright's click raised.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    state = read_state(locator, deadline)
    if not can_set(state, checked):
        raise NotCheckable(state.described())
    if state.checked == checked:
        return {"checked": checked, "changed": False}
    via = click_control(locator, deadline, force)
    seen = [state]

    def reached() -> bool:
        seen.append(read_state(locator, deadline))
        return seen[-1].checked == checked

    if not poll_until(page, deadline, reached):
        raise CheckedStateNotReached(seen[-1].described(), via)
    return {"checked": checked, "changed": True, "clicked": via}


def click_control(locator: Locator, deadline: float, force: bool = False) -> str:
    """Click the control, or its own label where that takes the pointer; returns which ("control", "label")."""
    chosen = locator.evaluate_handle(POINTER_TARGET_JS, timeout=call_ms(deadline))
    try:
        via = chosen.get_property("via").json_value()
        if via == "control":
            locator.click(timeout=call_ms(deadline), force=force)
        else:
            label = chosen.get_property("element").as_element()
            assert label is not None, "pointer_target.js gives an element"
            label.click(timeout=call_ms(deadline), force=force)
    finally:
        chosen.dispose()
    return via


# -- select on a custom dropdown (v1.1)

DROPDOWN_KIND_JS = load_script(__package__, "dropdown_kind.js", control_of=CONTROL_OF_JS)
OPTION_NAMES_JS = load_script(__package__, "option_names.js")
OPTIONS_SEEN_LIMIT = 20


# The kind of the one element matched, in one round trip (``evaluate_all``), where ``locator.evaluate``
# makes three (wait for the element, the script on its handle, let the handle go).
_KIND_OF_ONE_JS = load_script(__package__, "dropdown_kind_of_one.js", dropdown_kind=DROPDOWN_KIND_JS)


def dropdown_kind(locator: Locator, timeout_ms: int) -> dict[str, Any]:
    """``{"kind": "native" | "custom" | "other", "role": ...}`` of the element ``locator`` resolves to.

    The step's target was resolved to one element just before; should it be
    gone or doubled now (or the page answer garbage), ``locator.evaluate``
    waits for it as before, and Playwright's own error says why."""
    kinds = locator.evaluate_all(_KIND_OF_ONE_JS)
    if isinstance(kinds, list) and len(kinds) == 1 and isinstance(kinds[0], dict) and "kind" in kinds[0]:
        return kinds[0]
    return locator.evaluate(DROPDOWN_KIND_JS, timeout=timeout_ms)


def choose_option(page: Page, dropdown: Locator, name: str, timeout_ms: int) -> None:
    """Open ``dropdown`` and click its one option named ``name``; raises OptionNotFound or Playwright's error."""
    deadline = time.monotonic() + timeout_ms / 1000
    frame = _frame_of(dropdown, deadline)
    dropdown.click(timeout=call_ms(deadline))
    options = frame.get_by_role("option", name=name, exact=True)
    counts = [0]

    def shown() -> bool:
        counts.append(options.count())
        return counts[-1] > 0

    if not poll_until(page, deadline, shown) or counts[-1] > 1:
        raise OptionNotFound(counts[-1], options_seen(frame))
    options.click(timeout=call_ms(deadline))


def options_seen(frame: Frame) -> list[str]:
    """The names of the options shown now, at most OPTIONS_SEEN_LIMIT."""
    return frame.get_by_role("option").evaluate_all(OPTION_NAMES_JS, OPTIONS_SEEN_LIMIT)


def _frame_of(locator: Locator, deadline: float) -> Frame:
    """The frame the dropdown is in: its options are looked for there (a popup is often put at its body's end)."""
    handle = locator.element_handle(timeout=call_ms(deadline))
    try:
        frame = handle.owner_frame()
    finally:
        handle.dispose()
    assert frame is not None, "an element in a page has a frame"
    return frame
