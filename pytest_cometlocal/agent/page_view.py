"""What an agent sees of the page: url, title, links and inputs, and targets it can use as they are.

The candidates come from the same bounded look at the page as suggested
targets (``executor.suggest.suggester``), and each target offered is checked on the
page with the executor's own target compiler: it matches exactly one element,
that element. So a target copied from ``candidates`` into a proposal resolves
(as long as the page does not change). Everything returned is masked with the
session's redactor: a secret shown on the page never reaches the agent.

On request (v1.1), the page's accessibility tree as Playwright's aria snapshot
(``locator.aria_snapshot()``, the YAML that ``aria_snapshot_matches`` takes as a
template): masked first, then cut at a line to a bound, so a cut never leaves
part of a secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.step.evidence import aria_text
from pytest_cometlocal.executor.suggest.ranking import describe_candidate, target_options
from pytest_cometlocal.executor.suggest.suggester import Outcome, collect_candidates, verify
from pytest_cometlocal.executor.page.watchdog import bound

if TYPE_CHECKING:
    from playwright.sync_api import Page

MAX_CANDIDATES = 50
MAX_LISTED = 50  # links and inputs listed
OBSERVE_MS = 5_000
CHECKABLE_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox"})


def _uses(c: dict[str, Any]) -> list[str]:
    uses = [what for what, key in (("click", "clickable"), ("fill", "fillable"), ("select", "selectable"),
                                   ("upload", "file")) if c.get(key)]
    return uses + ["check", "uncheck"] if c.get("role") in CHECKABLE_ROLES else uses


def aria_view(page: Page, redactor: Redactor) -> dict[str, Any]:
    """``aria_snapshot`` of the page's body, as a failure's evidence keeps it (``evidence.aria_text``: masked,
    at most page/texts.MAX_ARIA_BYTES; ``aria_snapshot_truncated`` says when lines were left out); a page that does not
    give one within OBSERVE_MS says why instead."""
    try:
        text, truncated = aria_text(page, redactor, OBSERVE_MS, what="agent aria snapshot")
    except Exception as exc:  # a closed page, a bound that ran out: the observation still comes
        return {"aria_snapshot_unavailable": redactor.text(str(exc).splitlines()[0][:200] if str(exc) else
                                                           type(exc).__name__)}
    return {"aria_snapshot": text, **({"aria_snapshot_truncated": True} if truncated else {})}


def observe_page(page: Page, redactor: Redactor, *, aria: bool = False) -> dict[str, Any]:
    with bound("agent observe", OBSERVE_MS):
        title = page.title()
        found = collect_candidates(page, None)
        candidates = found["candidates"]
        # Elements an agent can act on first, in document order; then headings (what to check).
        useful = [c for c in candidates if _uses(c)] + [c for c in candidates if c.get("role") == "heading"]
        offered: list[dict[str, Any]] = []
        counter = Outcome()
        for c in useful:
            if len(offered) >= MAX_CANDIDATES:
                break
            for target in target_options(c):
                if verify(page, target, c["fp"], counter):
                    offered.append({"target": target, "matched": describe_candidate(c), "for": _uses(c) or ["assert"]})
                    break
    links = [{"name": c.get("name") or c.get("text") or ""} for c in candidates if c.get("role") == "link"][:MAX_LISTED]
    inputs = [{"label": c.get("label") or c.get("name") or "", "type": c.get("type") or c.get("tag")}
              for c in candidates if c.get("fillable") or c.get("selectable") or c.get("file")][:MAX_LISTED]
    observation = {"url": page.url, "title": title, "links": links, "inputs": inputs, "candidates": offered}
    if found.get("capped"):
        observation["note"] = "a large page: only its first elements were looked at"
    if aria:
        observation.update(aria_view(page, redactor))
    return redactor.tree(observation)
