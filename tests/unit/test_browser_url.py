"""A URL is judged by the host the browser connects to (contract/browser_url.py), with no browser:
at load (rule URL), by the allowlist's functions, the network guard and host_in_allowlist.

TABLE is the differential: each URL with the host Chromium's ``new URL()`` reads
(None: Chromium cannot read it) and whether the allowlist refuses it whatever it
holds (unreadable, or read two ways: urllib's host is another). The browser test
tests/executor/test_url_read_two_ways.py holds Chromium to the same table.
"""

from __future__ import annotations

import socket
import threading
from types import SimpleNamespace

import pytest

from pytest_cometlocal.contract.allowlist import host_allowed, split_url, url_allowed, url_host
from pytest_cometlocal.contract.browser_url import join_url, read_url
from pytest_cometlocal.contract.settings import default_allowlist
from pytest_cometlocal.executor.browser.network_guard import BLOCK_HEADER, NetworkGuard
from pytest_cometlocal.executor.page.conditions import CheckContext, _host_in_allowlist
from tests.support import mark_at, only, only_problems, plan

# (url, the host Chromium reads, refused whatever the allowlist)
TABLE: list[tuple[str, str | None, bool]] = [
    ("http://localhost\\@127.0.0.1/api/docs", "localhost", True),
    ("http://evil.example\\@allowed.example/", "evil.example", True),
    ("http://allowed.example@evil.example/", "evil.example", False),
    ("http://evil.example%2f@allowed.example", "allowed.example", False),
    ("http://evil.example;@allowed.example/", "allowed.example", False),
    ("http://evil.example#@allowed.example/", "evil.example", False),
    ("http://evil.example?@allowed.example/", "evil.example", False),
    ("http://a@b@allowed.example/", "allowed.example", False),
    ("http://allo\twed.example/", "allowed.example", False),
    ("http://allowed\n.example/", "allowed.example", False),
    (" \x01http://allowed.example/ ", "allowed.example", False),
    ("HTTP://ALLOWED.EXAMPLE", "allowed.example", False),
    ("http://Allowed.Example:8080/", "allowed.example", False),
    ("http://%61llowed.example/", "allowed.example", False),
    ("http://\uff41llowed.example/", "allowed.example", False),
    ("http://allowed\u3002example/", "allowed.example", False),
    ("http://allowed.example./", "allowed.example.", False),
    ("http://0x7f.0.0.1/", "127.0.0.1", False),
    ("http://127.1/", "127.0.0.1", False),
    ("http://2130706433/", "127.0.0.1", False),
    ("http://0x7f.1/", "127.0.0.1", False),
    ("http://0177.0.0.1/", "127.0.0.1", False),
    ("http://127.0.0.1./", "127.0.0.1", False),
    ("http://[::1]/", "[::1]", False),
    ("http://[0:0::1]:8080/", "[::1]", False),
    ("http://[::FFFF:127.0.0.1]/", "[::ffff:7f00:1]", False),
    ("https://allowed.example:443/x", "allowed.example", False),
    ("http://m\u00fcnchen.de/", "xn--mnchen-3ya.de", False),
    ("ws://allowed.example/", "allowed.example", False),
    ("http:evil.example/", "evil.example", True),
    ("http:\\\\evil.example/", "evil.example", True),
    ("http:///evil.example/", "evil.example", True),
    ("http://1.2.3.4.5/", None, True),
    ("http://256.0.0.1/", None, True),
    ("http://0x100000000/", None, True),
    ("http://09.1/", None, True),
    ("http://allowed.example:99999/", None, True),
    ("http://evil.example%2f.allowed.example/", None, True),
    ("http://[fe80::1%25eth0]/", None, True),
]
ALLOWLIST = ("allowed.example", "127.0.0.1", "[::1]", "xn--mnchen-3ya.de")


@pytest.mark.parametrize("url, host, refused", TABLE, ids=[repr(u) for u, _h, _r in TABLE])
def test_a_url_is_read_as_the_browser_reads_it(url: str, host: str | None, refused: bool) -> None:
    reading = read_url(url)
    assert reading.host == host
    assert bool(reading.refused) is refused, reading.refused
    allowed = not refused and host_allowed(host or "", ALLOWLIST)
    assert url_allowed(url, ALLOWLIST) is allowed
    if not refused:
        assert url_host(url) == (host or "").strip("[]")


def test_the_classic_bypass_is_refused_even_when_the_browser_host_is_allowed() -> None:
    # urllib reads evil.example, the browser 127.0.0.1: whichever is right, the URL is refused.
    assert read_url("http://127.0.0.1\\@evil.example/").host == "127.0.0.1"
    assert not url_allowed("http://127.0.0.1\\@evil.example/", ["127.0.0.1", "evil.example"])


