"""Suggested targets: when a step's target fails, up to three targets that would work now, never applied.

A renamed button, a reworded label or a removed test id turns a plan red;
the executor has just looked at the page, so it can say which target would
have worked. It only *suggests*: the step still fails with its code, and the
suggestions are data in the error's ``details.suggestions``, a list of
``{target, matched, score, why}`` (``rationale`` too for an ``nth``), best
first. Nothing is ever applied to a plan or retried with a suggestion.

When: a step's ``TARGET_NOT_FOUND`` or ``TARGET_NOT_UNIQUE`` (of a drag's
``to`` when ``details.which`` says so; none for a dropdown's option), and an element
condition (``element_*`` other than ``element_count_equals``) whose target
matched none or several elements (PRECONDITION_FAILED, POSTCONDITION_FAILED,
NAVIGATION_TIMEOUT). Only for an attempt that will not be retried by
``policy.retry_on``, and never on a passing step: the work happens in
``Failures.fail``, on the failure path only.

How (``suggest``): one bounded look at the page (``scripts/candidates.js``,
at most ``MAX_SCAN`` elements walked), a pure ranking (``ranking``),
then each candidate's targets, most robust first, checked on the page with
the executor's own target compiler (``locators.compile_target``): a target
is kept only if it matches exactly one element, and that element is the
candidate. For ``TARGET_NOT_UNIQUE`` the suggestions narrow the match: a
target of one of the matches of its own (its test id first), an attribute
only that match has (``a[href="?_sort=genre"]``), then ``nth`` with the
``metadata.target_rationale`` rule U3 asks for; each is kept only when its
one element on the page is one of the matches (an overlay elsewhere with a
test id of its own never is). The plan format has
no container target (no "inside this form"), so narrowing by a named
container is not offered; the container is named in ``matched`` instead.

Bounded: the look and every check run under the watchdog in a block of their
own (``BUDGET_MS``, less than the ``CALL_MARGIN_MS`` each phase of a step gets
beyond its ``timeout_ms``), and at most ``MAX_CHECKS`` targets are checked.
When the budget runs out there are fewer suggestions, and
``details.suggestions_note`` says why. Deterministic: the same page gives the
same suggestions in the same order.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from pydantic import TypeAdapter, ValidationError

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import CallTimedOut
from pytest_cometlocal.executor.page.locators import compile_target
from pytest_cometlocal.executor.suggest.places import TargetPlaces
from pytest_cometlocal.executor.suggest.narrowing import describe_match, narrowing_picks, resolved_match
from pytest_cometlocal.executor.suggest.ranking import (
    ACTION_NEEDS, CONDITION_NEEDS, SIMILARITY_FLOOR, Wanted, describe_candidate, nth_rationale, place_score,
    rank, target_options, wanted_from,
)
from pytest_cometlocal.executor.page.watchdog import bound
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Page

MAX_SUGGESTIONS = 3
MAX_SCAN = 2_000  # elements walked in document order; the rest of a larger page is not looked at
MAX_CANDIDATES = 2_000  # candidates kept from that walk (at most one per element walked)
MAX_CHARS = 80  # characters of a name, label or text read per element
MAX_CHECKS = 15  # targets checked on the page per failure
BUDGET_MS = 1_500  # the look and the checks together; under watchdog.CALL_MARGIN_MS
# The attribute testid targets name by default (ini cometlocal_testid_attribute can change it: then
# a testid suggestion would not match on the page, and is dropped by its check).
TESTID_ATTRIBUTE = "data-testid"

# Said when no candidate clears the ranking's similarity floor: an honest "none", never another element.
FLOOR_NOTE = (f"no element on the page is similar enough to the target (floor {SIMILARITY_FLOOR}); "
              "the element may have been removed")

TARGET_CODES = (ErrorCode.TARGET_NOT_FOUND, ErrorCode.TARGET_NOT_UNIQUE)
CONDITION_CODES = (ErrorCode.PRECONDITION_FAILED, ErrorCode.POSTCONDITION_FAILED, ErrorCode.NAVIGATION_TIMEOUT)

# The page scripts (scripts/*.js, each says what it does; none changes the page).
_FINGERPRINT_JS = load_script(__package__, "fingerprint.js")
_LOOK_JS = load_script(__package__, "look.js", fingerprint=_FINGERPRINT_JS)
CANDIDATES_JS = load_script(__package__, "candidates.js", look=_LOOK_JS)
CANDIDATES_IN_FRAME_JS = load_script(__package__, "candidates_in_frame.js", candidates=CANDIDATES_JS)
VERIFY_JS = load_script(__package__, "verify.js", fingerprint=_FINGERPRINT_JS)
MATCHES_JS = load_script(__package__, "matches.js", look=_LOOK_JS)

_SPEC = TypeAdapter(T.TargetSpec)
_ONE = TypeAdapter(T.Target)


@dataclass(frozen=True)
class SuggestionRequest:
    """What failed: the target's alternatives, and whether the suggestions should replace or narrow it."""

    alternatives: list[T.AnyTarget]
    narrow: bool
    need: str | None
    action: str | None


