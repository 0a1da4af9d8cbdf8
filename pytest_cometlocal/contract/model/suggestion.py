"""Suggested targets as data (``details.suggestions``) and as text ready to paste into a plan.

The executor suggests replacement targets for a failed target
(executor/suggest/suggester.py) and never applies them: a person reads them in the
failure text, in Allure or in ``cometlocal show``, and pastes one. All three
show the same text, built here, so what is shown is what the plan format
reads: each suggestion is one ``target:`` line of flow-style YAML (an ``nth``
one has its ``metadata:`` line too, for rule U3), and what it matched and
why follow as a YAML comment. This module reads no file, no browser and runs
no pytest: ``cometlocal show`` (runs/show.py) reads the run and words it here.
"""

from __future__ import annotations

from typing import Any, Mapping, NotRequired, TypedDict

import yaml

HEADING = "suggested targets:"


class Suggestion(TypedDict):
    """One entry of ``details.suggestions``, best first."""

    target: dict[str, Any]  # a target under the plan format, as its YAML keys
    matched: str  # the element it matched alone on the page at the failure
    score: float  # 0 to 1: similarity to the failed target (see executor/suggest/ranking.py)
    why: str
    rationale: NotRequired[str]  # an nth target's metadata.target_rationale (rule U3)


def _page_lines(suggestions: list[Any], indent: str) -> list[str]:
    """(v1.2) One ``page:`` line per open page of the run, each naming that page alone."""
    lines = [indent + "suggested pages:", f"{indent}  # never applied: paste one into the switch_page step, in place of its page"]
    for s in suggestions:
        if isinstance(s, Mapping) and "page" in s:
            lines.append(f"{indent}  page: {flow_yaml(s['page'])}  # {_one_line(s.get('matched', ''))}")
    return lines


def fix_command(*paths: Any) -> str:
    """The command that turns the suggested targets of these runs into one reviewable patch (``cometlocal fix``):
    written the same way under a failure, in the terminal summary and by ``cometlocal show``."""
    return f"cometlocal fix {' '.join(str(p) for p in paths)} --verify"


def flow_yaml(value: Any) -> str:
    """One line of flow-style YAML: ``{type: role, role: button, name: Save changes, exact: true}``."""
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, allow_unicode=True,
                          width=1_000_000).strip()


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


def suggestion_lines(details: Mapping[str, Any] | None, indent: str = "  ") -> list[str]:
    """The "suggested targets:" block of a failure's text; none when the failure got no suggestion work.
    (v1.2) A ``switch_page`` that found no page, or several, gets a "suggested pages:" block instead."""
    if details and isinstance(details.get("page_suggestions"), list):
        return _page_lines(details["page_suggestions"], indent)
    if not details or not isinstance(details.get("suggestions"), list):
        return []
    suggestions = details["suggestions"]
    lines = [indent + HEADING]
    inner = indent + "  "
    if suggestions:
        lines.append(f"{inner}# never applied: paste one into the step, in place of its target")
    else:
        lines.append(f"{inner}# none: no element on the page at the failure is close to the target")
    for s in suggestions:
        if not isinstance(s, Mapping) or "target" not in s:
            continue
        lines.append(f"{inner}target: {flow_yaml(s['target'])}  # {_one_line(s.get('matched', ''))}"
                     f" — {_one_line(s.get('why', ''))} (score {s.get('score')})")
        if s.get("rationale"):
            lines.append(f"{inner}metadata: {flow_yaml({'target_rationale': s['rationale']})}  # with the line above")
    if details.get("suggestions_note"):
        lines.append(f"{inner}# note: {_one_line(details['suggestions_note'])}")
    return lines
