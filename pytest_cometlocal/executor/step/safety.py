"""The step's safety checks: the allowlist, the authentication signals.

A main-frame navigation (or a popup) to a host outside the allowlist ends the
step with DOMAIN_BLOCKED, or ACTION_CRITICAL_BLOCKED at a critical step (the
network guard has already refused the request itself). An authentication
signal of the plan (a status, a URL pattern, a text) ends it with AUTH_FAILED.
A plan regex here (an auth signal's, a route's) that gives up matching ends it
with INVALID_ACTIONSPEC, rule REGEX at the pattern (contract/patterns.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pytest_cometlocal.contract.errors import PatternTimeout
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.patterns import compiled
from pytest_cometlocal.contract.allowlist import allowlist_refusal, url_allowed, url_host
from pytest_cometlocal.executor.errors import is_crash
from pytest_cometlocal.executor.step.failures import Failures
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.step.context import StepContext
from pytest_cometlocal.executor.page.watchdog import PROBE_MS, call


# What each kind of auth signal says in AUTH_FAILED's message: the signal that matched (the failure masks secrets).
AUTH_SIGNAL_SAYS: dict[str, Callable[[dict[str, Any]], str]] = {
    "status": lambda s: f"status {s['status']} for {s['url']}",
    "url_pattern": lambda s: f"the URL {s['url']} matches {s['pattern']!r}",
    "text": lambda s: f"the page shows the text {s['text']!r}",
}


@dataclass
class Safety:
    ctx: StepContext
    failures: Failures

    def check_navigation(self, attempt: StepAttempt) -> None:
        """A main-frame navigation (or popup) to an outside host during this step."""
        for request in self.ctx.events.requests_since(attempt.marks):
            if request.navigation and request.main_frame and not url_allowed(request.url, self.ctx.settings.allowlist):
                self.domain_blocked(attempt, request.url, before_request=False)

    def domain_blocked(self, attempt: StepAttempt, url: str, before_request: bool, stage: str = "execution",
                       extra: dict[str, Any] | None = None) -> None:
        """DOMAIN_BLOCKED (ACTION_CRITICAL_BLOCKED at a critical step); a request step's is at stage precondition.
        ``extra``: more details (a browser gap that kept the request from being sent, gaps/browser_gaps.py)."""
        host, refusal = url_host(url), allowlist_refusal(url)
        details = {"host": host, "url": url, "allowlist": list(self.ctx.settings.allowlist),
                   "stopped_before_request": before_request, "blocked_requests": self.ctx.events.blocked_since(attempt.marks),
                   **(extra or {})}
        if refusal:  # read two ways, or not at all: refused whatever the allowlist holds
            details["refused"] = refusal
        if attempt.spec.criticality == "critical":
            raise self.failures.fail(attempt, ErrorCode.ACTION_CRITICAL_BLOCKED, stage,
                                     f"critical step would leave the allowlist: {host}",
                                     details={"critical_reason": "unsafe_domain_escape", **details},
                                     severity="critical", extended=True)
        says = f"host {host} is outside the allowlist" if not refusal else f"refused before any request: {refusal}"
        raise self.failures.fail(attempt, ErrorCode.DOMAIN_BLOCKED, stage, says, details=details)

    def check_after_action(self, attempt: StepAttempt) -> None:
        """Right after the action, the more specific codes first: a route's regex that gave up, a navigation
        off the allowlist, an auth signal."""
        self.check_routes(attempt)
        self.check_navigation(attempt)
        self.check_auth(attempt)

    def check_routes(self, attempt: StepAttempt, stage: str = "execution") -> None:
        """(v1.2) A route whose regex gave up on a request's URL meanwhile (executor/browser/stubs.py)."""
        found = self.ctx.stubs.gave_up() if self.ctx.stubs is not None else None
        if found is not None:
            raise self.failures.pattern_gave_up(attempt, stage, *found)

    def check_auth(self, attempt: StepAttempt) -> None:
        signal = self.auth_signal(attempt)
        if signal is not None:
            raise self.failures.fail(attempt, ErrorCode.AUTH_FAILED, "postcondition",
                                     f"authentication failed: {AUTH_SIGNAL_SAYS[signal['type']](signal)}",
                                     details={"auth_signal": signal})

    def auth_signal(self, attempt: StepAttempt) -> dict[str, Any] | None:
        signals = self.ctx.settings.auth_signals
        if signals is None:
            return None
        for url, status in self.ctx.events.statuses_since(attempt.marks):
            if status in signals.status:
                return {"type": "status", "status": status, "url": url}
        try:
            if signals.url_pattern and compiled(signals.url_pattern).search(self.ctx.page.url):
                return {"type": "url_pattern", "pattern": signals.url_pattern, "url": self.ctx.page.url}
        except PatternTimeout as exc:  # bounded: it cannot tell, and the plan cannot run as written
            raise self.failures.pattern_gave_up(attempt, "postcondition", "auth_signals.url_pattern", exc) from None
        except Exception:  # the page went away meanwhile: no URL to tell by
            return None
        try:
            if signals.texts:
                for frame in self.ctx.page.frames:
                    try:
                        text = call("auth signal text", PROBE_MS * 2,
                                    lambda: frame.evaluate("() => document.body ? document.body.innerText : ''"))
                    except Exception:
                        continue
                    for wanted in signals.texts:
                        if wanted in text:
                            return {"type": "text", "text": wanted, "frame_url": frame.url}
        except Exception as exc:
            if is_crash(exc):
                return None
        return None
