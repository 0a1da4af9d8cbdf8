"""(v1.2, part B) The demo portal's JSON API and the pages that call it, for HTTP steps and stubs.

- ``/api/docs`` and ``/api/docs/<id>``: documents to list, create, read, update
  and delete, behind the portal's sign-in (the ``session`` cookie): a plan sets
  up its data through them and checks what the page stored.
- ``/docs/<id>``: a document with an edit form that saves through the API
  (``fetch`` PUT) and then shows "Saved".
- ``/api/slow/recommendations``: answers after three seconds; ``/shop`` shows
  how many it got. A stub (``routes:``) makes the plan fast.
- ``/feed``: fetches ``https://feed.outside.example/items.json``, a host no demo
  plan may touch, and shows "Feed unavailable" unless a route answers it.

Every ``/api/`` answer is JSON, errors included (401 without a session, 404, 405
with ``Allow``, 400 for a bad body, 413 above :data:`BODY_LIMIT`). The documents
live in memory, one :class:`DocStore` per portal, behind a lock: the portal serves
each request on its own thread. portal.py hands a path here first (``dispatch``).
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
from typing import Any, Callable
from urllib.parse import parse_qs, quote

BODY_LIMIT = 64 * 1024  # as the portal's other POST handlers (portal.FORM_LIMIT)
MAX_DOCS = 1000  # a runaway loop fills no memory: 507 after this many
TITLE_LIMIT = 200
SLOW_RECS_S = 3.0
RECOMMENDATIONS = [{"name": "Desk lamp"}, {"name": "Notebook"}, {"name": "Fountain pen"}]
FEED_URL = "https://feed.outside.example/items.json"
JSON_TYPE = "application/json; charset=utf-8"
_DOC_PATH = re.compile(r"^/api/docs/([A-Za-z0-9_-]{1,32})$")
_DOC_PAGE = re.compile(r"^/docs/([A-Za-z0-9_-]{1,32})$")


class DocStore:
    """The portal's documents: ``{id: {"id", "title", "body"}}``, ids ``d1``, ``d2``, ... never reused."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._docs: dict[str, dict[str, str]] = {}
        self._next = 1

    def all(self) -> list[dict[str, str]]:
        with self._lock:
            return [dict(d) for d in self._docs.values()]

    def get(self, doc_id: str) -> dict[str, str] | None:
        with self._lock:
            doc = self._docs.get(doc_id)
            return dict(doc) if doc else None

    def create(self, title: str, body: str) -> dict[str, str] | None:
        """The new document; None when the store is full."""
        with self._lock:
            if len(self._docs) >= MAX_DOCS:
                return None
            doc = {"id": f"d{self._next}", "title": title, "body": body}
            self._next += 1
            self._docs[doc["id"]] = doc
            return dict(doc)

    def update(self, doc_id: str, changes: dict[str, str]) -> dict[str, str] | None:
        with self._lock:
            doc = self._docs.get(doc_id)
            if doc is None:
                return None
            doc.update(changes)
            return dict(doc)

    def delete(self, doc_id: str) -> bool:
        with self._lock:
            return self._docs.pop(doc_id, None) is not None


