"""Which error code a failed action is: a pure function of what is known about the failure.

The executor gathers the facts (the step's kind, the exception's text, whether
Playwright timed out, whether the page crashed or stopped answering) and
``classify_action`` names the code, the message and the details. Nothing here
touches a browser, so every rule is unit-tested without one
(tests/unit/test_classify.py). Side effects the caller must perform before
raising (stop a pending navigation, look for an auth signal or an outside
navigation) are flags of the answer.

Order of the rules, first match wins:

1. the page or the browser died -> BROWSER_CRASHED (never retried);
2. the page stopped answering -> PAGE_UNRESPONSIVE (never retried);
3. a ``navigate`` (or v1.2's ``go_back``, ``go_forward``, ``reload``): a timeout -> NAVIGATION_TIMEOUT,
   else NAVIGATION_FAILED with its net:: (or Firefox's NS_ERROR_*) error;
4. an action done whose navigation never came -> NAVIGATION_TIMEOUT (not retried);
5. another element intercepts the pointer -> OVERLAY_BLOCKING;
6. an actionability check Playwright waited on, or a timeout -> PRECONDITION_FAILED naming the check;
7. an ``upload`` -> UPLOAD_FAILED; anything else -> PRECONDITION_FAILED element_actionable.

None of the rules names a pointer or key kind: v1.1's ``press``, ``hover``,
``check``, ``uncheck`` and ``drag`` (whose call logs are a click's, with
"hover action" or "move and down action") fall under them as a click does.
What a check/uncheck or a custom dropdown finds wrong itself (not checkable,
the state unchanged, no such option) is typed where it is found (actions.py).

**Network errors per browser** (issue 49). Chromium says ``net::ERR_*``;
Firefox (WebDriver BiDi) says ``NS_ERROR_*``, on the second line of
Playwright's message (``Page.goto: Protocol error (browsingContext.navigate):
unknown error`` / ``Message: Error: NS_ERROR_CONNECTION_REFUSED at http://…``),
and ``request.failure`` is the bare ``NS_ERROR_*`` name. ``net_error`` searches
the whole text for either; ``details.net_error`` keeps the browser's own name,
and, for Firefox's, ``details.net_error_class`` gives Chromium's name for the
same cause (``NS_NET_TO_CHROMIUM``: the first three measured, the rest by their
Necko meaning; None when unmapped), so a report or a rule can treat both alike.
Chromium's details are unchanged. Either way the code is NAVIGATION_FAILED.
The auth rule (``ERR_INVALID_AUTH_CREDENTIALS``: look for the auth signal) has
no measured Firefox equivalent and stays Chromium's.

**Known gaps** (issue 49) are typed in step/gaps/browser_gaps.py, not here: a ``drag`` off
Chromium is refused before the action (``drag_to`` returns on Firefox without error and no
``drop`` comes: nothing to classify), and Firefox's form submit to another origin is named after
its timeout. docs/executor.md, "Per browser", lists them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pytest_cometlocal.contract.model.codes import ErrorCode

_NET_ERROR = re.compile(r"net::(ERR_[A-Z_]+)|\b(NS_ERROR_[A-Z_]+)\b")
# Firefox's network errors, by Chromium's name for the same cause (details.net_error_class).
NS_NET_TO_CHROMIUM = {
    "NS_ERROR_CONNECTION_REFUSED": "ERR_CONNECTION_REFUSED",
    "NS_ERROR_UNKNOWN_HOST": "ERR_NAME_NOT_RESOLVED",
    "NS_ERROR_PROXY_CONNECTION_REFUSED": "ERR_PROXY_CONNECTION_FAILED",
    "NS_ERROR_UNKNOWN_PROXY_HOST": "ERR_PROXY_CONNECTION_FAILED",
    "NS_ERROR_NET_TIMEOUT": "ERR_TIMED_OUT",
    "NS_ERROR_NET_RESET": "ERR_CONNECTION_RESET",
    "NS_ERROR_NET_INTERRUPT": "ERR_CONNECTION_CLOSED",
    "NS_ERROR_OFFLINE": "ERR_INTERNET_DISCONNECTED",
    "NS_ERROR_ABORT": "ERR_ABORTED",
    "NS_ERROR_PORT_ACCESS_NOT_ALLOWED": "ERR_UNSAFE_PORT",
}
_INTERCEPT = re.compile(r"<(?P<tag>[a-z0-9-]+)(?P<attrs>[^>]*)>(?P<text>[^<]{0,120})(?:</[a-z0-9-]+>)?[^\n]*intercepts pointer events")
_ID = re.compile(r'\bid="([^"]+)"')
_CLASS = re.compile(r'\bclass="([^"]+)"')

ACTIONABILITY = (
    ("element is not visible", "element_visible"),
    ("element is not enabled", "element_enabled"),
    ("element is disabled", "element_enabled"),
    ("element is not editable", "element_editable"),
    ("element is not stable", "element_stable"),
    ("did not find some options", "option_exists"),
    ("not an <input>, <textarea>, <select>", "element_editable"),
    ("is not a <select> element", "element_is_select"),
    ("Node is not an HTMLInputElement", "element_is_file_input"),
    ("Non-multiple file input can only accept single file", "element_accepts_files"),
    ("element is outside of the viewport", "element_visible"),
)


def net_error(text: str) -> str | None:
    """The browser's network error in ``text``: Chromium's ``ERR_*`` (after ``net::``) or Firefox's ``NS_ERROR_*``."""
    match = _NET_ERROR.search(text)
    return (match.group(1) or match.group(2)) if match else None


