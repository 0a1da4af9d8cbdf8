"""Shared pydantic configuration for the contract models.

Plan-format models are frozen (a validated plan cannot change under the
executor), forbid unknown keys (deny by default) and are strict, so YAML 1.2
meaning is kept: the string ``"yes"`` never becomes ``True`` and ``"5"`` never
becomes ``5``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ContractModel(BaseModel):
    """Base of every model a user writes in a plan file."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


def written(args: BaseModel, names: tuple[str, ...]) -> list[str]:
    """The keys of ``names`` a plan wrote: ``equals: null`` is a value, so this reads ``model_fields_set``."""
    return [n for n in names if n in args.model_fields_set]


def at_most_one(args: BaseModel, names: tuple[str, ...]) -> None:
    """A model validator's rule: at most one of ``names`` is written."""
    if len(given := written(args, names)) > 1:
        raise ValueError(f"at most one of {', '.join(names)} (got {', '.join(given)})")


def exactly_one(args: BaseModel, names: tuple[str, ...]) -> None:
    """A model validator's rule: exactly one of ``names`` is written."""
    if len(given := written(args, names)) != 1:
        raise ValueError(f"exactly one of {', '.join(names)}" + (f" (got {', '.join(given)})" if given else ""))


class RecordModel(BaseModel):
    """Base of every model the executor writes (errors, trace, evidence)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
