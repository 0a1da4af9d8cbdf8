"""(v1.2) ``page``: how ``switch_page`` names one open page of the run.

Exactly one of ``index`` (0 = the first page, in the order the pages were
opened), ``url_matches`` (a Python regex, searched in the page's URL) or
``title_contains`` (a text in its title). Closed and deterministic like a
target: which page matches is decided when the step runs, and none or several
is a typed error (TARGET_NOT_FOUND / TARGET_NOT_UNIQUE, ``details.which: "page"``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from pytest_cometlocal.contract.model.base import ContractModel

# A step key that names what its action must open (click and press only).
Opens = Literal["page"]


class PageSpec(ContractModel):
    """One open page of the run, by its place, its URL or its title."""

    index: Annotated[int, Field(ge=0)] | None = None
    url_matches: Annotated[str, Field(min_length=1)] | None = None
    title_contains: Annotated[str, Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "PageSpec":
        given = [k for k in ("index", "url_matches", "title_contains") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("page takes exactly one of index, url_matches, title_contains"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self

    def describe(self) -> str:
        """Short human form: ``page 1``, ``page url~/popup``, ``page title~"Sign in"``."""
        if self.index is not None:
            return f"page {self.index}"
        if self.url_matches is not None:
            return f"page url~{self.url_matches}"
        return f'page title~"{self.title_contains}"'
