"""Browser state (v1.3): the cookies and storage a step checks or sets (docs/plan-format.md, "Browser state").

The v1.2 args of ``cookie`` and ``storage_item`` live here with what v1.3 adds to them
(``absent``, the cookie's attributes), beside the v1.3 condition args ``cookie_count``,
``storage_items`` and ``storage_equals``, and the step key ``cookie:`` of ``set_cookie`` /
``clear_cookies``. Kept apart from conditions.py (near its size limit); conditions.py imports
the args and puts the condition models in its union. Only pydantic's types are checked here:
regexes, pointers and cookie names are the validator's (contract/validate/checks.py), which
can locate them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from pytest_cometlocal.contract.model.base import ContractModel, at_most_one, written
from pytest_cometlocal.contract.model.checks.numbers import NUMBER_KEYS, NumberChecks

NonEmpty = Annotated[str, Field(min_length=1)]
Area = Literal["local", "session"]
SameSite = Literal["Strict", "Lax", "None"]
# The cookie attributes a ``cookie`` condition may check (v1.3), in the order they are read.
COOKIE_ATTRS: tuple[str, ...] = ("http_only", "secure", "domain", "path", "same_site", "expires")
def _absent_alone(args: ContractModel, checks: tuple[str, ...]) -> None:
    """``absent: true`` says there is nothing to check: no other check key may go with it."""
    if args.__dict__.get("absent") and (given := written(args, checks)):
        raise ValueError(f"absent: true cannot go with {', '.join(given)} (an absent item has nothing to check)")


class StorageItemArgs(NumberChecks):  # v1.2; absent and the number keys v1.3
    COMPARED = ("equals", "matches", "length")
    area: Area
    key: NonEmpty
    pointer: str | None = None
    equals: Any = None
    matches: str | None = None
    length: Annotated[int, Field(ge=0)] | None = None
    absent: Literal[True] | None = None  # v1.3: no such item in the page's origin

    @model_validator(mode="after")
    def _one_check(self) -> "StorageItemArgs":
        at_most_one(self, ("equals", "matches", "length"))
        _absent_alone(self, ("pointer", "equals", "matches", "length", *NUMBER_KEYS))
        if self.pointer is None and "equals" in self.model_fields_set and not isinstance(self.equals, str):
            raise ValueError("without a pointer, equals compares the item's string: write it as a string")
        return self


class CookieArgs(NumberChecks):  # v1.2; absent, the attributes and the number keys v1.3
    COMPARED = ("equals", "matches")
    name: NonEmpty
    equals: str | None = None
    matches: str | None = None
    absent: Literal[True] | None = None  # v1.3: no cookie of that name is sent with the page's URL
    http_only: bool | None = None  # v1.3: the attributes the cookie was set with
    secure: bool | None = None
    domain: NonEmpty | None = None  # as the browser holds it; a leading dot is ignored on both sides
    path: NonEmpty | None = None
    same_site: SameSite | None = None
    expires: Literal["session", "persistent"] | None = None

    @model_validator(mode="after")
    def _one_check(self) -> "CookieArgs":
        at_most_one(self, ("equals", "matches"))
        _absent_alone(self, ("equals", "matches", *COOKIE_ATTRS, *NUMBER_KEYS))
        return self


class CookieCountArgs(NumberChecks):  # v1.3
    """How many of the context's cookies have ``name`` and ``domain`` (each filter optional): ``count``, or the
    number keys instead (rule NUMBER)."""

    COMPARED, COMPARISON_REQUIRED = ("count",), True

    name: NonEmpty | None = None
    domain: NonEmpty | None = None
    count: Annotated[int, Field(ge=0)] | None = None


class ItemCheck(NumberChecks):  # v1.3: storage_items' every / some / where, storage_item's vocabulary
    COMPARED = ("equals", "matches", "length")
    pointer: str | None = None
    equals: Any = None
    matches: str | None = None
    length: Annotated[int, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _one_check(self) -> "ItemCheck":
        at_most_one(self, ("equals", "matches", "length"))
        if self.pointer is None and "equals" in self.model_fields_set and not isinstance(self.equals, str):
            raise ValueError("without a pointer, equals compares the item's string: write it as a string")
        return self


class StorageItemsArgs(NumberChecks):  # v1.3: the per-record store
    """The items of one area whose key ``key_matches`` searches (and that meet ``where``, when written): how
    many (``count``, or the number keys instead), and every one or some one."""

    COMPARED = ("count",)
    area: Area
    key_matches: NonEmpty
    where: ItemCheck | None = None
    count: Annotated[int, Field(ge=0)] | None = None
    every: ItemCheck | None = None
    some: ItemCheck | None = None

    @model_validator(mode="after")
    def _one_quantifier(self) -> "StorageItemsArgs":
        at_most_one(self, ("every", "some"))
        if self.count == 0 and (self.every is not None or self.some is not None):
            raise ValueError("count: 0 leaves no item for every / some to check")
        return self


class StorageEqualsArgs(ContractModel):  # v1.3: the whole map of one area
    area: Area
    equals: dict[NonEmpty, Any]


class CookieSpec(ContractModel):  # v1.3: set_cookie's and clear_cookies' step key ``cookie``
    """``set_cookie``: name and value required, where by ``url`` or ``domain`` (+ ``path``), the page's
    URL by default; ``clear_cookies``: name / domain / path filters only (rule INPUTS)."""

    name: NonEmpty | None = None
    value: str | None = None
    url: NonEmpty | None = None
    domain: NonEmpty | None = None
    path: Annotated[str, Field(min_length=1, pattern=r"^/")] | None = None
    http_only: bool | None = None
    secure: bool | None = None
    same_site: SameSite | None = None
    # "session" (the default: gone with the browser) or seconds from the moment it is set.
    expires: Literal["session"] | Annotated[int, Field(gt=0, le=400 * 86_400)] | None = None

    @model_validator(mode="after")
    def _where(self) -> "CookieSpec":
        if self.url is not None and (self.domain is not None or self.path is not None):
            raise ValueError("url cannot go with domain or path (the cookie's URL gives both)")
        return self

    def describe(self) -> str:
        """``session=*** on .example.com/``: names and places, never the value."""
        where = self.url or ((self.domain or "") + (self.path or ""))
        return (self.name or "all") + (f" on {where}" if where else "")


# The set_cookie keys clear_cookies does not take (rule INPUTS).
SET_ONLY_COOKIE_KEYS: tuple[str, ...] = ("value", "url", "http_only", "secure", "same_site", "expires")
