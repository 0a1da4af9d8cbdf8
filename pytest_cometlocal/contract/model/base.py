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
_NESTED: dict[tuple[type, frozenset[type] | None], tuple[tuple[str, str], ...]] = {}
_HOLDS: dict[tuple[type, frozenset[type]], bool] = {}


class ContractModel(BaseModel):
    """Base of every model a user writes in a plan file."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class SharedDefault(ContractModel):
    """A model that holds lists, hashable by its value: pydantic deep-copies an unhashable default
    for every plan that does not write the key, and shares a hashable one (frozen: never changed)."""

    def __hash__(self) -> int:
        return hash((type(self), self.model_dump_json()))


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


def nested_fields(cls: type[BaseModel], holding: frozenset[type] | None = None) -> tuple[tuple[str, str], ...]:
    """(attribute, key as written) of each field of ``cls`` that can hold a model, a list or a mapping
    (with ``holding``, a frozenset: that can hold, at any depth, a model of one of those classes): the
    rules that look inside a plan's models (regex and number keys) walk only these, since a plan has
    thousands of scalar fields and validation's cost is per field read. Cached per class."""
    found = _NESTED.get((cls, holding))
    if found is None:
        found = _NESTED[(cls, holding)] = tuple(
            (name, info.alias or name) for name, info in cls.model_fields.items()
            if _may_nest(info.annotation) and (holding is None or _holds(_reach(info.annotation, set()), holding)))
    return found


def can_hold(cls: type[BaseModel], wanted: frozenset[type]) -> bool:
    """Whether a model of ``cls`` is, or can hold at any depth, a model of a class in ``wanted``: read
    from the fields' annotations, once per class. A rule that looks only inside such models (a regex
    field, a number key) skips a model that cannot hold one. An annotation that cannot be read this way
    (``Any``, a type of its own) can hold anything: only a proven no skips. Cached per (class, wanted)."""
    found = _HOLDS.get((cls, wanted))
    if found is None:
        found = _HOLDS[(cls, wanted)] = _holds(_reach(cls, set()), wanted)
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


def _holds(reach: set[type] | None, wanted: frozenset[type]) -> bool:
    return reach is None or any(issubclass(r, w) or issubclass(w, r) for r in reach for w in wanted)


def _reach(annotation: Any, seen: set[type]) -> set[type] | None:
    """The model classes a value of ``annotation`` can be or hold at any depth; None: anything."""
    origin = get_origin(annotation)
    if origin is typing.Literal:
        return set()
    if origin is not None or isinstance(annotation, types.UnionType):  # Annotated, Union, list[...], dict[...]
        args = get_args(annotation)[:1] if origin is typing.Annotated else get_args(annotation)
        found: set[type] = set()
        for arg in args:
            inner = _reach(arg, seen)
            if inner is None:
                return None
            found |= inner
        return found
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found = {annotation}
        if annotation not in seen:
            seen.add(annotation)
            for info in annotation.model_fields.values():
                inner = _reach(info.annotation, seen)
                if inner is None:
                    return None
                found |= inner
        return found
    if annotation is Ellipsis or (isinstance(annotation, type) and issubclass(annotation, _SCALARS)):
        return set()
    return None
