"""The network guard: every request of a plan's browser context passes here first.

Playwright's route handler sees only the first URL of a redirect chain, so it
cannot stop a redirect (or a meta refresh, popup or form post that is
redirected) from reaching an outside host. The guard is a small HTTP proxy on
loopback (or on the address a remote browser can reach), set as the context's proxy: Chromium sends every request, every hop
of a redirect chain included, through it before anything goes to the
network. Requests to hosts outside the allowlist are answered here with 403
and recorded; they never reach the outside host. On Chromium exact allowed hosts
are bypassed (they go direct, at no cost); wildcard entries are checked and
forwarded here. Firefox (and any browser but Chromium) gets no bypass at all:
there, a redirect from a bypassed host to another host goes direct, past the
proxy (measured on Firefox 153 through WebDriver BiDi, issue 49), so every
request of such a context comes here and allowed ones are forwarded.
"""

from __future__ import annotations

import http.client
import select
import socket
import socketserver
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

from pytest_cometlocal.contract.allowlist import host_allowed, url_host

BLOCK_HEADER = "X-Cometlocal-Blocked"
DEFAULT_GUARD_HOST = "127.0.0.1"
_HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
    "transfer-encoding", "upgrade", "proxy-connection",
}


@dataclass(frozen=True)
class BlockedRequest:
    method: str
    url: str
    host: str
    at: float


class _Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True
    guard: "NetworkGuard"

    def handle_error(self, request, client_address) -> None:
        """A browser that hung up while it was answered (a page left, a tab closed) is not news: no
        traceback on the terminal. Anything else is a fault of this plugin and is printed as one."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Server6(_Server):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"

    def log_message(self, *args) -> None:  # never write to stderr
        return

    def _block(self, host: str, url: str) -> None:
        self.server.guard.record_blocked(self.command, url, host)
        body = f"<!doctype html><title>Blocked</title><p>Blocked by the cometlocal allowlist: {host}</p>".encode()
        self.send_response(403)
        self.send_header(BLOCK_HEADER, host)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_CONNECT(self) -> None:
        host, _, port = self.path.rpartition(":")
        host = url_host(f"https://{self.path}/") or host.strip("[]").lower()  # the allowlist's reading
        if not host_allowed(host, self.server.guard.allowlist):
            self._block(host, f"https://{self.path}/")
            return
        try:
            upstream = socket.create_connection((host, int(port or 443)), timeout=30)
        except OSError:  # a server that is down looks down: the browser gets no answer, as without the guard
            self.close_connection = True
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self._tunnel(self.connection, upstream)

    @staticmethod
    def _tunnel(a: socket.socket, b: socket.socket) -> None:
        sockets = [a, b]
        try:
            while True:
                readable, _, errored = select.select(sockets, [], sockets, 60)
                if errored or not readable:
                    return
                for s in readable:
                    data = s.recv(65536)
                    if not data:
                        return
                    (b if s is a else a).sendall(data)
        except OSError:
            return
        finally:
            b.close()

    def _forward(self) -> None:
        parts = urlsplit(self.path)
        host = url_host(self.path)  # Chromium's URL, read as the allowlist reads every URL
        if not parts.scheme or not parts.netloc:
            self.send_error(400, "absolute URL required")
            return
        if not host or not host_allowed(host, self.server.guard.allowlist):  # no host: read two ways, refused
            self._block(host or (parts.hostname or ""), self.path)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        try:
            conn = conn_cls(host, parts.port, timeout=60)
            conn.request(self.command, target, body=body, headers=headers)
            response = conn.getresponse()
        except OSError:  # a server that is down looks down: the browser gets no answer, as without the guard
            self.close_connection = True
            return
        self.send_response(response.status, response.reason)
        for key, value in response.getheaders():
            if key.lower() not in _HOP_BY_HOP and key.lower() != "content-length":
                self.send_header(key, value)
        if response.getheader("Content-Length") is not None and not response.getheader("Transfer-Encoding"):
            self.send_header("Content-Length", response.getheader("Content-Length"))
        self.send_header("Connection", "close")  # else the body ends where the connection does
        self.end_headers()
        try:  # relayed as it comes (a stream of server-sent events is never held back to its end)
            while self.command != "HEAD" and (chunk := response.read1(65536)):
                self.wfile.write(chunk)
                self.wfile.flush()
        except OSError:
            pass  # either side hung up: the browser sees the answer end there
        finally:
            conn.close()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward


class NetworkGuard:
    """A proxy for one browser context, enforcing one allowlist.

    It listens on ``host`` (default 127.0.0.1, a free port), which the browser
    must be able to reach: a remote browser on another machine needs an
    address of this machine that it can connect to.
    """

    def __init__(self, allowlist: tuple[str, ...] | list[str], host: str = DEFAULT_GUARD_HOST):
        self.allowlist = tuple(h.lower() for h in allowlist)
        self.host = host.strip("[]") or DEFAULT_GUARD_HOST
        self.blocked: list[BlockedRequest] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopper: threading.Thread | None = None

    def record_blocked(self, method: str, url: str, host: str) -> None:
        """A refused request; also what the page script (channels.py) reports of WebRTC and WebTransport."""
        with self._lock:
            self.blocked.append(BlockedRequest(method, url, host, time.monotonic()))

    def blocked_since(self, index: int) -> list[BlockedRequest]:
        with self._lock:
            return list(self.blocked[index:])

    @property
    def port(self) -> int:
        assert self._server is not None, "guard not started"
        return self._server.server_address[1]

    def start(self) -> "NetworkGuard":
        server = (_Server6 if ":" in self.host else _Server)((self.host, 0), _Handler)
        server.guard = self
        self._server = server
        # A short poll interval: stop() waits for the serving loop to notice, and the
        # default 0.5 s would add a quarter of a second on average to every plan.
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="cometlocal-guard", daemon=True)
        self._thread.start()
        return self

    def stop(self, wait: bool = False) -> None:
        """Stop serving: at once, the serving loop ends within its poll interval in the background.

        A plan item's teardown has no reason to wait for the loop (the
        browser context using it is already closed); ``wait=True`` does, for
        callers that need the port free when this returns.
        """
        server, self._server = self._server, None
        if server is None:
            return

        def close() -> None:
            server.shutdown()
            server.server_close()

        if wait:
            close()
        else:
            self._stopper = threading.Thread(target=close, name="cometlocal-guard-stop", daemon=True)
            self._stopper.start()

    def proxy_settings(self, direct: bool = True) -> dict[str, str]:
        """Playwright ``proxy=`` for new_context: exact hosts bypass, all else comes here. ``direct=False``
        (every browser but Chromium, module docstring): no bypass, everything comes here."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if not direct:
            return {"server": f"http://{host}:{self.port}"}
        exact = [h for h in self.allowlist if not h.startswith("*.")]
        # "<-loopback>" cancels Chromium's implicit direct route for localhost and
        # 127.0.0.0/8, so an outside loopback name is guarded like any other host.
        # It must come first: a later "<-loopback>" would also cancel an allowed
        # "127.0.0.1" listed before it (rules apply in order).
        return {"server": f"http://{host}:{self.port}", "bypass": ",".join(["<-loopback>"] + exact)}

    def __enter__(self) -> "NetworkGuard":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
