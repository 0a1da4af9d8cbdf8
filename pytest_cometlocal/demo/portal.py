"""A demo web portal for trying plans, served by Python's standard library only.

Start it from Python::

    with DemoPortal() as portal:      # 127.0.0.1, a free port
        print(portal.url)             # http://127.0.0.1:<port>

or from a shell (serves until Ctrl-C)::

    python -m pytest_cometlocal.demo.portal --port 8000 [--outside-url URL] [--variant renamed] [--orders-db PATH]

Every page exists to exercise one part of the plan format: login and auth signals
(``/login``, ``/dashboard``, ``/protected``), ambiguous targets (``/dashboard``,
``/duplicates``), overlays (``/cookies``), frames (``/frame``), uploads and toasts
(``/form``), downloads (``/download/report.csv``), timeouts (``/slow``), dynamic
content (``/dynamic``), a page that alternates between loads (``/flaky``),
disabled elements (``/disabled``) and ways of leaving the allowlist (``/redirect``,
``/redirect-chain``, ``/popup``, ``/meta-refresh``, ``/post-outside``,
``/iframe-outside`` and the dashboard's "Outside site" link). v12_http.py adds a
JSON API behind the sign-in (``/api/docs``) and pages that call it (``/docs/<id>``,
``/shop``, ``/feed``). The ``/spa/...``
pages (widgets.py) need plan format v1.1: Enter, hover, scroll, custom
dropdowns, checkboxes, drag and drop, a code editor. A variant (variants.py,
``--variant renamed``) serves the pages as a release that renamed and removed
things changed them. ``/orders`` (orders.py) writes each order placed to a real
SQLite file and ``/hold`` (hold.py) is a "hold to confirm" button, for the example
extensions.

The portal keeps no state beyond the ``session`` cookie the browser holds, the
``hits`` list, the API's documents (in memory) and the orders (``portal.orders_db``:
``DemoPortal(orders_db=...)``, else the file named by the environment variable
``COMETLOCAL_DEMO_ORDERS_DB``, else one in a temporary folder removed when the
portal stops); uploads are counted, never stored.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import email
import email.policy
import html
import json
import os
import re
import secrets
import socket
import sys
import threading
import time
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, quote, unquote, urlsplit

from pytest_cometlocal.demo import orders, variants
from pytest_cometlocal.demo.hold import HOLD_ROUTES
from pytest_cometlocal.demo.pages.v12_checks import V12_CHECKS_PAGES
from pytest_cometlocal.demo.pages.v13_actions import V13_ACTIONS_PAGES
from pytest_cometlocal.demo.pages.v12_settings import V12_SETTINGS_PAGES
from pytest_cometlocal.demo.pages.widgets import WIDGET_PAGES
from pytest_cometlocal.demo.pages.v12_pages import PAGES_V12
from pytest_cometlocal.demo.pages.audit_pages import ACCESSIBILITY_PAGES, AUDIT_PAGES
from pytest_cometlocal.demo.pages import v12_http
from pytest_cometlocal.demo.pages.todomvc import TODOMVC_PAGES
from pytest_cometlocal.demo.pages.v13_scroll import V13_SCROLL_ROUTES
from pytest_cometlocal.demo.pages.v13_state import V13_STATE_PAGES
from pytest_cometlocal.demo.pages.v13_traffic import V13_TRAFFIC_ROUTES
from pytest_cometlocal.demo.pages.v13_numbers import V13_NUMBERS_ROUTES

__all__ = ["DemoPortal", "main"]

OUTSIDE_FALLBACK = "http://outside.invalid/"
UPLOAD_LIMIT = 5 * 1024 * 1024  # request bodies above this get 413 on /upload
FORM_LIMIT = 64 * 1024  # other POST bodies
DRAIN_LIMIT = 64 * 1024 * 1024  # bodies up to this size are read and discarded before a 413
SLOW_CAP_MS = 30_000
DEMO_PASSWORD = "demo"
BASIC_CREDENTIALS = "demo:demo"
CSV_BODY = "id,amount\n1,120.00\n"

# --------------------------------------------------------------------------- templates

LAYOUT = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{title}</title>
{head}<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem; line-height: 1.4; }}
label {{ display: block; margin-top: .8rem; }}
button {{ margin-top: .8rem; }}
.toasts {{ position: fixed; right: 1rem; bottom: 1rem; display: flex; flex-direction: column;
          gap: .5rem; z-index: 500; pointer-events: none; }}
.toast {{ background: #222; color: #fff; padding: .6rem 1rem; border-radius: 6px; }}
.cookie-wall {{ position: fixed; inset: 0; z-index: 1000; background: rgba(0, 0, 0, .55);
               display: flex; align-items: center; justify-content: center; }}
.cookie-wall .box {{ background: #fff; padding: 1.5rem 2rem; border-radius: 8px; }}
</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""

# Shared by the pages that show toasts: showToast(text) appends a role=status element
# to the #toasts container and removes it after 5 s.
TOAST_SCRIPT = """<script>
function showToast(text) {
  const toast = document.createElement('div');
  toast.setAttribute('role', 'status');
  toast.setAttribute('aria-live', 'polite');
  toast.className = 'toast';
  toast.textContent = text;
  document.getElementById('toasts').appendChild(toast);
  setTimeout(() => toast.remove(), 5000);
}
</script>"""

INDEX_BODY = """<h1>Demo portal</h1>
<p>Pages for trying action plans.</p>
<ul>
<li><a href="/login">Sign in</a></li>
<li><a href="/dashboard">Dashboard</a> (needs a session)</li>
<li><a href="/reports">Reports</a></li>
<li><a href="/form">Request form</a></li>
<li><a href="/download/report.csv">Download report.csv</a></li>
<li><a href="/cookies">Cookie wall</a></li>
<li><a href="/frame">Frame host</a></li>
<li><a href="/duplicates">Duplicates</a></li>
<li><a href="/disabled">Disabled</a></li>
<li><a href="/slow">Slow page</a></li>
<li><a href="/protected">Protected</a> (HTTP Basic demo:demo)</li>
<li><a href="/redirect?to=/reports">Redirect to Reports</a></li>
<li><a href="/redirect-chain?to=/reports">Redirect chain to Reports</a></li>
<li><a href="/popup">Popup</a></li>
<li><a href="/meta-refresh?to=/reports">Meta refresh to Reports</a></li>
<li><a href="/post-outside">Post outside</a></li>
<li><a href="/iframe-outside">Iframe outside</a></li>
<li><a href="/dynamic">Dynamic</a></li>
<li><a href="/orders">Orders</a> (stored in SQLite)</li>
<li><a href="/hold">Hold to confirm</a></li>
</ul>"""

LOGIN_BODY = """<h1>Sign in</h1>
{error}<form method="post" action="/login">
<input type="hidden" name="csrf" value="{csrf}">
{next_field}<label for="user">User name</label>
<input id="user" name="user" autocomplete="username" value="{user}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password">
<button type="submit" data-testid="login-submit">Sign in</button>
</form>"""

LOGIN_ERROR = '<p role="alert" data-testid="login-error">Invalid credentials</p>\n'

DASHBOARD_BODY = """<h1>Dashboard</h1>
<p data-testid="greeting">Welcome, {user}</p>
<nav aria-label="Dashboard links">
<ul>
<li><a href="/reports">Reports</a></li>
<li><a href="/reports?view=2">Reports</a></li>
<li><a href="{outside}">Outside site</a></li>
<li><a href="/download/report.csv">Export CSV</a></li>
</ul>
</nav>
<form method="post" action="/logout">
<button type="submit">Log out</button>
</form>"""

REPORTS_BODY = """<h1>Reports</h1>
<p>{note}</p>"""

FORM_BODY = """<h1>Request form</h1>
<p id="status" data-testid="status">Loading</p>
<label for="subject">Subject</label>
<input id="subject" data-testid="subject">
<label for="country">Country</label>
<select id="country">
<option value="">Choose</option>
<option value="ES">Spain</option>
<option value="FR">France</option>
</select>
<label for="attachment">Attachment</label>
<input type="file" id="attachment">
<div id="upload-status" data-testid="upload-status"></div>
<button type="button" id="send">Send request</button>
<div id="toasts" class="toasts"></div>
""" + TOAST_SCRIPT + """
<script>
setTimeout(() => { document.getElementById('status').textContent = 'Ready'; }, 300);
document.getElementById('send').addEventListener('click', () => {
  const subject = document.getElementById('subject').value.trim();
  showToast(subject ? 'Request sent' : 'Subject is required');
});
document.getElementById('attachment').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  const status = document.getElementById('upload-status');
  if (!file) { status.textContent = ''; return; }
  status.textContent = 'Uploading ' + file.name;
  try {
    const response = await fetch('/upload', {
      method: 'POST',
      headers: {'X-Filename': encodeURIComponent(file.name),
                'Content-Type': file.type || 'application/octet-stream'},
      body: file,
    });
    if (!response.ok) { throw new Error('HTTP ' + response.status); }
    const result = await response.json();
    status.textContent = 'Uploaded ' + result.name;
    showToast('Upload complete: ' + result.name);
  } catch (error) {
    status.textContent = 'Upload failed: ' + file.name;
    showToast('Upload failed (' + error.message + ')');
  }
});
</script>"""

COOKIES_BODY = """<h1>Cookie wall</h1>
<p>The button below is covered by a cookie wall until cookies are accepted.</p>
<button type="button" data-testid="continue" id="continue">Continue</button>
<p data-testid="result" id="result"></p>
<div id="cookie-wall" class="cookie-wall" role="dialog" aria-label="Cookie consent">
<div class="box">
<p>We use cookies</p>
<button type="button" id="accept">Accept cookies</button>
</div>
</div>
<script>
document.getElementById('continue').addEventListener('click', () => {
  document.getElementById('result').textContent = 'Continued';
});
document.getElementById('accept').addEventListener('click', () => {
  document.getElementById('cookie-wall').remove();
});
</script>"""

FRAME_BODY = """<h1>Frame host</h1>
<iframe id="inner-frame" src="/frame/inner" title="Inner frame" width="480" height="200"></iframe>"""

FRAME_INNER_BODY = """<h1>Inner frame</h1>
<button type="button" data-testid="inner-button" id="inner-button">Inner action</button>
<p data-testid="inner-result" id="inner-result"></p>
<script>
document.getElementById('inner-button').addEventListener('click', () => {
  document.getElementById('inner-result').textContent = 'Inner done';
});
</script>"""

DUPLICATES_BODY = """<h1>Duplicates</h1>
<button type="button">Save</button>
<button type="button">Save</button>
<ul>
<li>Item A</li>
<li>Item B</li>
<li>Item C</li>
</ul>"""

DISABLED_BODY = """<h1>Disabled</h1>
<button type="button" disabled data-testid="disabled-button">Locked</button>
<label for="readonly-input">Fixed value</label>
<input id="readonly-input" data-testid="readonly-input" readonly value="fixed">"""

# A report whose "Recalculate" button freezes the page: its handler never returns
# (a main thread stuck in a loop), as a faulty application's script can.
FROZEN_BODY = """<h1>Frozen report</h1>
<p data-testid="frozen-status">Totals are up to date.</p>
<button type="button" data-testid="recalculate" onclick="for (;;) {}">Recalculate</button>"""

SLOW_BODY = """<h1>Slow page</h1>
<p data-testid="slow-delay">Answered after {ms} ms</p>"""

PROTECTED_BODY = """<h1>Protected</h1>
<p data-testid="protected-content">You are authenticated as demo.</p>"""

AUTH_REQUIRED_BODY = """<h1>Authentication required</h1>
<p>Authentication required</p>"""

POPUP_BODY = """<h1>Popup</h1>
<button type="button" id="open-popup" data-href="{href}">Open popup</button>
<script>
document.getElementById('open-popup').addEventListener('click', (event) => {
  window.open(event.currentTarget.dataset.href, '_blank');
});
</script>"""

META_REFRESH_HEAD = '<meta http-equiv="refresh" content="0;url={href}">\n'

META_REFRESH_BODY = """<h1>Meta refresh</h1>
<p>Leaving for <a href="{href}">{text}</a>.</p>"""

POST_OUTSIDE_BODY = """<h1>Post outside</h1>
<form method="post" action="{href}">
<input type="hidden" name="note" value="demo">
<button type="submit">Send outside</button>
</form>"""

IFRAME_OUTSIDE_BODY = """<h1>Iframe outside</h1>
<iframe src="{href}" title="Outside frame" width="480" height="200"></iframe>"""

DYNAMIC_BODY = """<h1>Dynamic</h1>
<button type="button" id="add-item">Add item</button>
<p data-testid="counter" id="counter">0</p>
<ul id="items" data-testid="items"></ul>
<script>
let clicks = 0;
document.getElementById('add-item').addEventListener('click', () => {
  clicks += 1;
  const number = clicks;
  document.getElementById('counter').textContent = String(number);
  setTimeout(() => {
    const item = document.createElement('li');
    item.textContent = 'Item ' + number;
    document.getElementById('items').appendChild(item);
  }, 200);
});
</script>"""

# A flaky page for `cometlocal diff`: odd loads (1st, 3rd, ...) of this server show
# "Continue" at once; even loads show it only after FLAKY_DELAY_MS, longer than a
# plan's step timeout, like a slow backend. Counted from ``hits``: deterministic.
FLAKY_DELAY_MS = 10_000

FLAKY_BODY = """<h1>Flaky</h1>
<p data-testid="flaky-status" id="flaky-status">{status}</p>
<div id="flaky-slot"></div>
<p data-testid="result" id="result"></p>
<script>
function showContinue() {
  const button = document.createElement('button');
  button.type = 'button';
  button.dataset.testid = 'continue';
  button.textContent = 'Continue';
  button.addEventListener('click', () => {
    document.getElementById('result').textContent = 'Continued';
  });
  document.getElementById('flaky-slot').appendChild(button);
  document.getElementById('flaky-status').textContent = 'Ready';
}
if ({delay} === 0) { showContinue(); } else { setTimeout(showContinue, {delay}); }
</script>"""

NOT_FOUND_BODY = """<h1>Not found</h1>
<p>There is no page at <code>{path}</code>. <a href="/">Home</a></p>"""

ERROR_BODY = """<h1>{title}</h1>
<p>{message}</p>"""


def render(title: str, body: str, head: str = "") -> str:
    """A whole HTML5 page; ``title`` is escaped here, ``body`` and ``head`` must be ready HTML."""
    return LAYOUT.format(title=html.escape(title), head=head, body=body)


def fill(template: str, **values: str | int) -> str:
    """``template`` with each ``{name}`` replaced in one pass; other braces (CSS, JS) stay as they are."""
    def sub(match: re.Match[str]) -> str:
        key = match.group(1)
        return str(values[key]) if key in values else match.group(0)

    return re.sub(r"\{([a-z_]+)\}", sub, template)


def esc(value: str) -> str:
    return html.escape(value, quote=True)


# --------------------------------------------------------------------------- server


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], handler: type, portal: "DemoPortal") -> None:
        self.portal = portal
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Never print tracebacks to stderr (clients that go away are normal here)."""