# Which of a step's elements a TARGET_* failure is about (``details.which``, v1.1): its own target, a drag's
# ``to``; a custom dropdown's option is named by the step's value, not by a target, so it gets none.
FAILED_ELEMENT: dict[str | None, Callable[[Any], list]] = {
    None: lambda spec: spec.alternatives,
    "target": lambda spec: spec.alternatives,
    "to": lambda spec: spec.to_alternatives,
    "option": lambda spec: [],
}


# Element conditions that count matches rather than need one: a count other than 1 is what they
# check, not a target that names the wrong elements ((v1.2) element_hidden, element_texts_equal).
COUNTING_KINDS = frozenset({"element_count_equals", "element_hidden", "element_texts_equal"})

def request_for(spec: Any, code: ErrorCode, failed_conditions: list[Any] | None,
                which: str | None = None) -> SuggestionRequest | None:
    """The target a failure is about, or None when the failure is not one that gets suggestions."""
    if code in TARGET_CODES:
        alternatives = FAILED_ELEMENT.get(which, FAILED_ELEMENT[None])(spec)
        if not alternatives:
            return None
        return SuggestionRequest(alternatives, code == ErrorCode.TARGET_NOT_UNIQUE, ACTION_NEEDS.get(spec.kind),
                                 spec.kind)
    if code not in CONDITION_CODES:
        return None
    for fc in failed_conditions or []:
        observed = fc.observed if isinstance(fc.observed, dict) else {}
        count = observed.get("count")
        if not fc.kind.startswith("element_") or fc.kind in COUNTING_KINDS or not isinstance(count, int) \
                or count == 1:
            continue  # a target that matched one element failed on its state, not on its name
        raw = (fc.args or {}).get("target")
        if raw is None:
            alternatives = [t for t in spec.alternatives if not isinstance(t, T.UrlTarget)]
            need = CONDITION_NEEDS.get(fc.kind) or ACTION_NEEDS.get(spec.kind)
        else:
            try:
                parsed = _SPEC.validate_python(raw)
            except ValidationError:
                continue
            alternatives = parsed if isinstance(parsed, list) else [parsed]
            need = CONDITION_NEEDS.get(fc.kind)
        if alternatives:
            return SuggestionRequest(alternatives, count > 1, need, fc.kind)
    return None


@dataclass
class Outcome:
    suggestions: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checks: int = 0
    deadline: float = float("inf")

    @property
    def full(self) -> bool:
        return len(self.suggestions) >= MAX_SUGGESTIONS

    def may_check(self) -> bool:
        if self.checks < MAX_CHECKS and time.monotonic() < self.deadline:
            return True
        if not any(n.startswith("stopped") for n in self.notes):
            self.notes.append(f"stopped after {self.checks} checks (at most {MAX_CHECKS}, within {BUDGET_MS} ms): "
                              "there may be fewer suggestions than the page allows")
        return False

    def add(self, target: dict[str, Any], matched: str, score: float, why: str, rationale: str | None = None) -> None:
        if any(s["target"] == target for s in self.suggestions):
            return
        entry = {"target": target, "matched": matched, "score": score, "why": why}
        if rationale:
            entry["rationale"] = rationale
        self.suggestions.append(entry)


