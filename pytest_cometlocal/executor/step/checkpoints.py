"""A step's conditions: polled until they hold, and a failure typed by its most specific code.

Pre- and postconditions (and an ``assert`` step's checks) are polled for the
step's ``timeout_ms`` (page/conditions.poll). When a required one still fails, the
code is the most specific that applies: an allowlist condition is
DOMAIN_BLOCKED, an overlay OVERLAY_BLOCKING, a download or upload signal
DOWNLOAD_FAILED or UPLOAD_FAILED, a ``wait_for`` that never came
NAVIGATION_TIMEOUT (its message names the conditions that did not hold); otherwise PRECONDITION_FAILED or POSTCONDITION_FAILED.
Warnings are recorded, never waited for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.conditions import describe_condition
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.contract.allowlist import url_host
from pytest_cometlocal.executor.page.conditions import CheckResult, poll
from pytest_cometlocal.executor.step.failures import Failures
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.step.actions import action_row
from pytest_cometlocal.executor.step.context import StepContext
from pytest_cometlocal.executor.step.safety import Safety
from pytest_cometlocal.executor.http.saves import keep_saves
from pytest_cometlocal.executor.page.locators import resolve_now
from pytest_cometlocal.executor.page.texts import element_text

CONDITION_CODES = {
    "host_in_allowlist": ErrorCode.DOMAIN_BLOCKED,
    "no_blocking_overlay": ErrorCode.OVERLAY_BLOCKING,
    "download_started": ErrorCode.DOWNLOAD_FAILED,
    "upload_completed": ErrorCode.UPLOAD_FAILED,
}


@dataclass
class StepConditions:
    ctx: StepContext
    failures: Failures
    safety: Safety

    def check(self, attempt: StepAttempt, phase: str, conditions: list[Any], title: str | None = None,
              first: list[CheckResult] | None = None) -> bool:
        """Poll ``conditions``; raise the typed failure when a required one does not hold. ``title``: the
        page's title as the one read between two steps saw it, which the first look reads; True when
        every required condition held at that first look (the read then stands as the step's "after").
        ``first``: that first look, taken already (``look_once``, while the read's picture was drawn);
        when a required condition did not hold in it, they are polled afresh, and the read does not stand."""
        spec = attempt.spec
        timeout = spec.timeout_ms
        if phase == "post" and attempt.scrolled is not None and not attempt.scrolled.held:
            timeout = 0  # (v1.1) scroll's loop looked until the end or its timeout: one more look decides
        check_context = self.ctx.check_context(attempt)
        check_context.title = title if first is None else None  # a look taken later reads the title itself
        if first is not None and all(r.ok for r in first if r.condition.severity != "warning"):
            results, at_once = first, True
        else:  # a first look taken already that failed: they are polled afresh, and the read does not stand
            results = poll(conditions, check_context, phase, timeout)
            at_once = first is None and check_context.looks == 1
        failed = [r for r in results if not r.ok and r.condition.severity != "warning"]
        warnings = [r.failed_dict(phase) for r in results if not r.ok and r.condition.severity == "warning"]
        if warnings:
            self.ctx.journal.conditions_warned(phase, warnings)
        if not failed:
            if phase != "pre" and (spec.save or spec.save_text):  # (v1.2) saved values (http/saves.py)
                keep_saves(self.failures, attempt, lambda: self._target_text(attempt, phase))
            return at_once
        if phase != "pre":
            self.safety.check_navigation(attempt)
            self.safety.check_auth(attempt)
        raise self._failure(attempt, phase, failed)

    def look_once(self, attempt: StepAttempt, phase: str, conditions: list[Any], title: str | None) -> list[CheckResult]:
        """Every condition (warnings too) at one look, nothing written or raised: ``check``'s ``first``."""
        check_context = self.ctx.check_context(attempt)
        check_context.title = title
        return poll(conditions, check_context, phase, 0)

    def hold_now(self, attempt: StepAttempt, conditions: list[Any]) -> bool:
        """Whether every condition (warnings too) holds at one look: the look-ahead's preconditions,
        checked while the previous step's picture is drawn; nothing is written or raised."""
        return all(r.ok for r in poll(conditions, self.ctx.check_context(attempt), "pre", 0))

    def _target_text(self, attempt: StepAttempt, phase: str) -> str:
        """(v1.2) save_text: the text of the step's target as the text conditions read it; exactly one element."""
        if attempt.target is not None:
            locator = attempt.target.locator
        else:
            resolution = resolve_now(self.ctx.page, attempt.spec.alternatives)
            locator = resolution.resolved.locator if resolution.resolved is not None else None
            counts = [a.count for a in resolution.attempts]
        if locator is not None:
            count, text = element_text(locator)
            if count == 1:
                return text
            counts = [count]
        raise self.failures.fail(attempt, ErrorCode.POSTCONDITION_FAILED, "postcondition",
                                 f"save_text {attempt.spec.save_text}: the target is not one element",
                                 details={"save": attempt.spec.save_text}, failed_conditions=[FailedCondition(
                                     kind="element_exists", args={}, phase=phase, observed={"counts": counts})])

    def _failure(self, attempt: StepAttempt, phase: str, failed: list[CheckResult]) -> Exception:
        spec = attempt.spec
        timeout = spec.timeout_ms
        fail = self.failures.fail
        failed_conditions = [FailedCondition(**r.failed_dict(phase)) for r in failed]
        kinds = [r.condition.kind for r in failed]
        stage = "precondition" if phase == "pre" else "postcondition"
        for kind, code in CONDITION_CODES.items():
            if kind not in kinds:
                continue
            result = next(r for r in failed if r.condition.kind == kind)
            observed = result.observed or {}
            details: dict[str, Any] = {}
            if code == ErrorCode.DOMAIN_BLOCKED:
                url = observed.get("url", "")
                allowlist = list(self.ctx.settings.allowlist)
                if spec.criticality == "critical":
                    return fail(attempt, ErrorCode.ACTION_CRITICAL_BLOCKED, stage,
                                f"critical step would leave the allowlist: {url_host(url)}",
                                details={"critical_reason": "unsafe_domain_escape", "host": url_host(url),
                                         "allowlist": allowlist},
                                failed_conditions=failed_conditions, severity="critical", extended=True)
                details = {"host": url_host(url), "url": url, "allowlist": allowlist}
            elif code == ErrorCode.OVERLAY_BLOCKING:
                details = {"overlay_selector": observed.get("overlay_selector"), "overlay_text": observed.get("overlay_text")}
            elif code == ErrorCode.DOWNLOAD_FAILED:
                details = {"expected_download": True, "downloads_seen": observed.get("downloads", [])}
            elif code == ErrorCode.UPLOAD_FAILED:
                details = {"file_ref": spec.file_refs,
                           "upload_signal": result.condition.args.model_dump(mode="json", exclude_none=True) or "files attached"}
            return fail(attempt, code, stage, f"{kind} did not hold within {timeout} ms", details=details,
                        failed_conditions=failed_conditions)
        if action_row(spec.kind).kind.waits and phase == "post":
            # Named, not "a navigation": a wait_for often waits for no navigation at all.
            named = [describe_condition(r.condition, spec.target) for r in failed]
            return fail(attempt, ErrorCode.NAVIGATION_TIMEOUT, "postcondition",
                        f"{spec.kind}: {', '.join(named)} did not hold within {timeout} ms",
                        details={"timeout_ms": timeout, "wait_condition": [
                            {**r.failed_dict(phase), "condition": text} for r, text in zip(failed, named)]},
                        failed_conditions=failed_conditions)
        code = ErrorCode.PRECONDITION_FAILED if phase == "pre" else ErrorCode.POSTCONDITION_FAILED
        message = f"{'pre' if phase == 'pre' else 'post'}condition failed: {', '.join(kinds)}"
        details = _seen_details(failed)
        scrolled = attempt.scrolled if phase == "post" else None
        if scrolled is not None:
            why = ("at the end" if scrolled.reached_end else "once they held" if scrolled.held
                   else f"when timeout_ms {spec.timeout_ms} ran out")
            message = f"{message} (scrolled {scrolled.element} {scrolled.direction} {scrolled.scrolled_px} px, stopped {why})"
            details.update(scrolled.details())
        return fail(attempt, code, stage, message, failed_conditions=failed_conditions,
                    **({"details": details} if details else {}))


# (v1.2) What a failed screenshot_matches puts in details: its baseline, what became of it, the difference.
SCREENSHOT_DETAILS = ("snapshot", "baseline", "baseline_file", "diff_pixels", "diff_ratio", "size", "stable", "error")
# What a failed condition saw that its failure's details repeat: kind -> the keys of its observed (those it has).
SEEN_DETAILS: dict[str, tuple[str, ...]] = {
    "aria_snapshot_matches": ("actual",),  # v1.1: the actual snapshot, masked and cut
    "accessibility_clean": ("violations",),  # v1.2 audits: each rule, impact, help, targets (masked)
    "screenshot_matches": SCREENSHOT_DETAILS,  # v1.2 audits: the baseline, what became of it, the difference
}


def _seen_details(failed: list[CheckResult]) -> dict[str, Any]:
    """What the first failed condition with a row in SEEN_DETAILS saw (details.actual, .violations, .diff_pixels…)."""
    for result in failed:
        observed = result.observed
        keys = SEEN_DETAILS.get(result.condition.kind, ())
        if keys and isinstance(observed, dict) and any(k in observed for k in keys):
            return {k: observed[k] for k in keys if k in observed}
    return {}
