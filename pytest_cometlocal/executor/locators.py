"""Targets compile to Playwright locators one to one, with no heuristics.

testid -> get_by_test_id, role -> get_by_role, label -> get_by_label,
text -> get_by_text, css -> locator("css=..."), xpath -> locator("xpath=..."),
frame -> frame_locator(selector) + inner, nth -> base.nth(index).

``exact: true`` is Playwright's exact match (case-sensitive, whole string,
whitespace trimmed); ``normalize_ws: true`` alone is its default matching
(whitespace normalised, case-insensitive substring).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..contract import targets as T
from .bounded import bounded
from .observe import TARGET_CONTEXT_JS


def compile_target(root: Any, target: T.AnyTarget) -> Any:
    """``root`` is a Page, Frame or FrameLocator; returns a Locator."""
    if isinstance(target, T.TestIdTarget):
        return root.get_by_test_id(target.id)
    if isinstance(target, T.RoleTarget):
        kwargs: dict[str, Any] = {}
        if target.name is not None:
            kwargs["name"] = target.name
        if target.exact is not None:
            kwargs["exact"] = target.exact
        return root.get_by_role(target.role, **kwargs)
    if isinstance(target, T.LabelTarget):
        return root.get_by_label(target.text, exact=bool(target.exact))
    if isinstance(target, T.TextTarget):
        return root.get_by_text(target.text, exact=bool(target.exact))
    if isinstance(target, T.CssTarget):
        return root.locator(f"css={target.selector}")
    if isinstance(target, T.XPathTarget):
        return root.locator(f"xpath={target.selector}")
    if isinstance(target, T.FrameTarget):
        return compile_target(root.frame_locator(target.selector), target.inner)
    if isinstance(target, T.NthTarget):
        return compile_target(root, target.base).nth(target.index)
    raise TypeError(f"{target.type} targets do not compile to a locator")


def describe_compiled(target: T.AnyTarget) -> str:
    """The Playwright call a target compiles to, for the action_compiled event."""
    if isinstance(target, T.TestIdTarget):
        return f"get_by_test_id({target.id!r})"
    if isinstance(target, T.RoleTarget):
        args = [repr(target.role)]
        if target.name is not None:
            args.append(f"name={target.name!r}")
        if target.exact is not None:
            args.append(f"exact={target.exact}")
        return f"get_by_role({', '.join(args)})"
    if isinstance(target, T.LabelTarget):
        return f"get_by_label({target.text!r}, exact={bool(target.exact)})"
    if isinstance(target, T.TextTarget):
        return f"get_by_text({target.text!r}, exact={bool(target.exact)})"
    if isinstance(target, T.CssTarget):
        return f"locator('css={target.selector}')"
    if isinstance(target, T.XPathTarget):
        return f"locator('xpath={target.selector}')"
    if isinstance(target, T.FrameTarget):
        return f"frame_locator({target.selector!r}).{describe_compiled(target.inner)}"
    if isinstance(target, T.NthTarget):
        return f"{describe_compiled(target.base)}.nth({target.index})"
    return f"goto({target.url!r})"


# At most five matches, described for a TARGET_NOT_UNIQUE error's details.
SAMPLE_JS = r"""
(e) => ({
  tag: e.tagName.toLowerCase(), id: e.id || null, role: e.getAttribute("role"),
  testid: e.getAttribute("data-testid"), name: e.getAttribute("name"),
  aria_label: e.getAttribute("aria-label"),
  text: (e.innerText || "").replace(/\s+/g, " ").trim().slice(0, 60),
})
"""


@dataclass
class Attempt:
    alternative: int
    target: dict[str, Any]
    compiled: str
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {"alternative": self.alternative, "target": self.target, "compiled": self.compiled, "count": self.count}


@dataclass
class Resolution:
    """Outcome of resolving a step's target(s): the winning locator or the counts seen."""

    locator: Any | None
    target: T.AnyTarget | None
    attempts: list[Attempt] = field(default_factory=list)
    max_count: int = 0
    sample: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0
    # The matched element as it was when resolved, before the action (TARGET_CONTEXT_JS).
    context: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.locator is not None


# One round trip per alternative and polling round: the number of matches; for
# exactly one, the element described for the "before" DOM snapshot
# (TARGET_CONTEXT_JS); for several, a sample of them for TARGET_NOT_UNIQUE.
# Functions defined in the evaluated script itself, not eval(): pages with a
# CSP that forbids eval must still be resolved.
_MATCH_JS = "(els) => { const targetContext = " + TARGET_CONTEXT_JS.strip() + ";\n" \
    "const sample = " + SAMPLE_JS.strip() + ";\n" \
    "return {count: els.length, context: els.length === 1 ? targetContext(els[0]) : null,\n" \
    "        sample: els.length > 1 ? els.slice(0, 5).map(sample) : []}; }"


@dataclass
class _Match:
    count: int
    context: dict[str, Any] | None = None
    sample: list[dict[str, Any]] = field(default_factory=list)


# A last round still gets this long, however little of the step's timeout is left.
MIN_MATCH_BOUND_MS = 250


def _match(locator: Any, bound_ms: float) -> _Match:
    """What ``locator`` matches now (see _MATCH_JS); no match when the frame is not ready.

    ``evaluate_all`` never waits for matches (as ``count`` does not); it waits
    for the frame's execution context, which a pending navigation can keep
    from existing, so the call is bounded by the time left to resolve.
    """
    try:
        out = bounded(locator, "evaluate_all", bound_ms, _MATCH_JS, None)
        return _Match(int(out["count"]), out["context"], out["sample"])
    except Exception as exc:  # a frame not attached yet, a detached context, the bound
        if "Target" in type(exc).__name__ or "closed" in str(exc).lower():
            raise
        return _Match(0)


def resolve(page: Any, alternatives: list[T.AnyTarget], timeout_ms: int, record_limit: int = 60) -> Resolution:
    """Poll the alternatives in U4 order until one matches exactly one element.

    Every polling round tries every alternative; the first attempts and the
    last round are recorded (bounded, so a long wait cannot bloat the trace).
    """
    deadline = time.monotonic() + timeout_ms / 1000
    compiled = [(alt, compile_target(page, alt), describe_compiled(alt)) for alt in alternatives]
    result = Resolution(None, None)
    delay = 0.02
    while True:
        result.rounds += 1
        round_attempts = []
        for i, (alt, locator, text) in enumerate(compiled):
            match = _match(locator, max(MIN_MATCH_BOUND_MS, (deadline - time.monotonic()) * 1000))
            round_attempts.append(Attempt(i, alt.model_dump(mode="json"), text, match.count))
            if match.count > result.max_count:
                result.max_count, result.sample = match.count, match.sample
            if match.count == 1:
                result.locator, result.target, result.context = locator, alt, match.context
                break
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
        pause = min(delay, max(0.0, deadline - time.monotonic()))
        try:
            page.wait_for_timeout(pause * 1000)  # keeps Playwright's events flowing
        except Exception:
            time.sleep(pause)
        delay = min(delay * 2, 0.2)
