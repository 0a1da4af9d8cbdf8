"""Where screenshot_matches' pictures go: baselines beside the plan, the rest into the run's evidence.

One ``Baselines`` per executor (``StepContext.baselines``). It knows the plan's
``<plan file stem>.snapshots`` folder, the run's update mode
(``--cometlocal-update-snapshots``), the browser and platform that name a baseline file,
and the run's evidence store. A baseline is written beside the plan only when the mode
allows it, and a copy goes into the evidence (role ``baseline_written``), so the run
itself says which baselines it wrote. A failed comparison's pictures wait in ``pending``
until the step's failure takes its evidence pack (``failure_pictures``): a condition
polled ten times writes one set, not ten.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from pytest_cometlocal.contract.model.checks.audits import baseline_file
from pytest_cometlocal.contract.model.records import EvidenceRef

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

    from pytest_cometlocal.contract.model.targets import Target
    from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore

# The roles of a screenshot_matches picture in the evidence (metadata.role); a failure's set shares metadata.set.
ROLES = ("expected", "actual", "diff", "would_be_baseline", "baseline_written")


@dataclass
class PictureSet:
    """What one failed comparison leaves: its pictures by role, and the baseline's name."""

    name: str
    pictures: dict[str, bytes]


@dataclass
class Baselines:
    """The run's baselines folder and update mode, and the failed comparisons not yet written."""

    evidence: EvidenceStore | None
    folder: Path | None  # None: a plan without a file (library API): every baseline is missing
    update: str = "none"  # all | missing | none
    browser: str = "chromium"
    platform: str = sys.platform  # as Playwright's process.platform: linux, darwin, win32
    secrets: tuple[str, ...] = ()
    pending: dict[str, dict[int, PictureSet]] = field(default_factory=dict)  # attempt tag -> condition -> set

    def file(self, name: str) -> Path | None:
        return None if self.folder is None else self.folder / baseline_file(name, self.browser, self.platform)

    def shown(self, name: str) -> str:
        """The baseline as a failure names it: ``<plan stem>.snapshots/<name>-<browser>-<platform>.png``."""
        file = baseline_file(name, self.browser, self.platform)
        return f"{self.folder.name}/{file}" if self.folder is not None else file

    def read(self, name: str) -> bytes | None:
        path = self.file(name)
        try:
            return path.read_bytes() if path is not None else None
        except (FileNotFoundError, NotADirectoryError):  # no such baseline (yet)
            return None

    def write(self, name: str, png: bytes, tag: str, step_id: str | None, why: str) -> None:
        """Write the baseline beside the plan (atomically: a reader never sees half a picture), and its copy."""
        path = self.file(name)
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        staged = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            staged.write_bytes(png)
            os.replace(staged, path)
        finally:
            staged.unlink(missing_ok=True)
        if self.evidence is not None:
            self.evidence.add_bytes("screenshot", f"snapshots/{tag}_{name}/{path.name}", png, step_id=step_id,
                                    redact=False, metadata={"snapshot": name, "role": "baseline_written",
                                                            "baseline": self.shown(name), "why": why})

    def keep(self, tag: str, key: int, found: PictureSet | None) -> None:
        """Remember (or, ``None``, forget) a condition's last failed comparison in attempt ``tag``."""
        sets = self.pending.setdefault(tag, {})
        if found is None:
            sets.pop(key, None)
        else:
            sets[key] = found

    def forget(self, tag: str) -> None:
        self.pending.pop(tag, None)

    def failure_pictures(self, tag: str, step_id: str | None) -> list[EvidenceRef]:
        """The pictures of the attempt's failed comparisons, as evidence: one set per condition."""
        sets = self.pending.pop(tag, {})
        if self.evidence is None:
            return []
        refs = []
        for found in sets.values():
            group = f"{tag}_{found.name}"
            for role, png in found.pictures.items():
                file = self.shown(found.name).rsplit("/", 1)[-1] if role == "would_be_baseline" else f"{role}.png"
                refs.append(self.evidence.add_bytes("screenshot", f"snapshots/{group}/{file}", png, step_id=step_id,
                                                    redact=False, metadata={"snapshot": found.name, "role": role,
                                                                            "set": group}))
        return refs


@dataclass(frozen=True)
class AuditLook:
    """What an audit condition of one attempt is given beside the page (``CheckContext.audit``)."""

    baselines: Baselines
    tag: str
    step_id: str | None


class AuditContext(Protocol):
    """What an audit evaluator reads of page/conditions.py's ``CheckContext``: named here, since this
    room may not import the page room (which imports it)."""

    page: Page
    audit: AuditLook | None
    mask_text: Callable[[str], str]

    def locate(self, spec: Target | list[Target] | None) -> tuple[Locator | None, dict[str, Any]]: ...
