"""A step's element, resolved once per attempt, or the typed reason it could not be.

The step's alternatives are polled in U4 order until one matches exactly one
element (locators.resolve); the ResolvedTarget it gives (target, locator,
description, DOM context) is what the action, the conditions on the step's
own target and the "before" snapshot use. No match is TARGET_NOT_FOUND,
several TARGET_NOT_UNIQUE; looks that got no answer on a page that no longer
runs scripts are PAGE_UNRESPONSIVE, not a missing element. A drag's ``to``
(v1.1) is resolved the same way, in the time the step's own target left; its
failures say ``details.which: "to"`` (and the drag's own target's ``"target"``).

``look_ahead`` is the read-only work of a plan's next step, done while the
previous step's picture is drawn (balanced profile): its "before" look, its
target and its preconditions, each one look, nothing written, nothing raised
but a page that stopped answering. The step uses it only if all of it held
and the page is unchanged since; otherwise it does them itself, after the
anti-loop decision, which a failure found ahead can therefore never pre-empt.

``look_and_match`` is a "before" look taken at the step (not ahead): the look
and the first alternative's match in one round trip (``locators.match_with_look``).
The element is taken only after the anti-loop decision, and only when it is
the one match; otherwise the step resolves its target as usual.

``read_between`` is the one read between two steps: a step's "after" look and,
in the same script call, the next step's "before" look with its target matched
(``look_and_match``'s read); the step's postconditions take their first poll
from it (docs/executor.md, "One read between two steps"). When they held at
once it is the next step's ``Ahead``. In balanced, ``draw_after`` requests the
read's picture at once and, while it is drawn, takes that first poll
(``look_once``) and looks at the next step's preconditions (``held_between``).

``prepare`` decides, in one place, where a step's "before" look and its target
come from, in this order (docs/executor.md, "One step"): the one read between
two steps (when the carry-over of the previous picture holds: its target, when
it matched one element, is the step's, its preconditions count when they held),
the look-ahead's
(when the carry-over of the previous picture holds; its target and
preconditions count only when all of them held), the look read with the target
(``look_and_match``), or a look of its own and the target resolved as usual
(``resolve_step_target``). It reads the look and returns it with what it found
of the target; ``Prepared.settle``, called after the anti-loop decision, is the
step's one source of its target and checks the preconditions not already seen
to hold.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.actionspec import ActionSpec, effect_kind
from pytest_cometlocal.executor.errors import CallTimedOut, PageUnresponsive, is_crash
from pytest_cometlocal.executor.step.failures import Failures
from pytest_cometlocal.executor.page.locators import ResolvedTarget, in_main_frame, match_with_look, resolve
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.page.observation import Look, Observation, look_arg, look_of, take_look
from pytest_cometlocal.executor.page.settle import until_parsed
from pytest_cometlocal.executor.page.watchdog import CAPTURE_MS, bound
from pytest_cometlocal.executor.step.actions import action_row
from pytest_cometlocal.contract.model.checks.extension import uses_extensions
from pytest_cometlocal.executor.step.budget import counted
from pytest_cometlocal.executor.step.context import StepContext

if TYPE_CHECKING:
    from pytest_cometlocal.executor.page.conditions import CheckResult
    from pytest_cometlocal.executor.step.checkpoints import StepConditions

U4_ORDER = list(T.U4_ORDER)


def resolve_step_target(ctx: StepContext, attempt: StepAttempt, failures: Failures) -> dict[str, Any] | None:
    """Resolve the step's target (and a drag's ``to``) once for this attempt; returns what preconditions_checked
    records, None for a step without a target (a ``press`` acts on what has focus)."""
    spec = attempt.spec
    if not spec.alternatives:
        return None
    started = time.monotonic()
    # Only a step with a second element (v1.1's drag) says which of the two failed: v1 details stay as they were.
    which = {"which": "target"} if spec.drop_target is not None else {}
    attempt.target, metadata = _resolve(ctx, attempt, failures, spec.target, spec.timeout_ms, which)
    if spec.drop_target is not None:
        left_ms = max(0, spec.timeout_ms - int((time.monotonic() - started) * 1000))
        attempt.to_target, to = _resolve(ctx, attempt, failures, spec.drop_target, left_ms, {"which": "to"})
        metadata["to"] = to
    return metadata


def _resolve(ctx: StepContext, attempt: StepAttempt, failures: Failures, spec_target: Any, timeout_ms: int,
             which: dict[str, str]) -> tuple[ResolvedTarget, dict[str, Any]]:
    """One target of the step (its own, or ``to``) resolved, with its record; or the step's typed failure."""
    alternatives = spec_target if isinstance(spec_target, list) else [spec_target]
    resolution = resolve(ctx.page, alternatives, timeout_ms)
    metadata = {"attempts": [a.as_dict() for a in resolution.attempts], "rounds": resolution.rounds}
    if resolution.resolved is not None:
        return resolution.resolved, {"resolved": resolution.resolved.description, **metadata}
    if resolution.unanswered and not ctx.watch.answers():
        raise PageUnresponsive("target resolution", attempt.spec.timeout_ms, "no answer")
    details = {
        **which,
        "target": [t.model_dump(mode="json") for t in alternatives] if isinstance(spec_target, list)
        else spec_target.model_dump(mode="json"),
        "target_resolution_order": U4_ORDER,
        "count_observed": resolution.max_count,
        "attempts": [a.as_dict() for a in resolution.attempts[-len(alternatives):]],
    }
    name = "`to`" if which.get("which") == "to" else "target"
    if resolution.max_count > 1:
        details["matches_sample"] = resolution.sample
        raise failures.fail(attempt, ErrorCode.TARGET_NOT_UNIQUE, "precondition",
                            f"{name} resolution returned {resolution.max_count} matches; requires exactly 1",
                            details=details)
    raise failures.fail(attempt, ErrorCode.TARGET_NOT_FOUND, "precondition",
                        f"{name} resolution returned 0 matches; requires exactly 1", details=details)


