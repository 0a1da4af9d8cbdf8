"""(v1.3) Element checks of how an element looks: ``element_css``, ``element_in_viewport``,
``element_html_contains``.

Each looks at one element (the condition's ``target``, else the step's; exactly
one match, as every element condition: U1), read by executor/page/looks.py.
``element_css`` compares a computed style value as ``getComputedStyle`` gives it
(``rgb(255, 0, 0)``, ``16px``), as Playwright's ``toHaveCSS``; ``element_in_viewport``
is Playwright's ``toBeInViewport`` (the element's intersection ratio with the
viewport is above 0, or at least ``ratio``); ``element_html_contains`` searches the
element's ``innerHTML`` for a text (Cypress's ``have.html`` as "contains").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.codes import Severity
from pytest_cometlocal.contract.model.targets import TargetSpec

# A CSS property name as getComputedStyle's getPropertyValue takes it: kebab-case (``background-color``,
# ``-webkit-line-clamp``) or a custom property (``--brand``). camelCase reads as "" there: refused.
CSS_PROPERTY = r"^(--[A-Za-z0-9_-]+|-?[a-z][a-z0-9]*(-[a-z0-9]+)*)$"


class CssArgs(ContractModel):
    target: TargetSpec | None = None
    property: Annotated[str, Field(pattern=CSS_PROPERTY, max_length=100)]
    equals: str | None = None
    matches: str | None = None  # a Python regex, searched (rule REGEX)

    @model_validator(mode="after")
    def _one_check(self) -> "CssArgs":
        given = [n for n in ("equals", "matches") if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError("exactly one of equals, matches" + (f" (got {', '.join(given)})" if given else ""))
        return self


class ViewportArgs(ContractModel):
    target: TargetSpec | None = None
    ratio: Annotated[float, Field(ge=0, le=1)] | None = None  # strict float takes an int too


class HtmlArgs(ContractModel):
    target: TargetSpec | None = None
    text: Annotated[str, Field(min_length=1)]


class _Look(ContractModel):
    severity: Severity = "error"


class ElementCss(_Look):  # v1.3
    kind: Literal["element_css"]
    args: CssArgs


class ElementInViewport(_Look):  # v1.3
    kind: Literal["element_in_viewport"]
    args: ViewportArgs = ViewportArgs()


class ElementHtmlContains(_Look):  # v1.3
    kind: Literal["element_html_contains"]
    args: HtmlArgs
