"""Condition v1: the 17 checks a step can require before or after it acts (20 with v1.1's,
34 with v1.2's, and the audits of contract/model/checks/audits.py).

Each kind is its own model (discriminated on ``kind``) with its own ``args``
model, so an argument that does not belong to a kind is an unknown key, not a
silently ignored one. Regular expressions are compiled by the validator, which
can report the line they came from.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union, get_args

from pydantic import Discriminator, Field, Tag

from pytest_cometlocal.contract.model.checks.audits import AccessibilityArgs, ScreenshotMatchesArgs
from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.checks.browser_state import (  # v1.2's two, and v1.3's state
    CookieArgs, CookieCountArgs, StorageEqualsArgs, StorageItemArgs, StorageItemsArgs,
)
from pytest_cometlocal.contract.model.codes import Severity
from pytest_cometlocal.contract.model.checks.element_looks import ElementCss, ElementHtmlContains, ElementInViewport
from pytest_cometlocal.contract.model.checks.extension import ExtensionArgs, ExtensionKindName, is_extension_kind
from pytest_cometlocal.contract.model.checks.numbers import NUMBER_KEYS, NumberChecks
from pytest_cometlocal.contract.model.targets import TargetSpec, describe_target
# (v1.2) The response_* args live beside request_seen (v1.3), which reuses them; imported under their names.
from pytest_cometlocal.contract.model.checks.traffic import (
    RequestSeen, ResponseHeaderArgs, ResponseJsonArgs, ResponseStatusArgs,
    describe_request_seen,
)

NonEmpty = Annotated[str, Field(min_length=1)]


class NoArgs(ContractModel):
    """Kinds that take no arguments still accept an empty ``args: {}``."""


class UrlIsArgs(ContractModel):
    url: NonEmpty


class PatternArgs(ContractModel):
    pattern: NonEmpty


class TextArgs(ContractModel):
    text: NonEmpty


class TargetArgs(ContractModel):
    target: TargetSpec | None = None


class CountArgs(NumberChecks):  # (v1.3) count, or the number keys instead
    COMPARED, COMPARISON_REQUIRED = ("count",), True
    target: TargetSpec | None = None
    count: Annotated[int, Field(ge=0)] | None = None


class TargetTextArgs(NumberChecks):  # (v1.3) text, or the number keys (contract/model/checks/numbers.py)
    COMPARED, COMPARISON_REQUIRED = ("text",), True
    target: TargetSpec | None = None
    text: str | None = None


class AttrArgs(NumberChecks):
    COMPARED, COMPARISON_REQUIRED = ("value",), True
    target: TargetSpec | None = None
    attr: NonEmpty
    value: str | None = None


class ValueArgs(NumberChecks):
    COMPARED, COMPARISON_REQUIRED = ("value",), True
    target: TargetSpec | None = None
    value: str | None = None


class DownloadArgs(ContractModel):
    filename: NonEmpty | None = None


class UploadArgs(ContractModel):
    target: TargetSpec | None = None
    text: NonEmpty | None = None


class CheckedArgs(ContractModel):
    target: TargetSpec | None = None
    checked: bool = True


class AriaSnapshotArgs(ContractModel):
    """``target`` defaults to the page's body; ``snapshot`` is a Playwright aria-snapshot template."""

    target: TargetSpec | None = None
    snapshot: NonEmpty


class TargetPatternArgs(ContractModel):  # v1.2
    target: TargetSpec | None = None
    pattern: NonEmpty


class TargetNeedleArgs(ContractModel):  # v1.2: a text the field's value contains
    target: TargetSpec | None = None
    text: NonEmpty


class AttrPatternArgs(ContractModel):  # v1.2
    target: TargetSpec | None = None
    attr: NonEmpty
    pattern: str


class TextsArgs(ContractModel):  # v1.2: the target is required, the list may be empty (no element)
    target: TargetSpec
    texts: list[str]


class PageCountArgs(ContractModel):  # v1.2
    count: Annotated[int, Field(ge=0)]


class _Condition(ContractModel):
    severity: Severity = "error"


class UrlIs(_Condition):
    kind: Literal["url_is"]
    args: UrlIsArgs


class UrlMatches(_Condition):
    kind: Literal["url_matches"]
    args: PatternArgs


class HostInAllowlist(_Condition):
    kind: Literal["host_in_allowlist"]
    args: NoArgs = NoArgs()


class TitleContains(_Condition):
    kind: Literal["title_contains"]
    args: TextArgs


class ElementExists(_Condition):
    kind: Literal["element_exists"]
    args: TargetArgs = TargetArgs()


class ElementVisible(_Condition):
    kind: Literal["element_visible"]
    args: TargetArgs = TargetArgs()


class ElementEnabled(_Condition):
    kind: Literal["element_enabled"]
    args: TargetArgs = TargetArgs()


