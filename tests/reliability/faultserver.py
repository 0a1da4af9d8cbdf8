"""A loopback HTTP server that misbehaves on purpose, for the fault tests.

Each path is one fault: a 500, a reset connection, a response that never
comes, a server that goes away after answering, a download that never ends,
a download with a hostile file name, a page that reaches for an outside host
in every way a page can; SecretDownloads serves downloads that carry secrets. Handlers that hang wait on ``release``, which the
fixture sets when the test ends, so no thread outlives its test for long.
"""

from __future__ import annotations

import base64
import html
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>{head}</head>
<body><h1>{title}</h1>{body}</body></html>"""


class RoutedHandler(BaseHTTPRequestHandler):
    """Answers ``/some-path`` with ``route_some_path(query)``; ``owner.hits`` records every path.

    Shared by the loopback servers of the reliability tests (this one and
    misbehaving.py); a subclass sets ``owner`` and adds its routes.
    """

    protocol_version = "HTTP/1.0"
    owner: Any = None

    def log_message(self, *args: Any) -> None:
        return

    def _page(self, title: str, body: str = "", status: int = 200, head: str = "") -> None:
        data = PAGE.format(title=html.escape(title), body=body, head=head).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        self.owner.hits.append(self.path)
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        route = getattr(self, "route_" + parts.path.strip("/").replace("-", "_"), None)
        if route is None:
            self._page("Not found", status=404)
        else:
            route(query)


class LoopbackServer:
    """A handler served on 127.0.0.1 in a thread; ``close`` releases the handlers that hang, then stops."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.hits: list[str] = []

    def _serve(self, handler: type, server_class: type = ThreadingHTTPServer) -> None:
        self._server = server_class(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self._stopped = False

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._server.shutdown()
        self._server.server_close()

    def close(self) -> None:
        self.release.set()
        self.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FaultServer(LoopbackServer):
    def __init__(self) -> None:
        super().__init__()
        server = self

        class Handler(RoutedHandler):
            owner = server

            do_POST = RoutedHandler.do_GET

            def route_page(self, query: dict[str, str]) -> None:
                self._page(query.get("title", "Fault server"), '<a href="/download-stall">Stalled download</a>'
                           '<a href="/download-evil">Evil name</a><a href="/hang">Hanging link</a>')

            def route_error500(self, query: dict[str, str]) -> None:
                self._page("Internal Server Error", "<p>boom</p>", status=500)

            def route_reset(self, query: dict[str, str]) -> None:
                # SO_LINGER 0: close() sends RST instead of FIN.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True

            def route_hang(self, query: dict[str, str]) -> None:
                server.release.wait(60)
                self.close_connection = True

            def route_last(self, query: dict[str, str]) -> None:
                # Going away: the listening socket is closed before this answer is sent, so no next request
                # (however soon it comes) can reach a server still between its answer and its stop.
                server.stop()
                self.close_connection = True
                self._page("Last page")

            def route_download_stall(self, query: dict[str, str]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Disposition", 'attachment; filename="stall.bin"')
                self.send_header("Content-Length", str(10 * 1024 * 1024))
                self.end_headers()
                self.wfile.write(b"x" * 1024)
                self.wfile.flush()
                server.release.wait(60)
                self.close_connection = True

            def route_download_evil(self, query: dict[str, str]) -> None:
                data = b"#!/bin/sh\necho owned\n"
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Disposition", 'attachment; filename="../../../evil.sh"')
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def route_reach_out(self, query: dict[str, str]) -> None:
                """Every subresource kind a page can send to another host, at once."""
                out = html.escape(query["to"], quote=True)
                ws = out.replace("http://", "ws://")
                self._page("Reach out", f"""
<img src="{out}/img.png" alt="">
<iframe src="{out}/frame" title="outside frame"></iframe>
<link rel="prefetch" href="{out}/prefetch">
<script src="{out}/script.js"></script>
<form id="f" method="post" action="{out}/form" target="sink"><input name="a" value="1"></form>
<iframe name="sink" title="sink"></iframe>
<p id="done">waiting</p>
<script>
  fetch("{out}/fetch").catch(() => {{}});
  const x = new XMLHttpRequest(); x.open("GET", "{out}/xhr"); x.send();
  navigator.sendBeacon("{out}/beacon", "b");
  try {{ new WebSocket("{ws}/ws"); }} catch (e) {{}}
  try {{ new EventSource("{out}/events"); }} catch (e) {{}}
  document.getElementById("f").submit();
  setTimeout(() => {{ document.getElementById("done").textContent = "sent"; }}, 300);
</script>""")

        self._serve(Handler)


class SecretDownloads(LoopbackServer):
    """Downloads that carry secrets, for the redaction tests (tests/reliability/test_download_secrets.py).

    ``/page`` links to each. ``/export.csv?t=<tok>&u=<sym>`` is a CSV named
    ``export-<tok>.csv`` whose rows hold ``tok`` raw and ``sym`` HTML-escaped
    and percent-encoded; ``/blob.bin`` is binary with ``tok`` raw in its bytes,
    ``/key.bin`` binary with ``sym`` base64-encoded, named ``key-<sym>.bin``
    (which the browser changes to make it a file name); ``/report.csv`` and
    ``/plain.bin`` hold no secret.
    """

    def __init__(self, tok: str, sym: str) -> None:
        super().__init__()
        server = self
        query = "t=" + quote(tok, safe="") + "&u=" + quote(sym, safe="")
        self.files = {
            "/export.csv": ("text/csv", "export-" + tok + ".csv",
                            f"name,token\nexport,{tok}\nescaped,{html.escape(sym)}\nurl,{quote(sym, safe='')}\n".encode()),
            "/blob.bin": ("application/octet-stream", "blob.bin", b"\x89PNG\r\n\x1a\n\xff" + tok.encode() + b"\x00\xfe"),
            "/key.bin": ("application/octet-stream", "key-" + sym + ".bin",
                         b"\xff\xfe\x00" + base64.b64encode(sym.encode()) + b"\x00\xff"),
            "/report.csv": ("text/csv", "report.csv", b"id,amount\n1,120.00\n"),
            "/plain.bin": ("application/octet-stream", "plain.bin", b"\x89PNG\r\n\x1a\n\xff\x00data\xfe"),
        }
        links = {"/export.csv": "Export", "/blob.bin": "Blob", "/key.bin": "Key", "/report.csv": "Report",
                 "/plain.bin": "Plain"}

        class Handler(RoutedHandler):
            owner = server

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                server.hits.append(self.path)
                path = urlsplit(self.path).path
                if path == "/page":
                    body = "".join(f'<p><a href="{html.escape(p + "?" + query)}">{text}</a></p>' for p, text in links.items())
                    return self._page("Downloads", body)
                if path not in server.files:
                    return self._page("Not found", status=404)
                ctype, name, data = server.files[path]
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Disposition", "attachment; filename*=UTF-8''" + quote(name, safe=""))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._serve(Handler)
