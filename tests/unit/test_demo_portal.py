"""The demo portal: pages, redirects, auth, uploads, downloads (tests/executor/test_demo_portal_in_chromium.py drives it with Chromium)."""

from __future__ import annotations

import base64
import json
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from email.message import Message

import pytest

from pytest_cometlocal.demo import DemoPortal

OUTSIDE = "http://outside.example/landing"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 - stdlib signature
        return None


# No proxies (the environment may set some) and no redirect following.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect)


def fetch(url: str, *, data: bytes | dict | None = None, headers: dict[str, str] | None = None,
          method: str | None = None) -> tuple[int, Message, str]:
    """(status, headers, text body) of one request; redirects are returned, not followed."""
    if isinstance(data, dict):
        data = urllib.parse.urlencode(data).encode()
    request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with OPENER.open(request, timeout=10) as response:
            return response.status, response.headers, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers, error.read().decode("utf-8")


def title_of(body: str) -> str:
    match = re.search(r"<title>(.*?)</title>", body, re.S)
    assert match, body[:300]
    return match.group(1)


@pytest.fixture(scope="module")
def portal():
    with DemoPortal(outside_url=OUTSIDE, slow_ms=50) as running:
        yield running


PAGES = {
    "/": "Demo portal",
    "/login": "Sign in",
    "/reports": "Reports",
    "/reports?view=2": "Reports",
    "/form": "Request form",
    "/cookies": "Cookie wall",
    "/frame": "Frame host",
    "/frame/inner": "Inner frame",
    "/duplicates": "Duplicates",
    "/disabled": "Disabled",
    "/slow?ms=10": "Slow page",
    "/popup": "Popup",
    "/meta-refresh?to=/reports": "Meta refresh",
    "/post-outside": "Post outside",
    "/iframe-outside": "Iframe outside",
    "/dynamic": "Dynamic",
}


@pytest.mark.parametrize(("path", "title"), PAGES.items())
def test_pages_answer_with_their_title(portal: DemoPortal, path: str, title: str) -> None:
    status, headers, body = fetch(portal.url + path)
    assert status == 200
    assert title_of(body) == title
    assert body.startswith("<!doctype html>")
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Cache-Control"] == "no-store"


def test_url_and_index_link_every_page(portal: DemoPortal) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", portal.url) and portal.port > 0
    _, _, body = fetch(portal.url + "/")
    hrefs = set(re.findall(r'href="([^"]+)"', body))
    for path in ["/login", "/dashboard", "/reports", "/form", "/download/report.csv", "/cookies", "/frame",
                 "/duplicates", "/disabled", "/slow", "/protected", "/popup", "/post-outside",
                 "/iframe-outside", "/dynamic"]:
        assert path in hrefs, path
    assert any(h.startswith("/redirect?") for h in hrefs) and any(h.startswith("/redirect-chain?") for h in hrefs)
    assert any(h.startswith("/meta-refresh?") for h in hrefs)


def test_unknown_path_is_a_404_page(portal: DemoPortal) -> None:
    status, headers, body = fetch(portal.url + "/no/such/page")
    assert status == 404 and title_of(body) == "Not found"
    assert "charset=utf-8" in headers["Content-Type"] and headers["Cache-Control"] == "no-store"


def test_login_form_has_labels_and_a_fresh_csrf_token(portal: DemoPortal) -> None:
    _, _, first = fetch(portal.url + "/login")
    _, _, second = fetch(portal.url + "/login")
    for snippet in ['<form method="post" action="/login">', '<label for="user">User name</label>',
                    '<input id="user" name="user"', '<label for="password">Password</label>',
                    'name="password" type="password"', 'data-testid="login-submit">Sign in</button>']:
        assert snippet in first, snippet
    tokens = [re.search(r'name="csrf" value="([^"]+)"', body).group(1) for body in (first, second)]
    assert tokens[0] != tokens[1]
    assert "login-error" not in first


def test_login_success_sets_the_session_cookie(portal: DemoPortal) -> None:
    status, headers, _ = fetch(portal.url + "/login", data={"csrf": "x", "user": "alice", "password": "demo"})
    assert status == 302 and headers["Location"] == "/dashboard"
    cookie = headers["Set-Cookie"]
    assert cookie.startswith("session=alice;") and "Path=/" in cookie and "HttpOnly" in cookie
    assert headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("form", [{"user": "alice", "password": "wrong"}, {"user": "", "password": "demo"}])
