"""Finding and launching a Chromium the executor can drive.

Firefox has its own package (firefox/); the manager picks one by the browser's name.

Order: an explicit path (option, ini or COMETLOCAL_CHROMIUM), Playwright's own
downloaded build, then a system Chromium (Debian's ``/usr/bin/chromium`` and
the usual names on PATH). The launch flags keep Chromium from phoning home,
which on a closed network otherwise means a stream of refused connections,
and keep WebRTC from sending UDP around the allowlist proxy (channels.py).
A headed launch with no display is refused in one line (:func:`display_problem`).
No pytest here.

**One ``--disable-features``.** Chromium keeps only the last ``--disable-features``
(and ``--enable-features``) switch on its command line, and Playwright passes its
own list before ours, so a list of ours replaces Playwright's. :func:`launch_args`
therefore writes one switch holding Playwright's features (``PLAYWRIGHT_DISABLED``,
a copy a browser test holds to what Playwright itself passes), ours, and the user's.
Ours include the omnibox popup: each context of a headless Chromium is a window
that preloads that WebUI in a renderer of its own, which cost more CPU than the
page under test.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from pytest_cometlocal.executor.browser.channels import WEBRTC_FLAGS
from pytest_cometlocal.executor.errors import ChromiumNotFound

if TYPE_CHECKING:
    from playwright.sync_api import Playwright

# What Playwright (1.64) disables itself: its own switch, which any later --disable-features replaces.
PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "DialMediaRouteProvider",
    "GlobalMediaControls", "HttpsUpgrades", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "BlockOriginHeaderModificationOnRedirect",
    "AvoidCorsURLLoaderRestartOnRedirect", "Translate", "AutoDeElevate", "OptimizationHints",
    "NetworkTimeServiceQuerying", "AimEnabled",
    "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",  # Microsoft Edge's (a channel), unknown to Chromium
)
# What Playwright enables: kept when a user's --enable-features would replace it.
PLAYWRIGHT_ENABLED = ("CDPScreenshotNewSurface",)
OUR_DISABLED = (
    "AutofillServerCommunication",  # no form queries to Google
    "WebUIOmniboxPopup", "WebUIOmniboxAimPopup",  # no omnibox WebUI renderer preloaded for each context
)
DISABLE_FEATURES, ENABLE_FEATURES = "--disable-features=", "--enable-features="

LAUNCH_ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    DISABLE_FEATURES + ",".join(dict.fromkeys(PLAYWRIGHT_DISABLED + OUR_DISABLED)),
    "--metrics-recording-only",
    "--password-store=basic",
    *WEBRTC_FLAGS,  # WebRTC's UDP would go around the allowlist proxy (channels.py)
]


def launch_args(user_args: list[str] | tuple[str, ...] = ()) -> list[str]:
    """LAUNCH_ARGS, then the user's args, with every feature switch merged into one (Chromium keeps the last).

    A user's ``--disable-features`` adds to Playwright's and ours; a user's
    ``--enable-features`` adds to Playwright's (``PLAYWRIGHT_ENABLED``). Without
    feature switches of the user's, this is ``LAUNCH_ARGS + user_args``.
    """
    user = [str(arg) for arg in user_args]
    if not any(arg.startswith((DISABLE_FEATURES, ENABLE_FEATURES)) for arg in user):
        return LAUNCH_ARGS + user
    disabled, enabled = _names(user, DISABLE_FEATURES), _names(user, ENABLE_FEATURES)
    ours = [arg for arg in LAUNCH_ARGS if not arg.startswith(DISABLE_FEATURES)]
    merged = [DISABLE_FEATURES + ",".join(dict.fromkeys(PLAYWRIGHT_DISABLED + OUR_DISABLED + disabled))]
    if enabled:
        merged.append(ENABLE_FEATURES + ",".join(dict.fromkeys(PLAYWRIGHT_ENABLED + enabled)))
    return ours + merged + [arg for arg in user if not arg.startswith((DISABLE_FEATURES, ENABLE_FEATURES))]


def _names(args: list[str], switch: str) -> tuple[str, ...]:
    return tuple(name for arg in args if arg.startswith(switch) for name in arg[len(switch):].split(",") if name)


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


HEADED_HINT = ("a headed Chromium needs a display: set DISPLAY (an X server) or WAYLAND_DISPLAY, "
               "run under xvfb-run, or run headless")
# What Chromium (and Playwright's banner) say when a headed launch finds no display to open.
NO_DISPLAY_MARKERS = ("Missing X server", "without having a XServer", "cannot open display")


def display_problem(headless: bool, env: Mapping[str, str] | None = None, platform: str | None = None,
                    browser: str = "Chromium") -> str | None:
    """Why a headed browser cannot start here, before launching it (None: it can, or it is headless).

    On Linux a headed browser needs an X server or a Wayland compositor; with
    neither variable set, Chromium exits at once and Playwright raises a
    40-line error (Firefox likewise). macOS and Windows always have a display.
    ``browser`` names it in the line (the manager passes ``"Firefox"``/``"WebKit"``).
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if headless or not platform.startswith("linux") or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return f"{HEADED_HINT.replace('Chromium', browser)} (neither DISPLAY nor WAYLAND_DISPLAY is set)"


def launch_problem(headless: bool, message: str) -> str | None:
    """The one line to say instead of Playwright's launch error: a headed launch with no display, or a
    channel (pytest-playwright's ``--browser-channel``) whose browser is not installed."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if lines and "distribution" in lines[0] and "is not found" in lines[0]:
        found = lines[0].split(": ", 1)[-1]  # "Chromium distribution 'msedge' is not found at ..."
        fix = next((line for line in lines[1:] if line.startswith("Run ")), "")
        return f"{found} (the launch's channel, from --browser-channel){'; ' + fix if fix else ''}"
    if lines and "Executable doesn't exist" in lines[0]:
        missing = lines[0].split("Executable doesn't exist at ", 1)[-1]
        return (f"Playwright's own browser build is not installed ({missing}): run `playwright install chromium`, "
                "or leave out --browser-channel so the plugin uses the Chromium it finds")
    if headless or not any(marker in message for marker in NO_DISPLAY_MARKERS):
        return None
    return f"{HEADED_HINT} (Chromium found no display: {os.environ.get('DISPLAY') or os.environ.get('WAYLAND_DISPLAY') or 'none set'})"
