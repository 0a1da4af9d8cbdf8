"""(v1.3) Number checks: ``greater_than``, ``less_than``, ``between``, ``one_of``.

A base model (``NumberChecks``) that a condition's args model inherits: the
kinds that compare a value read as text (element_text_contains,
element_value_equals, element_attr_equals, storage_item, cookie,
response_json, response_header) take these keys instead of their own
comparison key, and counts take them instead of ``count``. The keys combine:
all that are written must hold. How a value is read as a number and compared
is contract/numbers.py (``compare_number``); which keys may go together, and
whether a bound is a number, is rule NUMBER (contract/validate/checks.py, ``check_numbers``),
located at the key.

A bound is a JSON number, or a string: a number's text (``"${vars.X}"`` is
substituted at load, as text) or a whole ``"${saved.X}"`` (filled in just
before the step runs, with the JSON type the value was saved with).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Union

from pydantic import Field

from pytest_cometlocal.contract.model.base import ContractModel

Bound = Union[int, float, str]
# The keys, in the order a description shows them.
NUMBER_KEYS: tuple[str, ...] = ("greater_than", "less_than", "between", "one_of")


class NumberChecks(ContractModel):
    """The number keys. ``COMPARED``: the kind's own comparison keys (the number keys replace them);
    ``COMPARISON_REQUIRED``: whether the kind needs one comparison (its own or a number check)."""

    COMPARED: ClassVar[tuple[str, ...]] = ()
    COMPARISON_REQUIRED: ClassVar[bool] = False
    # Fields where a whole "${saved.X}" takes the saved JSON value, not its text (executor/http/saved.py).
    TYPED_SAVED: ClassVar[frozenset[str]] = frozenset(NUMBER_KEYS)

    greater_than: Bound | None = Field(None, description="(v1.3) the value, read as a number, is above this")
    less_than: Bound | None = Field(None, description="(v1.3) the value, read as a number, is below this")
    between: Annotated[list[Bound], Field(min_length=2, max_length=2)] | None = Field(
        None, description="(v1.3) [low, high]: the value, read as a number, is from low to high (both included)")
    one_of: Annotated[list[Bound], Field(min_length=1)] | None = Field(
        None, description="(v1.3) the value is one of these: a number compares numbers, a string the text exactly")


def number_keys(args: Any) -> list[str]:
    """The number keys written in ``args`` (any model; none for a model without them)."""
    fields = getattr(args, "model_fields_set", ())
    return [k for k in NUMBER_KEYS if k in fields and getattr(args, k, None) is not None]

