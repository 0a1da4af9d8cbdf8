"""(v1.3) scroll's ``to``: one move of the page, or of the target container, to a place.

Unlike v1.1's ``direction`` (page/scrolling.py), which scrolls a view at a time
until the postconditions hold, a place is reached in one move
(``scrollTo`` with ``behavior: "instant"``: a page's ``scroll-behavior: smooth``
would otherwise make the position a matter of timing). Then the content is
given time to settle (scroll_watch.js's settle, on the browser's real timers
even under a plan's clock: a lazy list renders what came into view), and the
step's postconditions are checked as for any other kind.

The target must be the element that scrolls. An element that cannot scroll on
an axis ``to`` names (no overflow: nothing to scroll, or overflow visible or
hidden) is waited for within ``timeout_ms``, as Playwright waits for an element
to be actionable: a list still loading gets its rows. Still not scrollable then:
PRECONDITION_FAILED at execution, failed condition ``scrollable``, never a
silent no-op (a QA engineer who writes "scroll to the bottom of the grid" and
names the wrong element wants to hear so, as Cypress's ``scrollTo`` says
"this element is not scrollable"). A pixel value past the end stops at the end,
as the browser does; action_executed records what was asked and where it ended.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.page.scrolling import PROBE_MS, SETTLE_MAX_MS, SETTLED_MS, WATCH_JS
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import JSHandle

# The mover: checks, scrolls and reads the element that scrolls (scripts/scroll_place.js).
PLACE_JS = load_script(__package__, "scroll_place.js")

SCROLLABLE_POLL_MS = 100  # how often an element not yet scrollable is looked at again
_AXIS_WORD = {"x": "horizontally", "y": "vertically"}

Actions = Any  # the step room's Actions (its ctx, its failures); the step room imports this module


def scroll_to_place(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
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
        watch = mover.evaluate_handle(f"(m) => ({WATCH_JS})(m.node, 'down')")
        try:
            asked = mover.evaluate("(m) => m.go()")
            _settle(watch, deadline)
        finally:
            _release(watch)
        where = mover.evaluate("(m) => m.read()")
    finally:
        _release(mover)
    ranges = where["scroll_range"]
    clamped = any(px > ranges[axis] for axis, px in asked.items())
    return {"scrolled_element": element, "to": to, "asked_px": asked, "scroll_left": where["scroll_left"],
            "scroll_top": where["scroll_top"], "scroll_range": ranges, **({"clamped": True} if clamped else {})}


def _settle(watch: JSHandle, deadline: float) -> None:
    """Until nothing inside the element has changed for SETTLED_MS (at most SETTLE_MAX_MS), on the browser's
    real timers (scroll_watch.js), never past ``deadline``; the postconditions are the step's check's."""
    watch.evaluate("(w) => w.settle()")
    while time.monotonic() < deadline:
        probe = watch.evaluate("(w, ms) => w.probe(ms)", PROBE_MS)
        if probe["quiet_ms"] >= SETTLED_MS or probe["settling_ms"] >= SETTLE_MAX_MS:
            return


def _not_scrollable(actions: Actions, attempt: StepAttempt, element: str, seen: dict[str, Any], to: Any) -> Exception:
    """PRECONDITION_FAILED (execution): an axis ``to`` names cannot scroll; ``scrollable`` says which and why."""
    spec = attempt.spec
    stuck = [axis for axis in seen["named"] if not seen["axes"][axis]["scrolls"]]
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


def _release(handle: JSHandle) -> None:
    """Let the page drop the handle (and stop a watch's observer); a page gone meanwhile has nothing to release."""
    try:
        handle.evaluate("(h) => h.stop && h.stop()")
        handle.dispose()
    except Exception as exc:
        if is_crash(exc):
            raise