def resolve_ahead(ctx: StepContext, attempt: StepAttempt) -> dict[str, Any] | None:
    """One look for the step's target while the previous step's picture is drawn (engine's look-ahead).

    No waiting, no failure, nothing written: the target when exactly one element
    matches now (``attempt.target`` is set, and what preconditions_checked
    records is returned), else None and the step resolves its target as usual
    (after the anti-loop decision, which therefore still wins).
    """
    spec = attempt.spec
    if not spec.alternatives or spec.drop_target is not None:
        return None
    alternatives = spec.target if isinstance(spec.target, list) else [spec.target]
    resolution = resolve(ctx.page, alternatives, 0)
    if resolution.resolved is None:
        return None
    attempt.target = resolution.resolved
    return {"resolved": resolution.resolved.description,
            "attempts": [a.as_dict() for a in resolution.attempts], "rounds": resolution.rounds}


@dataclass
class Matched:
    """The look before a step and, read in the same round trip, its target's first alternative."""

    look: Look
    target: ResolvedTarget | None
    resolution: dict[str, Any] | None


def _matchable(spec: ActionSpec) -> bool:
    """Whether the step's target can be matched in the same read as a look: one of its own, in the page's
    own document, not a drag's."""
    return bool(action_row(spec.kind).kind.resolves_target and spec.alternatives and spec.drop_target is None
                and in_main_frame(spec.alternatives[0]))


def look_and_match(ctx: StepContext, attempt: StepAttempt) -> Matched | None:
    """The "before" look and the step's target, read together (module docstring); None for a step with
    no such target (none, a URL, a drag's, one in a frame) or a page not readable that way. A document
    still being parsed is read again once it is, within the step's timeout, when the anti-loop counters
    count the state (``page/settle.py``, ``until_parsed``)."""
    spec = attempt.spec
    if not _matchable(spec):
        return None
    wait_ms = spec.timeout_ms if counted(effect_kind(spec), attempt.attempt == 1, attempt.recovery) else 0
    controls = ctx.observer.profile.decisive_pictures
    arg = look_arg(ctx.observer.secrets, controls)

    def read() -> Matched | None:
        found = match_with_look(ctx.page, spec.alternatives[0], arg, CAPTURE_MS)
        if found is None:
            return None
        tried, resolved, data = found
        return Matched(look_of(data, controls), resolved, _with_look(tried, resolved))

    return until_parsed(ctx.page, read, lambda m: None if m is None else m.look, wait_ms)


def _with_look(tried: Any, resolved: ResolvedTarget | None) -> dict[str, Any] | None:
    """What preconditions_checked records of a target matched in the same read as a look."""
    return None if resolved is None else {
        "resolved": resolved.description, "attempts": [tried.as_dict()], "rounds": 1, "with_observation": True}


