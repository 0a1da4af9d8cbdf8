"""The evidence files of a step: DOM snapshots always, the full page for critical steps and failures.

A passing normal step leaves its partial DOM snapshots before and after; a
critical step, and every failure that can still look at the page, adds the
full HTML and the before/after screenshots. Reading the page's HTML is a call
into the browser like any other, so it is bounded: a page that stopped
answering simply has none.
"""

from __future__ import annotations

from typing import Any

from ..contract.records import EvidenceRef
from .evidence import EvidenceStore
from .observe import Observation
from .results import StepAttempt
from .watchdog import CAPTURE_MS, call


def write_dom(evidence: EvidenceStore, attempt: StepAttempt, which: str, obs: Observation) -> EvidenceRef:
    snapshot = dict(obs.snapshot)
    snapshot["state_signature"] = obs.signature.model_dump(mode="json")
    if attempt.target is not None and which == "before":
        snapshot["target"] = attempt.target.context
    return evidence.add_json("dom_snapshot_partial", f"dom/{attempt.tag}_{which}.json", snapshot, step_id=attempt.spec.id)


def write_screenshot(evidence: EvidenceStore, attempt: StepAttempt, which: str, obs: Observation | None) -> list[EvidenceRef]:
    if obs is None or obs.screenshot is None:
        return []
    return [evidence.add_bytes("screenshot", f"shots/{attempt.tag}_{which}.png", obs.screenshot,
                               step_id=attempt.spec.id, redact=False, metadata={"which": which})]


def write_extended(page: Any, evidence: EvidenceStore, attempt: StepAttempt, after: Observation | None,
                   html: bool = True) -> list[EvidenceRef]:
    """html_full plus the before/after screenshots: on failures and for critical steps."""
    refs: list[EvidenceRef] = []
    if html:
        try:
            content = call("page.content", CAPTURE_MS, page.content)
            refs.append(evidence.add_bytes("html_full", f"html/{attempt.tag}_full.html", content.encode("utf-8"),
                                           step_id=attempt.spec.id))
        except OSError:
            raise
        except Exception:
            pass
    refs += write_screenshot(evidence, attempt, "before", attempt.before)
    refs += write_screenshot(evidence, attempt, "after", after)
    return refs


def step_evidence(page: Any, evidence: EvidenceStore, attempt: StepAttempt) -> list[EvidenceRef]:
    """The evidence of a step that passed."""
    refs = [write_dom(evidence, attempt, "before", attempt.before)]
    if attempt.after is not None:
        refs.append(write_dom(evidence, attempt, "after", attempt.after))
    if attempt.spec.criticality == "critical":
        refs += write_extended(page, evidence, attempt, attempt.after)
    return refs
