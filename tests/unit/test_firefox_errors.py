"""Firefox's paths through the executor (issue 49), without a browser: the measured texts and fake pages.

The network errors are the texts measured on Firefox ESR 153 through WebDriver BiDi
(Playwright 1.64.1, /work/design49.md section 1): the code is on the second line of
Playwright's message, and ``request.failure`` is the bare name. The pages are fakes that
say which browser they belong to, as Playwright's ``page.context.browser.browser_type.name``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.step.action_failure import (
    NS_NET_TO_CHROMIUM, ActionFacts, classify_action, net_error, net_error_class)

REFUSED = ("Page.goto: Protocol error (browsingContext.navigate): unknown error\n"
           "Message: Error: NS_ERROR_CONNECTION_REFUSED at http://127.0.0.1:49007/\n"
           "Call log:\n  - navigating to \"http://127.0.0.1:49007/\", waiting until \"load\"\n")
UNKNOWN_HOST = ("Page.goto: Protocol error (browsingContext.navigate): unknown error\n"
                "Message: Error: NS_ERROR_UNKNOWN_HOST at http://no-such-host.invalid/\nCall log: …")
PROXY_DOWN = ("Page.goto: Protocol error (browsingContext.navigate): unknown error\n"
              "Message: Error: NS_ERROR_PROXY_CONNECTION_REFUSED at http://example.com/\nCall log: …")


# -- network errors ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, code, chromium", [
    (REFUSED, "NS_ERROR_CONNECTION_REFUSED", "ERR_CONNECTION_REFUSED"),
    (UNKNOWN_HOST, "NS_ERROR_UNKNOWN_HOST", "ERR_NAME_NOT_RESOLVED"),
    (PROXY_DOWN, "NS_ERROR_PROXY_CONNECTION_REFUSED", "ERR_PROXY_CONNECTION_FAILED"),
    ("NS_ERROR_CONNECTION_REFUSED", "NS_ERROR_CONNECTION_REFUSED", "ERR_CONNECTION_REFUSED"),  # request.failure
])
def test_firefox_network_errors_are_found_on_any_line_and_named_as_chromium_names_them(text, code, chromium):
    assert net_error(text) == code
    assert net_error_class(code) == chromium


def test_chromium_network_errors_read_as_before():
    assert net_error("Page.goto: net::ERR_CONNECTION_REFUSED at http://x/") == "ERR_CONNECTION_REFUSED"
    assert net_error_class("ERR_CONNECTION_REFUSED") == "ERR_CONNECTION_REFUSED"
    assert net_error("no code") is None and net_error_class(None) is None
    assert net_error_class("NS_ERROR_SOMETHING_NEW") is None  # unmapped: the browser's name stays in net_error


def test_the_mapping_names_only_chromium_codes():
    assert all(k.startswith("NS_ERROR_") and v.startswith("ERR_") for k, v in NS_NET_TO_CHROMIUM.items())


@pytest.mark.parametrize("text, code", [(REFUSED, "NS_ERROR_CONNECTION_REFUSED"),
                                        (UNKNOWN_HOST, "NS_ERROR_UNKNOWN_HOST"),
                                        (PROXY_DOWN, "NS_ERROR_PROXY_CONNECTION_REFUSED")])
@pytest.mark.parametrize("kind", ["navigate", "reload", "go_back"])
def test_a_firefox_navigation_error_is_navigation_failed_with_its_cause(kind, text, code):
    got = classify_action(ActionFacts(kind=kind, text=text, url="http://127.0.0.1:49007/"))
    assert got.code == ErrorCode.NAVIGATION_FAILED
    assert got.message == f"navigation failed: {code}"
    assert got.details == {"net_error": code, "url": "http://127.0.0.1:49007/",
                           "net_error_class": NS_NET_TO_CHROMIUM[code]}
    assert got.check_navigation and not got.check_auth


def test_chromium_navigation_failed_details_are_unchanged():
    got = classify_action(ActionFacts(kind="navigate", text="Page.goto: net::ERR_CONNECTION_REFUSED at http://x/",
                                      url="http://x/"))
    assert (got.code, got.details) == (ErrorCode.NAVIGATION_FAILED, {"net_error": "ERR_CONNECTION_REFUSED", "url": "http://x/"})


def test_the_auth_rule_stays_chromiums():
    chromium = classify_action(ActionFacts(kind="navigate", text="net::ERR_INVALID_AUTH_CREDENTIALS at http://x/"))
    assert chromium.check_auth
    firefox = classify_action(ActionFacts(kind="navigate", text=REFUSED))
    assert not firefox.check_auth


def test_a_firefox_timeout_is_still_navigation_timeout():
    got = classify_action(ActionFacts(kind="navigate", text="Page.goto: Timeout 1000ms exceeded.\n" + REFUSED,
                                      timed_out=True, timeout_ms=1000))
    assert got.code == ErrorCode.NAVIGATION_TIMEOUT


# -- fake pages of a named browser ---------------------------------------------------------------


class FakePage:
    """A page of ``browser`` that records what is asked of it; new_cdp_session fails (as on Firefox)."""

    def __init__(self, browser: str | None):
        self.calls: list[str] = []
        named = SimpleNamespace(browser_type=SimpleNamespace(name=browser)) if browser else None
        self.context = SimpleNamespace(browser=named, new_cdp_session=self._cdp)

    def _cdp(self, page: Any) -> Any:
        self.calls.append("new_cdp_session")
        raise RuntimeError("CDP session is only available in Chromium")

    def evaluate(self, script: str, *args: Any) -> Any:
        self.calls.append(f"evaluate {script}")
        return None

    def close(self, **kwargs: Any) -> None:
        self.calls.append("close")
        raise RuntimeError("close hangs")

    def is_closed(self) -> bool:
        return False

    def on(self, *args: Any) -> None:
        pass


def test_no_cdp_session_is_asked_of_a_browser_that_is_not_chromium():
    from pytest_cometlocal.executor.page.watchdog import browser_name, cdp_session, has_cdp, page_answers

    page = FakePage("firefox")
    assert (browser_name(page), has_cdp(page)) == ("firefox", False)
    assert cdp_session(page) is None and cdp_session(page) is None
    assert page_answers(page)
    assert page.calls == ["evaluate 1"]  # the probe, through page.evaluate; no CDP round trip


def test_an_unknown_browser_keeps_chromiums_way():
    from pytest_cometlocal.executor.page.watchdog import browser_name, cdp_session, has_cdp

    page = FakePage(None)  # a persistent context: no browser object
    assert (browser_name(page), has_cdp(page)) == (None, True)
    assert cdp_session(page) is None and page.calls == ["new_cdp_session"]
    assert has_cdp(SimpleNamespace(context=SimpleNamespace(browser=SimpleNamespace(
        browser_type=SimpleNamespace(name="chromium")))))


def test_closing_a_firefox_page_is_page_close_only():
    from pytest_cometlocal.executor.page.watchdog import PageWatch

    page = FakePage("firefox")
    assert PageWatch(page).close(page_close_ms=10) == "failed"
    assert page.calls == ["close"]  # no CDP fallback tried


def test_stop_loading_on_firefox_is_window_stop():
    from pytest_cometlocal.executor.page.settle import stop_loading

    page = FakePage("firefox")
    assert stop_loading(page) is True
    assert page.calls == ["evaluate window.stop()"]

    broken = FakePage("firefox")
    broken.evaluate = lambda script: (_ for _ in ()).throw(RuntimeError("Execution context was destroyed"))
    assert stop_loading(broken) is False


def test_firefoxs_screenshot_error_is_transient():
    from pytest_cometlocal.executor.page.screenshots import _SCREENSHOT_TRANSIENT

    text = "Page.screenshot: Protocol error (browsingContext.captureScreenshot): unable to capture screen"
    assert any(t in text for t in _SCREENSHOT_TRANSIENT)


# -- accessibility_clean: a refusal, never a condition that did not hold ---------------------------


def _audit_condition() -> Any:
    args = SimpleNamespace(rules=["wcag2a"], impact_at_least="serious", target=None, disable=[])
    return SimpleNamespace(kind="accessibility_clean", args=args)


@pytest.mark.parametrize("phase, stage", [("post", "postcondition"), ("pre", "precondition")])
def test_accessibility_clean_on_firefox_is_precondition_failed_not_a_failed_check(phase, stage):
    from pytest_cometlocal.executor.audits.accessibility import AuditUnavailable, accessibility_clean
    from pytest_cometlocal.executor.errors import StepRefused

    page = FakePage("firefox")
    ctx = SimpleNamespace(page=page, mask_text=lambda t: t, locate=lambda spec: (None, {}))
    with pytest.raises(AuditUnavailable) as raised:
        accessibility_clean(_audit_condition(), ctx, phase)
    refusal = raised.value
    assert isinstance(refusal, StepRefused)  # what page/conditions.py lets through, and the engine types
    assert (refusal.code, refusal.stage) == (ErrorCode.PRECONDITION_FAILED, stage)
    assert refusal.details["browser"] == "firefox" and refusal.details["problem"] == "isolated_world_unavailable"
    assert refusal.details["unavailable"] == "isolated_world_available"
    assert "firefox" in refusal.message
    assert page.calls == []  # nothing asked of the browser


def test_the_refusal_goes_past_the_conditions_safe_evaluation():
    """page/conditions.py's check_once turns other exceptions into observations; not this one."""
    from pytest_cometlocal.executor.audits.accessibility import AuditUnavailable
    from pytest_cometlocal.executor.page import conditions

    def refuse(cond, ctx, phase):
        raise AuditUnavailable("firefox", phase, "no isolated world")

    cond = SimpleNamespace(kind="accessibility_clean", severity="error")
    original = conditions.EVALUATORS["accessibility_clean"]
    conditions.EVALUATORS["accessibility_clean"] = refuse
    try:
        with pytest.raises(AuditUnavailable):
            conditions.check_once([cond], SimpleNamespace(), "post")
    finally:
        conditions.EVALUATORS["accessibility_clean"] = original


