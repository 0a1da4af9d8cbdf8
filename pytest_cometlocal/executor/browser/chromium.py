"""Finding and launching a Chromium the executor can drive.

Order: an explicit path (option, ini or COMETLOCAL_CHROMIUM), Playwright's own
downloaded build, then a system Chromium (Debian's ``/usr/bin/chromium`` and
the usual names on PATH). The launch flags keep Chromium from phoning home,
which on a closed network otherwise means a stream of refused connections,
and keep WebRTC from sending UDP around the allowlist proxy (channels.py).
No pytest here.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_cometlocal.executor.browser.channels import WEBRTC_FLAGS
from pytest_cometlocal.executor.errors import ChromiumNotFound

if TYPE_CHECKING:
    from playwright.sync_api import Playwright

LAUNCH_ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--metrics-recording-only",
    "--password-store=basic",
    *WEBRTC_FLAGS,  # WebRTC's UDP would go around the allowlist proxy (channels.py)
]

SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
SYSTEM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium")


def playwright_chromium(playwright: Playwright) -> str | None:
    """Playwright's own Chromium, if it was downloaded (``playwright install chromium``)."""
    try:
        path = playwright.chromium.executable_path
    except Exception:  # pragma: no cover - older Playwright versions
        return None
    return path if path and Path(path).exists() else None


def system_chromium() -> str | None:
    for name in SYSTEM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    for path in SYSTEM_PATHS:
        if Path(path).exists():
            return path
    return None


def find_chromium(playwright: Playwright, explicit: str | None = None) -> str | None:
    """Path to launch, or None to let Playwright use its own (already checked to exist)."""
    explicit = explicit or os.environ.get("COMETLOCAL_CHROMIUM") or None
    if explicit:
        resolved = shutil.which(explicit) or explicit
        if not Path(resolved).exists():
            raise ChromiumNotFound(f"Chromium not found at {explicit!r} (from --cometlocal-chromium, ini or COMETLOCAL_CHROMIUM)")
        return resolved
    if playwright_chromium(playwright):
        return None
    found = system_chromium()
    if found:
        return found
    raise ChromiumNotFound(
        "no Chromium found: run `playwright install chromium`, install a system Chromium "
        "(Debian: apt-get install chromium), or set --cometlocal-chromium / COMETLOCAL_CHROMIUM"
    )
