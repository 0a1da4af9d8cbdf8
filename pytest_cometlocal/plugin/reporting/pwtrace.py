"""Playwright's own trace (trace.zip) of a plan, one trace group per step.

``--cometlocal-tracing on`` keeps it for every plan, ``retain-on-failure``
only for plans that raised an error, ``off`` (the default) records nothing.
The zip goes into the evidence pack (kind ``playwright_trace``, hashed and
listed like any other file) and so into Allure. A plan with secrets is not
traced: Playwright's trace records typed values and page snapshots, which the
redactor cannot rewrite inside the zip.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

    from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError, TraceEvent
    from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore

RETAIN_ON_FAILURE = "retain-on-failure"
TRACING_MODES = ("off", "on", RETAIN_ON_FAILURE)
"""The values of ``--cometlocal-tracing`` and ``cometlocal_tracing``; options.py reads them from here."""


class PlaywrightTrace:
    """Started when made (before the run folder exists); ``on_event`` is a trace listener and
    ``finish`` a finisher of ``executor.session.open_run``, which gives it the run's evidence."""

    def __init__(self, context: BrowserContext, mode: str, title: str):
        self.context = context
        self.mode = mode
        self.open_groups = 0
        context.tracing.start(screenshots=True, snapshots=True, sources=False, title=title)

    def on_event(self, event: TraceEvent) -> None:
        """Trace listener: a group per step attempt."""
        kind = event.event_type
        if kind == "observation_captured":
            self._end_group()
            self.context.tracing.group(f"step {event.step_id}")
            self.open_groups += 1
        elif kind in ("error_raised", "retry_scheduled", "recovery_started") or (
            kind == "evidence_captured" and not (event.metadata or {}).get("for_error") and event.step_id
        ):
            self._end_group()

    def _end_group(self) -> None:
        while self.open_groups:
            self.context.tracing.group_end()
            self.open_groups -= 1

    def finish(self, error: ExecutorError | None, evidence: EvidenceStore) -> list[EvidenceRef]:
        self._end_group()
        if self.mode == RETAIN_ON_FAILURE and error is None:
            self.context.tracing.stop()
            return []
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "trace.zip"
            self.context.tracing.stop(path=str(path))
            data = path.read_bytes()
        return [evidence.add_bytes("playwright_trace", "playwright/trace.zip", data, redact=False,
                                            metadata={"viewer": "playwright show-trace trace.zip"})]
