"""The scroll action's loop (v1.1): a container scrolled a view at a time until the step's postconditions hold.

Why a loop and not one scroll: a virtualized list or grid renders only the rows
in view, so the row a step is after is not in the page until it has been
scrolled to, and many lists render only once scrolling stops. So after each
scroll the postconditions are looked at (page/conditions.check_once, once per settle
probe) while the content settles: until they hold, or until nothing inside the
container has changed for SETTLED_MS (at most SETTLE_MAX_MS per scroll); then
the next scroll. The wheel goes to the centre of the container's visible part,
as a user's would; a wheel that moved nothing though there is room (the pointer
over another scroller, an overlay, a container that cannot be shown) is
followed by the container scrolling itself by script. Bounded twice: by the step's ``timeout_ms`` and by the end of
the container in that direction. The settle is polled, never a fixed sleep.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.errors import is_crash, is_timeout
from pytest_cometlocal.contract.patterns import matching_until
from pytest_cometlocal.executor.page.conditions import CheckContext, check_once, required_of
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import ElementHandle, JSHandle, Locator, Page

# The element that scrolls: the start element, its nearest ancestor that can, or the page (scripts/scroller.js).
SCROLLER_JS = load_script(__package__, "scroller.js")

# Changes inside the scrolled element, its position and room left (scripts/scroll_watch.js).
WATCH_JS = load_script(__package__, "scroll_watch.js")

SETTLED_MS = 250  # nothing changed inside the container this long: the content has settled
SETTLE_MAX_MS = 1000  # the most one scroll waits for its content to settle
PROBE_MS = 50  # a settle probe's page timer
STEP_SHARE = 0.9  # each scroll moves this share of the visible height (width): consecutive views overlap


@dataclass
class ScrollOutcome:
    """How a scroll step's loop ended: what scrolled, how far, and why it stopped."""

    element: str  # "page", or the scrolled element as tag#id[data-testid=...][role=...]
    direction: str
    held: bool = False  # the postconditions held (the step's check then passes)
    reached_end: bool = False  # the element could scroll no further in the direction
    scrolled_px: int = 0
    scrolls: int = 0

    def metadata(self) -> dict[str, Any]:
        """What action_executed records."""
        return {"scrolled_element": self.element, "direction": self.direction, "scrolls": self.scrolls,
                "scrolled_px": self.scrolled_px, "reached_end": self.reached_end, "postconditions_held": self.held}

    def details(self) -> dict[str, Any]:
        """What a POSTCONDITION_FAILED of the step adds to its details."""
        return {"scrolled_px": self.scrolled_px, "reached_end": self.reached_end}


def scroll_until(page: Page, start: Locator | None, direction: str, conditions: list[Any], ctx: CheckContext,
                 timeout_ms: int) -> ScrollOutcome:
    """Scroll ``start`` (or the page) in ``direction`` until ``conditions`` hold, the end, or ``timeout_ms``.

    When they hold before any scroll (looked at as after one, while the content
    settles), nothing is scrolled.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    required = required_of(conditions)
    origin = start if start is not None else page.locator(":root")
    scroller = origin.evaluate_handle(SCROLLER_JS, direction, timeout=timeout_ms)
    watch = scroller.evaluate_handle(WATCH_JS, direction)
    try:
        outcome = ScrollOutcome(watch.evaluate("(w) => w.element"), direction)
        outcome.held = _settle(watch, required, ctx, deadline)  # a list may still be rendering
        state = _read(watch)
        while not outcome.held:
            if state["room"] < 1:
                outcome.reached_end = True
                break
            if time.monotonic() >= deadline:
                break
            step = _wheel(page, scroller.as_element(), state, direction)
            outcome.held = _settle(watch, required, ctx, deadline)
            after = _read(watch)
            if abs(after["position"] - state["position"]) < 1 and not outcome.held and time.monotonic() < deadline:
                watch.evaluate("(w, px) => w.scrollBy(px)", step)
                outcome.held = _settle(watch, required, ctx, deadline)
                after = _read(watch)
            outcome.scrolls += 1
            outcome.scrolled_px += round(abs(after["position"] - state["position"]))
            state = after
        return outcome
    finally:
        _release(watch, scroller)


def _read(watch: JSHandle) -> dict[str, Any]:
    return watch.evaluate("(w) => w.read()")


def _wheel(page: Page, scroller: ElementHandle | None, state: dict[str, Any], direction: str) -> int:
    """One wheel turn of about one visible height (width) at the centre of the visible part; returns its px.

    A container that cannot be shown or aimed at gets no wheel: the caller's script scroll moves it.
    """
    vertical = direction in ("down", "up")
    client = state["view"][1] if vertical else state["view"][0]
    step = max(1, int(client * STEP_SHARE))
    view_w, view_h = page.evaluate("() => [innerWidth, innerHeight]")
    left, top, right, bottom = 0.0, 0.0, float(view_w), float(view_h)
    if not state["element_is_page"] and scroller is not None:
        try:
            scroller.scroll_into_view_if_needed(timeout=SETTLE_MAX_MS)
        except Exception as exc:
            if not is_timeout(exc):
                raise
            return step
        box = scroller.bounding_box()
        if box is None:
            return step
        left, top = max(left, box["x"]), max(top, box["y"])
        right, bottom = min(right, box["x"] + box["width"]), min(bottom, box["y"] + box["height"])
    if right <= left or bottom <= top:
        return step
    step = max(1, int(min(bottom - top if vertical else right - left, client) * STEP_SHARE))
    sign = 1 if direction in ("down", "right") else -1
    page.mouse.move((left + right) / 2, (top + bottom) / 2)
    page.mouse.wheel(0 if vertical else sign * step, sign * step if vertical else 0)
    return step


def _settle(watch: JSHandle, required: list[Any], ctx: CheckContext, deadline: float) -> bool:
    """Look at the conditions while the content settles; True as soon as they hold.

    Settled: no change inside the container (mutations, scrolling) for
    SETTLED_MS, or SETTLE_MAX_MS since the settle began, both on the page's
    clock and read from inside a page timer (scripts/scroll_watch.js), so a
    list's own render timer always runs first; never past ``deadline``.
    """
    watch.evaluate("(w) => w.settle()")
    with matching_until(deadline):  # a plan regex among the conditions: its matches never past the deadline
        while True:
            if all(result.ok for result in check_once(required, ctx, "post")):
                return True
            if time.monotonic() >= deadline:
                return False
            probe = watch.evaluate("(w, ms) => w.probe(ms)", PROBE_MS)
            if probe["quiet_ms"] >= SETTLED_MS or probe["settling_ms"] >= SETTLE_MAX_MS:
                return all(result.ok for result in check_once(required, ctx, "post"))


def _release(watch: JSHandle, scroller: JSHandle) -> None:
    """Disconnect the watch's observer; a page that went away meanwhile has nothing left to release."""
    try:
        watch.evaluate("(w) => w.stop()")
        watch.dispose()
        scroller.dispose()
    except Exception as exc:
        if is_crash(exc):
            raise
