"""The arguments of the conditions that audit the page against a reference (v1.2 extension).

A picture against a reviewed baseline (``screenshot_matches``) and the page against
accessibility rules (``accessibility_clean``): their condition classes join the union
in ``conditions.py``; their arguments, closed sets and limits live here, so the
audits' contract reads in one place.
"""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.targets import TargetSpec

# -- accessibility_clean ------------------------------------------------------------------------

# The axe-core tags a plan may name: a closed set (WCAG 2.0 A and AA, WCAG 2.1 AA, and axe's
# best practices); the order is the documentation's.
AXE_TAGS: tuple[str, ...] = ("wcag2a", "wcag2aa", "wcag21aa", "best-practice")
# What an accessibility_clean without ``rules`` checks: WCAG 2.1 level AA (best practices are opt-in).
DEFAULT_AXE_TAGS: tuple[str, ...] = ("wcag2a", "wcag2aa", "wcag21aa")
# axe-core's impacts, least first: a violation counts when its impact is at least impact_at_least.
IMPACTS: tuple[str, ...] = ("minor", "moderate", "serious", "critical")
AXE_RULE_ID_PATTERN = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"
# The most targets a failure lists per rule (each masked); the rest are counted.
AXE_TARGETS_SHOWN = 50
# The vendored axe-core (executor/audits/vendor/axe.lock.json, scripts/refresh-axe.sh) and its
# rule ids: ``disable`` may name only these (rule AXE_RULE). tests/unit/test_axe_vendor.py holds
# the two to the vendored file.
AXE_VERSION = "4.14.1"
AXE_RULE_IDS: frozenset[str] = frozenset("""
    accesskeys area-alt aria-allowed-attr aria-allowed-role aria-braille-equivalent aria-command-name
    aria-conditional-attr aria-deprecated-role aria-dialog-name aria-hidden-body aria-hidden-focus
    aria-input-field-name aria-meter-name aria-progressbar-name aria-prohibited-attr aria-required-attr
    aria-required-children aria-required-parent aria-roledescription aria-roles aria-tab-name aria-text
    aria-toggle-field-name aria-tooltip-name aria-treeitem-name aria-valid-attr aria-valid-attr-value
    audio-caption autocomplete-valid avoid-inline-spacing blink button-name bypass color-contrast
    color-contrast-enhanced css-orientation-lock definition-list dlitem document-title duplicate-id
    duplicate-id-active duplicate-id-aria empty-heading empty-table-header focus-order-semantics
    form-field-multiple-labels frame-focusable-content frame-tested frame-title frame-title-unique
    heading-order hidden-content html-has-lang html-lang-valid html-xml-lang-mismatch
    identical-links-same-purpose image-alt image-redundant-alt input-button-name input-image-alt label
    label-content-name-mismatch label-title-only landmark-banner-is-top-level
    landmark-complementary-is-top-level landmark-contentinfo-is-top-level landmark-main-is-top-level
    landmark-no-duplicate-banner landmark-no-duplicate-contentinfo landmark-no-duplicate-main
    landmark-one-main landmark-unique link-in-text-block link-name list listitem marquee meta-refresh
    meta-refresh-no-exceptions meta-viewport meta-viewport-large nested-interactive no-autoplay-audio
    object-alt p-as-heading page-has-heading-one presentation-role-conflict region role-img-alt
    scope-attr-valid scrollable-region-focusable select-name server-side-image-map skip-link
    summary-name svg-img-alt tabindex table-duplicate-name table-fake-caption target-size td-has-header
    td-headers-attr th-has-data-cells valid-lang video-caption
""".split())