@dataclass
class Ahead:
    """The next step's read-only work, done while the last picture was drawn (or read between two steps)."""

    spec: ActionSpec
    look: Look
    target: ResolvedTarget | None = None
    resolution: dict[str, Any] | None = None
    held: bool = False  # its target (if it has one) and every precondition held at that look
    # The one read between two steps (``read_between``): ``look`` is the previous step's "after" too;
    # the requests and downloads seen, and the time, when it was read.
    since: tuple[int, int, float] | None = None
    # The page stopped answering while the read's next step was looked at (held_between): the read is
    # no longer the page as it is, so the next step looks for itself.
    stale: bool = False

    @property
    def title(self) -> str:
        """The page's title as the read saw it: the first poll of the step's postconditions reads it."""
        return self.look.data["title"]


def read_between(ctx: StepContext, spec: ActionSpec, index: int, timeout_ms: int) -> Ahead | None:
    """The one read between two steps: the page's look (the step's "after", then the next step's
    "before") and, in the same script call, the next step's target (``spec``, its first alternative,
    when it is one the look can match: ``look_and_match``'s). None when the page could not be read
    that way: the step then looks as it did before (``Observer.after``, the look-ahead). When the
    anti-loop counters count the next step's state, a document still being parsed is read again once
    it is, for up to ``timeout_ms`` (the step's: the bound the read is made in; ``settle.until_parsed``)."""
    controls = ctx.observer.profile.decisive_pictures
    wait_ms = timeout_ms if counted(effect_kind(spec), True, False) else 0
    alone = not _matchable(spec) or spec.criticality == "critical" or action_row(spec.kind).kind.ends_run

    def read() -> Ahead | None:
        since = ctx.observer.counts()  # when the read that is kept was read
        if alone:
            return Ahead(spec, take_look(ctx.page, ctx.observer.secrets, controls), since=since)
        found = match_with_look(ctx.page, spec.alternatives[0], look_arg(ctx.observer.secrets, controls), CAPTURE_MS)
        if found is None:
            return None
        tried, resolved, data = found
        return Ahead(spec, look_of(data, controls), resolved, _with_look(tried, resolved), since=since)

    return until_parsed(ctx.page, read, lambda a: None if a is None else a.look, wait_ms)


def held_between(ctx: StepContext, conditions: StepConditions, ahead: Ahead, index: int) -> Ahead:
    """The read's next step with its preconditions looked at once (balanced: while the picture is drawn);
    nothing is written or raised but a page that stopped answering."""
    spec, row = ahead.spec, action_row(ahead.spec.kind)
    if row.kind.ends_run or row.url_of is not None or spec.criticality == "critical" or uses_extensions(spec):
        return ahead
    provisional = StepAttempt(spec, index, "ahead", 1, False)
    provisional.target = ahead.target
    try:
        with bound("look-ahead", CAPTURE_MS):
            if row.kind.resolves_target and spec.alternatives and ahead.target is None:
                # Not matched by the read (in a frame, a later alternative): one look, as the look-ahead's.
                ahead.resolution = resolve_ahead(ctx, provisional)
                if ahead.resolution is None:
                    return ahead
                ahead.target = provisional.target
            provisional.marks = ctx.events.mark()
            ahead.held = conditions.hold_now(provisional, spec.preconditions)
    except (CallTimedOut, PageUnresponsive):
        ahead.stale = True
        raise
    except Exception as exc:
        if is_crash(exc) or ctx.events.crashed:
            raise
    return ahead


def draw_after(ctx: StepContext, conditions: StepConditions, attempt: StepAttempt,
               read: Ahead | None) -> tuple[Ahead | None, list[CheckResult] | None]:
    """The read as the step's "after" (balanced): its picture is drawn while the step's postconditions are
    looked at once (``look_once``) and the next step's held against the read (``held_between``).
    Returns the next step's ``Ahead`` and that first look (None: not taken, the page was pictured at
    once); ``check`` decides with it, and a step whose first look failed is observed afresh. Nothing
    (None, None) without a read, or where the observer draws no picture meanwhile (fast, critical)."""
    if read is None or not ctx.observer.draws(attempt):
        return None, None
    first: list[list[CheckResult]] = []  # the first look, once taken
    frozen: list[Exception] = []  # the page stopped answering that look: the step's own failure
    phase, spec = action_row(attempt.spec.kind).kind.post_phase, attempt.spec

    def meanwhile() -> Ahead:
        try:
            with bound("postconditions", spec.timeout_ms):  # within the phase's bound: this one is said
                first.append(conditions.look_once(attempt, phase, spec.postconditions, read.title))
        except (CallTimedOut, PageUnresponsive) as exc:
            read.stale = True
            frozen.append(exc)
            raise
        return held_between(ctx, conditions, read, attempt.index + 1)

    attempt.after, held = ctx.observer.after(attempt, meanwhile, read.look.again(), read.since)
    if frozen:
        raise frozen[0]  # as the step's own poll would have (PAGE_UNRESPONSIVE during its postconditions)
    return held or (None if read.stale else read), first[0] if first else None