def net_error_class(net: str | None) -> str | None:
    """Chromium's name for a network error (Firefox's mapped through NS_NET_TO_CHROMIUM; None: unmapped)."""
    if net is None or net.startswith("ERR_"):
        return net
    return NS_NET_TO_CHROMIUM.get(net)


@dataclass(frozen=True)
class Overlay:
    selector: str | None
    text: str | None


def intercepting_overlay(text: str) -> Overlay | None:
    """The element Playwright reported as intercepting pointer events, if any."""
    if "intercepts pointer events" not in text:
        return None
    match = None
    for match in _INTERCEPT.finditer(text):
        pass  # the last report is the freshest
    if match is None:
        return Overlay(None, None)
    selector = match.group("tag")
    attrs = match.group("attrs")
    if (m := _ID.search(attrs)) is not None:
        selector += "#" + m.group(1)
    elif (m := _CLASS.search(attrs)) is not None:
        selector += "." + ".".join(m.group(1).split())
    overlay_text = match.group("text").strip() or None
    return Overlay(selector, overlay_text)


def actionability_check(text: str) -> str | None:
    """The actionability check Playwright was waiting on when it gave up."""
    found = None
    for needle, check in ACTIONABILITY:
        position = text.rfind(needle)
        if position >= 0 and (found is None or position > found[0]):
            found = (position, check)
    return found[1] if found else None


def navigation_pending(text: str) -> bool:
    """The action was performed and Playwright timed out waiting for the navigation it started.

    Its call log then ends with "waiting for scheduled navigations to finish"
    after "... action done": the element was fine, the server did not answer.
    """
    lines = [line.strip() for line in text.strip().splitlines()]
    return bool(lines) and lines[-1].endswith("waiting for scheduled navigations to finish")


# The kinds that are one navigation of the page: navigate, and v1.2's history moves and reload.
NAVIGATING_KINDS = frozenset({"navigate", "go_back", "go_forward", "reload"})


@dataclass(frozen=True)
class ActionFacts:
    """What is known when an action raised."""

    kind: str  # the step's kind
    text: str  # the exception's text (Playwright's message with its call log)
    timed_out: bool = False  # Playwright's own timeout
    crashed: bool = False  # the page's crash event, or a closed page/browser
    unresponsive: dict[str, Any] | None = None  # {"during", "waited_ms", "probe"} when the page stopped answering
    timeout_ms: int = 0
    url: str | None = None  # the requested URL of a navigate


