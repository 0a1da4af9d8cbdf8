"""(v1.3) What the v1.3 actions do to an element: focus, blur, dispatch_event; click's and hover's
``position``; ``force``; fill's ``delay_ms``; select's list of values.

Each function is the side effect of a row of ``step/actions.py``'s ``ACTIONS`` (or the part of one
that v1.3 adds), made on the target resolved for the attempt, bounded by the step's ``timeout_ms``.
What Playwright would do silently wrong is typed here instead, before or after the call:

- ``focus`` on an element that cannot take the focus does nothing in the browser; the step checks
  that the element has it afterwards (PRECONDITION_FAILED, ``element_focusable``).
- ``blur`` of an element that has no focus does nothing either; it is refused before
  (PRECONDITION_FAILED, ``element_focused``), as Cypress refuses it.
- A ``position`` outside the element's box would click whatever is there, which Playwright reports as
  an element intercepting the pointer: it is refused before (PRECONDITION_FAILED, ``position_inside``).
- ``select_option`` with several values on a single ``<select>`` picks the first that matches and
  says nothing; a list of values needs a ``<select multiple>`` (PRECONDITION_FAILED,
  ``element_multiple_select``), and a custom dropdown has no list either.
- ``press_sequentially`` that would outlast the step's timeout is refused before a key is typed
  (INVALID_ACTIONSPEC, rule INPUTS): at load its length is unknown only for a secret or saved value,
  and the failure does not say the length.

``force`` is Playwright's own: the actionability checks are skipped and the pointer goes to the
element's point whatever lies there. ``action_executed`` records ``force: true`` (and ``position``,
``event``/``detail``, ``delay_ms``) so a forced step is told apart in the trace and by ``show``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract.actions.rules import typing_problem
from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.executor.page.conditions import FOCUSED_JS
from pytest_cometlocal.executor.page.locators import call_ms
from pytest_cometlocal.executor.results import StepAttempt

if TYPE_CHECKING:
    from playwright.sync_api import Locator

# ``actions``: the step room's Actions (its ctx, its failures); not imported here, the step room imports this one.
Actions = Any
# How long the checks around an action may take (the element was just resolved).
PROBE_MS = 1_000


def forced(spec: ActionSpec) -> dict[str, Any]:
    """Playwright's ``force`` for the call, and what action_executed records of it: ``{"force": True}`` or {}."""
    return {"force": True} if spec.force else {}


def _locator(attempt: StepAttempt) -> Locator:
    assert attempt.target is not None, "a kind that acts on an element has its target resolved"
    return attempt.target.locator


def _refused(actions: Actions, attempt: StepAttempt, check: str, message: str, observed: dict[str, Any]) -> Exception:
    """PRECONDITION_FAILED at stage execution, naming the check the element did not pass."""
    args = {"target": attempt.target.description} if attempt.target is not None else {}
    failed = FailedCondition(kind=check, args=args, phase="pre", observed=observed)
    return actions.failures.fail(attempt, ErrorCode.PRECONDITION_FAILED, "execution", message,
                                 failed_conditions=[failed])


def _focused(locator: Locator) -> bool:
    return bool(locator.evaluate(FOCUSED_JS, timeout=PROBE_MS))


def focus(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """Give the element the keyboard focus; an element that cannot take it is a typed failure."""
    locator = _locator(attempt)
    locator.focus(timeout=attempt.spec.timeout_ms)
    if not _focused(locator):
        raise _refused(actions, attempt, "element_focusable",
                       "focus: the element did not take the focus (not a field, link or button, and no tabindex)",
                       {"focused": False})
    return {"focused": True}


def blur(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """Take the focus away from the element, which must have it."""
    locator = _locator(attempt)
    deadline = time.monotonic() + attempt.spec.timeout_ms / 1000  # one budget for the look and the blur
    locator.wait_for(state="attached", timeout=attempt.spec.timeout_ms)
    if not _focused(locator):
        raise _refused(actions, attempt, "element_focused", "blur: the element does not have the focus",
                       {"focused": False})
    locator.blur(timeout=call_ms(deadline))
    return {"focused": _focused(locator)}


def dispatch_event(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """Dispatch the event on the element (bubbling, cancelable and composed unless ``detail`` says otherwise,
    as Playwright does); the page's listeners run, and a click's activation, nothing else."""
    spec = attempt.spec
    init = spec.detail.given() if spec.detail is not None else {}
    _locator(attempt).dispatch_event(spec.event, init or None, timeout=spec.timeout_ms)
    return {"event": spec.event, **({"detail": init} if init else {})}


def pointer(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """click's and hover's v1.3 options (``position``, ``force``), the position checked against the element's box."""
    spec = attempt.spec
    options = forced(spec)
    if spec.position is not None:
        at = {"x": spec.position.x, "y": spec.position.y}
        # The element was just resolved: its box is a probe, so the click or hover keeps the step's timeout.
        box = _locator(attempt).bounding_box(timeout=PROBE_MS)
        if box is not None and (at["x"] > box["width"] or at["y"] > box["height"]):
            raise _refused(actions, attempt, "position_inside",
                           f"{spec.kind}: position {at['x']:g},{at['y']:g} is outside the element "
                           f"({box['width']:g} x {box['height']:g} px)",
                           {"position": at, "width": box["width"], "height": box["height"]})
        options["position"] = at
    return options


def type_slowly(actions: Actions, attempt: StepAttempt, text: str) -> dict[str, Any]:
    """fill with ``delay_ms``: clear the field (as fill does, forced if the step is), then type key by key."""
    spec = attempt.spec
    assert spec.delay_ms is not None, "only a fill with delay_ms types key by key"
    problem = typing_problem(len(text), spec.delay_ms, spec.timeout_ms)
    if problem:  # a secret's or a saved value's length, known only now: never shown
        raise actions.failures.fail(
            attempt, ErrorCode.INVALID_ACTIONSPEC, "proposal_validation",
            f"fill: typing the value at {spec.delay_ms} ms a key takes more than half of timeout_ms "
            f"({spec.timeout_ms}): raise timeout_ms or lower delay_ms",
            details={"violated_rules": ["INPUTS"], "validation_errors": [
                {"key_path": "delay_ms", "message": "typing outlasts the step", "rule": "INPUTS"}]},
            retryable=False)
    deadline = time.monotonic() + spec.timeout_ms / 1000
    locator = _locator(attempt)
    locator.fill("", timeout=call_ms(deadline), **forced(spec))
    locator.press_sequentially(text, delay=spec.delay_ms, timeout=call_ms(deadline))
    return {"delay_ms": spec.delay_ms, **forced(spec)}


def select_list(actions: Actions, attempt: StepAttempt, dropdown: dict[str, Any], values: list[str]) -> dict[str, Any]:
    """select with a list of values: every one chosen in a ``<select multiple>``; anything else is refused."""
    spec = attempt.spec
    if dropdown.get("kind") != "native" or not dropdown.get("multiple"):
        what = ("a single <select>" if dropdown.get("kind") == "native"
                else f"a custom {dropdown.get('role')}" if dropdown.get("kind") == "custom" else "not a <select>")
        raise _refused(actions, attempt, "element_multiple_select",
                       f"select with a list of {len(values)} values needs a <select multiple>; the target is {what}",
                       {"kind": dropdown.get("kind"), "role": dropdown.get("role"),
                        "multiple": bool(dropdown.get("multiple"))})
    _locator(attempt).select_option(values, timeout=spec.timeout_ms)
    return {"selected": len(values)}
