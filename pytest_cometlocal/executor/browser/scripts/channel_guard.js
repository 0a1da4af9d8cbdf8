// The channel guard (browser/channels.py): an init script of every guarded context, run in every
// document before the page's scripts. ICE servers and remote candidates outside the allowlist are
// dropped before Chromium sees them (as if unreachable), and each attempt, like a WebTransport to an
// outside host, is reported through the binding. Filled per context: $allowlist$ (a JSON list of
// host patterns) and $binding$ (the binding's name, a JSON string).
(() => {
  const ALLOW = $allowlist$;
  const bound = globalThis[$binding$];  // kept: a page that replaces the name cannot silence it
  const clean = h => String(h || "").toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  const allowed = host => {
    host = clean(host);
    return ALLOW.some(p => {
      p = clean(p);
      return p.startsWith("*.") ? host.endsWith(p.slice(1)) && host !== p.slice(2) : host === p;
    });
  };
  const refuse = (kind, url, host) => {
    const report = typeof bound === "function" ? bound : globalThis[$binding$];
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
    if (typeof Native !== "function" || Native[$binding$]) return;
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
    Object.defineProperty(Guarded, $binding$, {value: true});
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
