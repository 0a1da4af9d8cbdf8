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


class RecordModel(BaseModel):
    """Base of every model the executor writes (errors, trace, evidence)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
