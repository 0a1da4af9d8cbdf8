"""The evidence files of a step: DOM snapshots always, the full page for critical steps and failures.

A passing normal step leaves its partial DOM snapshots before and after; a
critical step, and every failure that can still look at the page, adds the
full HTML and the before/after screenshots. Reading the page's HTML is a call
into the browser like any other, so it is bounded: a page that stopped
answering simply has none.

Each function writes its files as one batch of the evidence store: one
manifest rewrite per step, whatever the number of files.
"""

from __future__ import annotations

from typing import Any

from pytest_cometlocal.contract.model.records import EvidenceRef
from pytest_cometlocal.executor.errors import first_line
from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore
from pytest_cometlocal.executor.page.observation import Observation
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.page.settle import settled
from pytest_cometlocal.executor.page.watchdog import CAPTURE_MS, call


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
        meta = {"which": which, **({"reduced": obs.signature.algorithm_version} if frame else {})}
    else:
        return []
    return [evidence.add_bytes("screenshot", name, data, step_id=attempt.spec.id, redact=False, metadata=meta)]


def write_html(page: Any, evidence: EvidenceStore, attempt: StepAttempt,
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


def write_extended(page: Any, evidence: EvidenceStore, attempt: StepAttempt, after: Observation | None) -> list[EvidenceRef]:
    """html_full plus the before/after screenshots: for critical steps."""
    with evidence.batch():
        refs = write_html(page, evidence, attempt)
        refs += write_screenshot(evidence, attempt, "before", attempt.before)
        refs += write_screenshot(evidence, attempt, "after", after)
    return refs


def step_evidence(page: Any, evidence: EvidenceStore, attempt: StepAttempt) -> list[EvidenceRef]:
    """The evidence of a step that passed, listed in the manifest before this returns."""
    with evidence.batch():
        refs = [write_dom(evidence, attempt, "before", attempt.before)]
        if attempt.after is not None:
            refs.append(write_dom(evidence, attempt, "after", attempt.after))
        if attempt.spec.criticality == "critical":
            refs += write_extended(page, evidence, attempt, attempt.after)
    return refs