def test_login_failure_shows_the_alert(portal: DemoPortal, form: dict[str, str]) -> None:
    status, headers, body = fetch(portal.url + "/login", data=form)
    assert status == 200 and headers["Set-Cookie"] is None
    assert '<p role="alert" data-testid="login-error">Invalid credentials</p>' in body
    assert title_of(body) == "Sign in" and 'data-testid="login-submit"' in body


def test_dashboard_needs_a_session(portal: DemoPortal) -> None:
    status, headers, _ = fetch(portal.url + "/dashboard")
    assert status == 302 and headers["Location"] == "/login?next=/dashboard"


def test_dashboard_greets_the_user_and_has_its_links(portal: DemoPortal) -> None:
    status, _, body = fetch(portal.url + "/dashboard", headers={"Cookie": "session=alice"})
    assert status == 200 and title_of(body) == "Dashboard" and "<h1>Dashboard</h1>" in body
    assert '<p data-testid="greeting">Welcome, alice</p>' in body
    assert re.findall(r'<a href="([^"]+)">Reports</a>', body) == ["/reports", "/reports?view=2"]
    assert f'<a href="{OUTSIDE}">Outside site</a>' in body
    assert '<a href="/download/report.csv">Export CSV</a>' in body
    assert '<form method="post" action="/logout">' in body and ">Log out</button>" in body


def test_dashboard_escapes_the_user_name(portal: DemoPortal) -> None:
    user = urllib.parse.quote("<b>x</b>", safe="")
    _, _, body = fetch(portal.url + "/dashboard", headers={"Cookie": f"session={user}"})
    assert "Welcome, &lt;b&gt;x&lt;/b&gt;" in body and "<b>x</b>" not in body


def test_login_then_next_and_logout(portal: DemoPortal) -> None:
    status, headers, _ = fetch(portal.url + "/login", data={"user": "bob", "password": "demo", "next": "/reports"})
    assert status == 302 and headers["Location"] == "/reports"
    status, headers, _ = fetch(portal.url + "/login", data={"user": "bob", "password": "demo", "next": "//evil"})
    assert headers["Location"] == "/dashboard"
    status, headers, _ = fetch(portal.url + "/logout", data=b"", headers={"Cookie": "session=bob"})
    assert status == 302 and headers["Location"] == "/login"
    assert headers["Set-Cookie"].startswith("session=;") and "Max-Age=0" in headers["Set-Cookie"]


def test_protected_needs_basic_auth(portal: DemoPortal) -> None:
    status, headers, body = fetch(portal.url + "/protected")
    assert status == 401 and headers["WWW-Authenticate"] == 'Basic realm="demo"'
    assert "Authentication required" in body
    wrong = base64.b64encode(b"demo:nope").decode()
    assert fetch(portal.url + "/protected", headers={"Authorization": f"Basic {wrong}"})[0] == 401
    good = base64.b64encode(b"demo:demo").decode()
    status, _, body = fetch(portal.url + "/protected", headers={"Authorization": f"Basic {good}"})
    assert status == 200 and title_of(body) == "Protected"


def test_download_is_an_attachment(portal: DemoPortal) -> None:
    status, headers, body = fetch(portal.url + "/download/report.csv")
    assert status == 200
    assert headers["Content-Disposition"] == 'attachment; filename="report.csv"'
    assert headers["Content-Type"] == "text/csv; charset=utf-8" and headers["Cache-Control"] == "no-store"
    assert body == "id,amount\n1,120.00\n"


def test_upload_answers_json_and_refuses_more_than_5_mb(portal: DemoPortal) -> None:
    status, headers, body = fetch(portal.url + "/upload", data=b"hello", headers={"X-Filename": "a%20b.txt"})
    assert status == 200 and headers["Content-Type"] == "application/json; charset=utf-8"
    assert json.loads(body) == {"ok": True, "name": "a b.txt", "size": 5}
    status, _, _ = fetch(portal.url + "/upload", data=b"x" * (5 * 1024 * 1024), headers={"X-Filename": "max"})
    assert status == 200
    status, headers, _ = fetch(portal.url + "/upload", data=b"x" * (5 * 1024 * 1024 + 1))
    assert status == 413 and headers["Cache-Control"] == "no-store"