class _Server6(_Server):
    address_family = socket.AF_INET6


class _BodyRefused(Exception):
    """A request body the portal will not read: 413 (too large) or 411 (no length)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "DemoPortal/1.0"
    protocol_version = "HTTP/1.0"

    # ---- plumbing

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silent: the portal never writes to stderr."""

    _response_started = False

    def send_response(self, code: int, message: str | None = None) -> None:
        self._response_started = True
        self._cache_control_sent = False
        super().send_response(code, message)

    def send_header(self, keyword: str, value: str) -> None:
        if keyword.lower() == "cache-control":
            self._cache_control_sent = True
        super().send_header(keyword, value)

    def end_headers(self) -> None:
        # Covers responses made by BaseHTTPRequestHandler itself (send_error) too.
        if not getattr(self, "_cache_control_sent", False):
            self.send_header("Cache-Control", "no-store")
        super().end_headers()

    @property
    def portal(self) -> "DemoPortal":
        return self.server.portal

    def _send(
        self,
        status: int,
        body: str | bytes,
        content_type: str = "text/html; charset=utf-8",
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for name, value in headers or []:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _page(self, title: str, body: str, status: int = 200, head: str = "",
              headers: list[tuple[str, str]] | None = None) -> None:
        body = variants.apply(self.portal.variant, urlsplit(self.path).path, body)  # a release's renames
        self._send(status, render(title, body, head), headers=headers)

    def _redirect(self, location: str, headers: list[tuple[str, str]] | None = None) -> None:
        body = render("Redirect", f'<h1>Redirect</h1>\n<p><a href="{esc(location)}">Continue</a></p>')
        self._send(302, body, headers=[("Location", location), *(headers or [])])

    def _error(self, status: int, message: str, headers: list[tuple[str, str]] | None = None) -> None:
        title = HTTPStatus(status).phrase
        self._page(title, fill(ERROR_BODY, title=esc(title), message=esc(message)), status, headers=headers)

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        self._send(status, json.dumps(payload), "application/json; charset=utf-8")

    def _query(self) -> dict[str, str]:
        query = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
        return {key: values[0] for key, values in query.items()}

    def _read_body(self, limit: int) -> bytes:
        """The request body; raises _BodyRefused (after draining it when reasonable) above ``limit``."""
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise _BodyRefused(411, "Send the body with a Content-Length; chunked bodies are not accepted.")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        if length > limit:
            if length <= DRAIN_LIMIT:
                remaining = length
                while remaining > 0:
                    chunk = self.rfile.read(min(remaining, 1 << 16))
                    if not chunk:
                        break
                    remaining -= len(chunk)
            self.close_connection = True
            raise _BodyRefused(413, f"The request body of {length} bytes is larger than {limit} bytes.")
        return self.rfile.read(length) if length > 0 else b""

    def _form(self) -> dict[str, str]:
        body = self._read_body(FORM_LIMIT).decode("utf-8", "replace")
        return {key: values[0] for key, values in parse_qs(body, keep_blank_values=True).items()}

    def _session_user(self) -> str | None:
        cookie = SimpleCookie()
        try:
            cookie.load(self.headers.get("Cookie", ""))
        except CookieError:
            return None
        morsel = cookie.get("session")
        user = unquote(morsel.value) if morsel else ""
        return user or None

    def _outside(self) -> str:
        return self.portal.outside_url or OUTSIDE_FALLBACK

    # ---- dispatch

    def _dispatch(self) -> None:
        self.portal._record(self.command, self.path)
        path = urlsplit(self.path).path
        routes = ROUTES.get(path)
        method = "GET" if self.command == "HEAD" else self.command
        try:
            if routes is None and v12_http.dispatch(self, path):  # v1.2: /api/..., /docs/<id>
                return
            if routes is None:
                if method != "GET":
                    self._read_body(FORM_LIMIT)
                self._page("Not found", fill(NOT_FOUND_BODY, path=esc(path)), 404)
                return
            handler = routes.get(method)
            if handler is None:
                if method != "GET":
                    self._read_body(FORM_LIMIT)
                allow = ", ".join(sorted({*routes, *(["HEAD"] if "GET" in routes else [])}))
                self._error(405, f"{self.command} is not allowed here.", [("Allow", allow)])
                return
            handler(self)
        except _BodyRefused as exc:
            self._error(exc.status, str(exc), [("Connection", "close")])
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as exc:  # a bug in a page: answer 500 rather than drop the connection
            self.close_connection = True
            if not self._response_started:
                self._error(500, f"{type(exc).__name__}: {exc}")

    do_GET = _dispatch
    do_HEAD = _dispatch
    do_POST = _dispatch
    do_PUT = _dispatch
    do_PATCH = _dispatch
    do_DELETE = _dispatch
    do_OPTIONS = _dispatch

    # ---- pages

    def index(self) -> None:
        self._page("Demo portal", INDEX_BODY)

    def login_form(self, *, error: bool = False, user: str = "", next_path: str = "", status: int = 200) -> None:
        next_field = f'<input type="hidden" name="next" value="{esc(next_path)}">\n' if next_path else ""
        body = fill(
            LOGIN_BODY,
            error=LOGIN_ERROR if error else "",
            csrf=secrets.token_urlsafe(24),
            next_field=next_field,
            user=esc(user),
        )
        self._page("Sign in", body, status)

    def login_get(self) -> None:
        self.login_form(next_path=_local_path(self._query().get("next", "")))

    def login_post(self) -> None:
        form = self._form()
        user = form.get("user", "").strip()
        if user and form.get("password", "") == DEMO_PASSWORD:
            target = _local_path(form.get("next", "")) or "/dashboard"
            cookie = f"session={quote(user, safe='')}; Path=/; HttpOnly"
            self._redirect(target, [("Set-Cookie", cookie)])
        else:
            self.login_form(error=True, user=user, next_path=_local_path(form.get("next", "")))

    def logout(self) -> None:
        self._form()
        self._redirect("/login", [("Set-Cookie", "session=; Path=/; HttpOnly; Max-Age=0")])

    def dashboard(self) -> None:
        user = self._session_user()
        if user is None:
            self._redirect("/login?next=/dashboard")
            return
        self._page("Dashboard", fill(DASHBOARD_BODY, user=esc(user), outside=esc(self._outside())))

    def reports(self) -> None:
        view = self._query().get("view", "")
        note = f"Report view {view}." if view else "All reports."
        self._page("Reports", fill(REPORTS_BODY, note=esc(note)))

    def form(self) -> None:
        self._page("Request form", FORM_BODY)

    def upload(self) -> None:
        body = self._read_body(UPLOAD_LIMIT)
        content_type = self.headers.get("Content-Type", "")
        name, size = "", len(body)
        if content_type.lower().startswith("multipart/form-data"):
            parsed = _multipart_file(content_type, body)
            if parsed is None:
                self._json(400, {"ok": False, "error": "no file in the multipart body"})
                return
            name, size = parsed
        name = name or unquote(self.headers.get("X-Filename", "")) or self._query().get("name", "") or "upload.bin"
        name = name.replace("\\", "/").rsplit("/", 1)[-1][:200] or "upload.bin"
        self._json(200, {"ok": True, "name": name, "size": size})

    def download_csv(self) -> None:
        self._send(
            200, CSV_BODY, "text/csv; charset=utf-8",
            [("Content-Disposition", 'attachment; filename="report.csv"')],
        )

    def cookies(self) -> None:
        self._page("Cookie wall", COOKIES_BODY)

    def frame(self) -> None:
        self._page("Frame host", FRAME_BODY)

    def frame_inner(self) -> None:
        self._page("Inner frame", FRAME_INNER_BODY)

    def duplicates(self) -> None:
        self._page("Duplicates", DUPLICATES_BODY)

    def disabled(self) -> None:
        self._page("Disabled", DISABLED_BODY)

    def frozen(self) -> None:
        self._page("Frozen report", FROZEN_BODY)

    def slow(self) -> None:
        ms = self.portal.slow_ms
        raw = self._query().get("ms")
        if raw is not None:
            try:
                ms = int(raw)
            except ValueError:
                pass
        ms = max(0, min(ms, SLOW_CAP_MS))
        time.sleep(ms / 1000)
        self._page("Slow page", fill(SLOW_BODY, ms=ms))

    def protected(self) -> None:
        if _basic_ok(self.headers.get("Authorization", "")):
            self._page("Protected", PROTECTED_BODY)
        else:
            self._page("Authentication required", AUTH_REQUIRED_BODY, 401,
                       headers=[("WWW-Authenticate", 'Basic realm="demo"')])

    def redirect(self) -> None:
        location = _safe_location(self._query().get("to") or self._outside())
        if location is None:
            self._error(400, "The 'to' address contains control characters.")
            return
        self._redirect(location)

    def redirect_chain(self) -> None:
        to = self._query().get("to") or self._outside()
        self._redirect("/redirect?to=" + quote(to, safe=""))

    def popup(self) -> None:
        href = self._query().get("to") or self._outside()
        self._page("Popup", fill(POPUP_BODY, href=esc(href)))

    def meta_refresh(self) -> None:
        href = self._query().get("to") or self._outside()
        self._page("Meta refresh", fill(META_REFRESH_BODY, href=esc(href), text=esc(href)),
                   head=fill(META_REFRESH_HEAD, href=esc(href)))

    def post_outside(self) -> None:
        self._page("Post outside", fill(POST_OUTSIDE_BODY, href=esc(self._outside())))

    def iframe_outside(self) -> None:
        self._page("Iframe outside", fill(IFRAME_OUTSIDE_BODY, href=esc(self._outside())))

    def dynamic(self) -> None:
        self._page("Dynamic", DYNAMIC_BODY)

    def flaky(self) -> None:
        with self.portal._hits_lock:
            load = sum(1 for method, path in self.portal.hits
                       if method == "GET" and urlsplit(path).path == "/flaky")
        delay = 0 if load % 2 else FLAKY_DELAY_MS
        # The load number stays out of the page: two odd loads must look the same.
        status = "Ready" if delay == 0 else "Still loading"
        self._page("Flaky", fill(FLAKY_BODY, status=status, delay=delay))


ROUTES: dict[str, dict[str, Callable[[_Handler], None]]] = {
    "/": {"GET": _Handler.index},
    "/login": {"GET": _Handler.login_get, "POST": _Handler.login_post},
    "/logout": {"POST": _Handler.logout},
    "/dashboard": {"GET": _Handler.dashboard},
    "/reports": {"GET": _Handler.reports},
    "/form": {"GET": _Handler.form},
    "/upload": {"POST": _Handler.upload},
    "/download/report.csv": {"GET": _Handler.download_csv},
    "/cookies": {"GET": _Handler.cookies},
    "/frame": {"GET": _Handler.frame},
    "/frame/inner": {"GET": _Handler.frame_inner},
    "/duplicates": {"GET": _Handler.duplicates},
    "/disabled": {"GET": _Handler.disabled},
    "/frozen": {"GET": _Handler.frozen},
    "/slow": {"GET": _Handler.slow},
    "/protected": {"GET": _Handler.protected},
    "/redirect": {"GET": _Handler.redirect},
    "/redirect-chain": {"GET": _Handler.redirect_chain},
    "/popup": {"GET": _Handler.popup},
    "/meta-refresh": {"GET": _Handler.meta_refresh},
    "/post-outside": {"GET": _Handler.post_outside},
    "/iframe-outside": {"GET": _Handler.iframe_outside},
    "/dynamic": {"GET": _Handler.dynamic},
    "/flaky": {"GET": _Handler.flaky},
    # v1.1's widgets (widgets.py): static pages, each with its own script.
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in WIDGET_PAGES.items()},
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in V12_CHECKS_PAGES.items()},  # v1.2
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in V13_ACTIONS_PAGES.items()},  # v1.3
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in V12_SETTINGS_PAGES.items()},  # v1.2
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in PAGES_V12.items()},  # v1.2 (v12_pages.py)
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in AUDIT_PAGES.items()},  # audit_pages.py
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in v12_http.PAGES_HTTP.items()},  # v1.2
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in TODOMVC_PAGES.items()},  # todomvc.py
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in ACCESSIBILITY_PAGES.items()},  # audits
    **V13_SCROLL_ROUTES,  # v1.3: scroll to a place, set_viewport, reload bypass_cache (v13_scroll.py)
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in V13_STATE_PAGES.items()},  # v1.3 state
    **V13_TRAFFIC_ROUTES,  # v1.3 traffic (v13_traffic.py): request_seen, delay_ms
    **V13_NUMBERS_ROUTES,  # v1.3 numbers and element checks (v13_numbers.py)
    **orders.ORDER_ROUTES,  # orders in a SQLite file (orders.py), for the example extensions
    **HOLD_ROUTES,  # a "hold to confirm" button (hold.py), for the example extensions
}


