"""The arguments of the conditions that audit the page against a reference (v1.2 extension).

A picture against a reviewed baseline (``screenshot_matches``) and the page against
accessibility rules (``accessibility_clean``): their condition classes join the union
in ``conditions.py``; their arguments, closed sets and limits live here, so the
audits' contract reads in one place.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.targets import TargetSpec

# -- screenshot_matches: a picture against its reviewed baseline ------------------------------

# A baseline's name becomes a file name (``<name>-<browser>-<platform>.png``): letters, digits,
# ``.``, ``_`` and ``-``, starting with a letter or digit, no ``..`` (rule SNAPSHOT_NAME).
SNAPSHOT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
_SNAPSHOT_NAME = re.compile(SNAPSHOT_NAME_PATTERN)
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
