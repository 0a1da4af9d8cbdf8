"""Which code a failed action is: the pure classification, without a browser."""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.step.action_failure import ActionFacts, classify_action, unresponsive

CLICK_LOG = "Locator.click: Timeout 3000ms exceeded.\nCall log:\n  - waiting for locator('#b')\n"
STUCK = {"during": "click", "waited_ms": 3000, "probe": "no answer"}


@pytest.mark.parametrize(
    ("facts", "code", "extra"),
    [
        # A crash wins over everything, even a timeout or a stuck page.
        (ActionFacts("click", CLICK_LOG, timed_out=True, crashed=True, unresponsive=STUCK), ErrorCode.BROWSER_CRASHED,
         {"retryable": False, "observe_after": False}),
        (ActionFacts("click", CLICK_LOG, timed_out=True, unresponsive=STUCK), ErrorCode.PAGE_UNRESPONSIVE,
         {"retryable": False, "observe_after": False}),
        (ActionFacts("navigate", "Page.goto: Timeout 400ms exceeded.", timed_out=True, timeout_ms=400, url="http://h/x"),
         ErrorCode.NAVIGATION_TIMEOUT, {"stop_loading": True}),
        (ActionFacts("navigate", "Page.goto: net::ERR_CONNECTION_RESET at http://h/", url="http://h/"),
         ErrorCode.NAVIGATION_FAILED, {"check_navigation": True, "check_auth": False}),
        (ActionFacts("navigate", "Page.goto: net::ERR_INVALID_AUTH_CREDENTIALS at http://h/", url="http://h/"),
         ErrorCode.NAVIGATION_FAILED, {"check_auth": True}),
        (ActionFacts("click", CLICK_LOG + "  - click action done\n  - waiting for scheduled navigations to finish",
                     timed_out=True), ErrorCode.NAVIGATION_TIMEOUT, {"retryable": False, "stop_loading": True}),
        (ActionFacts("click", CLICK_LOG + '  - <div id="wall">Cookies</div> intercepts pointer events\n', timed_out=True),
         ErrorCode.OVERLAY_BLOCKING, {}),
        (ActionFacts("fill", CLICK_LOG + "  - element is not editable\n", timed_out=True),
         ErrorCode.PRECONDITION_FAILED, {"failed_check": "element_editable"}),
        (ActionFacts("click", CLICK_LOG, timed_out=True), ErrorCode.PRECONDITION_FAILED,
         {"failed_check": "element_actionable"}),
        (ActionFacts("upload", "Error: something else"), ErrorCode.UPLOAD_FAILED, {}),
        (ActionFacts("select", "Error: something else"), ErrorCode.PRECONDITION_FAILED,
         {"failed_check": "element_actionable"}),
    ],
    ids=["crash", "unresponsive", "nav-timeout", "nav-failed", "nav-auth", "nav-pending", "overlay",
         "actionability", "timeout", "upload", "other"],
)
def test_classification(facts, code, extra):
    verdict = classify_action(facts)
    assert verdict.code == code
    for name, value in extra.items():
        assert getattr(verdict, name) == value, name


def test_overlay_is_named_in_details():
    verdict = classify_action(ActionFacts("click", '<div id="wall">Cookies</div> intercepts pointer events', timed_out=True))
    assert verdict.details == {"overlay_selector": "div#wall", "overlay_text": "Cookies"}


def test_a_page_that_answers_but_never_settles_is_a_navigation_timeout():
    verdict = unresponsive({"during": "observation before the step", "waited_ms": 5000, "probe": "answered",
                            "timeout_ms": 3000})
    assert verdict.code == ErrorCode.NAVIGATION_TIMEOUT
    assert verdict.details["wait_condition"] == "a document to observe"
    assert verdict.details["timeout_ms"] == 3000  # as every NAVIGATION_TIMEOUT has: the step's own
    stuck = unresponsive({"during": "postconditions", "waited_ms": 5000, "probe": "no answer"})
    assert stuck.code == ErrorCode.PAGE_UNRESPONSIVE
    assert stuck.details["during"] == "postconditions" and stuck.details["waited_ms"] == 5000
    assert "postconditions" in stuck.message


# Call logs as Playwright 1.65 writes them for v1.1's pointer kinds (hover, drag: "move and down").
HOVER_LOG = "Locator.hover: Timeout 800ms exceeded.\nCall log:\n  - waiting for locator('#b')\n  - attempting hover action\n"
DRAG_LOG = "Locator.drag_to: Timeout 800ms exceeded.\nCall log:\n  - waiting for locator('#b')\n  - attempting move and down action\n"
PRESS_LOG = "Locator.press: Timeout 800ms exceeded.\nCall log:\n  - waiting for locator('#k')\n"
COVERED = '    - <div class="overlay">cover</div> intercepts pointer events\n    - retrying move and down action\n'
HIDDEN = "    2 × waiting for element to be visible and stable\n      - element is not visible\n"


@pytest.mark.parametrize(
    ("facts", "code", "check"),
    [
        (ActionFacts("hover", HOVER_LOG + COVERED, timed_out=True), ErrorCode.OVERLAY_BLOCKING, None),
        (ActionFacts("drag", DRAG_LOG + COVERED, timed_out=True), ErrorCode.OVERLAY_BLOCKING, None),
        (ActionFacts("check", CLICK_LOG + COVERED, timed_out=True), ErrorCode.OVERLAY_BLOCKING, None),
        (ActionFacts("hover", HOVER_LOG + HIDDEN, timed_out=True), ErrorCode.PRECONDITION_FAILED, "element_visible"),
        (ActionFacts("drag", DRAG_LOG + HIDDEN, timed_out=True), ErrorCode.PRECONDITION_FAILED, "element_visible"),
        (ActionFacts("press", PRESS_LOG, timed_out=True), ErrorCode.PRECONDITION_FAILED, "element_actionable"),
        (ActionFacts("uncheck", CLICK_LOG + "  - element is not enabled\n", timed_out=True),
         ErrorCode.PRECONDITION_FAILED, "element_enabled"),
        (ActionFacts("press", PRESS_LOG + "  - press action done\n  - waiting for scheduled navigations to finish",
                     timed_out=True), ErrorCode.NAVIGATION_TIMEOUT, None),
    ],
    ids=["hover-overlay", "drag-overlay", "check-overlay", "hover-hidden", "drag-hidden", "press-timeout",
         "uncheck-disabled", "press-navigation-pending"],
)
def test_the_v11_kinds_are_classified_as_a_click_is(facts, code, check):
    verdict = classify_action(facts)
    assert verdict.code == code
    assert verdict.failed_check == check
    assert verdict.message.startswith(facts.kind) or code != ErrorCode.PRECONDITION_FAILED
    if code == ErrorCode.OVERLAY_BLOCKING:
        assert verdict.details == {"overlay_selector": "div.overlay", "overlay_text": "cover"}
