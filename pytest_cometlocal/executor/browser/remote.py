"""Remote browsers: a Playwright server (``playwright run-server``) or a CDP endpoint.

Instead of launching Chromium here, the executor can drive a browser that runs
elsewhere: ``connect`` to a Playwright server, which launches a Chromium for
each connection, or ``connect_over_cdp`` to a Chromium that is already running
with ``--remote-debugging-port``. A list of endpoints is a pool: process
``gwN`` of pytest-xdist takes endpoint ``N % len(pool)``, any other process
the first. Endpoints may carry a token (userinfo or query string); only
``public_endpoint`` forms, without them, go into manifests and messages.

Firefox (issue 49): a Playwright server launches whichever browser type the
client connects with, so ``connect_browser(..., browser_name="firefox")``
goes through ``playwright.firefox.connect`` with Firefox's launch options in
the header: the BiDi channel and ``executablePath`` when the target names the
server machine's Firefox (``RemoteTarget.firefox_path``), and
``firefoxUserPrefs`` (firefox.FIREFOX_PREFS). The server keeps
``executablePath`` and ``firefoxUserPrefs`` only when started with
``--unsafe`` (``filterLaunchOptions`` of its driver): without it the
localhost pref and the WebRTC pref do not hold, which the manifest's guards
say (``requested``, channels.guards_in_force). CDP reaches Chromium only: a
CDP target asked for another browser is refused (``CdpNeedsChromium``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pytest_cometlocal.executor.browser.chromium import launch_args
from pytest_cometlocal.executor.browser.firefox import BIDI_CHANNEL, FIREFOX_PREFS, is_playwright_build
from pytest_cometlocal.executor.errors import CdpNeedsChromium, RemoteBrowserUnavailable

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright
    from playwright.sync_api import Error as PlaywrightError

PLAYWRIGHT_SERVER = "playwright-server"
CDP = "cdp"
SCHEMES = {PLAYWRIGHT_SERVER: ("ws", "wss"), CDP: ("ws", "wss", "http", "https")}
CONNECT_TIMEOUT_MS = 30_000

# Keyword arguments of chromium.launch that a Playwright server accepts in the
# x-playwright-launch-options header, with their protocol names. slow_mo is
# applied by the client (connect's own slow_mo); the rest cannot be sent.
_HEADER_OPTIONS = {"headless": "headless", "args": "args", "chromium_sandbox": "chromiumSandbox",
                   "ignore_default_args": "ignoreDefaultArgs", "timeout": "timeout"}


@dataclass(frozen=True)
class RemoteTarget:
    """The endpoint this process uses: ``connection`` is ``playwright-server`` or ``cdp``."""

    connection: str
    endpoint: str
    executable_path: str | None = None  # the Chromium on the server's machine (playwright-server only)
    firefox_path: str | None = None  # the Firefox on the server's machine (playwright-server only; None: its own)

    def executable_for(self, browser_name: str) -> str | None:
        """The server machine's executable named for ``browser_name`` (None: the server's own build)."""
        return {"chromium": self.executable_path, "firefox": self.firefox_path}.get(browser_name)

    @property
    def public_endpoint(self) -> str:
        return public_endpoint(self.endpoint)

    def profile(self) -> dict[str, Any]:
        """What the run manifest's execution_profile records: never a token."""
        profile: dict[str, Any] = {"connection": self.connection, "endpoint": self.public_endpoint}
        if self.connection == CDP:
            profile["headless"] = None  # as the browser was started, unknown here
        return profile


def split_endpoints(value: str | None) -> tuple[str, ...]:
    """``"ws://a:3000/, ws://b:3000/"`` -> both URLs; commas and whitespace separate them."""
    return tuple(part for part in re.split(r"[\s,]+", value or "") if part)


def check_endpoint(connection: str, endpoint: str) -> str | None:
    """A problem with an endpoint's form, or None."""
    parts = urlsplit(endpoint)
    schemes = SCHEMES[connection]
    if parts.scheme not in schemes or not parts.hostname:
        return (f"{public_endpoint(endpoint)!r} is not a {connection} endpoint: expected a URL "
                f"{' or '.join(s + '://host:port/' for s in schemes)}")
    try:
        parts.port
    except ValueError:
        return f"{public_endpoint(endpoint)!r} has an invalid port"
    return None


def pick_endpoint(endpoints: tuple[str, ...] | list[str], worker: str | None) -> str:
    """Worker ``gwN`` takes endpoint ``N % len(endpoints)``; no worker (or another name) the first."""
    if not endpoints:
        raise ValueError("no endpoints")
    match = re.fullmatch(r"gw(\d+)", worker or "")
    return endpoints[int(match.group(1)) % len(endpoints)] if match else endpoints[0]


