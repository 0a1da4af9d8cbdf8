"""The executor's looks at the page: one observation before and one after each step.

``page/observation.py`` knows how to look at a page; this module knows when the
executor looks, when a full-size screenshot is needed (critical steps) and
what it may reuse: the previous step's "after" carries its frame over to the next step's "before" when nothing can have changed the
page in between. It also keeps the last observation, the state a failure
names when the page can no longer be looked at.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pytest_cometlocal.executor.errors import Crashed
from pytest_cometlocal.executor.page.observation import Observation, observe
from pytest_cometlocal.executor.page.events import PageEvents
from pytest_cometlocal.executor.results import StepAttempt

if TYPE_CHECKING:
    from playwright.sync_api import Page

# How old the previous step's "after" observation may be for the next step's
# "before" to carry its screenshot over.
CARRY_MAX_AGE_S = 1.0


class Observer:
    def __init__(self, page: Page, events: PageEvents, secrets: tuple[str, ...]):
        self.page = page
        self.events = events
        self.secrets = secrets
        self.last: Observation | None = None
        # The last step's "after" with the request and download counts when it was taken.
        self._carry: tuple[Observation, int, int, float] | None = None

    def observe(self, previous: Observation | None = None, full: bool = False) -> Observation:
        """A look at the page; ``full`` adds the full-size screenshot (evidence of a failure)."""
        if self.events.crashed:
            raise Crashed("page crashed")
        observation = observe(self.page, secrets=self.secrets, previous=previous, full=full)
        self.last = observation
        return observation

    def before(self, attempt: StepAttempt) -> Observation:
        # A critical step's screenshots are its evidence: full size, before and after.
        return self.observe(previous=self._carried(attempt), full=attempt.spec.criticality == "critical")

    def after(self, attempt: StepAttempt) -> Observation:
        observation = self.observe(full=attempt.spec.criticality == "critical")
        self._carry = (observation, len(self.events.requests), len(self.events.downloads), time.monotonic())
        return observation

    def _carried(self, attempt: StepAttempt) -> Observation | None:
        """The previous step's "after", if nothing can have changed the page since.

        Nothing the executor does runs between one step's "after" and the next
        step's "before" but trace and evidence writes; the page itself could
        still change, so ``observe`` compares the DOM-derived data, and here a
        request started or a download since then rules the carry-over out. A
        critical step always gets a fresh screenshot: it is its evidence. And
        the carry-over only spans the moment between two steps of a plan: a
        planner proposing steps one by one may think for seconds, in which a
        timer could repaint the page without touching the DOM.
        """
        carry, self._carry = self._carry, None
        if carry is None or attempt.spec.criticality == "critical" or attempt.attempt > 1 or attempt.recovery:
            return None
        observation, requests, downloads, taken = carry
        if requests != len(self.events.requests) or downloads != len(self.events.downloads):
            return None
        if time.monotonic() - taken > CARRY_MAX_AGE_S:
            return None
        return observation
