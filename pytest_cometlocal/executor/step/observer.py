"""The executor's looks at the page: one observation before and one after each step.

``page/observation.py`` knows how to look at a page; this module knows when the
executor looks, which pictures the run's profile asks for (``ProfileRow``):
full size on critical steps (every step in ``forensic``), and in ``fast`` a
picture only where it can decide, and what it may reuse: the previous step's
"after" carries its picture (or, in ``fast``, its lack of one) over to the next
step's "before" when nothing can have changed the page in between. It also
keeps the last observation, the state a failure names when the page can no
longer be looked at.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.contract.model.profiles import DEFAULT_PROFILE, FAST_ALGORITHM
from pytest_cometlocal.executor.errors import CallTimedOut, Crashed, PageUnresponsive, first_line
from pytest_cometlocal.executor.page.observation import (
    BlankFrames, Look, Observation, finish, observe, observe_pending, same_page, take_look, take_pictures)
from pytest_cometlocal.executor.page.events import PageEvents
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.contract.model.actionspec import effect_kind
from pytest_cometlocal.executor.step.budget import counted

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_cometlocal.executor.pages.pages import Pages



@dataclass(frozen=True)
class ProfileRow:
    """What an execution profile changes in a step (contract/model/profiles.py names them): one row per
    profile, read here, by the policy counters and by the evidence. A profile never changes what a step
    does or how its outcome is decided."""

    name: str
    # The DOM-derived part of a state covers the form controls' state and the focus (so
    # a run of fills on one form is not one state), and a picture is taken only where it
    # can decide: a DOM-derived state already seen in the run, a critical step, a failure.
    decisive_pictures: bool = False
    # Every step's evidence is a critical step's: full-size screenshots and the HTML.
    full_every_step: bool = False
    # The signatures' own algorithm_version; None: the picture's method (v1 / v2-frame-320).
    algorithm: str | None = None


PROFILE_ROWS: dict[str, ProfileRow] = {
    "balanced": ProfileRow("balanced"),
    "fast": ProfileRow("fast", decisive_pictures=True, algorithm=FAST_ALGORITHM),
    "forensic": ProfileRow("forensic", full_every_step=True),
}


def profile_row(name: str | None) -> ProfileRow:
    return PROFILE_ROWS[name or DEFAULT_PROFILE]


# How old the previous step's "after" observation may be for the next step's
# "before" to carry its screenshot over.
CARRY_MAX_AGE_S = 1.0

# metadata.screenshot in the fast profile: why a signature has, or has not, a picture.
NEW_STATE = "not taken: no earlier step started from this DOM-derived state (fast profile)"
NOT_COUNTED = "not taken: the anti-loop counters do not count this step's state (fast profile)"
AFTER_STATE = "not taken: the state after a step is not compared (fast profile)"
SEEN_STATE = "taken: an earlier step started from this DOM-derived state"
FULL_SIZE = "taken: a critical step or a failure"
CARRIED = "as the previous observation: the page is unchanged since"


class Observer:
    def __init__(self, pages: Pages, events: PageEvents, secrets: tuple[str, ...],
                 profile: ProfileRow = PROFILE_ROWS["balanced"], blanks: BlankFrames | None = None):
        self.pages = pages  # looks are always at the active page
        self.events = events
        self.secrets = secrets
        self.profile = profile
        self.blanks = blanks if blanks is not None else BlankFrames()  # the run context's frames of empty pages
        self.last: Observation | None = None
        self.seen: set[str] = set()  # the DOM-derived keys counted steps of this run started from (fast)
        # The last step's "after" with the request and download counts when it was taken.
        self._carry: tuple[Observation, int, int, float, Page] | None = None

    @property
    def page(self) -> Page:
        return self.pages.active

    def _named(self, observation: Observation) -> Observation:
        """(v1.2) Once the run has several pages, the signature names the active page's index."""
        extra = self.pages.signature_metadata()
        if extra:
            observation.signature.metadata.update(extra)
        return observation

    def observe(self, previous: Observation | None = None, full: bool = False, seen: Look | None = None,
                visit: bool = False, before: bool = False, wait_ms: float = 0) -> Observation:
        """A look at the page (``seen``: one just read); ``full`` adds the full-size screenshot (evidence of a
        failure); ``before``: the look before a step; ``visit``: one the anti-loop counters count; ``wait_ms``:
        how long a document still being parsed is waited for (``page/settle.py``, ``until_parsed``)."""
        if self.events.crashed:
            raise Crashed("page crashed")
        if seen is None:  # (the fast profile's look holds the controls' state)
            seen = take_look(self.page, self.secrets, controls=self.profile.decisive_pictures, wait_ms=wait_ms)
        if self.profile.decisive_pictures:
            observation = self._decisive(previous, full, seen, visit, before)
        else:
            observation = observe(self.page, secrets=self.secrets, previous=previous, full=full, seen=seen,
                                  blanks=self.blanks)
        self.last = self._named(observation)
        return observation

    def _decisive(self, previous: Observation | None, full: bool, seen: Look | None, visit: bool,
                  before: bool) -> Observation:
        """The fast profile's look: the DOM first, a picture only where it can change a decision.

        Only the states side-effecting steps start from are counted by the
        anti-loop counters (``budget.counted``). One whose DOM-derived part no
        earlier counted step started from cannot be a revisit, so its picture
        could decide nothing: it is not taken; nor is that of a state not
        counted (an assert's, a retry's, the state after a step). One that an
        earlier counted step started from gets a fresh picture, which tells a page that
        changed only visually from one that did not change; critical steps and
        failures get theirs at full size, as evidence, hashed as they are (one
        capture, not a frame and a PNG; pictures taken two ways are not compared).
        """
        assert seen is not None  # read by ``observe``
        shot = png = None
        method = "none"
        if full:
            # The full-size PNG is the evidence, and its hash the picture: no frame besides it.
            shot, png, method = take_pictures(self.page, seen, True, frame_hash=False, blanks=self.blanks)
            reason = FULL_SIZE
        elif previous is not None and previous.screenshot is not None and same_page(previous, seen):
            shot, method = previous.screenshot, previous.signature.metadata.get("screenshot_method", "none")
            reason = CARRIED
            seen.metadata["screenshot_from"] = "previous_observation"
        elif visit and seen.dom_key in self.seen:
            shot, png, method = take_pictures(self.page, seen, False, blanks=self.blanks)
            reason = SEEN_STATE
        else:
            reason = NEW_STATE if visit else NOT_COUNTED if before else AFTER_STATE
        if visit:
            self.seen.add(seen.dom_key)
        seen.metadata["screenshot"] = reason
        if shot is not None:
            seen.metadata["screenshot_method"] = method
        return finish(seen, shot, png, method, algorithm=self.profile.algorithm)

    def full(self, attempt: StepAttempt) -> bool:
        # A critical step's screenshots are its evidence: full size, before and after (forensic: every step's).
        return attempt.spec.criticality == "critical" or self.profile.full_every_step

    def before_ahead(self, previous: Observation | None, ahead: Look) -> Observation | None:
        """The look-ahead's look (balanced) as the look before the step, or None when it cannot be.

        It was taken while the previous step's picture was drawn; it stands only
        where the carry-over holds (``previous``: ``carried``) and it read exactly
        what the previous "after" read, so that picture stands for it.
        """
        if previous is None or previous.screenshot is None or self.profile.decisive_pictures \
                or not same_page(previous, ahead):
            return None
        if self.events.crashed:
            raise Crashed("page crashed")
        ahead.metadata["screenshot_from"] = "previous_observation"
        self.last = self._named(finish(ahead, previous.screenshot, None, previous.signature.algorithm_version))
        return self.last

    def before(self, attempt: StepAttempt, previous: Observation | None, seen: Look | None = None) -> Observation:
        """The look before the step, taken now; ``seen``: one just read (with the step's target,
        ``target.look_and_match``); ``previous``: ``carried``, whose picture it may carry over."""
        visit = counted(effect_kind(attempt.spec), attempt.attempt == 1, attempt.recovery)
        # A state the counters count is never that of a document still being parsed (settle.until_parsed).
        return self.observe(previous=previous, full=self.full(attempt), seen=seen, visit=visit, before=True,
                            wait_ms=attempt.spec.timeout_ms if visit else 0)

    def after(self, attempt: StepAttempt, meanwhile: Callable[[], Any] | None = None, seen: Look | None = None,
              since: tuple[int, int, float] | None = None) -> tuple[Observation, Any]:
        """The look after the step; in ``balanced``, ``meanwhile()`` (read-only: the next step's look-ahead)
        runs while its picture is drawn, and its result is returned with the observation. ``seen``: the one
        read between two steps, read already; ``since``: the requests and downloads seen, and the time, then
        (what the carry-over compares with)."""
        done = None
        if meanwhile is not None and self.draws(attempt):
            if self.events.crashed:
                raise Crashed("page crashed")
            pending = observe_pending(self.page, self.secrets, self.blanks, seen)
            counts = len(self.events.requests), len(self.events.downloads)
            stuck = None
            if pending.waiting:
                try:
                    done = meanwhile()
                except (CallTimedOut, PageUnresponsive) as exc:
                    # The page stopped answering while the next step was looked at: this step's own look is
                    # done, so it keeps it (without a picture); the next step finds the page as it is.
                    stuck = pending.abandon(f"not taken: the page stopped answering while the next step was "
                                            f"looked at ahead ({first_line(exc)})")
                except BaseException:
                    pending.cancel()
                    raise
            observation = self.last = self._named(stuck or pending.result())
        else:
            observation = self.observe(full=self.full(attempt), seen=seen)
            counts = len(self.events.requests), len(self.events.downloads)
        requests, downloads, taken = since if since is not None else (*counts, time.monotonic())
        self._carry = (observation, requests, downloads, taken, self.page)
        return observation, done

    def draws(self, attempt: StepAttempt) -> bool:
        """Whether the step's "after" picture is drawn while read-only work runs (``after``'s meanwhile)."""
        return not self.profile.decisive_pictures and not self.full(attempt)

    def counts(self) -> tuple[int, int, float]:
        """The requests and downloads seen so far, and the time: what a read's carry-over compares with."""
        return len(self.events.requests), len(self.events.downloads), time.monotonic()

    def look_ahead(self) -> Look:
        """The DOM read of the next step's "before", taken while this step's picture is drawn."""
        return take_look(self.page, self.secrets)

    def carried(self, attempt: StepAttempt) -> Observation | None:
        """The previous step's "after", if nothing can have changed the page since (read once per step).

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
        if carry is None or self.full(attempt) or attempt.attempt > 1 or attempt.recovery:
            return None
        observation, requests, downloads, taken, page = carry
        if page is not self.page:  # the active page changed since (a popup that closed itself)
            return None
        if requests != len(self.events.requests) or downloads != len(self.events.downloads):
            return None
        if time.monotonic() - taken > CARRY_MAX_AGE_S:
            return None
        return observation
