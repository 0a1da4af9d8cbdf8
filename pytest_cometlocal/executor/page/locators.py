"""Targets compile to Playwright locators one to one, with no heuristics.

testid -> get_by_test_id, role -> get_by_role, label -> get_by_label,
text -> get_by_text, css -> locator("css=..."), xpath -> locator("xpath=..."),
frame -> frame_locator(selector) + inner, nth -> base.nth(index).

``exact: true`` is Playwright's exact match (case-sensitive, whole string,
whitespace trimmed); ``normalize_ws: true`` alone is its default matching
(whitespace normalised, case-insensitive substring).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Union

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.executor.errors import CallTimedOut, is_crash
from pytest_cometlocal.executor.page.observation import OBSERVE_JS
from pytest_cometlocal.executor.page.watchdog import bound
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Frame, FrameLocator, Locator, Page

# What a target compiles from: a page, one of its frames, or a frame_locator's inside.
LocatorRoot = Union["Page", "Frame", "FrameLocator"]


def _role(root: LocatorRoot, t: T.RoleTarget) -> Locator:
    """(v1.2) The filters are get_by_role's own keyword arguments, so U1 counts what they leave."""
    kwargs: dict[str, Any] = {}
    if t.name is not None:
        kwargs["name"] = t.name
    if t.exact is not None:
        kwargs["exact"] = t.exact
    return root.get_by_role(t.role, **kwargs, **t.filters)


def _describe_role(t: T.RoleTarget) -> str:
    args = [repr(t.role)]
    if t.name is not None:
        args.append(f"name={t.name!r}")
    if t.exact is not None:
        args.append(f"exact={t.exact}")
    args += [f"{k}={v}" for k, v in t.filters.items()]
    return f"get_by_role({', '.join(args)})"


# One row per target type: how it compiles to a Playwright locator from a root
# (Page, Frame or FrameLocator), and the Playwright call it reads as.
COMPILERS: dict[type, tuple[Callable[[LocatorRoot, Any], Locator], Callable[[Any], str]]] = {
    T.TestIdTarget: (lambda root, t: root.get_by_test_id(t.id), lambda t: f"get_by_test_id({t.id!r})"),
    T.RoleTarget: (_role, _describe_role),
    T.LabelTarget: (lambda root, t: root.get_by_label(t.text, exact=bool(t.exact)),
                    lambda t: f"get_by_label({t.text!r}, exact={bool(t.exact)})"),
    T.TextTarget: (lambda root, t: root.get_by_text(t.text, exact=bool(t.exact)),
                   lambda t: f"get_by_text({t.text!r}, exact={bool(t.exact)})"),
    T.CssTarget: (lambda root, t: root.locator(f"css={t.selector}"), lambda t: f"locator('css={t.selector}')"),
    T.XPathTarget: (lambda root, t: root.locator(f"xpath={t.selector}"), lambda t: f"locator('xpath={t.selector}')"),
    T.FrameTarget: (lambda root, t: compile_target(root.frame_locator(t.selector), t.inner),
                    lambda t: f"frame_locator({t.selector!r}).{describe_compiled(t.inner)}"),
    T.NthTarget: (lambda root, t: compile_target(root, t.base).nth(t.index),
                  lambda t: f"{describe_compiled(t.base)}.nth({t.index})"),
    T.UrlTarget: (None, lambda t: f"goto({t.url!r})"),  # type: ignore[dict-item]
}


def compile_target(root: LocatorRoot, target: T.AnyTarget) -> Locator:
    """``root`` is a Page, Frame or FrameLocator; returns a Locator."""
    compile_fn = COMPILERS[type(target)][0]
    if compile_fn is None:
        raise TypeError(f"{target.type} targets do not compile to a locator")
    return compile_fn(root, target)


def describe_compiled(target: T.AnyTarget) -> str:
    """The Playwright call a target compiles to, for the action_compiled event."""
    return COMPILERS[type(target)][1](target)


# The element a target resolved to, as it was before the action (scripts/target_context.js): the
# "before" DOM snapshot's target, its first ancestors and siblings.
TARGET_CONTEXT_JS = load_script(__package__, "target_context.js")
# At most five matches, described for a TARGET_NOT_UNIQUE error's details (scripts/sample.js).
SAMPLE_JS = load_script(__package__, "sample.js")


@dataclass
class Attempt:
    alternative: int
    target: dict[str, Any]
    compiled: str
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {"alternative": self.alternative, "target": self.target, "compiled": self.compiled, "count": self.count}


@dataclass(frozen=True)
class ResolvedTarget:
    """A step's element, resolved once per attempt: everything later parts of the step need of it."""

    target: T.AnyTarget  # the alternative that matched exactly one element
    locator: Locator
    description: str  # the Playwright call it compiles to
    context: dict[str, Any] | None  # the element as it was when resolved, before the action (TARGET_CONTEXT_JS)


