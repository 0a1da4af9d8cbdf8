"""The channels a page has besides HTTP: WebRTC and WebTransport, guarded in the browser.

The allowlist proxy (guard.py) sees every HTTP(S) and WebSocket request, but
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

WebTransport (HTTP/3 over QUIC) is refused by Chromium when a proxy is set
(``ERR_TUNNEL_CONNECTION_FAILED``, nothing sent); the script reports an
attempt to an outside host as ``WEBTRANSPORT``.
"""

from __future__ import annotations

import json
import weakref
from typing import Any

from pytest_cometlocal.contract.allowlist import host_allowed

WEBRTC_FLAGS = ["--force-webrtc-ip-handling-policy", "--webrtc-ip-handling-policy=disable_non_proxied_udp"]
BINDING = "__cometlocalChannelBlocked"
KINDS = frozenset({"STUN", "TURN", "ICE", "WEBTRANSPORT"})
_MAX_TEXT = 500

# Browsers launched with WEBRTC_FLAGS by this process (browser.BrowserManager adds them),
# and contexts that got the page script (guard_channels): what the manifest's guards report.
_flagged: "weakref.WeakSet[Any]" = weakref.WeakSet()
_scripted: "weakref.WeakSet[Any]" = weakref.WeakSet()

PAGE_SCRIPT = r"""
(() => {
  const ALLOW = %(allowlist)s;
  const bound = globalThis[%(binding)s];  // kept: a page that replaces the name cannot silence it
  const clean = h => String(h || "").toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  const allowed = host => {
    host = clean(host);
    return ALLOW.some(p => {
      p = clean(p);
      return p.startsWith("*.") ? host.endsWith(p.slice(1)) && host !== p.slice(2) : host === p;
    });
  };
  const refuse = (kind, url, host) => {
    const report = typeof bound === "function" ? bound : globalThis[%(binding)s];
    try { if (typeof report === "function") report(kind, String(url), clean(host)); } catch (e) {}
  };
  // stun:host[:port], stuns:, turn:host[:port][?transport=udp], turns: (RFC 7064, 7065)
  const serverHost = url => {
    const m = /^\s*(?:stuns?|turns?):(\[[^\]]*\]|[^:?\s]*)/i.exec(String(url));
    return m ? m[1] : "";
  };
  const keptServers = config => {
    if (!config || typeof config !== "object" || !Array.isArray(config.iceServers)) return config;
    const servers = [];
    for (const server of config.iceServers) {
      if (!server) continue;
      const urls = [].concat(server.urls === undefined ? [] : server.urls).filter(url => {
        const host = serverHost(url);
        if (allowed(host)) return true;
        refuse(/^\s*turns?:/i.test(String(url)) ? "TURN" : "STUN", String(url).trim(), host);
        return false;
      });
      if (urls.length) servers.push(Object.assign({}, server, {urls}));
    }
    return Object.assign({}, config, {iceServers: servers});
  };
  // a=candidate:foundation component transport priority address port typ ...
  const candidateOutside = line => {
    const f = String(line || "").replace(/^a=/, "").replace(/^candidate:/, "").trim().split(/\s+/);
    if (f.length < 6 || allowed(f[4])) return false;
    refuse("ICE", "ice:" + (f[4].includes(":") ? "[" + clean(f[4]) + "]" : clean(f[4])) + ":" + f[5], f[4]);
    return true;
  };
  const keptDescription = desc => {
    if (!desc || typeof desc.sdp !== "string") return desc;
    const sdp = desc.sdp.split(/\r?\n/).filter(l => !(l.startsWith("a=candidate:") && candidateOutside(l))).join("\r\n");
    return {type: desc.type, sdp};
  };
  const guard = w => {
    const Native = w.RTCPeerConnection;
    if (typeof Native !== "function" || Native[%(binding)s]) return;
    const proto = Native.prototype;
    const Guarded = function RTCPeerConnection(config, ...rest) {
      if (!new.target) return Native(config, ...rest);  // the native TypeError
      return Reflect.construct(Native, [keptServers(config), ...rest], new.target === Guarded ? Native : new.target);
    };
    Object.setPrototypeOf(Guarded, Object.getPrototypeOf(Native));
    for (const key of Object.getOwnPropertyNames(Native)) {
      if (!["prototype", "length", "name"].includes(key)) {
        Object.defineProperty(Guarded, key, Object.getOwnPropertyDescriptor(Native, key));
      }
    }
    Object.defineProperty(Guarded, "prototype", {value: proto});
    Object.defineProperty(Guarded, %(binding)s, {value: true});
    Object.defineProperty(proto, "constructor", {value: Guarded, writable: true, configurable: true});
    const wrap = (name, change) => {
      const original = proto[name];
      if (typeof original !== "function") return;
      Object.defineProperty(proto, name, {configurable: true, writable: true, value: {[name](...args) {
        return change.call(this, original, ...args);
      }}[name]});
    };
    wrap("setConfiguration", function (original, config, ...rest) { return original.call(this, keptServers(config), ...rest); });
    wrap("setRemoteDescription", function (original, desc, ...rest) { return original.call(this, keptDescription(desc), ...rest); });
    wrap("addIceCandidate", function (original, candidate, ...rest) {
      const line = candidate && typeof candidate === "object" ? candidate.candidate : candidate;
      if (line && candidateOutside(line)) return Promise.resolve();  // dropped: as if it never answered
      return original.call(this, candidate, ...rest);
    });
    for (const alias of ["RTCPeerConnection", "webkitRTCPeerConnection"]) {
      if (alias in w) Object.defineProperty(w, alias, {value: Guarded, writable: true, configurable: true});
    }
  };
  guard(globalThis);
  const NativeWT = globalThis.WebTransport;
  if (typeof NativeWT === "function") {
    const GuardedWT = function WebTransport(url, ...rest) {
      if (!new.target) return NativeWT(url, ...rest);
      try {
        const parsed = new URL(String(url), location.href);
        if (!allowed(parsed.hostname)) refuse("WEBTRANSPORT", parsed.origin + "/", parsed.hostname);
      } catch (e) {}
      return Reflect.construct(NativeWT, [url, ...rest], new.target === GuardedWT ? NativeWT : new.target);
    };
    GuardedWT.prototype = NativeWT.prototype;
    Object.defineProperty(NativeWT.prototype, "constructor", {value: GuardedWT, writable: true, configurable: true});
    Object.defineProperty(globalThis, "WebTransport", {value: GuardedWT, writable: true, configurable: true});
  }
})();
"""


