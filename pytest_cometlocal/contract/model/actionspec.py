"""ActionSpec v1: one step of a plan, as the executor receives it.

An ActionSpec is complete: ``defaults`` have been merged in, ``${vars.X}``
substituted and the U-rules checked, so the executor never has to guess.
``${secrets.X}`` references stay as references until the executor uses them,
so a validated ActionSpec (and every trace line that serialises it) is free of
secret values.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, Field

from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.codes import Criticality
from pytest_cometlocal.contract.model.conditions import Condition
from pytest_cometlocal.contract.model.targets import TargetSpec

ActionKind = Literal["navigate", "click", "fill", "select", "upload", "wait_for", "assert", "stop"]
ACTION_KINDS: tuple[str, ...] = get_args(ActionKind)
SIDE_EFFECT_KINDS = frozenset({"navigate", "click", "fill", "select", "upload"})
TARGETLESS_KINDS = frozenset({"assert", "stop"})
# U1: actions that need exactly one element.
SINGLE_TARGET_KINDS = frozenset({"click", "fill", "select", "upload"})

STEP_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$"
TAG_PATTERN = r"^[a-z][a-z0-9_]*$"


def _number_as_text(value: Any) -> Any:
    """``value: 12345`` in YAML is a number; a form field wants its text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


InputText = Annotated[str, BeforeValidator(_number_as_text)]
StepId = Annotated[str, Field(pattern=STEP_ID_PATTERN)]
TagName = Annotated[str, Field(pattern=TAG_PATTERN)]


class ActionSpec(ContractModel):
    """One executable step (ActionSpec v1)."""

    id: StepId
    kind: ActionKind
    criticality: Criticality
    target: TargetSpec | None = None
    preconditions: Annotated[list[Condition], Field(min_length=1)]
    postconditions: Annotated[list[Condition], Field(min_length=1)]
    timeout_ms: Annotated[int, Field(gt=0, le=3_600_000)]
    value: InputText | None = None
    file_ref: Annotated[str, Field(min_length=1)] | Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)] | None = None
    # Factories, not ``[]``/``{}``: pydantic deep-copies a mutable default for every
    # step it validates; the schema still shows the empty default.
    tags: list[TagName] = Field(default_factory=list, json_schema_extra={"default": []})
    metadata: dict[str, Any] = Field(default_factory=dict, json_schema_extra={"default": {}})

    @property
    def alternatives(self) -> list:
        """The step's targets in U4 order (one element for a single target)."""
        if self.target is None:
            return []
        return list(self.target) if isinstance(self.target, list) else [self.target]

    @property
    def file_refs(self) -> list[str]:
        if self.file_ref is None:
            return []
        return [self.file_ref] if isinstance(self.file_ref, str) else list(self.file_ref)


class StepDefaults(ContractModel):
    """Plan ``defaults``: filled into every step that lacks the key."""

    criticality: Criticality | None = None
    timeout_ms: Annotated[int, Field(gt=0, le=3_600_000)] | None = None
    preconditions: list[Condition] | None = None
    postconditions: list[Condition] | None = None


DEFAULTABLE_KEYS: tuple[str, ...] = ("criticality", "timeout_ms", "preconditions", "postconditions")
