"""How suggested targets are ranked and written: pure functions, no browser, deterministic.

The executor never guesses a target for a step (no self-healing); it only
*suggests* one when a step's target failed, and these functions decide which
elements of the page to suggest and how to name them. Everything here is a
function of the failed target and the candidates one look at the page gave
(``scripts/candidates.js``), so the same page gives the same suggestions
in the same order.

Score of a candidate (0 to 1), a weighted sum of:

- ``kind`` (0.25): the element can take the step's action (clickable for
  ``click``, and for v1.1's ``press``, ``hover``, ``check``, ``uncheck`` and
  ``drag`` and v1.3's ``focus`` and ``blur``, fillable for ``fill``, selectable for ``select``, a file input
  for ``upload``; ``element_clickable`` and ``element_value_equals`` ask the
  same of their target). Nothing is asked of it for other steps. For
  ``fill``, ``select`` and ``upload`` it is required, not only ranked: no
  other element could take the action, so no other is suggested.
- ``name`` (0.45): the closest of its accessible name, label and text to the
  failed target's name, label, text (or test id read as words); see
  ``similarity``.
- ``ids`` (0.2): the closest of its test id, id and ``name`` attribute to the
  failed target's test id or the ids and attribute values of its CSS/XPath.
- ``role`` (0.05): the same role as a failed ``role`` target.
- ``family`` (0.45): only for a role-only target (a ``role`` target with no
  name, whose name and ids parts are 0 whatever the candidate): the element
  has its role or a related one (``families.ROLE_FAMILIES``: ``table`` and
  ``grid``, ``button`` and ``link``...). Only such elements are suggested for
  it: the floor below holds with ``family`` in the place of the name.
- ``place`` (0.05): the share of its five nearest ancestors (tag, id, classes)
  that are those the failed target had when an earlier step of the run
  resolved it (the target's context in that step's "before" snapshot, kept in
  memory by ``places.TargetPlaces``).

The similarity floor (``SIMILARITY_FLOOR``, 0.5): a candidate whose ``name``
and ``ids`` similarities are both under it is not suggested, whatever its
kind, role or place. Kind and role say only "another button": when the
element was removed (not renamed), every button left is one, and the
suggestion would click something else. A rename keeps a word ("Save" ->
"Save changes", "Log in" -> "Sign in", "Group name:" -> "Name:"), a spelling
("E-mail" -> "Email address") or an id ("save-button" -> "save-profile"); a
removal leaves names that share none ("Export" beside "Import", "Edit"
beside "Exit", "Delete" beside "Select" all score 0). No suggestion is
better than a wrong one: the suggester then says the element may have been
removed. Nor is an element an earlier step of the run found under another
target (``Wanted.claimed``, from ``places.TargetPlaces``): the plan names it
already, so it is not the failed target renamed. A candidate that cannot take the step's action (a heading or a
text field for a click) has a higher floor, ``KIND_FLOOR`` (0.8): only a
name nearly the same says a click on it was meant, while the heading
"Request form" beside a removed "Send request" button shares a word by
chance. Nor is a candidate suggested whose score is under half the best
one's (``RELATIVE_CUT``): beside a close match, a distant one is noise. Ties
are broken by document order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.targets import describe_target
from pytest_cometlocal.executor.suggest.families import family_of, related_roles

WEIGHTS = {"kind": 0.25, "name": 0.45, "ids": 0.2, "role": 0.05, "place": 0.05,
           "family": 0.45}  # family: a role-only target's stand-in for name (0 for any other target)
SIMILARITY_FLOOR = 0.5  # under it on both name and ids: not suggested (see the module's docstring)
KIND_FLOOR = 0.8  # the floor of a candidate that cannot take the step's action (a heading for a click)
# Spelling similarity counts only when this close (1 - insertions and deletions / both lengths), and only for
# names of at least SPELLING_MIN_CHARS letters: "Colour"/"Color" 0.91 count, "Print"/"Paint" 0.8 does not.
SPELLING_MIN = 0.85
SPELLING_MIN_CHARS = 5
RELATIVE_CUT = 0.5  # a candidate scoring under half the best one is noise beside it

# What the step's action needs of its element, by action kind and by condition kind.
ACTION_NEEDS = {"click": "clickable", "fill": "fillable", "select": "selectable", "upload": "file",
                # v1.1: the pointer and key kinds ask of their element what a click does.
                "press": "clickable", "hover": "clickable", "check": "clickable", "uncheck": "clickable",
                "drag": "clickable",
                "focus": "clickable", "blur": "clickable"}  # v1.3: a field or control, as a click takes
CONDITION_NEEDS = {"element_clickable": "clickable", "element_value_equals": "fillable"}
# Needs a candidate must meet (any shown element can take a click; only a field can be filled).
REQUIRED_NEEDS = frozenset({"fillable", "selectable", "file"})
_NEED_WORDS = {"clickable": "clickable", "fillable": "fillable", "selectable": "a select", "file": "a file input"}

# Roles a suggestion names with role + name (others are named by label, test id, text or id).
NAMED_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "heading", "tab",
    "menuitem", "menuitemcheckbox", "menuitemradio", "option", "switch", "spinbutton", "slider", "img",
    "dialog", "region", "navigation", "cell", "gridcell", "columnheader", "rowheader", "treeitem",
    # landmarks and structures, named by aria-label, aria-labelledby, title (a table by its caption)
    "grid", "treegrid", "table", "list", "form", "search", "main", "banner", "contentinfo", "complementary",
    "alertdialog", "tablist", "tabpanel", "tree", "menu", "menubar", "toolbar", "radiogroup", "group",
}) & frozenset(T.ARIA_ROLES)

# The order in which a candidate's own targets are tried: the most robust first.
TARGET_ORDER = ("role", "label", "testid", "text", "css", "bare_role")
# Roles never named by a bare role target: they say nothing of what an element is.
_NO_BARE_ROLE = frozenset({"generic", "none", "presentation"})
_CSS_IDENT = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")


def normalise(text: str) -> str:
    """Case folded, every run of non-letters and non-digits one space: "Sign-In:" -> "sign in"."""
    return " ".join(re.sub(r"[\W_]+", " ", text or "").casefold().split())


def _split_camel(text: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text or "")


def words(text: str) -> set[str]:
    """The words of a name or an id: ``saveChanges``, ``save-changes`` and ``save_changes`` give {save, changes}."""
    return set(normalise(_split_camel(text)).split())


def edit_distance(a: str, b: str, substitution: int = 1) -> int:
    """Levenshtein distance, two rows of memory; ``substitution=2`` counts only insertions and deletions."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (substitution if ca != cb else 0)))
        previous = current
    return previous[-1]