@pytest.mark.parametrize("written, base, joined", [
    ("/\\evil.example/x", "http://allowed.example/a/", "http://evil.example/x"),
    ("\\\\evil.example/x", "http://allowed.example/", "http://evil.example/x"),
    ("docs\\1?q=a\\b", "http://allowed.example/a/", "http://allowed.example/a/docs/1?q=a\\b"),
    ("/api/docs", "http://allowed.example/a/", "http://allowed.example/api/docs"),
])
def test_a_relative_url_is_joined_as_the_browser_joins_it(written: str, base: str, joined: str) -> None:
    assert join_url(base, written) == joined
    assert read_url(written, base).host == read_url(joined).host


def test_allowlist_entries_and_hosts_are_read_the_same_way() -> None:
    assert host_allowed("127.0.0.1", ["127.1"]) and host_allowed("::1", ["[0:0::1]"])
    assert host_allowed("ALLOWED.example.", ["allowed.example"]) and host_allowed("a.allowed.example", ["*.allowed.example"])
    assert not host_allowed("evil.example\\@allowed.example", ["allowed.example"])
    assert default_allowlist("http://[0:0::1]:8080/") == ("[::1]",) and default_allowlist("http://2130706433/") == ("127.0.0.1",)


@pytest.mark.parametrize("where, written", [
    ("request", "- {id: s, kind: request, method: GET, url: 'http://localhost\\@127.0.0.1/api/docs'}"),
    ("navigate", "- {id: s, kind: navigate, target: {type: url, url: 'http://evil.example\\@allowed.example/'}}"),
    ("relative", "- {id: s, kind: request, method: GET, url: '/\\evil.example/x'}"),
    ("no slashes", "- {id: s, kind: navigate, target: {type: url, url: 'http:evil.example/'}}"),
    ("not ipv4", "- {id: s, kind: request, method: GET, url: 'http://1.2.3.4.5/'}"),
])
def test_a_url_read_two_ways_is_a_located_problem_at_load(validate, where: str, written: str) -> None:
    text = plan(written + "\n")
    key = "steps[0].url" if "request" in written else "steps[0].target.url"
    line, col = mark_at(text, "url: ^'")
    invalid = only_problems(validate(text))
    only(invalid, "URL", key, line, col)
    message = invalid.problems[0].message
    assert ("read two ways" in message) is (where != "not ipv4") and "browser" in message, message


def test_a_base_url_read_two_ways_is_a_located_problem_at_load(validate) -> None:
    text = plan("- {id: s, kind: navigate, target: {type: url, url: /}}\n", base_url="'http://localhost\\@127.0.0.1/'")
    line, col = mark_at(text, "base_url: ^'")
    only(only_problems(validate(text)), "URL", "base_url", line, col)


def test_split_url_refuses_what_the_browser_reads_otherwise() -> None:
    assert isinstance(split_url("http://localhost\\@127.0.0.1/"), str)
    assert not isinstance(split_url("http://127.1/x"), str)  # one host, written two ways: the same host


@pytest.mark.parametrize("request_line", [
    "GET http://127.0.0.2:9\\@127.0.0.1:{port}/x HTTP/1.0",  # urllib: the allowed host; the browser: 127.0.0.2
    "CONNECT 0x7f000002:{port} HTTP/1.0",  # 127.0.0.2 written as one number
])
def test_the_guard_refuses_what_the_browser_would_send_elsewhere(request_line: str) -> None:
    """Not a request Chromium sends (it writes its URLs the browser's way), but the guard judges with the same reading."""
    hits: list[bytes] = []
    target = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=lambda: hits.append(target.accept()[0].recv(100)), daemon=True).start()
    guard = NetworkGuard(["127.0.0.1"]).start()
    try:
        with socket.create_connection(("127.0.0.1", guard.port), timeout=5) as conn:
            conn.sendall((request_line.format(port=target.getsockname()[1]) + "\r\nHost: x\r\n\r\n").encode())
            answer = conn.recv(4096).decode("latin-1")
        assert answer.startswith("HTTP/1.0 403") and f"{BLOCK_HEADER}: 127.0.0.2" in answer, answer
        assert [b.host for b in guard.blocked] == ["127.0.0.2"] and hits == []
    finally:
        guard.stop(wait=True)
        target.close()


def test_host_in_allowlist_judges_the_browsers_host_and_says_why_it_refuses() -> None:
    step = SimpleNamespace(kind="request")

    def look(url: str) -> tuple[bool, dict]:
        ctx = CheckContext(page=SimpleNamespace(url="about:blank"), step=step, base_url=None, allowlist=("127.0.0.1",),
                           toast_selector="", overlay_selectors=(), requested_url=url)
        return _host_in_allowlist(None, ctx, "pre")

    assert look("http://2130706433/a") == (True, {"url": "http://2130706433/a", "allowlist": ["127.0.0.1"]})
    held, observed = look("http://127.0.0.1\\@evil.example/")  # the browser's host is allowed, urllib's not
    assert not held and observed["refused"] == "read two ways: the browser's host is 127.0.0.1, urllib's evil.example"
