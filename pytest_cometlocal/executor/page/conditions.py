"""Conditions, evaluated against the live page and polled until they hold.

``evaluate`` looks once and returns (holds, observed); ``poll`` repeats until
every non-warning condition holds or the step's ``timeout_ms`` runs out. There
is no fixed sleep anywhere: the loop backs off from 20 ms to 200 ms between
looks. What was observed (counts, texts, URLs) goes into the failed condition.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urljoin

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.allowlist import url_allowed
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.page.locators import compile_target, pause, resolve_now
from pytest_cometlocal.executor.scripts import load_script

DEFAULT_TOAST_SELECTOR = "[role=alert], [role=status], [aria-live]"

# What covers an element's centre, if anything but the element (scripts/hit_test.js).
HIT_TEST_JS = load_script(__package__, "hit_test.js")

# The texts of the shown elements a selector matches, the first 20 (scripts/visible_texts.js).
VISIBLE_TEXTS_JS = load_script(__package__, "visible_texts.js")


@dataclass
class NetworkTracker:
    """In-flight requests of a page, for ``network_idle`` (no request for 500 ms)."""

    inflight: int = 0
    last_change: float = field(default_factory=time.monotonic)

    def started(self, *_: Any) -> None:
        self.inflight += 1
        self.last_change = time.monotonic()

    def ended(self, *_: Any) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.last_change = time.monotonic()

    def idle(self, quiet_s: float = 0.5) -> bool:
        return self.inflight == 0 and time.monotonic() - self.last_change >= quiet_s


@dataclass
class CheckContext:
    """What conditions of one step can look at."""

    page: Any
    step: ActionSpec
    base_url: str | None
    allowlist: tuple[str, ...]
    toast_selector: str
    overlay_selectors: tuple[str, ...]
    step_locator: Any | None = None
    requested_url: str | None = None
    downloads: Callable[[], list[Any]] = lambda: []  # the step's downloads so far (they arrive late)
    network: NetworkTracker | None = None
    resolve_text: Callable[[str], str] = lambda s: s
    mask_name: Callable[[str], str] = lambda s: s  # a download's name as it may be shown (Redactor.file_name)


@dataclass
class CheckResult:
    condition: Any
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


def _target_locator(ctx: CheckContext, spec: Any) -> tuple[Any | None, dict[str, Any]]:
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


def evaluate(cond: Any, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    """Look once; never waits."""
    kind = cond.kind
    args = cond.args
    page = ctx.page
    text = ctx.resolve_text
    if kind == "url_is":
        expected = urljoin(ctx.base_url or page.url, text(args.url))
        return page.url == expected, {"url": page.url, "expected": expected}
    if kind == "url_matches":
        return re.search(args.pattern, page.url) is not None, {"url": page.url}
    if kind == "host_in_allowlist":
        url = ctx.requested_url if (phase == "pre" and ctx.requested_url) else page.url
        return url_allowed(url, ctx.allowlist), {"url": url, "allowlist": list(ctx.allowlist)}
    if kind == "title_contains":
        title = page.title()
        return text(args.text) in title, {"title": title}
    if kind == "network_idle":
        tracker = ctx.network
        if tracker is None:
            return True, {"inflight": None}
        return tracker.idle(), {"inflight": tracker.inflight}
    if kind == "toast_contains":
        texts = page.evaluate(VISIBLE_TEXTS_JS, [ctx.toast_selector])
        wanted = text(args.text)
        return any(wanted in t for t in texts), {"toasts": texts}
    if kind == "download_started":
        names = [d.suggested_filename for d in ctx.downloads()]  # the real names: the regex is matched on them
        shown = {"downloads": [ctx.mask_name(n) for n in names]}
        if args.filename is None:
            return bool(names), shown
        return any(re.search(args.filename, n) for n in names), shown
    if kind == "no_blocking_overlay":
        return _no_overlay(cond, ctx, phase)
    if kind == "upload_completed":
        return _upload_completed(cond, ctx)

    # Element conditions.
    target_spec = getattr(args, "target", None)
    if kind == "element_count_equals":
        if target_spec is None and ctx.step_locator is not None:
            return args.count == 1, {"count": 1}
        spec = target_spec if target_spec is not None else ctx.step.target
        alternatives = spec if isinstance(spec, list) else [spec]
        counts = [compile_target(page, alt).count() for alt in alternatives]
        # Alternatives name the same element set in different ways: any one may hold.
        return args.count in counts, ({"count": counts[0]} if len(counts) == 1 else {"counts": counts})
    locator, seen = _target_locator(ctx, target_spec)
    if locator is None:
        return False, seen or {"count": 0}
    if kind == "element_exists":
        return True, {"count": 1}
    if kind == "element_visible":
        visible = locator.is_visible()
        return visible, {"count": 1, "visible": visible}
    if kind == "element_enabled":
        enabled = locator.is_enabled(timeout=1000)
        return enabled, {"count": 1, "enabled": enabled}
    if kind == "element_clickable":
        if not locator.is_visible() or not locator.is_enabled(timeout=1000):
            return False, {"count": 1, "visible": locator.is_visible(), "enabled": locator.is_enabled(timeout=1000)}
        hit = locator.evaluate(HIT_TEST_JS, timeout=1000)
        return bool(hit.get("clear")), {"count": 1, **hit}
    if kind == "element_text_contains":
        content = locator.inner_text(timeout=1000)
        return text(args.text) in content, {"count": 1, "text": content[:500]}
    if kind == "element_attr_equals":
        value = locator.get_attribute(args.attr, timeout=1000)
        return value == text(args.value), {"count": 1, "value": value}
    if kind == "element_value_equals":
        value = locator.input_value(timeout=1000)
        return value == text(args.value), {"count": 1, "value": value}
    raise ValueError(f"unknown condition kind {kind}")  # pragma: no cover - the models forbid it


def _no_overlay(cond: Any, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
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
        return False, {"error": type(exc).__name__}
    return bool(hit.get("clear")), hit


def _upload_completed(cond: Any, ctx: CheckContext) -> tuple[bool, Any]:
    wanted = cond.args.text
    if wanted is not None:
        wanted = ctx.resolve_text(wanted)
        toasts = ctx.page.evaluate(VISIBLE_TEXTS_JS, [ctx.toast_selector])
        body = ctx.page.inner_text("body", timeout=1000)
        return any(wanted in t for t in toasts) or wanted in body, {"toasts": toasts}
    locator, seen = _target_locator(ctx, cond.args.target)
    if locator is None:
        return False, seen
    files = locator.evaluate("(el) => Array.from(el.files || []).map(f => f.name)", timeout=1000)
    return bool(files), {"files": files}


def poll(conditions: list[Any], ctx: CheckContext, phase: str, timeout_ms: int) -> list[CheckResult]:
    """Evaluate until every non-warning condition holds, or time runs out.

    The pause between looks grows from 20 ms to 200 ms; it is a polling
    interval, never a fixed wait for the page.

    Warning conditions are evaluated on the final state only: they are
    recorded, never waited for.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    required = [c for c in conditions if c.severity != "warning"]
    delay = 0.02
    while True:
        results = {id(c): CheckResult(c, *_safe_evaluate(c, ctx, phase)) for c in required}
        if all(r.ok for r in results.values()) or time.monotonic() >= deadline:
            break
        pause(ctx.page, min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 2, 0.2)
    for c in conditions:
        if c.severity == "warning":
            results[id(c)] = CheckResult(c, *_safe_evaluate(c, ctx, phase))
    return [results[id(c)] for c in conditions]


def _safe_evaluate(cond: Any, ctx: CheckContext, phase: str) -> tuple[bool, Any]:
    try:
        return evaluate(cond, ctx, phase)
    except Exception as exc:
        if _is_fatal(exc):
            raise
        return False, {"error": type(exc).__name__, "message": str(exc).splitlines()[0][:200]}


def _is_fatal(exc: Exception) -> bool:
    """Closed pages and dead browsers end the step; anything else is an observation."""
    return is_crash(exc)
