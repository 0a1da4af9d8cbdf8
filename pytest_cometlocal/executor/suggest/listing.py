"""What a plan can target on a page (``cometlocal targets``): each interactive or landmark element, with its target.

Interactive means native controls and every element with a widget role (``WIDGET_ROLES``: a
``<div role="combobox">`` is what the user operates, not a div), with the states its role's v1.2 filters
can use (``states``).

A plan's author needs the name a target uses, and the page knows it. The
elements are the suggester's own candidates (one bounded look,
``scripts/look.js``), so what is listed is what a failed target could be
offered. Each element's targets are tried in the plan format's order, most
robust first (``ranking.target_options`` in ``LIST_ORDER``: role and name,
label, test id, the bare role of a nameless element, text, an id's CSS), each checked on the page with the
executor's own target compiler (``suggester.match_target``). The first that
matches exactly that element is listed as unique; when none does, the first
that matches it among others is listed with how many it matches (a plan
would need an ``nth`` for it, or a better target). An element no target names
is counted, not listed. Everything returned is masked with the run's
redactor. Frames are not looked into (a target inside one is a ``frame``
target: list the frame's own page).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.executor.errors import CallTimedOut
from pytest_cometlocal.executor.page.locators import compile_target
from pytest_cometlocal.executor.page.watchdog import bound
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.scripts import load_script
from pytest_cometlocal.executor.suggest.ranking import describe_candidate, target_options
from pytest_cometlocal.executor.suggest.suggester import collect_candidates

if TYPE_CHECKING:
    from playwright.sync_api import Page

LIST_MS = 60_000  # the look and every check together; a page that stops answering ends the listing
MAX_LISTED = 400  # elements listed; the rest are counted

# Roles listed even when nothing can be done to them: the landmarks, the structures a check names, headings.
LISTED_ROLES = frozenset({
    "banner", "navigation", "main", "complementary", "contentinfo", "region", "form", "search",
    "dialog", "alertdialog", "table", "grid", "treegrid", "list", "listbox", "tablist", "tabpanel", "tree",
    "menu", "menubar", "toolbar", "radiogroup", "heading", "img",
})
# Widget roles, listed wherever they are (a custom combobox is a div with a role): what a user operates.
WIDGET_ROLES = frozenset({
    "combobox", "checkbox", "radio", "switch", "slider", "spinbutton", "tab", "option", "menuitem",
    "menuitemcheckbox", "menuitemradio", "treeitem", "link", "button", "textbox", "searchbox",
})
# Roles listed only when the page made the element focusable (a grid's cells are many; the reachable ones count).
FOCUSABLE_ROLES = frozenset({"gridcell"})
# What a step can do with an element: (the step kind, the candidate's key that says it can).
USES = (("click", "clickable"), ("fill", "fillable"), ("select", "selectable"), ("upload", "file"))

# The plan format's order of targets (role and name, label, test id...), a nameless element's role before its
# text: a landmark's text is all of its content, which any change to the page changes.
LIST_ORDER = ("role", "label", "testid", "bare_role", "text", "css")
AMONG_JS = load_script(__package__, "among.js", fingerprint=load_script(__package__, "fingerprint.js"))
_ONE = TypeAdapter(T.Target)


def listed(candidate: dict[str, Any]) -> bool:
    """An interactive element (a step can act on it), one of ``WIDGET_ROLES`` or ``LISTED_ROLES``, or a focusable
    one of ``FOCUSABLE_ROLES``."""
    role = candidate.get("role")
    return (any(candidate.get(key) for _kind, key in USES) or role in LISTED_ROLES or role in WIDGET_ROLES
            or (role in FOCUSABLE_ROLES and bool(candidate.get("focusable"))))


def states(candidate: dict[str, Any]) -> dict[str, bool | int]:
    """The element's states a v1.2 role filter of its role can use (``checked``, ``expanded``, ``level``...), in
    ``ROLE_FILTERS`` order: the look reads them from ARIA attributes and native state; a filter the role does not
    take (``ROLE_FILTER_ROLES``) is left out, as a plan could not use it."""
    seen, role = candidate.get("states") or {}, candidate.get("role")
    return {key: seen[key] for key in T.ROLE_FILTERS
            if key in seen and (roles := T.ROLE_FILTER_ROLES[key]) is not None and role in roles}


def uses(candidate: dict[str, Any]) -> list[str]:
    return [kind for kind, key in USES if candidate.get(key)]


def _matches(page: Page, target: dict[str, Any]) -> dict[str, Any] | None:
    """``{count, fps}`` of what ``target`` matches on the page; None for a target the page or model refuses."""
    try:
        return json.loads(compile_target(page, _ONE.validate_python(target)).evaluate_all(AMONG_JS))
    except (CallTimedOut, ValidationError):
        raise
    except Exception:  # a selector the page's engine refuses
        return None


def element_entry(page: Page, candidate: dict[str, Any]) -> dict[str, Any] | None:
    """The listed element with its best target: the first that matches it alone, else the first that matches
    it among others (with their count); None when no target matches it."""
    shared: tuple[dict[str, Any], int] | None = None
    for target in target_options(candidate, order=LIST_ORDER, bare_role=True):
        seen = _matches(page, target)
        if not seen or candidate["fp"] not in seen["fps"]:
            continue  # none, or other elements only: not this element's target
        if seen["count"] == 1:
            return _entry(candidate, target, 1)
        shared = shared or (target, seen["count"])
    return _entry(candidate, *shared) if shared else None


def _entry(candidate: dict[str, Any], target: dict[str, Any], count: int) -> dict[str, Any]:
    return {"element": describe_candidate(candidate), "role": candidate.get("role"), "target": target,
            "unique": count == 1, "matches": count, "uses": uses(candidate), "states": states(candidate)}


def page_targets(page: Page, redactor: Redactor, limit_ms: int = LIST_MS) -> dict[str, Any]:
    """``{url, title, elements, unnamed, note?}`` of the page, masked; raises CallTimedOut for a page that
    stops answering within ``limit_ms``."""
    with bound("cometlocal targets", limit_ms):
        title = page.title()
        found = collect_candidates(page, None)
        elements: list[dict[str, Any]] = []
        unnamed = left = secret = 0
        for candidate in found["candidates"]:
            if not listed(candidate):
                continue
            if len(elements) >= MAX_LISTED:
                left += 1
                continue
            entry = element_entry(page, candidate)
            if entry is None:
                unnamed += 1
            elif redactor.tree(entry["target"]) != entry["target"]:
                secret += 1  # masked, the target would name nothing; unmasked, it would leak
            else:
                elements.append(entry)
    notes = []
    if found.get("capped"):
        notes.append(f"a large page: only its first {found['scanned']} elements were looked at")
    if secret:
        notes.append(f"{secret} elements whose target names a secret left out")
    if left:
        notes.append(f"{left} more elements not listed (at most {MAX_LISTED})")
    out = {"url": page.url, "title": title, "elements": elements, "unnamed": unnamed,
           **({"note": "; ".join(notes)} if notes else {})}
    return redactor.tree(out)
