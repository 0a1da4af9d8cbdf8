"""Where the steps of this run found their targets, kept in memory for the suggestions of a later failure.

A target that stops matching was often found by an earlier step of the same
run; the element it found then sat somewhere on the page (its five nearest
ancestors), and a candidate in that place is likelier the one meant
(``ranking.place_score``). The executor tells this log, as the run goes, what
the trace says at the same moments: a step's target was resolved
(``preconditions_checked`` with ``target_resolution``) and a step passed
(its ``evidence_captured``, whose "before" DOM snapshot holds the target's
context). The suggester asks it; nothing is read back from the run folder.

It also says which elements earlier steps found under *other* targets
(``claimed``): the plan already names those, so a failed target is not one
of them renamed ("First name", filled a step ago, is not the removed "Last
name" field).
"""

from __future__ import annotations

from typing import Any, Sequence

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.executor.page.locators import describe_compiled
from pytest_cometlocal.executor.suggest.ranking import element_key, place_key

__all__ = ["TargetPlaces"]


class TargetPlaces:
    """The run's target resolutions and passes, in order.

    Each entry is ``("found", step, description)`` or ``("passed", step, ancestors)``.
    """

    def __init__(self) -> None:
        self._log: list[tuple[str, str, Any]] = []

    def found(self, step_id: str, description: str) -> None:
        """A step resolved its target to ``description`` (``describe_compiled`` of the alternative that matched)."""
        self._log.append(("found", step_id, description))

    def passed(self, step_id: str, context: dict[str, Any] | None) -> None:
        """A step passed; ``context`` is its resolved target's DOM context (None for a step without a target)."""
        ancestors = tuple((context or {}).get("ancestors") or ())
        own = (context or {}).get("target") or {}
        key = element_key(own.get("tag"), own.get("id"), own.get("testid"), own.get("name"),
                          tuple(place_key(a) for a in ancestors if a)) if context else None
        self._log.append(("passed", step_id, (ancestors, key)))

    def old_place(self, alternatives: Sequence[T.AnyTarget]) -> tuple[str, ...]:
        """Where an earlier step found one of these alternatives: the ancestors of its element, as place keys.

        The last step that resolved one of them counts, and only once it
        passed (its "before" snapshot is taken then); () when none did.
        """
        wanted = self._described(alternatives)
        step: str | None = None
        place: tuple[Any, ...] = ()
        for what, step_id, value in self._log:
            if what == "found" and value in wanted:
                step, place = step_id, ()
            elif what == "passed" and step_id == step:
                place = value[0]
        return tuple(place_key(a) for a in place if a)

    def claimed(self, alternatives: Sequence[T.AnyTarget]) -> frozenset[tuple[str, ...]]:
        """The elements (``ranking.element_key``) that passing steps found under targets other than these."""
        wanted = self._described(alternatives)
        found: dict[str, str] = {}  # step -> what its target was, as resolved
        keys: set[tuple[str, ...]] = set()
        for what, step_id, value in self._log:
            if what == "found":
                found[step_id] = value
            elif what == "passed" and value[1] and step_id in found and found[step_id] not in wanted:
                keys.add(value[1])
        return frozenset(keys)

    @staticmethod
    def _described(alternatives: Sequence[T.AnyTarget]) -> set[str]:
        return {describe_compiled(a) for a in alternatives if not isinstance(a, T.UrlTarget)}
