"""The evidence files of a step: DOM snapshots always, the full page for critical steps and failures.

A passing normal step leaves its partial DOM snapshots before and after; a
critical step, and every failure that can still look at the page, adds the
full HTML and the before/after screenshots. Reading the page's HTML is a call
into the browser like any other, so it is bounded: a page that stopped
answering simply has none.

Each function writes its files as one batch of the evidence store: one
manifest rewrite per step, whatever the number of files.

``FailureEvidence.capture`` takes the pack of a failed attempt: what is in
hand first (the "before"), then a full look at the page and its HTML where
the page can still be looked at, the executor's own partial snapshot where it
cannot, and the name of every piece it could not take (evidence_gaps.py).
Last, the page's aria snapshot (``aria_text``: masked, then cut at a line to
``MAX_ARIA_BYTES`` by page/texts.py's ``aria_cut``, the cut of a failed
aria_snapshot_matches' actual too), so a failure can be read without a
browser: the roles and names a target could use are in the run folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import EvidenceRef
from pytest_cometlocal.executor.errors import CallTimedOut, first_line
from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore
from pytest_cometlocal.executor.page.observation import Observation
from pytest_cometlocal.executor.page.screenshots import FRAME_ALGORITHM
from pytest_cometlocal.executor.results import Fault, StepAttempt
from pytest_cometlocal.executor.page.settle import settled
from pytest_cometlocal.executor.page.texts import aria_cut
from pytest_cometlocal.executor.page.watchdog import CAPTURE_MS, FAILURE_EVIDENCE_MS, bound, call
from pytest_cometlocal.executor.runfolder.evidence_gaps import Gaps, executor_snapshot, picture_reason

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_cometlocal.executor.runfolder.redactor import Redactor

    from pytest_cometlocal.executor.step.context import StepContext

# Codes whose evidence is the whole page (html and screenshots) whatever the stage.
EXTENDED_CODES = (ErrorCode.OVERLAY_BLOCKING, ErrorCode.AUTH_FAILED, ErrorCode.DOWNLOAD_FAILED)
# Codes after which the page cannot be looked at again.
PAGE_GONE = (ErrorCode.BROWSER_CRASHED, ErrorCode.PAGE_UNRESPONSIVE)


def aria_text(page: Page, redactor: Redactor, ms: float = CAPTURE_MS, what: str = "aria snapshot") -> tuple[str, bool]:
    """The page's aria snapshot (Playwright's ``locator.aria_snapshot()`` of its body), masked first, then cut
    at a line to ``MAX_ARIA_BYTES`` (``texts.aria_cut``: a cut never leaves part of a secret); and whether
    lines were left out.
    The failure's evidence and the agent's page view (agent/page_view.py) read it here; ``what`` names the call."""
    snapshot = call(what, ms, lambda: page.locator("body").aria_snapshot(timeout=ms))
    return aria_cut(snapshot, redactor.text)


def write_aria(page: Page, evidence: EvidenceStore, attempt: StepAttempt, redactor: Redactor,
               missing: dict[str, str | None]) -> list[EvidenceRef]:
    """aria_snapshot at the failure (``aria/<tag>_failure.yaml``); ``missing`` gets why it could not be read."""
    try:
        text, cut = aria_text(page, redactor)
    except OSError:
        raise
    except Exception as exc:
        missing["aria_snapshot"] = first_line(exc)
        return []
    return [evidence.add_bytes("aria_snapshot", f"aria/{attempt.tag}_failure.yaml", text.encode("utf-8"),
                               step_id=attempt.spec.id, metadata={"truncated": True} if cut else {})]


def write_dom(evidence: EvidenceStore, attempt: StepAttempt, which: str, obs: Observation) -> EvidenceRef:
    snapshot = dict(obs.snapshot)
    snapshot["state_signature"] = obs.signature.model_dump(mode="json")
    if attempt.target is not None and which == "before":
        snapshot["target"] = attempt.target.context
    return evidence.add_json("dom_snapshot_partial", f"dom/{attempt.tag}_{which}.json", snapshot, step_id=attempt.spec.id)


def write_screenshot(evidence: EvidenceStore, attempt: StepAttempt, which: str, obs: Observation | None) -> list[EvidenceRef]:
    """The full-size PNG of ``obs`` when it has one, else the frame its hash was taken from.

    A failure at a normal step has the full size at the failure; its "before"
    was a normal observation, whose only picture is the reduced frame (JPEG,
    ``metadata.reduced``): a full capture before every step would cost every
    passing step what only failures need.
    """
    if obs is None:
        return []
    if obs.full is not None:
        data, name, meta = obs.full, f"shots/{attempt.tag}_{which}.png", {"which": which}
    elif obs.screenshot is not None:
        frame = obs.screenshot_is_frame
        data = obs.screenshot
        name = f"shots/{attempt.tag}_{which}.{'jpg' if frame else 'png'}"
        meta = {"which": which, **({"reduced": FRAME_ALGORITHM} if frame else {})}
    else:
        return []
    return [evidence.add_bytes("screenshot", name, data, step_id=attempt.spec.id, redact=False, metadata=meta)]


def write_html(page: Page, evidence: EvidenceStore, attempt: StepAttempt,
               missing: dict[str, str | None] | None = None) -> list[EvidenceRef]:
    """html_full, read from the page (bounded); ``missing`` (a failure's) gets why it could not be read."""
    try:
        # Read between two documents of a page that reloads itself: retried as an observation is.
        content = settled(page, lambda: call("page.content", CAPTURE_MS, page.content))
    except OSError:
        raise
    except Exception as exc:
        if missing is not None:
            missing["html_full"] = first_line(exc)
        return []
    return [evidence.add_bytes("html_full", f"html/{attempt.tag}_full.html", content.encode("utf-8"),
                               step_id=attempt.spec.id)]


def write_extended(page: Page, evidence: EvidenceStore, attempt: StepAttempt, after: Observation | None) -> list[EvidenceRef]:
    """html_full plus the before/after screenshots: for critical steps."""
    with evidence.batch():
        refs = write_html(page, evidence, attempt)
        refs += write_screenshot(evidence, attempt, "before", attempt.before)
        refs += write_screenshot(evidence, attempt, "after", after)
    return refs


def step_evidence(page: Page, evidence: EvidenceStore, attempt: StepAttempt, every_step_full: bool = False) -> list[EvidenceRef]:
    """The evidence of a step that passed, listed in the manifest before this returns.

    ``every_step_full`` (the forensic profile): every step's evidence is a critical step's.
    """
    with evidence.batch():
        refs = [write_dom(evidence, attempt, "before", attempt.before)]
        if attempt.after is not None:
            refs.append(write_dom(evidence, attempt, "after", attempt.after))
        if attempt.spec.criticality == "critical" or every_step_full:
            refs += write_extended(page, evidence, attempt, attempt.after)
    return refs


@dataclass
class FailureEvidence:
    """The evidence pack of a failed attempt: its files, the look after the failure, and what is missing."""

    refs: list[EvidenceRef] = field(default_factory=list)
    after: Observation | None = None
    gaps: Gaps = field(default_factory=Gaps)
    write_failed: str | None = None  # the OS's reason, when an evidence file could not be written
    alive: bool = True  # the page could still be looked at when the failure was found

    @classmethod
    def capture(cls, ctx: StepContext, attempt: StepAttempt, fault: Fault) -> "FailureEvidence":
        """Take the pack: screenshots before and at the failure always; the full HTML as the errors contract asks.

        The full HTML: critical steps, execution and postcondition failures, a
        few codes (``fault.extended`` overrides). Nothing here raises but a
        write the run folder refused for good (OutputWriteFailed).
        """
        spec, code, message = attempt.spec, fault.code, fault.message
        evidence = ctx.run.evidence
        alive = not ctx.events.crashed and code not in PAGE_GONE
        pack = cls(alive=alive)
        gone = None if alive else _gone_reason(ctx.events.crashed or code == ErrorCode.BROWSER_CRASHED, message)
        reasons: dict[str, str | None] = {"after": gone or (None if fault.observe_after else f"not observed: {message}")}
        fallback = "not taken"
        with_html = fault.extended if fault.extended is not None else (
            spec.criticality == "critical" or fault.stage in ("execution", "postcondition") or code in EXTENDED_CODES
            or ctx.observer.profile.full_every_step)
        refs = pack.refs
        try:
            with evidence.batch():  # the whole pack, listed with one manifest rewrite
                try:
                    with bound("evidence of the failure", FAILURE_EVIDENCE_MS, isolated=True):
                        # What is already in hand first: a bound running out later cannot lose it.
                        if attempt.before is not None:
                            refs.append(write_dom(evidence, attempt, "before", attempt.before))
                        refs += write_screenshot(evidence, attempt, "before", attempt.before)
                        # (v1.2) screenshot_matches' expected / actual / diff, taken by its looks
                        refs += ctx.baselines.failure_pictures(attempt.tag, spec.id)
                        if alive and fault.observe_after:
                            try:
                                pack.after = ctx.observer.observe(full=True)
                            except Exception as exc:
                                reasons["after"] = f"the page could not be observed after the failure: {first_line(exc)}"
                        if pack.after is not None:
                            refs.append(write_dom(evidence, attempt, "after", pack.after))
                            refs += write_screenshot(evidence, attempt, "after", pack.after)
                        if alive and with_html:
                            refs += write_html(ctx.page, evidence, attempt, missing=reasons)
                        if alive and fault.observe_after:  # last: the pieces above are never lost to it
                            refs += write_aria(ctx.page, evidence, attempt, ctx.run.redactor, reasons)
                except CallTimedOut as exc:  # the page stopped answering meanwhile: what was written stays
                    fallback = str(exc)
        except OSError as exc:
            # The file that failed is not in refs; when the end of the batch
            # failed too, none of the batch is listed: keep what the manifest has.
            pack.refs = refs = [ref for ref in refs if evidence.listed(ref)]
            pack.write_failed = exc.strerror
            fallback = f"evidence write failed: {exc.strerror}"
        if not any(ref.kind == "dom_snapshot_partial" for ref in refs):
            # Even a page that cannot be asked anything leaves a partial snapshot:
            # what the executor knows of it without the renderer.
            refs.append(evidence.add_json("dom_snapshot_partial", f"dom/{attempt.tag}_executor.json", executor_snapshot(
                ctx.page.url, spec.model_dump(mode="json", exclude_none=True).get("target"),
                attempt.target.context if attempt.target else None, ctx.observer.last,
                gone or (f"not observed: {message}" if not fault.observe_after else fallback)), step_id=spec.id))
        if attempt.before is None:
            pack.gaps.add("state_signature", f"no observation before the step: {gone or message}")
        before_reason = picture_reason(attempt.before) if attempt.before else f"not observed: {gone or message}"
        after_reason = reasons.get("after") or picture_reason(pack.after, full=True)
        pack.gaps.screenshots(refs, {"before": before_reason, "after": after_reason}, fallback)
        if with_html and not any(ref.kind == "html_full" for ref in refs):
            pack.gaps.add("html_full", gone or reasons.get("html_full") or fallback)
        if alive and fault.observe_after and not any(ref.kind == "aria_snapshot" for ref in refs):
            pack.gaps.add("aria_snapshot", reasons.get("aria_snapshot") or fallback)
        return pack


def _gone_reason(crashed: bool, message: str) -> str:
    """Why a page that died or stopped answering gives no more evidence."""
    return f"page crashed: {message}" if crashed else f"page unresponsive: {message}"