@dataclass
class Resolution:
    """Outcome of resolving a step's target(s): the resolved target or the counts seen."""

    resolved: ResolvedTarget | None = None
    attempts: list[Attempt] = field(default_factory=list)
    max_count: int = 0
    sample: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0
    unanswered: int = 0  # looks that got no answer within their bound (a pending navigation, a stuck page)

    @property
    def ok(self) -> bool:
        return self.resolved is not None


# Results come back as one JSON string: Playwright's own serialisation of a nested
# object costs far more than the script that builds it (see observation.py).
# One round trip per alternative and polling round: the number of matches; for
# exactly one, the element described for the "before" DOM snapshot
# (TARGET_CONTEXT_JS); for several, a sample of them for TARGET_NOT_UNIQUE.
# Functions defined in the evaluated script itself, not eval(): pages with a
# CSP that forbids eval must still be resolved.
_MATCH_JS = load_script(__package__, "match.js", target_context=TARGET_CONTEXT_JS, sample=SAMPLE_JS)


@dataclass
class _Match:
    count: int
    context: dict[str, Any] | None = None
    sample: list[dict[str, Any]] = field(default_factory=list)
    unanswered: bool = False


# The match and the observation's look together (scripts/match_observe.js): the fast profile's "before".
_MATCH_OBSERVE_JS = load_script(__package__, "match_observe.js", match=_MATCH_JS, observe=OBSERVE_JS)


def in_main_frame(target: T.AnyTarget) -> bool:
    """Whether ``target``'s matches are in the page's own document (a look there is the page's look)."""
    while isinstance(target, T.NthTarget):
        target = target.base
    return not isinstance(target, (T.FrameTarget, T.UrlTarget))


def match_with_look(page: Page, target: T.AnyTarget, arg: dict[str, Any],
                    bound_ms: float) -> tuple[Attempt, ResolvedTarget | None, Any] | None:
    """One alternative's match and the page's look (OBSERVE_JS's data, given ``arg``) in one round trip.

    ``target`` is in the main frame (``in_main_frame``). None when the page
    could not be read this way (between two documents, not answering in
    time): the caller then looks and resolves the usual way.
    """
    locator, description = compile_target(page, target), describe_compiled(target)
    try:
        with bound("observation", bound_ms):
            out = json.loads(locator.evaluate_all(_MATCH_OBSERVE_JS, arg))
        match = json.loads(out["match"])  # a page that broke the script: the usual way types it (take_look)
        count, context, look = int(match["count"]), match["context"], out["look"]  # the look's text: look_of checks it
    except CallTimedOut:
        return None
    except Exception as exc:
        if is_crash(exc):
            raise
        return None
    resolved = ResolvedTarget(target, locator, description, context) if count == 1 else None
    return Attempt(0, target.model_dump(mode="json"), description, count), resolved, look


# A last round still gets this long, however little of the step's timeout is left.
MIN_MATCH_BOUND_MS = 250
LATE_ANSWER_BOUND_MS = 2000  # resolve_now's second look, after one that got no answer


# A condition's target needs only the count: no description, no sample.
_COUNT_JS = load_script(__package__, "count.js")


def _match(locator: Locator, bound_ms: float, script: str = _MATCH_JS) -> _Match:
    """What ``locator`` matches now (see _MATCH_JS); no match when the frame is not ready.

    ``evaluate_all`` never waits for matches (as ``count`` does not); it waits
    for the frame's execution context, which a pending navigation can keep
    from existing, so the call is bounded by the time left to resolve. A page
    that stops answering is noticed by the step's own bound around this one.
    """
    try:
        with bound("target resolution", bound_ms):
            out = json.loads(locator.evaluate_all(script))
        return _Match(int(out["count"]), out["context"], out["sample"])
    except CallTimedOut:
        return _Match(0, unanswered=True)
    except Exception as exc:  # a frame not attached yet, a detached context
        if is_crash(exc):
            raise
        return _Match(0)


def resolve(page: Page, alternatives: list[T.AnyTarget], timeout_ms: int, record_limit: int = 60) -> Resolution:
    """Poll the alternatives in U4 order until one matches exactly one element.

    Every polling round tries every alternative; the first attempts and the
    last round are recorded (bounded, so a long wait cannot bloat the trace).
    """
    deadline = time.monotonic() + timeout_ms / 1000
    compiled = [(alt, compile_target(page, alt), describe_compiled(alt)) for alt in alternatives]
    result = Resolution()
    delay = 0.02
    while True:
        result.rounds += 1
        round_attempts = _round(compiled, result, deadline)
        if len(result.attempts) < record_limit:
            result.attempts.extend(round_attempts[: record_limit - len(result.attempts)])
        if result.ok:
            if result.attempts[-1:] != round_attempts[-1:]:
                result.attempts.append(round_attempts[-1])
            return result
        if time.monotonic() >= deadline:
            if result.attempts[-len(round_attempts):] != round_attempts:
                result.attempts.extend(round_attempts)
            return result
        pause(page, min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 2, 0.2)


