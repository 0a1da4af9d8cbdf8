"""What an agent sees of the page: url, title, links and inputs, and targets it can use as they are.

The candidates come from the same bounded look at the page as suggested
targets (``executor.suggest.suggester``), and each target offered is checked on the
page with the executor's own target compiler: it matches exactly one element,
that element. So a target copied from ``candidates`` into a proposal resolves
(as long as the page does not change). Everything returned is masked with the
session's redactor: a secret shown on the page never reaches the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.suggest.ranking import describe_candidate, target_options
from pytest_cometlocal.executor.suggest.suggester import Outcome, collect_candidates, verify
from pytest_cometlocal.executor.page.watchdog import bound

if TYPE_CHECKING:
    from playwright.sync_api import Page

MAX_CANDIDATES = 50
MAX_LISTED = 50  # links and inputs listed
OBSERVE_MS = 5_000


def _uses(c: dict[str, Any]) -> list[str]:
    return [what for what, key in (("click", "clickable"), ("fill", "fillable"), ("select", "selectable"),
                                   ("upload", "file")) if c.get(key)]


def observe_page(page: Page, redactor: Redactor) -> dict[str, Any]:
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
    return redactor.tree(observation)
