"""What an error's evidence pack could not hold, and why: ``details.evidence_gaps``.

The errors contract asks every error for a ``dom_snapshot_partial``, and the
evidence policy every failure for its screenshots before and after, and the
full HTML where the stage or the code asks for it. A page that froze, crashed,
keeps navigating or has no document to paint cannot give all of that. What the
executor knows without the renderer still makes a partial snapshot
(``executor_snapshot``: the URL the browser process holds, the step's target,
what the last observation saw), and every piece that could not be taken is
named with its reason (``Gaps``): never left out in silence, never invented.
Pure: no browser call here (tests/unit/test_evidence_gaps.py).
"""

from __future__ import annotations

from typing import Any

SOURCE_EXECUTOR = "executor"


class Gaps:
    """The missing pieces of one error's evidence, each ``{kind, reason}``, in the order found."""

    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []

    def add(self, kind: str, reason: str) -> None:
        self.items.append({"kind": kind, "reason": reason})

    def screenshots(self, refs: list[Any], reasons: dict[str, str | None], fallback: str) -> None:
        """A gap for each picture (``before``, ``after``) with no screenshot among ``refs``."""
        taken = {(ref.metadata or {}).get("which") for ref in refs if ref.kind == "screenshot"}
        for which in ("before", "after"):
            if which not in taken:
                where = "before the step" if which == "before" else "at the failure"
                self.add("screenshot", f"{where}: {reasons.get(which) or fallback}")

    def into(self, details: dict[str, Any] | None) -> dict[str, Any] | None:
        """``details`` with ``evidence_gaps`` added when there is any."""
        if not self.items:
            return details
        return {**(details or {}), "evidence_gaps": list(self.items)}


def picture_reason(observation: Any, full: bool = False) -> str | None:
    """Why an observation has no picture, as it recorded it (``screenshot_error``; in the fast profile
    ``screenshot``, a picture not taken because it could decide nothing), if it said."""
    if observation is None:
        return None
    metadata = observation.signature.metadata or {}
    not_taken = metadata.get("screenshot") if observation.signature.screenshot_hash is None else None
    return (full and metadata.get("full_screenshot_error")) or metadata.get("screenshot_error") or not_taken


def executor_snapshot(url: str | None, target: Any, target_context: dict[str, Any] | None,
                      last: Any, reason: str) -> dict[str, Any]:
    """A dom_snapshot_partial of what the executor knows without asking the page.

    ``url`` is the browser process's (Playwright's ``page.url``: no call into
    the renderer); the title and the visible anchors and inputs of the page now
    are unknown (``null``), and ``last_observation`` holds what the last look
    at the page saw, with its time, for whoever reads the failure. ``target`` is
    the step's target as written (JSON), ``target_context`` the element as it was
    resolved in this attempt, if it was.
    """
    snapshot: dict[str, Any] = {
        "schema_version": "v1",
        "source": SOURCE_EXECUTOR,
        "reason": reason,
        "url": url,
        "title": None,
        "visible_anchors": None,
        "visible_inputs": None,
        "target": {"spec": target, "resolved": target_context},
        "last_observation": None,
    }
    if last is not None:
        snapshot["last_observation"] = {
            "taken_at": last.signature.created_at,
            "url": last.snapshot.get("url"),
            "title": last.snapshot.get("title"),
            "visible_anchors": last.snapshot.get("visible_anchors"),
            "visible_inputs": last.snapshot.get("visible_inputs"),
            "state_signature": last.signature.model_dump(mode="json"),
        }
    return snapshot