def look_ahead(ctx: StepContext, conditions: StepConditions, spec: ActionSpec, index: int) -> Ahead | None:
    """The read-only work of the step ``spec`` (the plan's next), as the module docstring says."""
    try:
        with bound("look-ahead", CAPTURE_MS):
            return _look_ahead(ctx, conditions, spec, index)
    except (CallTimedOut, PageUnresponsive):
        raise
    except Exception as exc:
        if is_crash(exc) or ctx.events.crashed:
            raise
        return None  # the step will do it all itself


def _look_ahead(ctx: StepContext, conditions: StepConditions, spec: ActionSpec, index: int) -> Ahead:
    look = ctx.observer.look_ahead()
    row, provisional = action_row(spec.kind), StepAttempt(spec, index, "ahead", 1, False)
    if row.kind.ends_run or row.url_of is not None or spec.criticality == "critical" or uses_extensions(spec):
        return Ahead(spec, look)  # (extensions) an extension's check is called in its own step, never ahead
    resolution = resolve_ahead(ctx, provisional) if row.kind.resolves_target else None
    if row.kind.resolves_target and spec.alternatives and resolution is None:
        return Ahead(spec, look)
    provisional.marks = ctx.events.mark()  # what the conditions see of the page's events: from now, as the step's own
    return Ahead(spec, look, provisional.target, resolution, conditions.hold_now(provisional, spec.preconditions))


@dataclass(frozen=True)
class Found:
    """The step's target found before the anti-loop decision (None for a step without one)."""

    target: ResolvedTarget | None
    resolution: dict[str, Any] | None  # what preconditions_checked records
    checked: bool  # its preconditions held with it (the look-ahead): not checked again


@dataclass(frozen=True)
class Prepared:
    """The step's "before" observation and what was found of its target with it."""

    before: Observation
    found: Found | None = None

    def settle(self, ctx: StepContext, attempt: StepAttempt, failures: Failures,
               conditions: StepConditions) -> tuple[dict[str, Any] | None, bool]:
        """The target on ``attempt`` and the preconditions checked; returns what preconditions_checked
        records: the resolution, and whether both were found ahead (``checked_ahead``)."""
        found, spec = self.found, attempt.spec
        resolution = None
        if found is not None:
            attempt.target, resolution = found.target, found.resolution
        elif action_row(spec.kind).kind.resolves_target:
            resolution = resolve_step_target(ctx, attempt, failures)
        checked = found is not None and found.checked
        if not checked:
            conditions.check(attempt, "pre", spec.preconditions)
        return resolution, checked


def prepare(ctx: StepContext, attempt: StepAttempt, ahead: Ahead | None) -> Prepared:
    """The step's "before" look, from the first source that applies (module docstring).

    ``ahead`` is the look-ahead done for the plan's next step; it is this
    step's only on its first attempt, outside a recovery.
    """
    if ahead is not None and (ahead.spec is not attempt.spec or attempt.attempt > 1 or attempt.recovery):
        ahead = None
    if ahead is not None and ahead.look.loading and counted(effect_kind(attempt.spec), True, False):
        ahead = None  # a counted state is never a document still being parsed: the step looks, and waits
    observer = ctx.observer
    previous = observer.carried(attempt)
    if ahead is not None and ahead.since is not None and previous is not None:  # the one read between two steps
        found = Found(ahead.target, ahead.resolution, ahead.held) if ahead.target or ahead.held else None
        return Prepared(observer.before(attempt, previous, ahead.look), found)
    if ahead is not None and (before := observer.before_ahead(previous, ahead.look)) is not None:
        return Prepared(before, Found(ahead.target, ahead.resolution, True) if ahead.held else None)
    matched = None if ctx.events.crashed else look_and_match(ctx, attempt)
    before = observer.before(attempt, previous, matched.look if matched else None)
    if matched is None or matched.target is None:
        return Prepared(before)
    return Prepared(before, Found(matched.target, matched.resolution, False))