def _local_path(value: str) -> str:
    """``value`` if it is a path on this site (``/x``, not ``//host``), else ""."""
    if value.startswith("/") and not value.startswith("//") and "\\" not in value:
        if not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
            return value
    return ""


def _safe_location(url: str) -> str | None:
    """A Location header value: None when ``url`` holds control characters; non-ASCII is %-encoded."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        return None
    return quote(url, safe="!#$%&'()*+,-./:;=?@[]_~")


def _basic_ok(header: str) -> bool:
    scheme, _, encoded = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return secrets.compare_digest(decoded, BASIC_CREDENTIALS)


def _multipart_file(content_type: str, body: bytes) -> tuple[str, int] | None:
    """(filename, size) of the first file part of a multipart/form-data body."""
    raw = b"Content-Type: " + content_type.encode("latin-1", "replace") + b"\r\n\r\n" + body
    message = email.message_from_bytes(raw, policy=email.policy.HTTP)
    if not message.is_multipart():
        return None
    for part in message.iter_parts():
        filename = part.get_filename()
        if filename is not None:
            payload = part.get_payload(decode=True) or b""
            return filename, len(payload)
    return None


# --------------------------------------------------------------------------- public API


class DemoPortal:
    """The demo portal on ``host:port`` (port 0: a free one), served from a daemon thread."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, outside_url: str | None = None,
                 slow_ms: int = 1500, variant: str | None = None, orders_db: str | Path | None = None) -> None:
        self.host = host
        self.variant = variants.check(variant)  # e.g. "renamed": the pages after a release (variants.py)
        self.port = port
        self.outside_url = outside_url
        self.slow_ms = slow_ms
        self.hits: list[tuple[str, str]] = []
        self.docs = v12_http.DocStore()  # v1.2: the JSON API's documents (v12_http.py)
        self.order_store = orders.OrderStore(orders_db)  # None: $COMETLOCAL_DEMO_ORDERS_DB or a temporary file
        self._hits_lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://host:port`` of the running portal."""
        if self._server is None:
            raise RuntimeError("DemoPortal is not started; call start() first")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def orders_db(self) -> Path:
        """The SQLite file /orders writes to (a temporary one exists from start() until stop())."""
        return self.order_store.path

    def _record(self, method: str, path: str) -> None:
        with self._hits_lock:
            self.hits.append((method, path))

    def start(self) -> "DemoPortal":
        if self._server is not None:
            raise RuntimeError("DemoPortal is already started")
        server_class = _Server6 if ":" in self.host else _Server
        self.order_store.open()
        try:
            server = server_class((self.host, self.port), _Handler, self)
        except BaseException:
            self.order_store.close()
            raise
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.1},
            name=f"DemoPortal:{self.port}", daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join(timeout=5)
        self._server = None
        self._thread = None
        self.order_store.close()

    def __enter__(self) -> "DemoPortal":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_cometlocal.demo.portal",
        description="Serve the cometlocal demo portal until Ctrl-C; prints its URL.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)")
    parser.add_argument("--outside-url", default=None,
                        help=f"address used as the 'outside' site (default: {OUTSIDE_FALLBACK})")
    parser.add_argument("--slow-ms", type=int, default=1500, help="delay of /slow in ms (default: 1500)")
    parser.add_argument("--variant", choices=sorted(variants.VARIANTS), default=None,
                        help="serve the pages as a release changed them: 'renamed' renames the sign-in button, "
                             "rewords a label, changes a link text and removes the Run SQL button")
    parser.add_argument("--orders-db", default=os.environ.get(orders.ENV) or None, metavar="PATH",
                        help=f"SQLite file /orders writes to, created if missing (default: ${orders.ENV} "
                             "when set, else a temporary file removed on exit)")
    args = parser.parse_args(argv)
    try:
        portal = DemoPortal(args.host, args.port, args.outside_url, args.slow_ms, args.variant,
                            orders_db=args.orders_db).start()
    except OSError as exc:
        print(f"cannot serve on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    try:
        # The URL alone on the first line, so scripts can read it.
        print(portal.url, flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        portal.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