@dataclass(frozen=True)
class Classified:
    code: ErrorCode
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    failed_check: str | None = None  # PRECONDITION_FAILED: the check that failed
    retryable: bool | None = None  # None: as the policy says
    observe_after: bool = True  # observe the page after the failure
    stop_loading: bool = False  # stop the page's pending navigation first
    check_auth: bool = False  # a 401 surfaced as a net:: error: look for the auth signal first
    check_navigation: bool = False  # an outside navigation may be the real cause: look first


def classify_action(f: ActionFacts) -> Classified:
    """The code of a failed action (see the module's docstring for the order)."""
    if f.crashed:
        return Classified(ErrorCode.BROWSER_CRASHED, "the page or browser crashed during the action",
                          {"during": f.kind}, retryable=False, observe_after=False)
    if f.unresponsive is not None:
        return unresponsive(f.unresponsive)
    if f.kind in NAVIGATING_KINDS:
        if f.timed_out:
            return Classified(ErrorCode.NAVIGATION_TIMEOUT, f"navigation did not finish within {f.timeout_ms} ms",
                              {"timeout_ms": f.timeout_ms, "wait_condition": "load", "url": f.url}, stop_loading=True)
        net = net_error(f.text)
        details = {"net_error": net, "url": f.url}
        if net is not None and not net.startswith("ERR_"):  # (issue 49) Firefox's: Chromium's name beside it
            details["net_error_class"] = net_error_class(net)
        return Classified(ErrorCode.NAVIGATION_FAILED, f"navigation failed: {net or 'error'}",
                          details, check_auth=net == "ERR_INVALID_AUTH_CREDENTIALS",
                          check_navigation=True)
    if f.timed_out and navigation_pending(f.text):
        # Done, but the page it led to never came: not retried, since repeating
        # the action could repeat its side effect (a form sent twice).
        return Classified(ErrorCode.NAVIGATION_TIMEOUT,
                          f"{f.kind} was performed, but the navigation it started did not finish within {f.timeout_ms} ms",
                          {"timeout_ms": f.timeout_ms, "wait_condition": "navigation started by the action",
                           "action_performed": True}, retryable=False, stop_loading=True)
    overlay = intercepting_overlay(f.text)
    if overlay is not None:
        return Classified(ErrorCode.OVERLAY_BLOCKING, "another element intercepts pointer events on the target",
                          {"overlay_selector": overlay.selector, "overlay_text": overlay.text})
    check = actionability_check(f.text)
    if check is not None or f.timed_out:
        check = check or "element_actionable"
        return Classified(ErrorCode.PRECONDITION_FAILED, f"{f.kind} could not be performed within {f.timeout_ms} ms: {check}",
                          failed_check=check)
    if f.kind == "upload":
        return Classified(ErrorCode.UPLOAD_FAILED, "upload failed", {"upload_signal": "set_input_files"})
    first = (f.text.strip().splitlines() or [""])[0][:200]
    return Classified(ErrorCode.PRECONDITION_FAILED, f"{f.kind} failed: {first}", failed_check="element_actionable")


def unresponsive(facts: dict[str, Any]) -> Classified:
    """A page that stopped answering (``probe`` "no answer"), or one that never settled ("answered").

    ``timeout_ms``, the step's, is the NAVIGATION_TIMEOUT's ``details.timeout_ms``
    as for every other NAVIGATION_TIMEOUT (``waited_ms`` is the call that gave up).
    """
    during, waited = facts.get("during"), facts.get("waited_ms")
    if facts.get("probe") == "answered":
        # The page runs scripts, but the call never finished: it kept navigating or
        # never produced a document to look at.
        return Classified(ErrorCode.NAVIGATION_TIMEOUT, f"the page did not settle: {during} did not finish within {waited} ms",
                          {"timeout_ms": facts.get("timeout_ms"), "during": during, "waited_ms": waited,
                           "wait_condition": "a document to observe"},
                          retryable=False, observe_after=False)
    return Classified(ErrorCode.PAGE_UNRESPONSIVE,
                      f"the page stopped answering: {during} got no answer within {waited} ms",
                      {"during": during, "waited_ms": waited, "probe": facts.get("probe")},
                      retryable=False, observe_after=False)