def _look_arg() -> dict[str, Any]:
    return {"maxScan": MAX_SCAN, "maxCandidates": MAX_CANDIDATES, "maxChars": MAX_CHARS, "testid": TESTID_ATTRIBUTE}


def collect_candidates(page: Page, frame: str | None) -> dict[str, Any]:
    """One bounded look at the page (or the iframe ``frame``): ``{scanned, capped, candidates}``.

    Also what an agent's ``observe`` offers targets from (agent/page_view.py).
    """
    arg = _look_arg()
    if frame:
        root = page.frame_locator(frame).locator(":root")
        return json.loads(root.evaluate(CANDIDATES_IN_FRAME_JS, arg))
    return json.loads(page.evaluate(CANDIDATES_JS, arg))


def match_target(page: Page, target: dict[str, Any], out: Outcome) -> dict[str, Any] | None:
    """What a target matches on the page: ``{count, fp}`` (``fp`` the one element's place), None when invalid."""
    try:
        model = _ONE.validate_python(target)
    except ValidationError:
        return None
    out.checks += 1
    try:
        return json.loads(compile_target(page, model).evaluate_all(VERIFY_JS))
    except CallTimedOut:
        raise
    except Exception:  # a frame that went away, a selector the page's engine refuses
        return None


def verify(page: Page, target: dict[str, Any], fingerprint: str, out: Outcome) -> bool:
    """Whether ``target`` is a valid plan target that matches exactly the element ``fingerprint`` names."""
    return resolved_match(match_target(page, target, out), [{"fp": fingerprint}]) == 0


def _replace(page: Page, wanted: Wanted, candidates: list[dict[str, Any]], out: Outcome) -> None:
    """Elements like the one the target named, each with a target that matches it alone."""
    boxes: set[tuple[int, ...]] = set()  # a button and the span inside it are one thing on screen
    close = rank(wanted, candidates)
    if not close:
        out.notes.append(FLOOR_NOTE)
    for ranked in close:
        if out.full:
            return
        box = tuple(ranked.candidate.get("box") or ())
        if box in boxes:
            continue
        for target in target_options(ranked.candidate, wanted.target_type, wanted.frame, bare_role=wanted.role_only):
            if not out.may_check():
                return
            if verify(page, target, ranked.candidate["fp"], out):
                out.add(target, describe_candidate(ranked.candidate), ranked.score, "; ".join(ranked.reasons))
                if len(box) == 4 and box[2] and box[3]:
                    boxes.add(box)
                break


def _narrow(page: Page, request: SuggestionRequest, wanted: Wanted, candidates: list[dict[str, Any]],
            out: Outcome) -> None:
    """Targets that pick one of the elements a target matched several of: each one checked on the page to match
    exactly one element, and that element one of the matches (``resolved_match``), never a look-alike elsewhere."""
    base, count, matches = None, 0, []
    for alternative in request.alternatives:
        if not out.may_check():
            return
        out.checks += 1
        try:
            seen = json.loads(compile_target(page, alternative).evaluate_all(MATCHES_JS, _look_arg()))
        except CallTimedOut:
            raise
        except Exception:  # a frame that went away
            continue
        if seen["count"] > 1:
            base, count, matches = alternative, seen["count"], seen["matches"]
            break
    if base is None:
        out.notes.append("the target no longer matches several elements: suggestions replace it instead")
        _replace(page, wanted, candidates, out)
        return
    # The match where the target was before comes first, then one that can take the action, then a shown one
    # (a grid in a hidden tab matches too), then document order.
    order = sorted(range(len(matches)), key=lambda i: (
        -place_score(wanted, matches[i]), -(1 if wanted.need and matches[i].get(wanted.need) else 0),
        not matches[i].get("shown"), i))
    base_json = base.model_dump(mode="json", exclude_none=True)
    narrowed: set[int] = set()

    def check(target: dict[str, Any]) -> dict[str, Any] | None:
        return match_target(page, target, out) if out.may_check() else None  # spent: no more looks at the page

    for i, target, by in narrowing_picks(matches, order, base_json, wanted.frame, check):
        bonus = {"its test id": 0.05, "an attribute only it has": -0.05}.get(by, 0)
        score = round(0.9 + bonus + 0.05 * place_score(wanted, matches[i]) - 0.01 * order.index(i), 3)
        out.add(target, describe_match(matches[i]), score,
                f"narrows {count} matches of {T.describe_target(base)} to match {i} by {by}")
        narrowed.add(i)
        if out.full:
            return
    for i in order:
        if out.full:
            return
        if i in narrowed:
            continue
        if not out.may_check():
            return
        target = {"type": "nth", "base": base_json, "index": i}
        matched = describe_match(matches[i])
        if resolved_match(match_target(page, target, out), matches) == i:
            score = round(0.5 + 0.05 * place_score(wanted, matches[i]) - 0.01 * order.index(i), 3)
            out.add(target, matched, score, f"match {i} of the {count}: an nth target needs metadata.target_rationale (U3)",
                    rationale=nth_rationale(base, i, count, matched))


