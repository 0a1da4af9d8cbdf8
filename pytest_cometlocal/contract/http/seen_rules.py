"""(v1.3) The rules of ``request_seen`` that need more than its model: URL, POINTER and SINCE.

The model holds the shapes (a method of the closed set, ``count`` >= 0, one
comparison per check); its regexes are rows of patterns.REGEX_FIELDS. Here:
a glob ``url`` must have balanced braces and read as a full URL (a glob is
matched against the request's whole URL, as a route's: ``/api/x`` alone would
match nothing, so the condition could only fail or only hold); each
``request_json`` / ``response_json`` pointer is a JSON Pointer; ``since`` names
a step that comes before this one in the same list (the plan's steps, or the
recovery steps: a recovery runs after a failure at any step, when a later plan
step has not run). Every problem is located at the key.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.model.checks.traffic import glob_regex

Report = Callable[[Loc, str, str], None]
PHASES = ("preconditions", "postconditions")
# How a glob that means a full URL starts: a scheme, or a wildcard standing for it.
_FULL_URL_STARTS = ("http://", "https://", "*", "{")


def seen_conditions(step: Any) -> Iterable[tuple[Any, str, int]]:
    """(condition, phase, index) of each request_seen of the step."""
    for phase in PHASES:
        for i, cond in enumerate(getattr(step, phase)):
            if cond.kind == "request_seen":
                yield cond, phase, i


def check_seen(step: Any, loc: Loc, add: Report) -> None:
    """URL (a glob that can match) and POINTER (request_json's / response_json's pointers) of one step."""
    for cond, phase, i in seen_conditions(step):
        aloc, args = loc + (phase, i, "args"), cond.args
        if isinstance(args.url, str):
            try:
                glob_regex(args.url)
            except ValueError as exc:
                add(aloc + ("url",), str(exc), "URL")
            else:
                if not args.url.startswith(_FULL_URL_STARTS) and not args.url.startswith("${"):
                    add(aloc + ("url",), f"the glob {args.url!r} is matched against the full URL: start it with "
                        "a scheme or '**/' (as a route's url)", "URL")
        for key in ("request_json", "response_json"):
            checks = getattr(args, key)
            if checks is None:
                continue
            listed = isinstance(checks, list)
            for j, check in enumerate(checks if listed else [checks]):
                try:
                    json_values.parse(check.pointer)
                except ValueError as exc:
                    add(aloc + (key,) + ((j,) if listed else ()) + ("pointer",), str(exc), "POINTER")


def check_since(plan: Any, add: Report) -> None:
    """SINCE: each request_seen's ``since`` names an earlier step of the same list (the plan's steps, or
    the recovery steps), never the step itself or a later one."""
    blocks = [(plan.steps, ("steps",))]
    if plan.recovery:
        blocks.append((plan.recovery.steps, ("recovery", "steps")))
    for steps, loc in blocks:
        before: list[str] = []
        for i, step in enumerate(steps):
            for cond, phase, j in seen_conditions(step):
                since = cond.args.since
                if since is None or since in before:
                    continue
                where = ("this step itself (leave since out: the window then starts with this step)" if since == step.id
                         else "a later step" if any(s.id == since for s in steps) else "no step of this list")
                add(loc + (i, phase, j, "args", "since"), f"since {since!r} names {where}; it must name an earlier "
                    f"step (before this one: {', '.join(before[-5:]) or 'none'})", "SINCE")
            before.append(step.id)
