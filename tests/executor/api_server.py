"""A small JSON API and a few pages on 127.0.0.1 for the request-step tests, and a listener on 127.0.0.2
that only counts the connections it accepts (a host the plans may not reach).

The API is behind a sign-in made in the page: ``/signin`` sets the ``session``
cookie; without it ``/api/me`` is 401. ``/api/me`` sets a ``seen`` cookie the
page must then have. ``POST /api/docs`` creates a document (201, Location);
``/docs/<id>`` shows it with a number; ``/api/echo`` answers with what it got;
``/api/out`` redirects to the outside listener, ``/api/hop`` to ``/api/me``; ``/api/slow``
answers after 3 s.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit


class Outside:
    """A TCP listener on 127.0.0.2 that counts accepted connections and answers nothing useful."""

    def __init__(self) -> None:
        self.connections = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.2", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.2:{self.port}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


class ApiServer:
    def __init__(self) -> None:
        self.outside = Outside()
        self.received: list[tuple[str, str]] = []
        docs: dict[str, dict[str, Any]] = {}
        received, outside = self.received, self.outside

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _send(self, status: int, body: Any, ctype: str = "application/json",
                      headers: tuple[tuple[str, str], ...] = ()) -> None:
                data = (json.dumps(body) if ctype == "application/json" else body).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _signed_in(self) -> bool:
                return "session=ok" in (self.headers.get("Cookie") or "")

            def do_GET(self) -> None:
                received.append(("GET", self.path))
                url = urlsplit(self.path)
                if url.path == "/signin":
                    return self._send(200, "<title>Signed in</title><p data-testid=who>ana</p>", "text/html",
                                      (("Set-Cookie", "session=ok; Path=/"),))
                if url.path == "/page":
                    return self._send(200, "<title>Page</title><p>page</p>", "text/html")
                if url.path.startswith("/docs/"):
                    doc = docs.get(url.path.split("/")[-1])
                    if doc is None:
                        return self._send(404, "<title>Not found</title>", "text/html")
                    return self._send(200, f"<title>{doc['title']}</title><p data-testid=doc-number>N-{doc['id']}42</p>",
                                      "text/html")
                if url.path == "/api/out":
                    return self._send(302, {}, headers=(("Location", outside.url + "/stolen"),))
                if url.path == "/api/slow":  # answers after 3 s
                    time.sleep(3)
                    return self._send(200, {"late": True})
                if url.path == "/api/hop":
                    return self._send(302, {}, headers=(("Location", "/api/me"),))
                if not self._signed_in():
                    return self._send(401, {"error": "sign in first"})
                if url.path == "/api/me":
                    return self._send(200, {"user": "ana"}, headers=(("Set-Cookie", "seen=yes; Path=/"),))
                if url.path.startswith("/api/docs/"):
                    doc = docs.get(url.path.split("/")[-1])
                    n = parse_qs(url.query).get("n", [None])[0]
                    return self._send(200, {**doc, "n": n}) if doc else self._send(404, {"error": "no such doc"})
                return self._send(404, {"error": "no such path"})

            def do_POST(self) -> None:
                received.append(("POST", self.path))
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode()
                if self.path == "/api/echo":
                    return self._send(200, {"headers": dict(self.headers), "body": body})
                if not self._signed_in():
                    return self._send(401, {"error": "sign in first"})
                if self.path == "/api/docs":
                    doc = {"id": f"d{len(docs) + 1}", **json.loads(body)}
                    docs[doc["id"]] = doc
                    return self._send(201, doc, headers=(("Location", f"/api/docs/{doc['id']}"),))
                return self._send(404, {"error": "no such path"})

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def posts(self) -> list[str]:
        return [path for method, path in self.received if method == "POST"]

    def __enter__(self) -> "ApiServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.outside.close()
