"""The known browser gaps' pure parts (executor/step/gaps/browser_gaps.py): which browser refuses which
kind, what a refusal says, and when a timed-out click is Firefox's cross-origin submit (issue 49)."""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import StepRefused
from pytest_cometlocal.executor.step.gaps.browser_gaps import (
    GAPS, failed_condition, origin, refusal_before, submit_gap,
)


@pytest.mark.parametrize("browser", ["firefox", "webkit"])
def test_a_drag_off_chromium_is_refused_before_the_action_naming_the_browser(browser: str) -> None:
    refused = refusal_before("drag", browser)
    assert isinstance(refused, StepRefused)
    assert refused.code == ErrorCode.PRECONDITION_FAILED
    assert refused.details == {"condition": "drag", "unavailable": "html5_drag_available", "browser": browser,
                               "problem": GAPS["drag"].problem, "browser_gap": "html5_drag"}
    assert browser in refused.message and "html5_drag_available" in refused.message
    failed = failed_condition(refused)
    assert (failed.kind, failed.phase, failed.observed) == ("html5_drag_available", "pre", {"browser": browser})


@pytest.mark.parametrize("kind, browser", [("drag", "chromium"), ("drag", None), ("click", "firefox"),
                                           ("press", "firefox"), ("hover", "webkit")])
def test_what_is_not_refused_before_the_action(kind: str, browser: str | None) -> None:
    """Chromium drags; an unknown browser (a fake page, a persistent context) is not refused on a guess;
    a click's gap is known only after its timeout."""
    assert refusal_before(kind, browser) is None


PAGE = "http://127.0.0.1:8000/post-outside"


@pytest.mark.parametrize("kind, browser, action, expected", [
    ("click", "firefox", "http://outside.example/landing", True),
    ("press", "firefox", "http://vm:8081/landing", True),
    ("click", "firefox", "https://127.0.0.1:8000/landing", True),  # another scheme: another origin
    ("click", "firefox", "http://127.0.0.1:8000/landing", False),  # same origin: a plain timeout
    ("click", "firefox", "http://127.0.0.1:80/landing", True),
    ("click", "firefox", None, False),  # the element submits no form
    ("click", "firefox", "javascript:void(0)", False),
    ("click", "chromium", "http://outside.example/landing", False),  # Chromium submits it
    ("click", "webkit", "http://outside.example/landing", False),  # not measured: left a timeout
    ("click", None, "http://outside.example/landing", False),
    ("hover", "firefox", "http://outside.example/landing", False),  # a hover submits nothing
])
def test_a_timed_out_submit_is_the_gap_only_to_another_origin_on_firefox(kind, browser, action, expected) -> None:
    assert submit_gap(kind, browser, PAGE, action) is expected


def test_origins_compare_scheme_host_and_default_port() -> None:
    assert origin("http://Outside.Example/x") == origin("http://outside.example:80/y")
    assert origin("https://a.test/") == ("https", "a.test", 443)
    assert origin("http://a.test:99999/") == ("http", "a.test", 80)  # an unreadable port reads as the default


def test_every_gap_names_a_feature_condition_and_is_typed_for_firefox() -> None:
    for gap in GAPS.values():
        assert gap.unavailable.endswith("_available") and gap.problem
        assert gap.applies("firefox") and not gap.applies("chromium") and not gap.applies(None)