def suggest(page: Page, request: SuggestionRequest, old_place: tuple[str, ...] = (), budget_ms: int = BUDGET_MS,
            claimed: frozenset[tuple[str, ...]] = frozenset()) -> Outcome:
    """Up to ``MAX_SUGGESTIONS`` working targets for ``request``, within ``budget_ms``.

    The look and the checks run in a watchdog block of their own: a page that
    stops answering ends the suggestions (with a note), never the step's own
    bound. What was found before the budget ran out is kept.
    """
    out = Outcome(deadline=time.monotonic() + budget_ms / 1000)
    wanted = wanted_from(request.alternatives, request.need, request.action, old_place, claimed)
    try:
        with bound("target suggestions", budget_ms, isolated=True):
            data = collect_candidates(page, wanted.frame)
            if data.get("capped"):
                out.notes.append(f"only the first {data['scanned']} elements of the page were looked at")
            if request.narrow:
                _narrow(page, request, wanted, data["candidates"], out)
            else:
                _replace(page, wanted, data["candidates"], out)
    except CallTimedOut:
        out.notes.append(f"the page did not answer within {budget_ms} ms: there may be fewer suggestions")
    out.suggestions.sort(key=lambda s: -s["score"])  # stable: equal scores keep the order they were found in
    return out


def with_suggestions(page: Page, places: TargetPlaces | None, attempt: Any, code: ErrorCode,
                     details: dict[str, Any] | None, failed_conditions: list[Any] | None, will_retry: bool = False,
                     redactor: Any = None) -> dict[str, Any] | None:
    """``details`` with ``suggestions`` (and a ``suggestions_note`` when needed) for a failure that gets them.

    Any other failure, or an attempt that will be retried, gets ``details``
    back untouched, at no cost. A failure of the suggestion work itself never
    changes the step's error: it becomes the note. A target that would show a
    secret (``redactor``) is left out: masked, it would not work, and unmasked
    it would leak. ``places`` is where earlier steps of the run found their
    targets (places.py), kept by the executor as the run went.
    """
    if will_retry:
        return details
    request = request_for(attempt.spec, code, failed_conditions, (details or {}).get("which"))
    if request is None:
        return details
    out = dict(details or {})
    try:
        result = suggest(page, request, places.old_place(request.alternatives) if places else (),
                         claimed=places.claimed(request.alternatives) if places else frozenset())
    except Exception as exc:  # a detached frame, a page that went away: the step's error stays as it is
        out["suggestions"] = []
        out["suggestions_note"] = f"no suggestions: {type(exc).__name__}"
        return out
    if redactor:
        kept = [x for x in result.suggestions if redactor.text(json.dumps(x["target"])) == json.dumps(x["target"])]
        if len(kept) < len(result.suggestions):
            result.notes.append(f"{len(result.suggestions) - len(kept)} suggestion(s) naming a secret left out")
        result.suggestions = kept
    out["suggestions"] = result.suggestions
    if result.notes:
        out["suggestions_note"] = "; ".join(result.notes)
    return out