class _Refused(Exception):
    """An API call answered with an error: its status and message, as JSON."""

    def __init__(self, status: int, message: str, headers: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or []


def _json(h: Any, status: int, payload: Any, headers: list[tuple[str, str]] | None = None) -> None:
    h._send(status, json.dumps(payload) if status != 204 else b"", JSON_TYPE, headers)


def _fields(h: Any, *, partial: bool) -> dict[str, str]:
    """``title`` and ``body`` of a JSON (or form) request body; 400 when they are not strings."""
    try:
        raw = h._read_body(BODY_LIMIT)
    except Exception as exc:  # portal's _BodyRefused: 413 too large, 411 chunked
        status = getattr(exc, "status", None)
        if status is None:
            raise
        raise _Refused(status, str(exc), [("Connection", "close")]) from None
    text = raw.decode("utf-8", "replace")
    if "application/x-www-form-urlencoded" in (h.headers.get("Content-Type") or "").lower():
        data: Any = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
    else:
        try:
            data = json.loads(text) if text.strip() else None
        except ValueError:
            raise _Refused(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise _Refused(400, "expected a JSON object {\"title\": ..., \"body\": ...}")
    unknown = sorted(set(data) - {"title", "body", "id"})
    if unknown:
        raise _Refused(400, f"unknown field(s): {', '.join(unknown)}")
    fields = {k: data[k] for k in ("title", "body") if k in data}
    if any(not isinstance(v, str) for v in fields.values()):
        raise _Refused(400, "title and body are strings")
    if not partial and not fields.get("title", "").strip():
        raise _Refused(400, "title is required")
    if "title" in fields and (not fields["title"].strip() or len(fields["title"]) > TITLE_LIMIT):
        raise _Refused(400, f"title is 1 to {TITLE_LIMIT} characters")
    return fields


# ---- the API: one function per (path, method)

def _list(h: Any, _doc_id: str) -> None:
    _json(h, 200, {"items": h.portal.docs.all()})


def _create(h: Any, _doc_id: str) -> None:
    fields = _fields(h, partial=False)
    doc = h.portal.docs.create(fields["title"], fields.get("body", ""))
    if doc is None:
        raise _Refused(507, f"the demo keeps at most {MAX_DOCS} documents")
    _json(h, 201, doc, [("Location", f"/api/docs/{doc['id']}")])


def _read(h: Any, doc_id: str) -> None:
    _json(h, 200, _existing(h, doc_id))


def _replace(h: Any, doc_id: str) -> None:
    _existing(h, doc_id)
    fields = _fields(h, partial=False)
    _json(h, 200, _existing(h, doc_id, h.portal.docs.update(doc_id, {"body": "", **fields})))


def _patch(h: Any, doc_id: str) -> None:
    _existing(h, doc_id)
    _json(h, 200, _existing(h, doc_id, h.portal.docs.update(doc_id, _fields(h, partial=True))))


def _delete(h: Any, doc_id: str) -> None:
    if not h.portal.docs.delete(doc_id):
        _existing(h, doc_id)  # raises the 404
    _json(h, 204, None)


def _existing(h: Any, doc_id: str, doc: dict[str, str] | None = None) -> dict[str, str]:
    doc = doc if doc is not None else h.portal.docs.get(doc_id)
    if doc is None:
        raise _Refused(404, f"no document {doc_id}")
    return doc


def _recommendations(h: Any, _doc_id: str) -> None:
    time.sleep(SLOW_RECS_S)  # a slow back end, the reason to stub it
    _json(h, 200, {"items": RECOMMENDATIONS})


Api = dict[str, Callable[[Any, str], None]]
_COLLECTION: Api = {"GET": _list, "POST": _create}
_DOCUMENT: Api = {"GET": _read, "PUT": _replace, "PATCH": _patch, "DELETE": _delete}
_SLOW: Api = {"GET": _recommendations}


def _api_routes(path: str) -> tuple[Api, str] | None:
    if path == "/api/docs":
        return _COLLECTION, ""
    if path == "/api/slow/recommendations":
        return _SLOW, ""
    match = _DOC_PATH.match(path)
    return (_DOCUMENT, match.group(1)) if match else None


def _api(h: Any, path: str) -> None:
    method = "GET" if h.command == "HEAD" else h.command
    try:
        if h._session_user() is None:
            raise _Refused(401, "sign in first")
        found = _api_routes(path)
        if found is None:
            raise _Refused(404, f"no API at {path}")
        table, doc_id = found
        handler = table.get(method)
        if handler is None:
            allow = ", ".join(sorted({*table, *(["HEAD"] if "GET" in table else [])}))
            raise _Refused(405, f"{h.command} is not allowed here", [("Allow", allow)])
        handler(h, doc_id)
    except _Refused as refused:
        if refused.status in (401, 404, 405) and method != "GET":
            h.close_connection = True  # its body is not read
        _json(h, refused.status, {"error": str(refused)}, refused.headers)


# ---- pages

DOC_PAGE = """<h1>Document <span data-testid="doc-number">{id}</span></h1>
<h2 data-testid="doc-title" id="shown-title">{title}</h2>
<p data-testid="doc-body" id="shown-body">{body}</p>
<form id="edit">
<label for="title">Title</label>
<input id="title" name="title" value="{title}">
<label for="body">Body</label>
<textarea id="body" name="body">{body}</textarea>
<button type="submit">Save</button>
</form>
<p role="status" data-testid="doc-status" id="doc-status"></p>
<script>
document.getElementById('edit').addEventListener('submit', async (event) => {{
  event.preventDefault();
  const status = document.getElementById('doc-status');
  status.textContent = 'Saving';
  try {{
    const response = await fetch('/api/docs/{quoted}', {{
      method: 'PUT', headers: {{'Content-Type': 'application/json'}},
      body: JSON.stringify({{title: document.getElementById('title').value,
                            body: document.getElementById('body').value}}),
    }});
    const doc = await response.json();
    if (!response.ok) {{ throw new Error(doc.error || ('HTTP ' + response.status)); }}
    document.getElementById('shown-title').textContent = doc.title;
    document.getElementById('shown-body').textContent = doc.body;
    status.textContent = 'Saved';
  }} catch (error) {{
    status.textContent = 'Not saved: ' + error.message;
  }}
}});
</script>"""

SHOP_PAGE = """<h1>Shop</h1>
<p>Recommended for you:</p>
<p data-testid="recs" id="recs" role="status">Loading recommendations</p>
<script>
fetch('/api/slow/recommendations')
  .then((response) => { if (!response.ok) { throw new Error('HTTP ' + response.status); } return response.json(); })
  .then((data) => {
    const n = data.items.length;
    document.getElementById('recs').textContent =
      n === 0 ? 'No recommendations' : n + (n === 1 ? ' recommendation' : ' recommendations');
  })
  .catch(() => { document.getElementById('recs').textContent = 'Recommendations unavailable'; });
</script>"""

FEED_PAGE = """<h1>News feed</h1>
<p data-testid="feed-status" id="feed-status" role="status">Loading the feed</p>
<ul data-testid="feed" id="feed"></ul>
<script>
fetch('""" + FEED_URL + """')
  .then((response) => { if (!response.ok) { throw new Error('HTTP ' + response.status); } return response.json(); })
  .then((data) => {
    const list = document.getElementById('feed');
    for (const item of data.items) {
      const li = document.createElement('li');
      li.textContent = item.title;
      list.appendChild(li);
    }
    document.getElementById('feed-status').textContent = data.items.length + ' items';
  })
  .catch(() => { document.getElementById('feed-status').textContent = 'Feed unavailable'; });
</script>"""


def _doc_page(h: Any, doc_id: str) -> None:
    if h.command not in ("GET", "HEAD"):
        h._error(405, f"{h.command} is not allowed here.", [("Allow", "GET, HEAD")])
        return
    if h._session_user() is None:
        h._redirect("/login?next=" + quote(f"/docs/{doc_id}", safe="/"))
        return
    doc = h.portal.docs.get(doc_id)
    if doc is None:
        h._page("Not found", f"<h1>Not found</h1>\n<p>There is no document {html.escape(doc_id)}.</p>", 404)
        return
    esc = {k: html.escape(v, quote=True) for k, v in doc.items()}
    h._page(f"Document {doc['id']}", DOC_PAGE.format(**esc, quoted=quote(doc["id"])))


# Static pages (registered by portal.py's ROUTES like the other v1.2 pages).
PAGES_HTTP: dict[str, tuple[str, str]] = {
    "/shop": ("Shop", SHOP_PAGE),
    "/feed": ("News feed", FEED_PAGE),
}


def dispatch(h: Any, path: str) -> bool:
    """Answer ``path`` if it is the API's or a document's page; False leaves it to the portal's ROUTES."""
    if path == "/api" or path.startswith("/api/"):
        _api(h, path)
        return True
    match = _DOC_PAGE.match(path)
    if match:
        _doc_page(h, match.group(1))
        return True
    return False
