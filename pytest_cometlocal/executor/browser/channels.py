"""The channels a page has besides HTTP: WebRTC and WebTransport, guarded in the browser.

The allowlist proxy (network_guard.py) sees every HTTP(S) and WebSocket request, but
Chromium sends WebRTC's UDP (STUN, TURN over UDP, ICE checks, media, data
channels) around proxies: a page could send a typed secret to any host as an
ICE username. Two guards close that, and the run manifest says which hold:

- ``WEBRTC_FLAGS`` (in chromium.LAUNCH_ARGS): Chromium sends no UDP that is
  not proxied, so WebRTC gathers no candidate and sends nothing. The hard
  guarantee, for a browser we launch; a Playwright server gets the flags in
  its launch options and honours them only when started with ``--unsafe``; a
  CDP browser was launched by someone else.
- ``PAGE_SCRIPT``, an init script of every guarded context: ICE servers and
  remote candidates outside the allowlist are dropped before Chromium sees
  them (as if unreachable), and each attempt is reported through a binding
  and recorded by the guard as a blocked request (``STUN``, ``TURN``, ``ICE``).
  It runs in every document before the page's scripts (new empty frames and
  popups included), but it is JavaScript in the page, not the network stack:
  the flag is the guarantee where it can be set, the script what traces an
  attempt, and the only WebRTC guard of a CDP browser.

On Firefox (issue 49) the launch setting is the pref
``media.peerconnection.ice.proxy_only`` (firefox.FIREFOX_PREFS): WebRTC
gathers no candidate, as with Chromium's flag; the page script is the same.
Firefox needs one more launch setting for the proxy itself:
``network.proxy.allow_hijacking_localhost``, without which ``localhost`` goes
around the guard. ``guards_in_force`` says which held for the run's browser.

WebTransport (HTTP/3 over QUIC) is refused by Chromium when a proxy is set
(``ERR_TUNNEL_CONNECTION_FAILED``, nothing sent); the script reports an
attempt to an outside host as ``WEBTRANSPORT``.
"""

from __future__ import annotations

import json
import weakref
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.contract.allowlist import browser_entries, host_allowed
from pytest_cometlocal.executor.scripts import fill_script, read_script

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext

    from pytest_cometlocal.executor.browser.network_guard import NetworkGuard

WEBRTC_FLAGS = ["--force-webrtc-ip-handling-policy", "--webrtc-ip-handling-policy=disable_non_proxied_udp"]
BINDING = "__cometlocalChannelBlocked"
KINDS = frozenset({"STUN", "TURN", "ICE", "WEBTRANSPORT"})
_MAX_TEXT = 500

# Browsers launched with WEBRTC_FLAGS (Chromium) or FIREFOX_PREFS (Firefox) by this process
# (manager.BrowserManager adds them, with the launch setting), and contexts that got the page
# script (guard_channels): what the manifest's guards report.
_flagged: "weakref.WeakKeyDictionary[Browser, str]" = weakref.WeakKeyDictionary()

CHROMIUM_FLAG = "chromium-flag"
FIREFOX_PREF = "firefox-pref"
# What each launch setting is, as the manifest's guards name it.
WEBRTC_SETTINGS = {CHROMIUM_FLAG: "--webrtc-ip-handling-policy=disable_non_proxied_udp",
                   FIREFOX_PREF: "media.peerconnection.ice.proxy_only"}
_scripted: "weakref.WeakSet[BrowserContext]" = weakref.WeakSet()

# The init script (scripts/channel_guard.js), its allowlist and binding name filled in per context.
PAGE_SCRIPT = read_script(__package__, "channel_guard.js")


def page_script(allowlist: tuple[str, ...] | list[str]) -> str:
    return fill_script(PAGE_SCRIPT, allowlist=json.dumps(browser_entries(allowlist)), binding=json.dumps(BINDING))


def guard_channels(context: BrowserContext, guard: NetworkGuard) -> None:
    """Install the page script on a new context, its reports going to ``guard``'s blocked requests.

    Before the context's first page: Playwright runs the script in every
    document of it, subframes and popups included.
    """

    def refused(_source: Any, kind: Any = None, url: Any = None, host: Any = None) -> None:
        # The page calls this: take only what the script sends, and nothing an allowed host could be.
        if kind not in KINDS or not isinstance(url, str) or not isinstance(host, str):
            return
        if host_allowed(host, guard.allowlist):
            return
        guard.record_blocked(kind, url[:_MAX_TEXT], host[:_MAX_TEXT])

    context.expose_binding(BINDING, refused)
    context.add_init_script(page_script(guard.allowlist))
    _scripted.add(context)


def mark_flagged(browser: Browser, setting: str = CHROMIUM_FLAG) -> None:
    """``browser`` was launched here with its WebRTC launch setting: ``CHROMIUM_FLAG`` (WEBRTC_FLAGS)
    or ``FIREFOX_PREF`` (firefox.FIREFOX_PREFS, the localhost pref included)."""
    _flagged[browser] = setting


def browser_type_name(browser: Any) -> str | None:
    """``browser.browser_type.name`` (``chromium``, ``firefox``, ``webkit``; a property, no round trip), or None
    for no browser, a stand-in, or a browser whose type cannot be read. The one reading of a browser's name."""
    try:
        name = browser.browser_type.name
    except Exception:  # a fake, or a browser whose type cannot be read
        return None
    return name if isinstance(name, str) else None


def guards_in_force(context: BrowserContext | None, connection: str | None) -> dict[str, Any]:
    """The run manifest's ``guards``: what keeps the requests of ``context``'s run inside the allowlist.

    ``webrtc_launch_flag``: ``set`` (launched here with the launch setting),
    ``requested`` (sent to a Playwright server, which honours it only when
    started with --unsafe), ``absent`` (a CDP browser) or ``unknown`` (a
    browser handed to run_plan, or launched with the user's own policy flag).
    ``webrtc_page_script``: whether guard_channels gave ``context`` the page
    script.

    For a Firefox, two more keys (a Chromium's record is unchanged):
    ``webrtc_launch_setting``: ``media.peerconnection.ice.proxy_only`` (the
    pref that stands for Chromium's flag), and ``localhost_through_proxy``:
    whether ``network.proxy.allow_hijacking_localhost`` holds, with the same
    values as ``webrtc_launch_flag`` (without it Firefox sends ``localhost``
    around the guard; a CDP connection never reaches a Firefox).
    """
    browser = getattr(context, "browser", None)
    try:
        setting = _flagged.get(browser) if browser is not None else None
    except TypeError:  # not weakly referenceable: not a browser launched here
        setting = None
    if setting is not None:
        flag = "set"
    else:
        flag = {"playwright-server": "requested", "cdp": "absent"}.get(connection or "", "unknown")
    guards: dict[str, Any] = {"proxy": True, "webrtc_launch_flag": flag,
                              "webrtc_page_script": context is not None and context in _scripted}
    if setting == FIREFOX_PREF or (setting is None and browser_type_name(browser) == "firefox"):
        guards["webrtc_launch_setting"] = WEBRTC_SETTINGS[FIREFOX_PREF]
        guards["localhost_through_proxy"] = flag
    return guards