# -- request bodies ----------------------------------------------------------------------------------


def _request(browser: str, method: str = "POST", headers: dict[str, str] | None = None) -> Any:
    page = SimpleNamespace(context=SimpleNamespace(browser=SimpleNamespace(browser_type=SimpleNamespace(name=browser))))
    return SimpleNamespace(method=method, url="http://127.0.0.1/api/notes", post_data_buffer=None,
                           frame=SimpleNamespace(page=page), all_headers=lambda: dict(headers or {}),
                           headers=dict(headers or {}))


@pytest.mark.parametrize("browser, method, headers, unavailable", [
    ("firefox", "POST", {"content-type": "application/json"}, "firefox"),
    ("firefox", "POST", {"content-length": "14"}, "firefox"),
    ("firefox", "POST", {"content-length": "0"}, None),  # there was none to give
    ("firefox", "GET", {}, None),
    ("chromium", "POST", {"content-length": "14"}, None),  # Chromium's None is an empty body, as before
])
def test_a_body_the_browser_did_not_give_is_marked(browser, method, headers, unavailable):
    from pytest_cometlocal.executor.http.traffic import Exchange

    request = _request(browser, method, headers)
    exchange = Exchange(request, method, request.url, done=True)
    _, body, _, _ = exchange.read()
    assert body is None and exchange.body_unavailable == unavailable


