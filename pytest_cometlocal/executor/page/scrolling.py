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

(v1.3) ``scroll_to_place``: scroll's ``to``, one move of the page, or of the
target container, to a place. Unlike ``direction``'s loop, a place is reached in one move
(``scrollTo`` with ``behavior: "instant"``: a page's ``scroll-behavior: smooth``
would otherwise make the position a matter of timing). Then the content is
given time to settle (scroll_watch.js's settle, on the browser's real timers
even under a plan's clock: a lazy list renders what came into view), and the
step's postconditions are checked as for any other kind.

The target must be the element that scrolls. An element that cannot scroll on
an axis ``to`` moves it along (``bottom``, ``right``, a coordinate other than 0
or ``"0%"``; no overflow: nothing to scroll, or overflow visible or hidden) is
waited for within ``timeout_ms``, as Playwright waits for an element
to be actionable: a list still loading gets its rows. Still not scrollable then:
PRECONDITION_FAILED at execution, failed condition ``scrollable``, never a
silent no-op (a QA engineer who writes "scroll to the bottom of the grid" and
names the wrong element wants to hear so, as Cypress's ``scrollTo`` says
"this element is not scrollable"). ``top``, ``left``, 0 and ``"0%"`` hold at once
on an axis that cannot scroll: every element is at its start there. A pixel value past the end stops at the end,
as the browser does; action_executed records what was asked and where it ended.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
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


# -- (v1.3) scroll's `to`: one move to a place ---------------------------------------------------------

# The mover: checks, scrolls and reads the element that scrolls (scripts/scroll_place.js).
PLACE_JS = load_script(__package__, "scroll_place.js")

SCROLLABLE_POLL_MS = 100  # how often an element not yet scrollable is looked at again
_AXIS_WORD = {"x": "horizontally", "y": "vertically"}

def scroll_to_place(actions: Any, attempt: Any) -> dict[str, Any]:
    """Scroll the target (or the page) to the step's ``to`` once; returns what action_executed records."""
    ctx, spec = actions.ctx, attempt.spec
    place = spec.scroll_place
    to = place if isinstance(place, str) else place.model_dump(exclude_none=True)
    deadline = time.monotonic() + spec.timeout_ms / 1000
    origin = attempt.target.locator if attempt.target is not None else ctx.page.locator(":root")
    mover = origin.evaluate_handle(PLACE_JS, {"to": to, "page": attempt.target is None}, timeout=spec.timeout_ms)
    try:
        element = mover.evaluate("(m) => m.element")
        while True:
            seen = mover.evaluate("(m) => m.check()")
            if seen["ok"]:
                break
            if time.monotonic() >= deadline:
                raise _not_scrollable(actions, attempt, element, seen, to)
            ctx.page.wait_for_timeout(SCROLLABLE_POLL_MS)
        watch = mover.evaluate_handle(f"(m) => ({WATCH_JS})(m.node, 'down')")  # its settle only: any direction
        try:
            asked = mover.evaluate("(m) => m.go()")
            _settle_once(watch, deadline)
        finally:
            _drop(watch)
        where = mover.evaluate("(m) => m.read()")
    finally:
        _drop(mover)
    ranges = where["scroll_range"]
    clamped = any(px > ranges[axis] for axis, px in asked.items())
    return {"scrolled_element": element, "to": to, "asked_px": asked, "scroll_left": where["scroll_left"],
            "scroll_top": where["scroll_top"], "scroll_range": ranges, **({"clamped": True} if clamped else {})}


def _settle_once(watch: JSHandle, deadline: float) -> None:
    """Until nothing inside the element has changed for SETTLED_MS (at most SETTLE_MAX_MS), on the browser's
    real timers (scroll_watch.js), never past ``deadline``; the postconditions are the step's check's."""
    watch.evaluate("(w) => w.settle()")
    while time.monotonic() < deadline:
        probe = watch.evaluate("(w, ms) => w.probe(ms)", PROBE_MS)
        if probe["quiet_ms"] >= SETTLED_MS or probe["settling_ms"] >= SETTLE_MAX_MS:
            return


def _not_scrollable(actions: Any, attempt: Any, element: str, seen: dict[str, Any], to: Any) -> Exception:
    """PRECONDITION_FAILED (execution): an axis ``to`` names cannot scroll; ``scrollable`` says which and why."""
    spec = attempt.spec
    stuck = [axis for axis in seen["moves"] if not seen["axes"][axis]["scrolls"]]
    axis = stuck[0]
    info = seen["axes"][axis]
    why = (f"its content fits (scroll range {info['range']} px)" if info["range"] < 1
           else f"overflow-{axis} is {info['overflow']}")
    where = "the page" if element in ("page", "frame document") else attempt.target.description if attempt.target else element
    failed = FailedCondition(kind="scrollable", args={"element": where, "axis": axis}, phase="pre",
                             observed={"scrolled_element": element, **{a: seen["axes"][a] for a in seen["named"]}})
    shown = to if isinstance(to, str) else ", ".join(f"{k}={v}" for k, v in to.items())
    return actions.failures.fail(
        attempt, ErrorCode.PRECONDITION_FAILED, "execution",
        f"scroll to {shown}: {where} does not scroll {_AXIS_WORD[axis]}: {why}; waited {spec.timeout_ms} ms",
        failed_conditions=[failed])


def _drop(handle: JSHandle) -> None:
    """Let the page drop the handle (and stop a watch's observer); a page gone meanwhile has nothing to release."""
    try:
        handle.evaluate("(h) => h.stop && h.stop()")
        handle.dispose()
    except Exception as exc:
        if is_crash(exc):
            raise
