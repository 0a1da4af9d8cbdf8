"""A plan's video and its last screenshot, kept as evidence (``--cometlocal-video``, ``--cometlocal-screenshot``).

Playwright records a context's video into a folder given when the context is
made, and a page's video is complete only once that page is closed. So the
context records into a temporary folder outside the run folder (a run cut by
a crash or Ctrl-C leaves nothing unlisted there: its video is simply lost),
and the finisher closes the run's pages, reads each finished file and stores
it in the evidence (kind ``video``, hashed and listed like any other file,
and so attached to Allure). A plan with secrets gets no video unless
``--cometlocal-video-secrets`` asks: the video shows every frame as it was
painted, typed secrets included, and a video cannot be masked afterwards
(the screenshots are, because the fields are painted over before each shot).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from pytest_cometlocal.executor.page.screenshots import capture_png

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Video

    from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError
    from pytest_cometlocal.contract.settings import EffectiveSettings
    from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore

VIDEO_KIND = "video"
NO_VIDEO_WITH_SECRETS = "not recorded: the plan uses secrets (--cometlocal-video-secrets records it)"


def playwright_ffmpeg() -> Path | None:
    """Where Playwright looks for the ffmpeg it records videos with (``playwright install ffmpeg`` puts it
    there; ``playwright install chromium`` too), or None when this Playwright does not say."""
    import playwright

    package = Path(playwright.__file__).parent / "driver" / "package"
    try:
        entries = json.loads((package / "browsers.json").read_text(encoding="utf-8"))["browsers"]
        revision = next(e["revision"] for e in entries if e["name"] == "ffmpeg")
    except (OSError, ValueError, KeyError, StopIteration):
        return None
    base = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if base == "0":
        root = package / ".local-browsers"
    elif base:
        root = Path(base)
    elif sys.platform == "darwin":
        root = Path.home() / "Library" / "Caches" / "ms-playwright"
    elif sys.platform == "win32":
        root = Path(os.environ.get("LOCALAPPDATA", Path.home())) / "ms-playwright"
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ms-playwright"
    name = {"darwin": "ffmpeg-mac", "win32": "ffmpeg-win64.exe"}.get(sys.platform, "ffmpeg-linux")
    return root / f"ffmpeg-{revision}" / name


def ffmpeg_problem(option: str) -> str | None:
    """One line when a video cannot be recorded here (checked before any browser starts: otherwise every
    plan would fail at its first page with Playwright's "Executable doesn't exist")."""
    path = playwright_ffmpeg()
    if path is None or path.is_file():
        return None
    return (f"{option} needs Playwright's ffmpeg, which is not at {path}: run `playwright install ffmpeg` "
            "(or set PLAYWRIGHT_BROWSERS_PATH to the folder that has it)")


def video_wanted(mode: str, with_secrets: bool, eff: EffectiveSettings) -> bool:
    """``mode``: --cometlocal-video's; ``with_secrets``: --cometlocal-video-secrets."""
    return mode != "off" and (not eff.secrets or with_secrets)


@contextmanager
def video_args(mode: str, with_secrets: bool, eff: EffectiveSettings) -> Iterator[dict[str, Any]]:
    """new_context's ``record_video_dir`` (a temporary folder, removed after the context closed), or {}."""
    if not video_wanted(mode, with_secrets, eff):
        yield {}
        return
    with tempfile.TemporaryDirectory(prefix="cometlocal-video-") as folder:
        yield {"record_video_dir": folder}


class PlaywrightVideo:
    """Made before the run, on the run's context: every page it opens has a video. ``finish`` is a finisher
    of ``executor.session.open_run``: it closes the pages (which completes their files) and stores them."""

    def __init__(self, context: BrowserContext, mode: str, keep_failed_open: bool = False):
        self.mode = mode
        # --cometlocal-pause-on-failure shows the failed page after the run: closing it here would end
        # that pause before it begins, so a failed run's video is then not stored.
        self.keep_failed_open = keep_failed_open
        self.pages: list[tuple[Page, Video]] = []
        for page in context.pages:
            self._opened(page)
        context.on("page", self._opened)

    def _opened(self, page: Page) -> None:
        if page.video is not None:
            self.pages.append((page, page.video))

    def finish(self, error: ExecutorError | None, evidence: EvidenceStore) -> list[EvidenceRef]:
        if error is not None and self.keep_failed_open:
            return []
        for page, _ in self.pages:
            if not page.is_closed():
                page.close()
        if self.mode == "retain-on-failure" and error is None:
            return []
        refs = []
        for index, (_, video) in enumerate(self.pages, start=1):
            path = Path(video.path())  # complete: its page is closed
            if path.is_file() and path.stat().st_size:
                refs.append(evidence.add_bytes(VIDEO_KIND, f"video/page-{index}.webm", path.read_bytes(), redact=False,
                                               metadata={"page": index, "format": "webm"}))
        return refs


class LastScreenshot:
    """``--cometlocal-screenshot``: the page as the plan left it, ``on`` for every plan, ``only-on-failure``
    for a plan that raised an error; a secret on screen is painted over, as in every screenshot."""

    def __init__(self, page: Page, mode: str, masked: bool):
        self.page, self.mode, self.masked = page, mode, masked

    def finish(self, error: ExecutorError | None, evidence: EvidenceStore) -> list[EvidenceRef]:
        if self.mode == "off" or (self.mode == "only-on-failure" and error is None):
            return []
        pages = [p for p in self.page.context.pages if not p.is_closed()]
        if not pages:
            return []
        data = capture_png(pages[-1], masked=self.masked)
        return [evidence.add_bytes("screenshot", "final/last_page.png", data, redact=False,
                                   metadata={"final": True, "failed": error is not None})]
