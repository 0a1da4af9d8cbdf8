"""Finding a Firefox and the keyword arguments of its launch (the package's docstring says why each step).

``find_firefox``: the explicit path, ``COMETLOCAL_FIREFOX``, Playwright's own
build, then ``firefox-esr``/``firefox`` on PATH and ``/usr/bin/firefox-esr``.
``firefox_launch_kwargs``: the BiDi channel for a system binary, the prefs
``FIREFOX_PREFS``, and only the session's options that mean the same to
Firefox. ``firefox_launch_problem``: Playwright's launch error as one line.
No pytest here.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from pytest_cometlocal.executor.errors import FirefoxNotFound

if TYPE_CHECKING:
    from playwright.sync_api import Playwright

BIDI_CHANNEL = "moz-firefox"
ENV_VAR = "COMETLOCAL_FIREFOX"
SYSTEM_NAMES = ("firefox-esr", "firefox")
SYSTEM_PATHS = ("/usr/bin/firefox-esr",)
INSTALL_HINT = "apt-get install -y firefox-esr"

FIREFOX_PREFS: dict[str, Any] = {
    "network.proxy.allow_hijacking_localhost": True,  # localhost through the guard's proxy, not around it
    "browser.sessionhistory.max_total_viewers": 0,    # no back-forward cache: go_back/go_forward settle
    "media.peerconnection.ice.proxy_only": True,      # WebRTC: no candidate, no UDP around the proxy
}

# Keyword arguments of BrowserType.launch that mean the same to Firefox: the rest of the
# session's launch kwargs (Chromium's args, channel, sandbox, executable) are not passed on.
_FIREFOX_LAUNCH_KEYS = ("slow_mo", "timeout", "env", "proxy", "downloads_path", "traces_dir",
                        "handle_sigint", "handle_sigterm", "handle_sighup")


@dataclass(frozen=True)
class FirefoxFound:
    """The Firefox to launch.

    ``path``: its executable. ``channel``: ``"moz-firefox"`` for a system
    Firefox (driven through WebDriver BiDi), None for Playwright's own build
    (Juggler). ``source``: where it was found: ``"option"`` (the explicit path
    passed in: ``--cometlocal-firefox`` or ini), ``"env"`` (``COMETLOCAL_FIREFOX``),
    ``"playwright"`` (``playwright install firefox``) or ``"system"`` (PATH, /usr/bin).
    """

    path: str
    channel: str | None
    source: str

    @property
    def protocol(self) -> str:
        """The protocol Playwright speaks to it: ``"webdriver-bidi"`` or ``"juggler"``."""
        return "webdriver-bidi" if self.channel else "juggler"


def playwright_firefox(playwright: Playwright | None) -> str | None:
    """Playwright's own Firefox, if it was downloaded (``playwright install firefox``)."""
    if playwright is None:
        return None
    try:
        path = playwright.firefox.executable_path
    except Exception:  # pragma: no cover - a Playwright that cannot tell
        return None
    return path if path and Path(path).exists() else None


def system_firefox() -> str | None:
    """A system Firefox: ``firefox-esr`` or ``firefox`` on PATH, else ``/usr/bin/firefox-esr``."""
    for name in SYSTEM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    for path in SYSTEM_PATHS:
        if Path(path).exists():
            return path
    return None


def is_playwright_build(path: str, playwright: Playwright | None = None) -> bool:
    """Whether ``path`` is a Firefox built by Playwright (driven through Juggler, no channel):
    Playwright's own executable, or one under an ``ms-playwright`` browsers folder."""
    own = playwright_firefox(playwright)
    if own and os.path.realpath(own) == os.path.realpath(path):
        return True
    return "ms-playwright" in Path(path).parts


