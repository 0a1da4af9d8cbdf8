"""Shared pydantic configuration for the contract models.

Plan-format models are frozen (a validated plan cannot change under the
executor), forbid unknown keys (deny by default) and are strict, so YAML 1.2
meaning is kept: the string ``"yes"`` never becomes ``True`` and ``"5"`` never
becomes ``5``.
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict

_SCALARS = (str, int, float, bool, bytes, type(None), enum.Enum)
_NESTED: dict[type, tuple[tuple[str, str], ...]] = {}


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


def nested_fields(cls: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """(attribute, key as written) of each field of ``cls`` that can hold a model, a list or a mapping:
    the rules that look inside a plan's models (regex and number keys) walk only these, since a plan has
    thousands of scalar fields and validation's cost is per field read. Cached per class."""
    found = _NESTED.get(cls)
    if found is None:
        found = _NESTED[cls] = tuple((name, info.alias or name) for name, info in cls.model_fields.items()
                                     if _may_nest(info.annotation))
    return found


def _may_nest(annotation: Any) -> bool:
    """Whether a value of this annotation can be a model or a container (unknown types: yes, to be safe)."""
    origin = get_origin(annotation)
    if origin is typing.Literal:
        return False
    if origin is typing.Annotated or origin is Union or origin is types.UnionType:
        return any(_may_nest(arg) for arg in get_args(annotation))
    if origin is not None:
        return True  # list[...], dict[...], tuple[...] and the like
    return not (isinstance(annotation, type) and issubclass(annotation, _SCALARS))
