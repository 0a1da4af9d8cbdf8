"""A small JSON API on 127.0.0.1 for the ``http`` section, next to the benchmark page.

``/bench`` is the benchmark page of ``site.py`` (for the v1 navigate/assert plan);
``POST /api/items`` with a JSON body ``{"title": ...}`` creates an item (201, its
``id`` and ``title``, a ``Location``); ``GET /api/items/<id>`` reads it back (200, or
404 with ``{"error": ...}``). The answers are immediate, so what is timed is the
client side: the plan's ``request`` step or Playwright's ``context.request`` by hand.
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .site import LocalSite, page_html


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: Any, extra: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(value).encode(), "application/json", extra)

    def do_GET(self) -> None:  # noqa: N802
        site: ApiSite = self.server.site  # type: ignore[attr-defined]
        path = self.path.split("?")[0]
        if path == "/bench":
            self._send(200, site.page, "text/html; charset=utf-8")
        elif path.startswith("/api/items/"):
            item = site.items.get(path.rsplit("/", 1)[1])
            self._json(200, item) if item else self._json(404, {"error": "no item " + path})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        site: ApiSite = self.server.site  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        try:
            data = json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            data = None
        if self.path.split("?")[0] != "/api/items" or not isinstance(data, dict) or "title" not in data:
            self._json(400, {"error": "POST /api/items with a JSON body {title}"})
            return
        item = site.create(str(data["title"]))
        self._json(201, item, {"Location": f"/api/items/{item['id']}"})


class ApiSite(LocalSite):
    """``with ApiSite() as site: site.url`` -> http://127.0.0.1:<free port>; ``site.items`` the store."""

    handler = _Handler

    def __init__(self) -> None:
        self.page = page_html().encode()
        self.items: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def create(self, title: str) -> dict[str, Any]:
        with self._lock:
            item = {"id": f"i{next(self._ids)}", "title": title}
            self.items[item["id"]] = item
        return item

    def _attach(self, server: ThreadingHTTPServer) -> None:
        server.site = self  # type: ignore[attr-defined]