def public_endpoint(url: str) -> str:
    """The endpoint without user name, password, query string or fragment (where tokens live)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<unparsable endpoint>"
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def launch_options_header(launch_kwargs: dict[str, Any], executable_path: str | None = None,
                          browser_name: str = "chromium") -> dict[str, str]:
    """The ``x-playwright-launch-options`` header: headless, our flags plus the user's args,
    and the server machine's Chromium when one is named. A server started without
    ``--unsafe`` ignores args and executablePath.

    For ``browser_name="firefox"``: no Chromium args; ``firefoxUserPrefs`` (the user's
    ``firefox_user_prefs`` under firefox.FIREFOX_PREFS), and with ``executable_path``
    (a system Firefox on the server's machine) ``executablePath`` and the BiDi channel.
    A server without ``--unsafe`` drops the prefs and the path. Other browsers (WebKit):
    headless and timeout only."""
    options: dict[str, Any] = {}
    for key, name in _HEADER_OPTIONS.items():
        if launch_kwargs.get(key) is not None:
            options[name] = launch_kwargs[key]
    options["headless"] = bool(launch_kwargs.get("headless", True))
    if browser_name == "chromium":
        options["args"] = launch_args(launch_kwargs.get("args") or [])
        if executable_path:
            options["executablePath"] = executable_path
        return {"x-playwright-launch-options": json.dumps(options)}
    for chromium_only in ("args", "chromiumSandbox", "ignoreDefaultArgs"):
        options.pop(chromium_only, None)
    if browser_name == "firefox":
        options["firefoxUserPrefs"] = {**dict(launch_kwargs.get("firefox_user_prefs") or {}), **FIREFOX_PREFS}
        if executable_path:
            options["executablePath"] = executable_path
            if not is_playwright_build(executable_path):
                options["channel"] = BIDI_CHANNEL
    return {"x-playwright-launch-options": json.dumps(options)}


def cdp_problem(browser_name: str) -> str | None:
    """Why a CDP endpoint cannot give ``browser_name`` (None: Chromium, it can): the usage error's line."""
    if browser_name == "chromium":
        return None
    return (f"a CDP endpoint (--cometlocal-connect cdp:...) reaches Chromium only, not {browser_name}: "
            f"use a Playwright server (playwright run-server) for {browser_name}")


def connect_browser(playwright: Playwright, target: RemoteTarget, launch_kwargs: dict[str, Any],
                    timeout_ms: float = CONNECT_TIMEOUT_MS, browser_name: str = "chromium") -> Browser:
    """Connect to ``target``; a failure is a ``RemoteBrowserUnavailable`` with a one-line message.

    ``browser_name`` picks the browser type that connects (``playwright.<name>.connect``): a
    Playwright server launches that browser for the connection. CDP is Chromium's only:
    another name raises ``CdpNeedsChromium`` before anything is reached.
    """
    from playwright.sync_api import Error as PlaywrightError

    if target.connection == CDP and cdp_problem(browser_name):
        raise CdpNeedsChromium(cdp_problem(browser_name))
    slow_mo = launch_kwargs.get("slow_mo") or None
    browser_type = getattr(playwright, browser_name)
    try:
        if target.connection == PLAYWRIGHT_SERVER:
            headers = launch_options_header(launch_kwargs, target.executable_for(browser_name), browser_name)
            return browser_type.connect(target.endpoint, timeout=timeout_ms, slow_mo=slow_mo, headers=headers)
        if target.connection == CDP:
            return playwright.chromium.connect_over_cdp(target.endpoint, timeout=timeout_ms, slow_mo=slow_mo)
    except PlaywrightError as exc:  # its TimeoutError too: a subclass
        raise RemoteBrowserUnavailable(
            f"cannot connect to {'Playwright server' if target.connection == PLAYWRIGHT_SERVER else 'CDP endpoint'} "
            f"{target.public_endpoint}: {_reason(exc, target.endpoint, browser_name)}"
        ) from None
    raise ValueError(f"unknown connection {target.connection!r}")


def _reason(exc: PlaywrightError, endpoint: str, browser_name: str = "chromium") -> str:
    """The first line of Playwright's error (``Error.message``), without its call log or the endpoint's token."""
    text = str(exc.message or exc).strip()
    reason = text.splitlines()[0].strip() if text else type(exc).__name__
    reason = re.sub(r"^BrowserType\.\w+:\s*", "", reason)
    versions = re.findall(r"(server|client) version: (v[\d.]+)", text)
    if versions:  # the server's "Playwright version mismatch" box
        reason += " (Playwright version mismatch: " + ", ".join(f"{side} {v}" for side, v in versions) + ")"
    if reason.startswith("Executable doesn't exist"):
        option = "--cometlocal-remote-firefox" if browser_name == "firefox" else "--cometlocal-remote-chromium"
        reason += (f" (on the server's machine: start the server with --unsafe and name its {browser_name.capitalize()} "
                   f"with {option}, or run `playwright install {browser_name}` there)")
    if endpoint != public_endpoint(endpoint):
        reason = reason.replace(endpoint, public_endpoint(endpoint))
        parts = urlsplit(endpoint)
        for secret in (parts.password, parts.query):
            if secret:
                reason = reason.replace(secret, "***")
    return reason[:400]
