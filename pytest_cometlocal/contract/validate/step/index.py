"""What a step holds, read once, so that a step rule family with nothing to look at is not run.

``check_step`` holds every step to some twenty rule families, and most of them look at a key, a
condition kind or an extension kind that most steps do not have: run on such a step, each reads its
attributes to find nothing, and at a thousand plans of twenty steps those reads are most of the
validation's cost. The index is built once a step (its written keys, its condition kinds, whether
it uses an extension kind), and a family is skipped when the index shows that it would find nothing
to report (rules.py ``_GATED``): what is reported does not change, only what is read to find it.

The written keys are pydantic's ``model_fields_set``: a key the plan did not write (defaults merged)
holds its default, which is None for every optional step key a gate reads (``ALWAYS``: the keys
whose default is not None, held as written, so a gate can never skip a family because of one).
"""

from __future__ import annotations

from typing import Any, Iterable

from pydantic import BaseModel

from pytest_cometlocal.contract.model.checks.extension import is_extension_kind
from pytest_cometlocal.contract.model.actionspec import ACTION_KINDS
from pytest_cometlocal.contract.model.conditions import CONDITION_KINDS

BUILT_IN_ACTIONS = frozenset(ACTION_KINDS)
BUILT_IN_CONDITIONS = frozenset(CONDITION_KINDS)
_ALWAYS: dict[type, frozenset[str]] = {}


def always(cls: type[BaseModel]) -> frozenset[str]:
    """The optional keys of ``cls`` whose default is not None: a gate treats them as written."""
    found = _ALWAYS.get(cls)
    if found is None:
        found = _ALWAYS[cls] = frozenset(name for name, info in cls.model_fields.items() if not info.is_required()
                                         and (info.default_factory is not None or info.default is not None))
    return found


class StepIndex:
    """A step's written keys, its conditions' kinds and whether it uses an extension kind."""

    __slots__ = ("kind", "written", "condition_kinds", "extension")

    def __init__(self, step: Any, condition_kinds: Iterable[str]):
        self.kind: str = step.kind
        defaults = always(type(step))
        written = step.model_fields_set
        self.written: frozenset[str] | set[str] = written | defaults if defaults else written
        kinds = self.condition_kinds = frozenset(condition_kinds)
        # Rule EXTENSION reads an extension kind (the step's or a condition's) and ``args`` (only theirs);
        # a built-in kind is never an extension kind's name (model/checks/extension.py).
        self.extension = ("args" in self.written or (self.kind not in BUILT_IN_ACTIONS and is_extension_kind(self.kind))
                          or (not kinds <= BUILT_IN_CONDITIONS
                              and any(is_extension_kind(k) for k in kinds - BUILT_IN_CONDITIONS)))

    def wants(self, keys: frozenset[str], kinds: frozenset[str], condition_kinds: frozenset[str]) -> bool:
        """Whether the step writes one of ``keys``, is of one of ``kinds`` or has a condition of ``condition_kinds``."""
        return (self.kind in kinds or not self.written.isdisjoint(keys)
                or not self.condition_kinds.isdisjoint(condition_kinds))
