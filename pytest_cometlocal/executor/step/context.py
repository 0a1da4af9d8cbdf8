"""What every part of a step works with, in one object: built once per executor, handed to each part.

The parts of a step (failures, safety, conditions, actions) all look at the
same page, write into the same run folder and journal, and read the same
settings. Each one gets this context rather than its own copy of six
collaborators (Robot Framework's ``running/``: one runner per job, all handed
one context); what a part adds is its own job, not forwarding.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_cometlocal.contract.load.interpolation import resolve_secrets
from pytest_cometlocal.executor.audits.baselines import AuditLook, Baselines
from pytest_cometlocal.executor.browser.stubs import Stubs
from pytest_cometlocal.executor.page.conditions import CheckContext
from pytest_cometlocal.executor.page.events import PageEvents
from pytest_cometlocal.executor.page.observation import BlankFrames
from pytest_cometlocal.executor.pages.pages import Pages
from pytest_cometlocal.executor.page.watchdog import PageWatch, browser_name
from pytest_cometlocal.executor.results import ExecutorSettings, StepAttempt
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.step.budget import PolicyState, RetryRule
from pytest_cometlocal.executor.step.journal import StepJournal
from pytest_cometlocal.executor.step.observer import Observer, profile_row
from pytest_cometlocal.executor.http.saved import SavedValues
from pytest_cometlocal.executor.http.seen import traffic_look
from pytest_cometlocal.executor.suggest.places import TargetPlaces
from pytest_cometlocal.executor.extensions.context import ExtensionIO

if TYPE_CHECKING:
    from playwright.sync_api import Page


@dataclass(frozen=True)
class StepContext:
    pages: Pages  # the run's pages; every part works on the active one (``page``)
    run: RunFolder
    settings: ExecutorSettings
    events: PageEvents  # what the browser reported (requests, downloads, a crash)
    observer: Observer  # the looks before and after each step
    policy: PolicyState  # the run's anti-loop counters
    retry: RetryRule
    journal: StepJournal
    places: TargetPlaces  # where each step found its target: the suggestions of a later failure
    stubs: Stubs | None = None  # (v1.2) the plan's routes; None for a plan without (nothing installed)
    saved: SavedValues = field(default_factory=SavedValues)  # (v1.2) ``${saved.NAME}``: what this item's steps saved
    # The frames of empty pages the observer's looks reuse (a session's runs share one: BlankFrames).
    blank_frames: BlankFrames = field(default_factory=BlankFrames)
    # (v1.2) screenshot_matches' baselines beside the plan, and the failed comparisons' pictures
    baselines: Baselines = field(default_factory=lambda: Baselines(None, None))

    @classmethod
    def open(cls, page: Page, run: RunFolder, settings: ExecutorSettings, guard: object = None,
             blank_frames: BlankFrames | None = None) -> "StepContext":
        """The context of one executor: its page's events and watch, its observer, counters and journal;
        ``blank_frames``: the frames of empty pages earlier runs kept (else this run keeps its own)."""
        events = PageEvents(page.context, page, guard)
        blank_frames = blank_frames if blank_frames is not None else BlankFrames()
        profile = profile_row(settings.profile)
        pages = Pages(page)
        return cls(
            pages=pages, run=run, settings=settings, events=events,
            observer=Observer(pages, events, tuple(v for v in settings.secrets.values() if v), profile, blank_frames),
            policy=PolicyState(settings.policy, pictures_optional=profile.decisive_pictures),
            retry=RetryRule(settings.policy, settings.recovery_on),
            journal=StepJournal(run.trace),
            places=TargetPlaces(),
            stubs=Stubs(list(settings.routes), settings.route_files, settings.secrets) if settings.routes else None,
            blank_frames=blank_frames,
            baselines=Baselines(run.evidence, settings.snapshots, settings.update_snapshots,
                                browser=_browser_name(page), secrets=tuple(v for v in settings.secrets.values() if v)),
        )

    @property
    def page(self) -> Page:
        """The active page (v1.2: a step may open, switch to or close pages; v1 has one)."""
        return self.pages.active

    @property
    def watch(self) -> PageWatch:
        """Probes the active page when it stops answering, lets go of it (its crash is in ``events``)."""
        return PageWatch(self.pages.active, self.events)

    def check_context(self, attempt: StepAttempt) -> CheckContext:
        """What the conditions of ``attempt`` look at: checkpoints' polls, and scroll's loop between scrolls."""
        return CheckContext(
            page=self.page,
            step=attempt.spec,
            base_url=self.settings.base_url,
            allowlist=self.settings.allowlist,
            toast_selector=self.settings.toast_selector,
            overlay_selectors=self.settings.overlay_selectors,
            step_locator=attempt.target.locator if attempt.target else None,
            requested_url=attempt.requested_url,
            downloads=lambda: self.events.downloads_since(attempt.marks),
            network=self.events.network,
            upload_requests=lambda: self.events.upload_requests(attempt.marks),
            resolve_text=lambda s: resolve_secrets(s, self.settings.secrets),
            mask_name=self.run.redactor.file_name,
            mask_text=self.run.redactor.text,
            response=attempt.response,
            audit=self._audit_look(attempt),
            traffic=traffic_look(self.events, self.run, attempt),  # (v1.3) request_seen
            extension_io=self.extension_io(attempt),  # (extensions)
        )

    def extension_io(self, attempt: StepAttempt) -> ExtensionIO:
        """(extensions) What an extension's context writes through: this attempt's evidence and the trace,
        and the time left of the step's timeout_ms for the phase starting now."""
        return ExtensionIO(self.run, attempt.spec.id, attempt.tag, attempt.evidence,
                           time.monotonic() + attempt.spec.timeout_ms / 1000)

    def _audit_look(self, attempt: StepAttempt) -> AuditLook:
        """A new check of the attempt starts with no failed comparison in hand (baselines.py's pending)."""
        self.baselines.forget(attempt.tag)
        return AuditLook(self.baselines, attempt.tag, attempt.spec.id)


def _browser_name(page: Page) -> str:
    """``chromium`` / ``firefox`` / ``webkit``: a baseline's name says which browser drew it."""
    return browser_name(page) or "chromium"