@pytest.mark.parametrize("check", [{"request_json": {"pointer": "/title", "equals": "x"}},
                                   {"request_body": {"matches": "x"}}])
def test_request_seen_refuses_a_body_check_on_firefox(check):
    from pydantic import TypeAdapter

    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.errors import StepRefused
    from pytest_cometlocal.executor.http.seen import BodyUnavailable, TrafficLook, request_seen
    from pytest_cometlocal.executor.http.traffic import Exchange

    request = _request("firefox", "POST", {"content-type": "application/json"})
    exchange = Exchange(request, "POST", request.url, done=True)
    exchange.response = SimpleNamespace(status=201, url=request.url, body=lambda: b"{}",
                                        headers_array=lambda: [], headers={})
    conditions = TypeAdapter(Condition)
    cond = conditions.validate_python({"kind": "request_seen", "args": {"url": "**/api/notes", **check}})
    ctx = SimpleNamespace(traffic=TrafficLook(lambda since: [exchange], lambda e: None), mask_text=lambda t: t,
                          resolve_text=lambda t: t)
    with pytest.raises(BodyUnavailable) as raised:
        request_seen(cond, ctx, "post")
    refusal = raised.value
    assert isinstance(refusal, StepRefused) and refusal.code == ErrorCode.PRECONDITION_FAILED
    assert refusal.details["browser"] == "firefox"
    assert refusal.details["problem"] == "the browser does not give request bodies (firefox)"
    assert "not JSON" not in refusal.message

    no_body_check = conditions.validate_python({"kind": "request_seen", "args": {"url": "**/api/notes"}})
    ok, observed = request_seen(no_body_check, ctx, "post")  # without a body check the request still counts
    assert ok, observed
