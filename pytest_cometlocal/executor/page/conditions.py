"""Conditions, evaluated against the live page and polled until they hold.

``evaluate`` looks once and returns (holds, observed); ``poll`` repeats until
every non-warning condition holds or the step's ``timeout_ms`` runs out. There
is no fixed sleep anywhere: the loop backs off from 20 ms to 200 ms between
looks. What was observed (counts, texts, URLs) goes into the failed condition.
Texts are read as Playwright's text assertions read them (page/texts.py); an
element that vanished between its resolution and its look is reported as the
count it has now, never as a raw Playwright timeout.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import urljoin

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.errors import PatternTimeout
from pytest_cometlocal.contract.model.checks.numbers import number_keys
from pytest_cometlocal.contract.numbers import compare_number
from pytest_cometlocal.contract.patterns import compiled, gave_up, gave_up_in, matching_until
from pytest_cometlocal.contract.allowlist import allowlist_refusal, url_allowed
from pytest_cometlocal.executor.errors import StepRefused, is_crash
from pytest_cometlocal.executor.browser import stored
from pytest_cometlocal.executor.browser.cookies import COOKIE_EVALUATORS
from pytest_cometlocal.executor.browser.storage import STORAGE_EVALUATORS
from pytest_cometlocal.executor.http.response_checks import RESPONSE_EVALUATORS
from pytest_cometlocal.executor.http.seen import SEEN_EVALUATORS, TrafficLook, decided
from pytest_cometlocal.executor.page.controls import CHECKED_STATE_JS
from pytest_cometlocal.executor.page.events import NetworkTracker, SentRequest
from pytest_cometlocal.executor.page.locators import (
    compile_target, condition_locators, matches_now, next_look_in, not_one, pause, resolve_now)
from pytest_cometlocal.executor.page.texts import (
    COUNTED, ELEMENT_CHECKS, aria_snapshot_matches, clip_utf8, element_texts_equal, first_lines, normalize, seen,
    shown_texts, shown_values)
from pytest_cometlocal.executor.page.upload_check import upload_completed
from pytest_cometlocal.executor.page.looks import LOOK_CHECKS  # v1.3
from pytest_cometlocal.executor.page.texts import NUMBER_CHECKS, NUMBER_COUNTED  # v1.3 (text, value, attr)
from pytest_cometlocal.executor.audits import EVALUATORS as AUDIT_EVALUATORS
from pytest_cometlocal.executor.scripts import load_script
from pytest_cometlocal.executor.extensions import calls as extension_calls

if TYPE_CHECKING:
    from playwright.sync_api import Download, Locator, Page

    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.audits.baselines import AuditLook
    from pytest_cometlocal.executor.extensions.context import ExtensionIO
    from pytest_cometlocal.executor.http.exchange import HttpResponse

__all__ = ["CheckContext", "CheckResult", "EVALUATORS", "clip_utf8", "check_once", "evaluate", "first_lines",
           "poll", "required_of"]

# What covers an element's centre, if anything but the element (scripts/hit_test.js).
HIT_TEST_JS = load_script(__package__, "hit_test.js")

# The texts of the shown elements a selector matches, the first 20 (scripts/visible_texts.js).
VISIBLE_TEXTS_JS = load_script(__package__, "visible_texts.js")

# Whether an element has keyboard focus, also in a shadow root or a frame (scripts/focused.js). (v1.1)
FOCUSED_JS = load_script(__package__, "focused.js")


@dataclass
class CheckContext:
    """What conditions of one step can look at."""

    page: Page
    step: ActionSpec
    base_url: str | None
    allowlist: tuple[str, ...]
    toast_selector: str
    overlay_selectors: tuple[str, ...]
    step_locator: Locator | None = None
    requested_url: str | None = None
    downloads: Callable[[], list[Download]] = lambda: []  # the step's downloads so far (they arrive late)
    network: NetworkTracker | None = None
    # The requests with a body since the last upload action, and when it ended (page/upload_check.py).
    upload_requests: Callable[[], tuple[list[SentRequest], float]] = lambda: ([], 0.0)
    resolve_text: Callable[[str], str] = lambda s: s
    mask_name: Callable[[str], str] = lambda s: s  # a download's name as it may be shown (Redactor.file_name)
    mask_text: Callable[[str], str] = lambda s: s  # page text as it may be recorded (Redactor.text)
    response: HttpResponse | None = None  # (v1.2) a request step's last response (the response_* conditions')
    audit: AuditLook | None = None  # (v1.2) what the audit conditions need beside the page (executor/audits)
    traffic: TrafficLook | None = None  # (v1.3) the page's requests request_seen reads (executor/http/seen.py)
    extension_io: ExtensionIO | None = None  # (extensions) what an extension condition's context writes through
    # The title the step's one read between two steps saw (docs/executor.md, "One step"): poll's first
    # look reads it instead of asking the page; later looks ask. ``looks``: how many looks poll took.
    title: str | None = None
    looks: int = 0
    # When a condition waiting for a quiet moment (upload_completed, network_idle) holds if nothing
    # changes, by id of the condition (time.monotonic()); poll's next look is then (locators.next_look_in).
    ready_at: dict[int, float] = field(default_factory=dict)

    def locate(self, spec: T.Target | list[T.Target] | None) -> tuple[Locator | None, dict[str, Any]]:
        """A condition's target (its own, else the step's), for rooms that may not import this one."""
        return _target_locator(self, spec)


# How one condition kind is looked at: (condition, context, phase) -> (holds, observed).
Evaluator = Callable[["Condition", CheckContext, str], tuple[bool, Any]]


@dataclass
class CheckResult:
    condition: Condition
    ok: bool
    observed: Any

    def failed_dict(self, phase: str) -> dict[str, Any]:
        cond = self.condition
        return {
            "kind": cond.kind,
            "args": cond.args.model_dump(mode="json", exclude_none=True),
            "phase": phase,
            "severity": cond.severity,
            "observed": self.observed,
        }


def _target_locator(ctx: CheckContext, spec: T.Target | list[T.Target] | None) -> tuple[Locator | None, dict[str, Any]]:
    """Locator for a condition's target: its own args.target, else the step's resolved target.

    A condition's own target is resolved by the same rules as a step's
    (``locators.resolve_now``: U4 order, exactly one match), looking once.
    """
    if spec is None:
        if ctx.step_locator is not None:
            return ctx.step_locator, {}
        spec = ctx.step.target
        if spec is None or isinstance(spec, T.UrlTarget):
            return None, {"error": "no target"}
    alternatives = spec if isinstance(spec, list) else [spec]
    resolution = resolve_now(ctx.page, alternatives)
    if resolution.resolved is not None:
        return resolution.resolved.locator, {"count": 1}
    counts = [a.count for a in resolution.attempts]
    return None, {"count": max(counts) if counts else 0, "counts": counts}


def evaluate(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """Look once; never waits. The condition's kind picks its row of ``EVALUATORS``, else (extensions)
    the kind the run's registry holds."""
    evaluator = EVALUATORS.get(cond.kind)
    return evaluator(cond, ctx, phase) if evaluator is not None else _extension(cond, ctx, phase)