def resolve_now(page: Page, alternatives: list[T.AnyTarget]) -> Resolution:
    """One look, no waiting: what a condition's target matches at this moment.

    A look that got no answer within its short bound (a loaded machine, a frame whose
    context is not ready yet) is taken once more with a longer one before it counts as
    nothing: an element the page shows is never reported as matching 0 because the
    answer came late.
    """
    compiled = [(alt, compile_target(page, alt), describe_compiled(alt)) for alt in alternatives]
    result = Resolution(rounds=1)
    result.attempts = _round(compiled, result, time.monotonic(), _COUNT_JS)
    if result.unanswered and result.resolved is None:
        result = Resolution(rounds=2)
        result.attempts = _round(compiled, result, time.monotonic() + LATE_ANSWER_BOUND_MS / 1000, _COUNT_JS)
    return result


def _round(compiled: list[tuple[T.AnyTarget, Locator, str]], result: Resolution, deadline: float,
           script: str = _MATCH_JS) -> list[Attempt]:
    attempts = []
    for i, (alt, locator, text) in enumerate(compiled):
        match = _match(locator, max(MIN_MATCH_BOUND_MS, (deadline - time.monotonic()) * 1000), script)
        attempts.append(Attempt(i, alt.model_dump(mode="json"), text, match.count))
        result.unanswered += match.unanswered
        if match.count > result.max_count:
            result.max_count, result.sample = match.count, match.sample
        if match.count == 1:
            result.resolved = ResolvedTarget(alt, locator, text, match.context)
            break
    return attempts


def pause(page: Page, seconds: float) -> None:
    """Wait between two looks while Playwright keeps delivering events.

    A plain ``time.sleep`` would stall the sync API's event loop, so a download
    or a request that happened meanwhile would not be seen until the next call.
    """
    try:
        page.wait_for_timeout(seconds * 1000)
    except Exception as exc:
        if is_crash(exc):
            raise
        time.sleep(seconds)


def poll_until(page: Page, deadline: float, look: Callable[[], bool]) -> bool:
    """Look until ``look()`` is true or ``deadline`` (a ``time.monotonic()``) has passed; the last look is at or after it.

    The pause between looks grows from 20 ms to 200 ms (``pause``): a polling
    interval, never a fixed wait for the page.
    """
    delay = 0.02
    while True:
        if look():
            return True
        if time.monotonic() >= deadline:
            return False
        pause(page, min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 2, 0.2)


def next_look_in(missing: list[int], ready_at: dict[int, float], delay: float) -> float:
    """Seconds until poll's next look: the growing ``delay``, or, when every missing condition named the
    moment it will hold (``ready_at``), the latest of those moments (none in the past)."""
    if not all(key in ready_at for key in missing):
        return delay
    return max(0.0, max(ready_at[key] for key in missing) - time.monotonic())


def call_ms(deadline: float) -> float:
    """How long a Playwright call may take to end by ``deadline``; a last call still gets MIN_MATCH_BOUND_MS."""
    return max(MIN_MATCH_BOUND_MS, (deadline - time.monotonic()) * 1000)


def matches_now(locator: Locator) -> dict[str, Any] | None:
    """What a condition that could not read its element finds now: None while the locator still
    matches one element, else its count and a sentence (the element vanished, or it is ambiguous),
    for ``observed`` instead of a raw Playwright timeout."""
    try:
        count = locator.count()
    except Exception as exc:
        if is_crash(exc):
            raise
        return None
    return not_one(count)


def not_one(count: int) -> dict[str, Any] | None:
    """None for exactly one match, else ``observed``'s count and sentence (nothing matches, or several do)."""
    if count == 1:
        return None
    return {"count": count, "problem": "the target now matches nothing" if count == 0
            else f"the target now matches {count} elements"}


def condition_locators(page: Page, spec: Any, step_locator: Locator | None, step_target: Any) -> list[Locator] | None:
    """(v1.2) The locators of a condition that counts matches rather than needs one (element_hidden,
    element_texts_equal): its own target's alternatives, else the step's resolved element, else the
    step's alternatives; None when there is no element target."""
    if spec is None:
        if step_locator is not None:
            return [step_locator]
        spec = step_target
        if spec is None or isinstance(spec, T.UrlTarget):
            return None
    return [compile_target(page, alt) for alt in (spec if isinstance(spec, list) else [spec])]