def find_firefox(explicit: str | None = None, env: Mapping[str, str] = os.environ,
                 playwright: Playwright | None = None) -> FirefoxFound:
    """The Firefox to launch, or :class:`FirefoxNotFound` (one line: what was tried, how to install one).

    Order: ``explicit`` (the option or ini value, passed in) → ``env["COMETLOCAL_FIREFOX"]`` →
    Playwright's own build (only when ``playwright`` is given: its ``firefox.executable_path``
    exists) → ``firefox-esr`` / ``firefox`` on PATH → ``/usr/bin/firefox-esr``. An explicit
    or environment path is taken as it is (looked up on PATH when it is a bare name) and must
    exist: a path that does not is refused naming it, and nothing else is tried (a poisoned
    ``COMETLOCAL_FIREFOX`` stops every launch). A system binary gets the BiDi channel, a
    Playwright build none.
    """
    for value, source in ((explicit, "option"), (env.get(ENV_VAR), "env")):
        if not value:
            continue
        resolved = shutil.which(value) or value
        if not Path(resolved).exists():
            raise FirefoxNotFound(f"Firefox not found at {value!r} (from --cometlocal-firefox, ini or {ENV_VAR})")
        channel = None if is_playwright_build(resolved, playwright) else BIDI_CHANNEL
        return FirefoxFound(resolved, channel, source)
    own = playwright_firefox(playwright)
    if own:
        return FirefoxFound(own, None, "playwright")
    found = system_firefox()
    if found:
        return FirefoxFound(found, BIDI_CHANNEL, "system")
    raise FirefoxNotFound(
        f"no Firefox found (tried --cometlocal-firefox / ini / {ENV_VAR}: not set; "
        f"Playwright's own build: {'not installed' if playwright is not None else 'not asked'}; "
        f"{', '.join(SYSTEM_NAMES)} on PATH; {', '.join(SYSTEM_PATHS)}): "
        f"`{INSTALL_HINT}`, `playwright install firefox`, or set --cometlocal-firefox / {ENV_VAR}"
    )


def firefox_launch_kwargs(found: FirefoxFound, headless: bool,
                          launch_kwargs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Keyword arguments for ``playwright.firefox.launch(**kwargs)``.

    ``executable_path`` is always ``found.path``; ``channel`` is ``found.channel``
    when it has one (BiDi). ``firefox_user_prefs`` are the caller's own (from
    ``launch_kwargs``) with :data:`FIREFOX_PREFS` over them: the guard's prefs
    win. Of ``launch_kwargs`` (the session's, shared with Chromium) only the keys
    that mean the same to Firefox are kept (``slow_mo``, ``timeout``, ``env``,
    ``proxy``, ``downloads_path``, ``traces_dir``, the signal handlers):
    Chromium's ``args``, ``channel``, ``chromium_sandbox`` and ``executable_path``
    are not passed on.
    """
    given = dict(launch_kwargs or {})
    kwargs: dict[str, Any] = {key: given[key] for key in _FIREFOX_LAUNCH_KEYS if given.get(key) is not None}
    kwargs["headless"] = bool(headless)
    kwargs["executable_path"] = found.path
    if found.channel:
        kwargs["channel"] = found.channel
    kwargs["firefox_user_prefs"] = {**dict(given.get("firefox_user_prefs") or {}), **FIREFOX_PREFS}
    return kwargs


_NO_DISPLAY_MARKERS = ("no DISPLAY environment variable", "cannot open display", "Missing X server")


def firefox_launch_problem(headless: bool, message: str, found: FirefoxFound) -> str | None:
    """The one line to say instead of Playwright's error when Firefox did not start, or None (raise it).

    A headed Firefox with no display, and a binary that is not there any more
    (or is not a Firefox the channel can drive).
    """
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    first = re.sub(r"^BrowserType\.\w+:\s*", "", lines[0]) if lines else ""
    if not headless and any(marker in message for marker in _NO_DISPLAY_MARKERS):
        return ("a headed Firefox needs a display: set DISPLAY (an X server) or WAYLAND_DISPLAY, "
                "run under xvfb-run, or run headless")
    if "Executable doesn't exist" in first or "is not found" in first or "ENOENT" in first:
        return (f"Firefox at {found.path} (from {found.source}) cannot be started: {first[:200]}; "
                f"`{INSTALL_HINT}` or `playwright install firefox`")
    return None