_MAX_COMPARED = 64  # characters compared by edit distance: names are clipped, distances stay cheap


def _dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b))


def _name_words(text: str) -> set[str]:
    """The words of a normalised name but its numbers ("Cart (3)" is the cart; a number is data), if any are left."""
    found = set(text.split())
    return {w for w in found if not w.isdigit()} or found


def similarity(wanted: str, seen: str) -> float:
    """0 to 1: the larger of a spelling similarity and the share of words in common.

    Both strings are normalised first (``normalise``). The word share is
    Dice's, twice the words in common over the words of both ("Save" and
    "Save changes" give 2 x 1 / 3 = 0.67; numbers are left out: "Inbox (3)"
    is "Inbox (4)", and "Send to 4242" is close to "Send"); a name is also read as one word
    without its spaces and hyphens, so "E-mail" is the word "email" of
    "Email address" (0.67). The spelling similarity, taken without spaces,
    is ``1 - (insertions + deletions) / both lengths``, kept only from
    ``SPELLING_MIN`` (0.85) and for names of ``SPELLING_MIN_CHARS`` (5)
    letters or more: "Colour"/"Color" are one spelling, while a letter or
    two changed in a short word ("Edit"/"Exit", "Import"/"Export") is
    another word, which is how a removed element's neighbours look.
    """
    a, b = normalise(_split_camel(wanted)), normalise(_split_camel(seen))
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    ca, cb = a.replace(" ", "")[:_MAX_COMPARED], b.replace(" ", "")[:_MAX_COMPARED]
    by_spelling = 0.0
    if min(len(ca), len(cb)) >= SPELLING_MIN_CHARS:
        by_spelling = 1 - edit_distance(ca, cb, substitution=2) / (len(ca) + len(cb))
        if by_spelling < SPELLING_MIN:
            by_spelling = 0.0
    wa, wb = _name_words(a), _name_words(b)
    by_words = max(_dice(x, y) for x in (wa, {ca}) for y in (wb, {cb}))
    return round(max(by_spelling, by_words), 3)


@dataclass(frozen=True)
class Wanted:
    """What the failed target asked for, as the ranking compares it."""

    texts: tuple[str, ...] = ()  # names, labels, texts (a test id read as words too)
    ids: tuple[str, ...] = ()  # test ids, CSS ids, attribute values
    role: str | None = None
    need: str | None = None  # "clickable" | "fillable" | "selectable" | "file"
    action: str | None = None  # "click", or the condition's kind: for the "why" text
    target_type: str | None = None  # the failed target's own type: a suggestion of that type comes first
    frame: str | None = None  # the iframe selector the failed target looked inside
    old_place: tuple[str, ...] = ()  # ancestors of the target where an earlier step found it
    claimed: frozenset[tuple[str, ...]] = frozenset()  # elements earlier steps found under other targets

    @property
    def role_only(self) -> bool:
        """A role target with no name (and no other alternative naming anything): all it says is its role."""
        return bool(self.role) and not self.texts and not self.ids