def _extension(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """(extensions) Its registered ``check``, given the step's element (executor/extensions/calls.py)."""
    kind = extension_calls.condition_kind(cond.kind)
    if kind is None or ctx.extension_io is None:
        return False, {"error": f"extension kind {cond.kind!r} is not registered in this run"}
    return extension_calls.check(kind, phase, page=ctx.page, given=cond.args.given(), target=ctx.step_locator,
                                 io=ctx.extension_io, resolve=ctx.resolve_text)


def _at_once(kind: str) -> bool:
    """(v1.2) A response does not change: one look decides a response_* condition; (extensions) nor does
    one an extension registered ``polled=False``."""
    return kind in RESPONSE_EVALUATORS or ((found := extension_calls.condition_kind(kind)) is not None
                                           and not found.polled)


# -- page conditions -------------------------------------------------------------


def _url_is(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    url = ctx.page.url
    expected = urljoin(ctx.base_url or url, ctx.resolve_text(cond.args.url))
    return url == expected, {"url": url, "expected": expected}


def _url_matches(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    url = ctx.page.url
    return compiled(cond.args.pattern).search(url) is not None, {"url": url}


def _host_in_allowlist(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """Before a navigation the URL it is about to request; otherwise the page's. (v1.2) On a request step
    the request's URL: the one it is about to send, then the last one it sent (after redirects)."""
    if ctx.response is not None:
        url = ctx.response.url
    else:
        url = ctx.requested_url if (phase == "pre" or ctx.step.kind == "request") and ctx.requested_url else ctx.page.url
    refused = {"refused": why} if (why := allowlist_refusal(url)) else {}  # read two ways: refused whatever
    return url_allowed(url, ctx.allowlist), {"url": url, "allowlist": list(ctx.allowlist), **refused}


def _title_contains(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    title = ctx.title if ctx.title is not None else ctx.page.title()
    return ctx.resolve_text(cond.args.text) in title, {"title": title}


def _network_idle(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    tracker = ctx.network
    if tracker is None:
        return True, {"inflight": None}
    idle = tracker.idle()
    if not idle and tracker.inflight == 0:
        ctx.ready_at[id(cond)] = tracker.quiet_at()
    return idle, {"inflight": tracker.inflight}


def _toast_contains(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    wanted = normalize(ctx.resolve_text(cond.args.text))
    texts = shown_texts(ctx.page, ctx.toast_selector, None)["toasts"]
    return any(wanted in t for t in texts), {"toasts": [seen(t, ctx.mask_text) for t in texts]}


def _download_started(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    names = [d.suggested_filename for d in ctx.downloads()]  # the real names: the regex is matched on them
    shown = {"downloads": [ctx.mask_name(n) for n in names]}
    if cond.args.filename is None:
        return bool(names), shown
    return any(compiled(cond.args.filename).search(n) for n in names), shown


# -- element conditions ----------------------------------------------------------


def _element_count_equals(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    args = cond.args
    holds = (lambda n: compare_number(n, args)[0]) if number_keys(args) else (lambda n: n == args.count)  # v1.3
    if args.target is None and ctx.step_locator is not None:
        return holds(1), {"count": 1}
    spec = args.target if args.target is not None else ctx.step.target
    alternatives = spec if isinstance(spec, list) else [spec]
    counts = [compile_target(ctx.page, alt).count() for alt in alternatives]
    # Alternatives name the same element set in different ways: any one may hold.
    return any(holds(n) for n in counts), ({"count": counts[0]} if len(counts) == 1 else {"counts": counts})


def _on_element(check: Callable[[Locator, Any, CheckContext], tuple[bool, Any]], counted: bool = False) -> Evaluator:
    """An element condition: its element resolved first (exactly one), then ``check`` looks at it.

    The step's own element (resolved before its action) is counted first, and any element again
    when the look fails or does not hold: one the page removed since is ``{count: 0, problem}``.
    A ``counted`` check counts its element in its own look (``observed.count``, one round trip):
    no count is made around it then.
    """
    def evaluate_element(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
        locator, found = _target_locator(ctx, cond.args.target)
        if locator is None:
            return False, found or {"count": 0}
        if found == {} and not counted and (gone := matches_now(locator)) is not None:
            return False, gone  # the step's element, resolved before its action: counted now, without a wait
        try:
            ok, observed = check(locator, cond.args, ctx)
        except Exception as exc:
            if _is_fatal(exc) or (gone := matches_now(locator)) is None:
                raise
            return False, gone
        if ok:
            return ok, observed
        gone = not_one(observed["count"]) if counted else matches_now(locator)
        return False, observed if gone is None else gone
    return evaluate_element


def _exists(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    """The step's resolved element too is counted now: the action may have removed it (counted)."""
    count = locator.count()
    return count == 1, {"count": count}


def _visible(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    visible = locator.is_visible()
    return visible, {"count": 1, "visible": visible}


def _enabled(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    enabled = locator.is_enabled(timeout=1000)
    return enabled, {"count": 1, "enabled": enabled}


def _clickable(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    if not locator.is_visible() or not locator.is_enabled(timeout=1000):
        return False, {"count": 1, "visible": locator.is_visible(), "enabled": locator.is_enabled(timeout=1000)}
    hit = locator.evaluate(HIT_TEST_JS, timeout=1000)
    return bool(hit.get("clear")), {"count": 1, **hit}


def _checked(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    """(v1.1) None (no checked state: neither a checkbox or radio nor aria-checked) never holds."""
    checked = locator.evaluate(CHECKED_STATE_JS, timeout=1000)["checked"]  # the state check/uncheck read
    return checked is not None and checked == args.checked, {"count": 1, "checked": checked}


def _focused(locator: Locator, args: Any, ctx: CheckContext) -> tuple[bool, Any]:
    focused = bool(locator.evaluate(FOCUSED_JS, timeout=1000))
    return focused, {"count": 1, "focused": focused}


def _no_overlay(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """Known overlays are not visible, and (when there is a target) the target is not covered.

    Without ``args.target`` the step's own target is hit-tested only before the
    action: after it, that element may rightly be gone (an Accept button that
    removes its own cookie wall).
    """
    page = ctx.page
    for selector in ctx.overlay_selectors:
        texts = page.evaluate(VISIBLE_TEXTS_JS, [selector])
        visible = page.locator(selector).filter(visible=True).count() if not texts else len(texts)
        if visible:
            return False, {"overlay_selector": selector, "overlay_text": (texts or [""])[0][:120]}
    spec = cond.args.target
    locator = None
    if spec is not None:
        locator, _seen = _target_locator(ctx, spec)
    elif ctx.step_locator is not None and phase == "pre":
        locator = ctx.step_locator
    if locator is None:
        return True, {}
    try:
        locator.scroll_into_view_if_needed(timeout=1000)
        hit = locator.evaluate(HIT_TEST_JS, timeout=1000)
    except Exception as exc:
        if _is_fatal(exc):
            raise
        return False, matches_now(locator) or {"error": type(exc).__name__}
    return bool(hit.get("clear")), hit


def _element_hidden(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """(v1.2) No visible match: none at all, or all hidden (toBeHidden; no U1). Alternatives name
    one element, so none of them may show it."""
    locators = condition_locators(ctx.page, cond.args.target, ctx.step_locator, ctx.step.target)
    if locators is None:
        return False, {"error": "no target"}
    found = [(loc.count(), loc.filter(visible=True).count()) for loc in locators]
    if len(found) == 1:
        return found[0][1] == 0, {"count": found[0][0], "visible": found[0][1]}
    return all(v == 0 for _c, v in found), {"counts": [c for c, _v in found], "visible": [v for _c, v in found]}


def _stored(read: Callable[[Any, Any], tuple[bool, dict[str, Any]]]) -> Evaluator:
    """(v1.2) storage_item / cookie (executor/browser/stored.py): what was read, masked and cut."""
    def evaluate_stored(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
        ok, observed = read(ctx.page, cond.args)
        return ok, shown_values(observed, ctx.mask_text)
    return evaluate_stored


def _upload_completed(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """The upload's requests settled, then the text or the files (page/upload_check.py)."""
    return upload_completed(cond, ctx, _target_locator)


def _page_count_equals(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """(v1.2) The run's context has ``count`` open pages; seen: their number and URLs, masked."""
    pages = ctx.page.context.pages
    return len(pages) == cond.args.count, {"count": len(pages), "urls": [ctx.mask_text(p.url) for p in pages]}


# One row per condition kind of the contract (contract/model/conditions.py).
EVALUATORS: dict[str, Evaluator] = {
    "url_is": _url_is,
    "url_matches": _url_matches,
    "host_in_allowlist": _host_in_allowlist,
    "title_contains": _title_contains,
    "element_exists": _on_element(_exists, counted=True),
    "element_visible": _on_element(_visible),
    "element_enabled": _on_element(_enabled),
    "element_clickable": _on_element(_clickable),
    "element_count_equals": _element_count_equals,
    **{kind: _on_element(check, kind in NUMBER_COUNTED) for kind, check in {**NUMBER_CHECKS, **LOOK_CHECKS}.items()},
    "network_idle": _network_idle,
    "no_blocking_overlay": _no_overlay,
    "toast_contains": _toast_contains,
    "download_started": _download_started,
    "upload_completed": _upload_completed,
    "element_checked": _on_element(_checked),  # v1.1
    "element_focused": _on_element(_focused),  # v1.1
    "aria_snapshot_matches": aria_snapshot_matches,  # v1.1
    **{kind: _on_element(check, kind in COUNTED) for kind, check in ELEMENT_CHECKS.items()},  # v1.2 (page/texts.py)
    "element_hidden": _element_hidden,  # v1.2
    "element_texts_equal": element_texts_equal,  # v1.2
    "storage_item": _stored(stored.storage_item),  # v1.2
    "cookie": _stored(stored.cookie),  # v1.2
    "page_count_equals": _page_count_equals,  # v1.2
    **RESPONSE_EVALUATORS,  # v1.2 (executor/http/response_checks.py)
    **AUDIT_EVALUATORS,  # v1.2 (executor/audits/)
    **COOKIE_EVALUATORS, **STORAGE_EVALUATORS,  # v1.3 (executor/browser/cookies.py, storage.py)
    **SEEN_EVALUATORS,  # v1.3 (executor/http/seen.py)
}


def poll(conditions: list[Condition], ctx: CheckContext, phase: str, timeout_ms: int) -> list[CheckResult]:
    """Evaluate until every non-warning condition holds, or time runs out.

    The pause between looks grows from 20 ms to 200 ms; it is a polling
    interval, never a fixed wait for the page. When every condition still
    missing waits only for a quiet moment it can name (``ready_at``), the next
    look is at that moment instead: no later, as a growing pause would be.

    Warning conditions are evaluated on the final state only: they are
    recorded, never waited for.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    required = required_of(conditions)
    delay, ctx.looks = 0.02, 0
    with matching_until(deadline):  # no pattern matches past the deadline (contract/patterns.py)
        while True:
            ctx.ready_at.clear()
            results = {id(r.condition): r for r in check_once(required, ctx, phase)}
            ctx.title, ctx.looks = None, ctx.looks + 1  # the one read's title stands for the first look only
            missing = [key for key, r in results.items() if not (r.ok or _at_once(r.condition.kind))]
            if not missing \
                    or any(gave_up_in(r.observed) or decided(r.observed) for r in results.values()) \
                    or time.monotonic() >= deadline:
                break  # a pattern that gave up decides its condition (a step that cannot pass, found in bounded time)
            wait = next_look_in(missing, ctx.ready_at, delay)
            pause(ctx.page, min(wait, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 0.2)
        for c in conditions:
            if c.severity == "warning":
                results[id(c)] = CheckResult(c, *_safe_evaluate(c, ctx, phase))
    return [results[id(c)] for c in conditions]


def required_of(conditions: list[Condition]) -> list[Condition]:
    """The conditions that must hold: all but warnings."""
    return [c for c in conditions if c.severity != "warning"]


def check_once(conditions: list[Condition], ctx: CheckContext, phase: str) -> list[CheckResult]:
    """Each condition evaluated once: poll's one look, and scroll's after each settle probe."""
    return [CheckResult(c, *_safe_evaluate(c, ctx, phase)) for c in conditions]


def _safe_evaluate(cond: Condition, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    try:
        return evaluate(cond, ctx, phase)
    except PatternTimeout as exc:  # the condition does not hold; which of its patterns, and why
        return False, gave_up(cond.args, exc)
    except Exception as exc:
        if _is_fatal(exc) or isinstance(exc, StepRefused):  # a refusal or an extension's failure: it fails the step
            raise
        return False, {"error": type(exc).__name__, "message": str(exc).splitlines()[0][:200]}


def _is_fatal(exc: Exception) -> bool:
    """Closed pages and dead browsers end the step; anything else is an observation."""
    return is_crash(exc)
