"""(v1.2) Rule SAVED: every ``${saved.NAME}`` a step uses is saved by an earlier step.

Steps are read in order, step groups already expanded into the plan's steps,
so a group's step may use what the plan saved before it and the reverse. A
step's own saves are not there yet while it runs (its references are filled
in before it acts). Recovery steps may use what the recovery steps before
them save, nothing else: a recovery runs after a failure at any step, when a
value of the plan may not have been saved yet. Each problem is located at
the string that uses the name. A plan with no ``${saved.`` anywhere (the
interpolation stage tells) costs nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from pytest_cometlocal.contract.load.interpolation import SAVED_REFERENCE
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.http.rules import saved_names

Report = Callable[[Loc, str, str], None]


def check_saved(plan: Any, add: Report, used: bool) -> None:
    """SAVED, for the plan's steps, then its recovery steps (each list on its own); ``used``: whether any
    string of the plan (or of a step group it uses) holds ``${saved.``, which interpolation saw."""
    if not used:
        return
    blocks = [(plan.steps, ("steps",))]
    if plan.recovery:
        blocks.append((plan.recovery.steps, ("recovery", "steps")))
    for steps, loc in blocks:
        saved: list[str] = []
        for i, step in enumerate(steps):
            for path, message in unsaved_references(step.model_dump(mode="json", exclude_none=True), saved,
                                                    loc + (i,)):
                add(path, message, "SAVED")
            saved.extend(saved_names(step))


def unsaved_references(step: Any, saved: list[str], loc: Loc = ()) -> Iterator[tuple[Loc, str]]:
    """(key path, rule SAVED's message) for each ``${saved.NAME}`` in ``step`` (a dumped step, or a step as a
    planner proposes it) that ``saved`` (the names saved before it, in order) does not hold. The MCP session
    checks a proposal with it against what its accepted steps saved."""
    for path, text in _strings(step, loc):
        for name in SAVED_REFERENCE.findall(text):
            if name not in saved:
                earlier = ", ".join(dict.fromkeys(saved)) or "none"
                yield path, f"no earlier step saves '{name}' (saved before this step: {earlier})"


def _strings(value: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    """Every string in a dumped step with its key path, in document order."""
    if isinstance(value, str):
        if "${saved." in value:
            yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, loc + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, loc + (i,))
