"""Known browser gaps (issue 49): actions a browser cannot do through Playwright's public API, typed.

Measured on Firefox ESR 153 through WebDriver BiDi (Playwright 1.64.1); WebKit, untested here, is
held to Chromium-or-not where the gap is Chromium's feature. Each gap is one row of ``GAPS``; a step
that meets one fails PRECONDITION_FAILED with the failed condition ``<feature>_available`` (observed:
the browser) and ``details`` {condition, unavailable, browser, problem, browser_gap}; never retried
(the same browser cannot do it on a second attempt), never a hang.

- **drag** (``html5_drag_available``): on Firefox, ``drag_to`` returns without error and the page gets
  ``dragstart``/``dragover`` but never ``drop``; a mouse-driven drag (``mouse.down/move/up``, any
  number of steps, a pause, a second click) does the same: no public path works. A drag on a browser
  that is not Chromium is refused **before** the action, so nothing half-dragged is left behind.
- **a form submit to another site** (``cross_origin_submit_available``): on Firefox, the click (or
  Enter) that submits a form to a named host other than the page's (``http://outside.example``, even
  one that resolves) never returns, with or without the guard's proxy, and no request is sent; a link
  to the same URL works, and so does a submit to an IP host or ``localhost``. It cannot be known
  before the click (a page may cancel the submit in script), so it is typed **after** the step's
  ``timeout_ms``: a timed-out ``click``/``press`` whose element submits a form to another origin.
  When that origin is outside the allowlist, the step is DOMAIN_BLOCKED (ACTION_CRITICAL_BLOCKED at a
  critical step), as on Chromium, where the request reaches the guard; the details add
  ``browser_gap`` and ``stopped_before_request: true``. Otherwise PRECONDITION_FAILED as above.

Worked around, not refused: **fill** on Firefox appends to an ``<input type=number>`` or
``type=email`` that has a value (``fill("3")`` on ``1`` gives ``13``: the select-all before typing
does not reach those inputs), which typed wrong data silently (the demo's order quantity). On a
browser that is not Chromium the field is emptied first (``fill("")``, which works there), then filled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from pytest_cometlocal.contract.allowlist import url_allowed
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.executor.errors import ExecutorFailure, StepRefused
from pytest_cometlocal.executor.page.watchdog import bound, browser_name

if TYPE_CHECKING:
    from pytest_cometlocal.executor.results import StepAttempt

# step/actions.py's Actions (its ctx, failures and safety); not imported, even for types: actions.py imports this.
Actions = Any

# How long reading the timed-out element's form may take (the page answered the watchdog already).
FORM_PROBE_MS = 1_500


@dataclass(frozen=True)
class Gap:
    """One known gap: the feature a browser lacks, where it is lacking, and what the plan author reads."""

    id: str  # details.browser_gap
    unavailable: str  # the failed condition's kind, details.unavailable
    works_on: frozenset[str]  # the browsers that have the feature; None-named (unknown) browsers count as having it
    measured_on: frozenset[str]  # where the gap was measured; others not in works_on are refused too (see when)
    problem: str
    assumed_elsewhere: bool = True  # a browser neither working nor measured (WebKit) is refused as well

    def applies(self, browser: str | None) -> bool:
        if browser is None or browser in self.works_on:
            return False
        return browser in self.measured_on or self.assumed_elsewhere


GAPS: dict[str, Gap] = {
    "drag": Gap("html5_drag", "html5_drag_available", frozenset({"chromium"}), frozenset({"firefox"}),
                "an HTML5 drag and drop gets no drop event through Playwright on this browser"),
    "cross_origin_submit": Gap(
        "cross_origin_submit", "cross_origin_submit_available", frozenset({"chromium"}), frozenset({"firefox"}),
        "a form submitted to another origin never finishes through Playwright on this browser",
        assumed_elsewhere=False),  # a timeout on WebKit is left a timeout: nothing measured says why
}
# The action kinds a gap is checked for before the action (the others are typed after it).
BEFORE = {"drag": "drag"}
# The kinds whose timeout may be a submit to another origin.
SUBMITTING = frozenset({"click", "press"})


def refusal(gap: Gap, browser: str, condition: str, **more: Any) -> StepRefused:
    """A step the browser cannot do (a row of GAPS): PRECONDITION_FAILED with the browser named.
    (A StepRefused, as the other refusals; ``failed_condition`` reads its details.)"""
    message = f"{condition} cannot be done on {browser}: {gap.problem} ({gap.unavailable})"
    return StepRefused(ErrorCode.PRECONDITION_FAILED, message,
                       {"condition": condition, "unavailable": gap.unavailable, "browser": browser,
                        "problem": gap.problem, "browser_gap": gap.id, **more})


def failed_condition(refused: StepRefused) -> FailedCondition:
    """The refusal's failed condition: the feature, observed on the browser."""
    return FailedCondition(kind=refused.details["unavailable"], args={}, phase="pre",
                           observed={"browser": refused.details["browser"]})