def _inner(target: T.AnyTarget) -> tuple[T.AnyTarget, str | None]:
    frame = None
    while isinstance(target, (T.FrameTarget, T.NthTarget)):
        if isinstance(target, T.FrameTarget):
            frame = frame or target.selector
            target = target.inner
        else:
            target = target.base
    return target, frame


def wanted_from(alternatives: list[T.AnyTarget], need: str | None = None, action: str | None = None,
                old_place: tuple[str, ...] = (), claimed: frozenset[tuple[str, ...]] = frozenset()) -> Wanted:
    """The names and ids a failed target (all its alternatives) asked for."""
    texts: list[str] = []
    ids: list[str] = []
    role = target_type = frame = None
    for alternative in alternatives:
        t, in_frame = _inner(alternative)
        frame = frame or in_frame
        target_type = target_type or t.type
        if isinstance(t, T.RoleTarget):
            role = role or t.role
            if t.name:
                texts.append(t.name)
        elif isinstance(t, (T.LabelTarget, T.TextTarget)):
            texts.append(t.text)
        elif isinstance(t, T.TestIdTarget):
            ids.append(t.id)
            texts.append(t.id)
        elif isinstance(t, T.CssTarget):
            found = re.findall(r"#([A-Za-z_][\w-]*)", t.selector)
            found += re.findall(r"\[[\w:-]+\s*[~|^$*]?=\s*['\"]?([^'\"\]]+)", t.selector)
            ids += found
            texts += found + [q for q in re.findall(r"['\"]([^'\"]+)['\"]", t.selector) if q not in found]
        elif isinstance(t, T.XPathTarget):
            literals = re.findall(r"['\"]([^'\"]+)['\"]", t.selector)
            ids += literals
            texts += literals
    return Wanted(tuple(dict.fromkeys(texts)), tuple(dict.fromkeys(ids)), role, need, action, target_type, frame,
                  old_place, claimed)


def place_key(element: dict[str, Any] | None) -> str:
    """An ancestor as TARGET_CONTEXT_JS and CANDIDATES_JS both describe it: tag|id|classes."""
    if not element:
        return ""
    return "|".join([element.get("tag") or "", element.get("id") or "", " ".join((element.get("classes") or "").split())[:80]])


def element_key(tag: str | None, element_id: str | None, testid: str | None, name_attr: str | None,
                ancestors: tuple[str, ...]) -> tuple[str, ...] | None:
    """One element, as the target context (places.py) and a candidate both describe it; None for one with no id,
    test id or ``name`` attribute, which cannot be told from a sibling of the same tag."""
    if not (element_id or testid or name_attr):
        return None
    return (tag or "", element_id or "", testid or "", name_attr or "", *ancestors)


@dataclass
class Ranked:
    candidate: dict[str, Any]
    score: float
    parts: dict[str, float]
    reasons: list[str] = field(default_factory=list)


def _best(wanted: tuple[str, ...], seen: list[str]) -> tuple[float, str, str]:
    best = (0.0, "", "")
    for w in wanted:
        for s in seen:
            if s:
                value = similarity(w, s)
                if value > best[0]:
                    best = (value, w, s)
    return best


def rank(wanted: Wanted, candidates: list[dict[str, Any]]) -> list[Ranked]:
    """The candidates close enough to the failed target, best first (ties: document order)."""
    ranked = []
    related = related_roles(wanted.role) if wanted.role_only else frozenset()
    for c in candidates:
        if wanted.need in REQUIRED_NEEDS and not c.get(wanted.need):
            continue  # nothing else can be filled, selected or given a file
        if wanted.claimed and element_key(c.get("tag"), c.get("id"), c.get("testid"), c.get("name_attr"),
                                          tuple(c.get("ancestors") or ())) in wanted.claimed:
            continue  # an earlier step named it with another target: the plan has it already
        name, w_name, s_name = _best(wanted.texts, [c.get("name") or "", c.get("label") or "", c.get("text") or ""])
        ids, w_id, s_id = _best(wanted.ids, [c.get("testid") or "", c.get("id") or "", c.get("name_attr") or ""])
        kind = 1.0 if wanted.need and c.get(wanted.need) else 0.0
        family = 1.0 if wanted.role_only and (c.get("role") == wanted.role or c.get("role") in related) else 0.0
        if max(name, ids, family) < (SIMILARITY_FLOOR if kind or not wanted.need else KIND_FLOOR):
            continue  # another element, not this one renamed (see the module's docstring)
        role = 1.0 if wanted.role and c.get("role") == wanted.role else 0.0
        place = place_score(wanted, c)
        parts = {"kind": kind, "name": name, "ids": ids, "role": role, "place": round(place, 3), "family": family}
        score = round(sum(WEIGHTS[k] * v for k, v in parts.items()), 3)
        reasons = []
        if kind:
            reasons.append(f"{_NEED_WORDS[wanted.need]} as {wanted.action or 'the step'} needs")
        if name:
            reasons.append(f'"{s_name}" is close to "{w_name}" ({name:.2f})')
        if ids:
            reasons.append(f'id "{s_id}" is close to "{w_id}" ({ids:.2f})')
        if role:
            reasons.append(f"same role ({wanted.role})")
        elif family:
            reasons.append(f"role {c.get('role')} is akin to {wanted.role} ({family_of(wanted.role, c.get('role'))})")
        if place:
            reasons.append(f"where the target was before ({place:.0%} of its ancestors)")
        ranked.append(Ranked(c, score, parts, reasons))
    ranked.sort(key=lambda r: (-r.score, r.candidate.get("index", 0)))
    return [r for r in ranked if r.score >= RELATIVE_CUT * ranked[0].score]