def page_script(allowlist: tuple[str, ...] | list[str]) -> str:
    return PAGE_SCRIPT % {"allowlist": json.dumps(list(allowlist)), "binding": json.dumps(BINDING)}


def guard_channels(context: Any, guard: Any) -> None:
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


def mark_flagged(browser: Any) -> None:
    """``browser`` was launched here with WEBRTC_FLAGS."""
    _flagged.add(browser)


def guards_in_force(context: Any, connection: str | None) -> dict[str, Any]:
    """The run manifest's ``guards``: what keeps the requests of ``context``'s run inside the allowlist.

    ``webrtc_launch_flag``: ``set`` (launched here with it), ``requested`` (sent
    to a Playwright server, which honours it only when started with --unsafe),
    ``absent`` (a CDP browser) or ``unknown`` (a browser handed to run_plan, or
    launched with the user's own policy flag). ``webrtc_page_script``: whether
    guard_channels gave ``context`` the page script.
    """
    browser = getattr(context, "browser", None)
    if browser is not None and browser in _flagged:
        flag = "set"
    else:
        flag = {"playwright-server": "requested", "cdp": "absent"}.get(connection or "", "unknown")
    return {"proxy": True, "webrtc_launch_flag": flag, "webrtc_page_script": context is not None and context in _scripted}