AxeTag = Literal["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]
Impact = Literal["minor", "moderate", "serious", "critical"]
AxeRuleId = Annotated[str, Field(pattern=AXE_RULE_ID_PATTERN)]


class AccessibilityArgs(ContractModel):
    """``target`` scopes the audit to one element (default: the whole page); ``rules`` picks axe's
    tags; ``disable`` names rules that are not run; a violation counts from ``impact_at_least``."""

    target: TargetSpec | None = None
    rules: Annotated[list[AxeTag], Field(min_length=1)] = list(DEFAULT_AXE_TAGS)
    disable: list[AxeRuleId] = []
    impact_at_least: Impact = "serious"


# -- screenshot_matches: a picture against its reviewed baseline ------------------------------

# A baseline's name becomes a file name (``<name>-<browser>-<platform>.png``): letters, digits,
# ``.``, ``_`` and ``-``, starting with a letter or digit, no ``..`` (rule SNAPSHOT_NAME).
SNAPSHOT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
_SNAPSHOT_NAME = re.compile(SNAPSHOT_NAME_PATTERN)
# Names Windows keeps for devices, whatever the case and extension (``nul.png``, ``Com1.x``): a baseline
# so named cannot be written or read there, and a suite's baselines go to every platform (rule SNAPSHOT_NAME).
WINDOWS_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                              *(f"LPT{i}" for i in range(1, 10))})
SNAPSHOTS_SUFFIX = ".snapshots"  # the folder beside the plan: ``<plan file stem>.snapshots``
DEFAULT_THRESHOLD = 0.2  # as Playwright's toHaveScreenshot (pixelmatch's YIQ distance, 0-1)
UpdateSnapshots = Literal["all", "missing", "none"]  # --cometlocal-update-snapshots
UPDATE_SNAPSHOTS: tuple[str, ...] = ("all", "missing", "none")


class ScreenshotMatchesArgs(ContractModel):  # v1.2
    """``target`` defaults to the viewport; ``mask`` targets are painted over in both pictures."""

    name: Annotated[str, Field(min_length=1, json_schema_extra={"pattern": SNAPSHOT_NAME_PATTERN})]
    target: TargetSpec | None = None
    mask: list[TargetSpec] = []
    threshold: Annotated[float, Field(ge=0, le=1)] = DEFAULT_THRESHOLD
    max_diff_pixels: Annotated[int, Field(ge=0)] | None = None
    max_diff_ratio: Annotated[float, Field(ge=0, le=1)] | None = None

    @model_validator(mode="after")
    def _one_allowance(self) -> "ScreenshotMatchesArgs":
        if self.max_diff_pixels is not None and self.max_diff_ratio is not None:
            raise ValueError("at most one of max_diff_pixels, max_diff_ratio")
        return self


def snapshot_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a baseline file (rule SNAPSHOT_NAME), or None."""
    if not _SNAPSHOT_NAME.match(name) or ".." in name:
        return (f"snapshot name {name!r} must be a safe file name: letters, digits, '.', '_' and '-', "
                "starting with a letter or digit, at most 100 characters, no '..'")
    if name.split(".")[0].rstrip(". ").upper() in WINDOWS_RESERVED:
        return (f"snapshot name {name!r} is a device name on Windows (CON, PRN, AUX, NUL, COM1-COM9, LPT1-LPT9, "
                "with any extension): its baseline could not be written there")
    if name.lower().endswith(".png"):
        return f"snapshot name {name!r}: leave out '.png' (the file is <name>-<browser>-<platform>.png)"
    return None


def snapshots_dir(plan_path: Path | None) -> Path | None:
    """Where a plan file's baselines live: ``<plan file stem>.snapshots`` beside it (None: no file)."""
    if plan_path is None:
        return None
    return plan_path.parent / (plan_path.stem + SNAPSHOTS_SUFFIX)


def baseline_file(name: str, browser: str, platform: str) -> str:
    """``<name>-<browser>-<platform>.png``: the platform in the name, as Playwright's, as fonts differ."""
    return f"{name}-{browser}-{platform}.png"


# What screenshot_matches compares pictures with: the ``pictures`` extra (pyproject.toml).
PICTURES_MODULES = {"PIL": "pillow", "numpy": "numpy"}


def pictures_missing() -> list[str]:
    """The distributions of the ``pictures`` extra that are not installed (rule PICTURES_EXTRA)."""
    return [dist for module, dist in PICTURES_MODULES.items() if find_spec(module) is None]