def place_score(wanted: Wanted, candidate: dict[str, Any]) -> float:
    """The ``place`` part alone (narrowing ranks the matches of a target by it)."""
    if not wanted.old_place:
        return 0.0
    mine = candidate.get("ancestors") or []
    return sum(1 for i, key in enumerate(wanted.old_place) if i < len(mine) and mine[i] == key) / len(wanted.old_place)


def _css_for_id(element_id: str) -> str:
    if _CSS_IDENT.fullmatch(element_id):
        return "#" + element_id
    return "[id=" + css_string(element_id) + "]"


def target_options(candidate: dict[str, Any], prefer: str | None = None, frame: str | None = None,
                   order: tuple[str, ...] = TARGET_ORDER, bare_role: bool = False) -> list[dict[str, Any]]:
    """The plan targets that could name ``candidate``, most robust first (its failed type first when given).

    Every one is valid under the plan format: ``exact: true`` on role, label
    and text targets (U2); a name that was clipped when read is not used (an
    exact match on a clipped name would fail). Whether it matches exactly
    this element is for the page to say (``suggestions.verify``). ``bare_role``:
    a role target without a name too, last (first when ``prefer`` is ``role``
    and the element has no name to add): a nameless table, grid or ``main``
    has no other target than its role, which matches it when it is the only one.
    """
    c = candidate
    field_like = c.get("tag") in ("input", "select", "textarea")
    options: dict[str, dict[str, Any]] = {}
    if c.get("role") in NAMED_ROLES and c.get("name") and not c.get("name_clipped"):
        options["role"] = {"type": "role", "role": c["role"], "name": c["name"], "exact": True}
    if c.get("label") and not c.get("label_clipped") and field_like:
        options["label"] = {"type": "label", "text": c["label"], "exact": True}
    if c.get("testid"):
        options["testid"] = {"type": "testid", "id": c["testid"]}
    if c.get("text") and not c.get("text_clipped") and not field_like:
        options["text"] = {"type": "text", "text": c["text"], "exact": True}
    if c.get("id"):
        options["css"] = {"type": "css", "selector": _css_for_id(c["id"])}
    role = c.get("role")
    if bare_role and "role" not in options and role in T.ARIA_ROLES and role not in _NO_BARE_ROLE:
        options["bare_role"] = {"type": "role", "role": role}
        prefer = "bare_role" if prefer == "role" else prefer
    ordered = [k for k in order if k in options]
    if prefer in options:
        ordered.remove(prefer)
        ordered.insert(0, prefer)
    targets = [options[k] for k in ordered]
    if frame:
        targets = [{"type": "frame", "selector": frame, "inner": t} for t in targets]
    return targets


def describe_candidate(candidate: dict[str, Any]) -> str:
    """``button "Save changes" #save in form "Profile"``: what a suggestion matched."""
    c = candidate
    what = c.get("role") or c.get("tag") or "element"
    label = c.get("name") or c.get("label") or c.get("text") or ""
    out = what + (f' "{label[:60]}"' if label else "")
    if c.get("id"):
        out += f" #{c['id']}"
    if c.get("testid"):
        out += f" [testid={c['testid']}]"
    if c.get("containers"):
        out += f" in {c['containers'][0]}"
    return out


def css_string(value: str) -> str:
    """``value`` as a double-quoted CSS string: backslash, quote and control characters escaped."""
    out = []
    for ch in value:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):x} ")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def nth_rationale(base: T.AnyTarget, index: int, count: int, matched: str) -> str:
    """The ``metadata.target_rationale`` an ``nth`` suggestion needs (rule U3)."""
    return f"match {index} (0-based) of the {count} elements {describe_target(base)} matches: {matched}"
