"""The names and args of extension kinds (docs/extensions.md): what a plan may write for a kind a
team registers in Python.

The contract stays static: an extension kind is one generic row (its name matches
``EXTENSION_KIND_PATTERN``, its input is ``args``), and whether the name is registered, and its
``args`` fit the registered model, is the validator's rule EXTENSION (contract/extensions/). A
built-in kind never matches the pattern, so an extension can never shadow one.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

# ``x_<name>`` or ``<team>.<name>``: lower case, digits and underscores.
EXTENSION_KIND_PATTERN = r"^(x_[a-z][a-z0-9_]*|[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)$"
_NAME = re.compile(EXTENSION_KIND_PATTERN)
ExtensionKindName = Annotated[str, Field(pattern=EXTENSION_KIND_PATTERN, max_length=80)]


def is_extension_kind(kind: Any) -> bool:
    """Whether ``kind`` is written as an extension kind's name (registered or not)."""
    return isinstance(kind, str) and len(kind) <= 80 and _NAME.match(kind) is not None


class ExtensionArgs(BaseModel):
    """An extension kind's ``args`` as the plan wrote them: any JSON mapping. The registered model
    checks them at load (rule EXTENSION) and builds what the extension's callable gets at run time."""

    model_config = ConfigDict(frozen=True, extra="allow", json_schema_extra={"additionalProperties": True})

    def given(self) -> dict[str, Any]:
        """The args as written (``${vars.X}`` replaced, ``${secrets.X}`` kept as references)."""
        return dict(self.__pydantic_extra__ or {})


def uses_extensions(step: Any) -> bool:
    """Whether a step (an ActionSpec) is of an extension kind or has an extension condition."""
    return is_extension_kind(step.kind) or any(
        is_extension_kind(c.kind) for c in (*step.preconditions, *step.postconditions))