class ElementClickable(_Condition):
    kind: Literal["element_clickable"]
    args: TargetArgs = TargetArgs()


class ElementCountEquals(_Condition):
    kind: Literal["element_count_equals"]
    args: CountArgs


class ElementTextContains(_Condition):
    kind: Literal["element_text_contains"]
    args: TargetTextArgs


class ElementAttrEquals(_Condition):
    kind: Literal["element_attr_equals"]
    args: AttrArgs


class ElementValueEquals(_Condition):
    kind: Literal["element_value_equals"]
    args: ValueArgs


class NetworkIdle(_Condition):
    kind: Literal["network_idle"]
    args: NoArgs = NoArgs()


class NoBlockingOverlay(_Condition):
    kind: Literal["no_blocking_overlay"]
    args: TargetArgs = TargetArgs()


class ToastContains(_Condition):
    kind: Literal["toast_contains"]
    args: TextArgs


class DownloadStarted(_Condition):
    kind: Literal["download_started"]
    args: DownloadArgs = DownloadArgs()


class UploadCompleted(_Condition):
    kind: Literal["upload_completed"]
    args: UploadArgs = UploadArgs()


class ElementChecked(_Condition):  # v1.1
    kind: Literal["element_checked"]
    args: CheckedArgs = CheckedArgs()


class ElementFocused(_Condition):  # v1.1
    kind: Literal["element_focused"]
    args: TargetArgs = TargetArgs()


class AriaSnapshotMatches(_Condition):  # v1.1
    kind: Literal["aria_snapshot_matches"]
    args: AriaSnapshotArgs


class ElementHidden(_Condition):  # v1.2
    kind: Literal["element_hidden"]
    args: TargetArgs = TargetArgs()


class ElementTextMatches(_Condition):  # v1.2
    kind: Literal["element_text_matches"]
    args: TargetPatternArgs


class ElementValueContains(_Condition):  # v1.2
    kind: Literal["element_value_contains"]
    args: TargetNeedleArgs


class ElementValueMatches(_Condition):  # v1.2
    kind: Literal["element_value_matches"]
    args: TargetPatternArgs


class ElementAttrMatches(_Condition):  # v1.2
    kind: Literal["element_attr_matches"]
    args: AttrPatternArgs


class ElementTextsEqual(_Condition):  # v1.2
    kind: Literal["element_texts_equal"]
    args: TextsArgs


class StorageItem(_Condition):  # v1.2
    kind: Literal["storage_item"]
    args: StorageItemArgs


class Cookie(_Condition):  # v1.2
    kind: Literal["cookie"]
    args: CookieArgs


class CookieCount(_Condition):  # v1.3 (state)
    kind: Literal["cookie_count"]
    args: CookieCountArgs


class StorageItems(_Condition):  # v1.3 (state)
    kind: Literal["storage_items"]
    args: StorageItemsArgs


class StorageEquals(_Condition):  # v1.3 (state)
    kind: Literal["storage_equals"]
    args: StorageEqualsArgs


class PageCountEquals(_Condition):  # v1.2
    kind: Literal["page_count_equals"]
    args: PageCountArgs


class ResponseStatus(_Condition):  # v1.2 (request)
    kind: Literal["response_status"]
    args: ResponseStatusArgs


class ResponseJson(_Condition):  # v1.2 (request)
    kind: Literal["response_json"]
    args: ResponseJsonArgs


class ResponseHeader(_Condition):  # v1.2 (request)
    kind: Literal["response_header"]
    args: ResponseHeaderArgs


class AccessibilityClean(_Condition):  # v1.2 (audits: contract/model/checks/audits.py)
    kind: Literal["accessibility_clean"]
    args: AccessibilityArgs = AccessibilityArgs()


class ScreenshotMatches(_Condition):  # v1.2 (audits.py)
    kind: Literal["screenshot_matches"]
    args: ScreenshotMatchesArgs


_CONDITION_MODELS = Union[
    UrlIs, UrlMatches, HostInAllowlist, TitleContains, ElementExists, ElementVisible,
    ElementEnabled, ElementClickable, ElementCountEquals, ElementTextContains,
    ElementAttrEquals, ElementValueEquals, NetworkIdle, NoBlockingOverlay, ToastContains,
    DownloadStarted, UploadCompleted, ElementChecked, ElementFocused, AriaSnapshotMatches,
    ElementHidden, ElementTextMatches, ElementValueContains, ElementValueMatches, ElementAttrMatches,
    ElementTextsEqual, StorageItem, Cookie,
    PageCountEquals,
    ResponseStatus, ResponseJson, ResponseHeader,
    AccessibilityClean,  # audits
    ScreenshotMatches,
    CookieCount, StorageItems, StorageEquals,  # v1.3 (state)
    RequestSeen,  # v1.3 (contract/model/checks/traffic.py)
    ElementCss, ElementInViewport, ElementHtmlContains,  # v1.3 (element_looks.py)
]
# Each member's ``kind: Literal["..."]``, in the union's order.
CONDITION_KINDS: tuple[str, ...] = tuple(
    get_args(model.model_fields["kind"].annotation)[0] for model in get_args(_CONDITION_MODELS)
)