def test_upload_accepts_multipart(portal: DemoPortal) -> None:
    content = b"\x00\x01binary\r\n--not-a-boundary\r\n"
    body = (b'--B\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\n'
            b"Content-Type: application/pdf\r\n\r\n" + content + b"\r\n--B--\r\n")
    status, _, text = fetch(portal.url + "/upload", data=body, headers={"Content-Type": "multipart/form-data; boundary=B"})
    assert status == 200 and json.loads(text) == {"ok": True, "name": "scan.pdf", "size": len(content)}


def test_wrong_method_is_405(portal: DemoPortal) -> None:
    status, headers, _ = fetch(portal.url + "/upload")
    assert status == 405 and headers["Allow"] == "POST"


def test_redirects_go_anywhere(portal: DemoPortal) -> None:
    status, headers, _ = fetch(portal.url + "/redirect?to=" + urllib.parse.quote("http://other.example/x?a=1", safe=""))
    assert status == 302 and headers["Location"] == "http://other.example/x?a=1"
    status, headers, _ = fetch(portal.url + "/redirect-chain?to=" + urllib.parse.quote("http://other.example/x", safe=""))
    assert status == 302 and headers["Location"] == "/redirect?to=http%3A%2F%2Fother.example%2Fx"
    status, headers, _ = fetch(portal.url + headers["Location"])
    assert status == 302 and headers["Location"] == "http://other.example/x"
    assert fetch(portal.url + "/redirect")[1]["Location"] == OUTSIDE
    assert fetch(portal.url + "/redirect?to=%2Fa%0D%0AX-Evil:%201")[0] == 400


def test_outside_pages_point_at_outside_url(portal: DemoPortal) -> None:
    _, _, body = fetch(portal.url + "/popup")
    assert f'data-href="{OUTSIDE}">Open popup</button>' in body and "window.open" in body
    _, _, body = fetch(portal.url + "/popup?to=http://p.example/")
    assert 'data-href="http://p.example/"' in body
    _, _, body = fetch(portal.url + "/meta-refresh?to=" + urllib.parse.quote('http://m.example/?a=1&b="2"', safe=""))
    assert '<meta http-equiv="refresh" content="0;url=http://m.example/?a=1&amp;b=&quot;2&quot;">' in body
    _, _, body = fetch(portal.url + "/post-outside")
    assert f'<form method="post" action="{OUTSIDE}">' in body and ">Send outside</button>" in body
    _, _, body = fetch(portal.url + "/iframe-outside")
    assert f'<iframe src="{OUTSIDE}"' in body and "<h1>Iframe outside</h1>" in body


def test_page_details_for_targets(portal: DemoPortal) -> None:
    _, _, body = fetch(portal.url + "/duplicates")
    assert body.count('<button type="button">Save</button>') == 2 and body.count("<li>Item") == 3
    _, _, body = fetch(portal.url + "/disabled")
    assert 'disabled data-testid="disabled-button">Locked</button>' in body
    assert 'data-testid="readonly-input" readonly value="fixed"' in body
    _, _, body = fetch(portal.url + "/frame")
    assert '<iframe id="inner-frame" src="/frame/inner" title="Inner frame"' in body
    _, _, body = fetch(portal.url + "/cookies")
    assert 'role="dialog" aria-label="Cookie consent"' in body and "We use cookies" in body
    _, _, body = fetch(portal.url + "/slow?ms=5")
    assert "Answered after 5 ms" in body
    _, _, body = fetch(portal.url + "/slow")
    assert "Answered after 50 ms" in body  # the portal's slow_ms


def test_hits_are_recorded(portal: DemoPortal) -> None:
    fetch(portal.url + "/reports?view=hits")
    fetch(portal.url + "/missing-for-hits")
    fetch(portal.url + "/upload", data=b"1")
    assert ("GET", "/reports?view=hits") in portal.hits
    assert ("GET", "/missing-for-hits") in portal.hits
    assert ("POST", "/upload") in portal.hits


def test_default_outside_and_stop_releases_the_port() -> None:
    with DemoPortal() as first:
        port = first.port
        _, _, body = fetch(first.url + "/post-outside")
        assert 'action="http://outside.invalid/"' in body
    with pytest.raises(RuntimeError, match=r"^DemoPortal is not started; call start\(\) first$"):
        first.url  # noqa: B018 - the property raises once stopped
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    with DemoPortal(port=port) as second:
        assert second.port == port and fetch(second.url + "/")[0] == 200
    first.stop()  # stopping twice is harmless