def refusal_before(kind: str, browser: str | None) -> StepRefused | None:
    """The refusal of an action kind on a browser, decided before the action; None: go ahead."""
    gap = GAPS.get(BEFORE.get(kind, ""))
    if gap is None or browser is None or not gap.applies(browser):
        return None
    return refusal(gap, browser, kind)


def origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), port if port is not None else default


def submit_gap(kind: str, browser: str | None, page_url: str, action_url: str | None) -> bool:
    """Whether a timed-out ``kind`` on ``browser`` is the cross-origin submit gap: the element
    submits a form to ``action_url``, another origin than the page's."""
    gap = GAPS["cross_origin_submit"]
    if kind not in SUBMITTING or action_url is None or not gap.applies(browser):
        return False
    return origin(action_url)[0] in ("http", "https") and origin(action_url) != origin(page_url)


# The element's submit control (itself or an ancestor: a button's text in a span) and its form, as
# XPath from the element: read with locator calls, no script, after the timeout only.
SUBMITTER = ("xpath=ancestor-or-self::*[self::button[not(@type) or @type='submit' or @type='SUBMIT']"
             " or self::input[@type='submit' or @type='image']][1]")
FORM = "xpath=ancestor::form[1]"


def form_action(locator: Any, kind: str, page_url: str) -> str | None:
    """The absolute URL the element would submit its form to: a submit control's (its ``formaction``
    first), or for ``press`` (Enter in a field) its form's; None when it submits no form."""
    target = locator.locator(SUBMITTER) if kind == "click" else locator
    if kind == "click" and target.count() == 0:
        return None
    form = target.locator(FORM)
    if form.count() == 0:
        return None
    action = (target.get_attribute("formaction", timeout=FORM_PROBE_MS) if kind == "click" else None) \
        or form.first.get_attribute("action", timeout=FORM_PROBE_MS) or page_url
    return urljoin(page_url, action.strip())


def empty_first(actions: Actions, attempt: StepAttempt, options: dict[str, Any]) -> None:
    """Before a ``fill`` off Chromium: empty the field, so that the text replaces its value (module docstring)."""
    if browser_name(actions.ctx.page) in (None, "chromium") or attempt.target is None:
        return
    attempt.target.locator.fill("", timeout=attempt.spec.timeout_ms, **options)


def check_before(actions: Actions, attempt: StepAttempt) -> None:
    """Refuse the step's action before it is done when its kind is a gap on this browser."""
    refused = refusal_before(attempt.spec.kind, browser_name(actions.ctx.page))
    if refused is not None:
        raise as_failure(actions, attempt, refused)


def as_failure(actions: Actions, attempt: StepAttempt, refused: StepRefused) -> ExecutorFailure:
    """The step's typed failure: the refusal's code and details, its failed condition, not retried."""
    return actions.failures.fail(attempt, refused.code, refused.stage, refused.message, details=refused.details,
                                 failed_conditions=[failed_condition(refused)], retryable=False)


def after_timeout(actions: Actions, attempt: StepAttempt) -> None:
    """A click/press that timed out: raise the gap's typed failure when it was a submit to another origin."""
    page, spec = actions.ctx.page, attempt.spec
    browser = browser_name(page)
    if spec.kind not in SUBMITTING or attempt.target is None or not GAPS["cross_origin_submit"].applies(browser):
        return
    try:
        with bound("form action", FORM_PROBE_MS):
            action_url = form_action(attempt.target.locator.first, spec.kind, page.url)
    except Exception:
        return  # not known: the timeout stays the step's plain PRECONDITION_FAILED
    if not isinstance(action_url, str) or not submit_gap(spec.kind, browser, page.url, action_url):
        return
    assert browser is not None
    extra = {"browser_gap": "cross_origin_submit", "browser": browser}
    if not url_allowed(action_url, actions.ctx.settings.allowlist):
        actions.safety.domain_blocked(attempt, action_url, before_request=True, extra=extra)
    refused = refusal(GAPS["cross_origin_submit"], browser, spec.kind, url=action_url, timeout_ms=spec.timeout_ms)
    raise as_failure(actions, attempt, refused)