_BUILT_IN = frozenset(CONDITION_KINDS)


class ExtensionCondition(_Condition):
    """A condition kind a team registers in Python (docs/extensions.md): its args are checked against
    the registered model by the validator (rule EXTENSION), not here."""

    kind: ExtensionKindName
    args: ExtensionArgs = ExtensionArgs()


def kind(value: object) -> str | None:
    """The union member a condition is: its kind, or ``extension`` for an extension kind's name.
    (Named ``kind``: pydantic names the discriminator after this function in its errors.)"""
    written = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    if written is None or (isinstance(written, str) and written in _BUILT_IN):  # the common case: no pattern
        return written
    return "extension" if is_extension_kind(written) else written


Condition = Annotated[
    Union[tuple(Annotated[m, Tag(k)] for m, k in zip(get_args(_CONDITION_MODELS), CONDITION_KINDS))
          + (Annotated[ExtensionCondition, Tag("extension")],)],  # type: ignore[misc]
    Discriminator(kind),
]

EXTENSION_CONDITION_KINDS = frozenset({"element_checked", "element_focused", "aria_snapshot_matches"})
# The $defs of the JSON schema only v1.2's conditions have (contract/model/schema.py leaves them
# out of the older formats' schemas).
V12_CONDITION_DEFS = frozenset({
    "ElementHidden", "ElementTextMatches", "ElementValueContains", "ElementValueMatches", "ElementAttrMatches",
    "ElementTextsEqual", "StorageItem", "Cookie", "TargetPatternArgs", "TargetNeedleArgs", "AttrPatternArgs",
    "TextsArgs", "StorageItemArgs", "CookieArgs",
    "PageCountEquals", "PageCountArgs",  # pages
    "ResponseStatus", "ResponseJson", "ResponseHeader", "ResponseStatusArgs", "ResponseJsonArgs",  # request
    "ResponseHeaderArgs",
    "AccessibilityClean", "AccessibilityArgs",  # audits
    "ScreenshotMatches", "ScreenshotMatchesArgs",  # audits
})
# (v1.2) Conditions on the step's last response: a request step's postconditions only (rule INPUTS).
RESPONSE_KINDS = frozenset({"response_status", "response_json", "response_header"})

# Conditions that look at an element: without args.target they use the step's target.
# (aria_snapshot_matches without one looks at the page's body.)
ELEMENT_KINDS = frozenset({
    "element_exists", "element_visible", "element_enabled", "element_clickable",
    "element_count_equals", "element_text_contains", "element_attr_equals", "element_value_equals",
    "element_checked", "element_focused",
    "element_hidden", "element_text_matches", "element_value_contains", "element_value_matches",
    "element_attr_matches", "element_texts_equal",
    "element_css", "element_in_viewport", "element_html_contains",  # v1.3
})

# U5: a critical step needs at least one of these (with a non-warning severity).
STRONG_KINDS = frozenset({"url_is", "url_matches", "download_started", "upload_completed"}) | RESPONSE_KINDS
STRONG_IF_CRITICAL = frozenset({"toast_contains", "element_text_contains", "aria_snapshot_matches"})


def is_strong(condition: "Condition") -> bool:  # type: ignore[valid-type]
    """U5's conservative definition of a strong postcondition."""
    if condition.severity == "warning":
        return False
    if condition.kind in STRONG_KINDS:
        return True
    return condition.kind in STRONG_IF_CRITICAL and condition.severity == "critical"


def describe_condition(condition: "Condition", step_target: "TargetSpec | None" = None) -> str:  # type: ignore[valid-type]
    """Short human form of a condition, for messages: ``element_visible (css=#done)``,
    ``element_text_contains (testid=counter, text=99)``, ``network_idle``.

    An element condition without its own target names the step's; a long or
    multi-line argument (an aria snapshot) is cut short.
    """
    if condition.kind == "request_seen":  # (v1.3) its filters and checks read as one request
        return describe_request_seen(condition.args)
    args = condition.args.model_dump(mode="json", exclude_none=True)
    args = dict(sorted(args.items(), key=lambda kv: kv[0] in NUMBER_KEYS))  # (v1.3) the kind's own keys first
    target = getattr(condition.args, "target", None)
    if target is None and condition.kind in ELEMENT_KINDS:
        target = step_target
    parts = [describe_target(target)] if target is not None else []
    for name, value in args.items():
        if name != "target":
            text = " ".join(str(value).split())
            parts.append(f"{name}={text if len(text) <= 60 else text[:59] + '…'}")
    return condition.kind + (f" ({', '.join(parts)})" if parts else "")
