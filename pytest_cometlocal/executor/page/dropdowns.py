"""``select`` on a custom dropdown (v1.1): open it, then click the one option named by the step's value.

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
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.errors import OptionNotFound
from pytest_cometlocal.executor.page.controls import CONTROL_OF_JS
from pytest_cometlocal.executor.page.locators import call_ms, poll_until
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator, Page

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
