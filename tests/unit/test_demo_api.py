"""(v1.2) The demo portal's JSON API (demo/pages/v12_http.py) over plain HTTP: sign-in, CRUD, errors, bounds.

tests/executor/test_demo_http_pages.py drives its pages (/docs/<id>, /shop, /feed) in Chromium.
"""

from __future__ import annotations

import json
import threading
from urllib.parse import urlsplit

import pytest

from pytest_cometlocal.demo import DemoPortal
from pytest_cometlocal.demo.pages import v12_http
from tests.unit.test_demo_portal import fetch, title_of

JSON_HEADERS = {"Content-Type": "application/json"}


@pytest.fixture
def portal():
    with DemoPortal() as running:
        yield running


def sign_in(portal: DemoPortal, user: str = "alice") -> dict[str, str]:
    status, headers, _ = fetch(portal.url + "/login", data={"user": user, "password": "demo"})
    assert status == 302
    return {"Cookie": headers["Set-Cookie"].split(";")[0]}


def call(portal: DemoPortal, method: str, path: str, cookie: dict[str, str] | None, payload: object = None,
         raw: bytes | None = None, headers: dict[str, str] | None = None):
    data = raw if raw is not None else (json.dumps(payload).encode() if payload is not None else None)
    status, got, text = fetch(portal.url + path, data=data, method=method,
                              headers={**JSON_HEADERS, **(cookie or {}), **(headers or {})})
    return status, got, (json.loads(text) if text else None)


@pytest.mark.parametrize(("method", "path"), [("GET", "/api/docs"), ("POST", "/api/docs"), ("GET", "/api/docs/d1"),
                                              ("DELETE", "/api/docs/d1"), ("GET", "/api/slow/recommendations"),
                                              ("GET", "/api/nothing")])
def test_every_api_call_without_a_session_is_401_json(portal, method, path):
    status, headers, body = call(portal, method, path, None, {"title": "x"} if method == "POST" else None)
    assert (status, body) == (401, {"error": "sign in first"})
    assert headers["Content-Type"].startswith("application/json")
    assert portal.docs.all() == []  # nothing was created


def test_create_read_list_update_and_delete_a_document(portal):
    cookie = sign_in(portal)
    status, headers, doc = call(portal, "POST", "/api/docs", cookie, {"title": "Draft", "body": "first"})
    assert status == 201 and doc == {"id": "d1", "title": "Draft", "body": "first"}
    assert headers["Location"] == "/api/docs/d1"
    assert call(portal, "GET", "/api/docs/d1", cookie)[::2] == (200, doc)
    call(portal, "POST", "/api/docs", cookie, {"title": "Second"})
    status, _, listed = call(portal, "GET", "/api/docs", cookie)
    assert status == 200 and listed == {"items": [doc, {"id": "d2", "title": "Second", "body": ""}]}

    assert call(portal, "PATCH", "/api/docs/d1", cookie, {"body": "edited"})[::2] == (
        200, {"id": "d1", "title": "Draft", "body": "edited"})
    assert call(portal, "PUT", "/api/docs/d1", cookie, {"title": "Final"})[::2] == (
        200, {"id": "d1", "title": "Final", "body": ""})  # PUT replaces: a body left out is empty
    status, headers, body = call(portal, "DELETE", "/api/docs/d1", cookie)
    assert (status, body, headers["Content-Length"]) == (204, None, "0")
    assert call(portal, "GET", "/api/docs/d1", cookie)[::2] == (404, {"error": "no document d1"})
    assert call(portal, "DELETE", "/api/docs/d1", cookie)[0] == 404
    # Ids are never reused: the next document is d3.
    assert call(portal, "POST", "/api/docs", cookie, {"title": "Third"})[2]["id"] == "d3"


def test_a_form_body_creates_a_document_too(portal):
    status, _, doc = call(portal, "POST", "/api/docs", sign_in(portal), raw=b"title=From+a+form&body=x",
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert (status, doc["title"], doc["body"]) == (201, "From a form", "x")


def test_head_answers_the_headers_of_get(portal):
    status, headers, _ = fetch(portal.url + "/api/docs", method="HEAD", headers=sign_in(portal))
    assert status == 200 and headers["Content-Type"].startswith("application/json")


@pytest.mark.parametrize(("method", "path", "allow"), [("DELETE", "/api/docs", "GET, HEAD, POST"),
                                                        ("POST", "/api/docs/d1", "DELETE, GET, HEAD, PATCH, PUT"),
                                                        ("PUT", "/api/slow/recommendations", "GET, HEAD")])
def test_a_wrong_method_is_405_with_allow(portal, method, path, allow):
    status, headers, body = call(portal, method, path, sign_in(portal), {"title": "x"})
    assert (status, headers["Allow"]) == (405, allow) and body == {"error": f"{method} is not allowed here"}


@pytest.mark.parametrize(("payload", "message"), [
    (b"{not json", "the body is not JSON"),
    (b"[1, 2]", 'expected a JSON object {"title": ..., "body": ...}'),
    (b"", 'expected a JSON object {"title": ..., "body": ...}'),
    (b'{"title": ""}', "title is required"),
    (b'{"body": "no title"}', "title is required"),
    (b'{"title": 3}', "title and body are strings"),
    (b'{"title": "x", "owner": "me"}', "unknown field(s): owner"),
    (json.dumps({"title": "x" * 201}).encode(), "title is 1 to 200 characters"),
])
def test_a_bad_body_is_400_json_and_stores_nothing(portal, payload, message):
    status, _, body = call(portal, "POST", "/api/docs", sign_in(portal), raw=payload)
    assert (status, body) == (400, {"error": message})
    assert portal.docs.all() == []


def test_a_body_above_the_limit_is_413_json(portal):
    big = json.dumps({"title": "big", "body": "x" * v12_http.BODY_LIMIT}).encode()
    status, headers, body = call(portal, "POST", "/api/docs", sign_in(portal), raw=big)
    assert status == 413 and "larger than 65536 bytes" in body["error"]
    assert headers["Content-Type"].startswith("application/json") and portal.docs.all() == []


def test_each_portal_keeps_its_own_documents(portal):
    call(portal, "POST", "/api/docs", sign_in(portal), {"title": "Mine"})
    with DemoPortal() as other:
        assert call(other, "GET", "/api/docs", sign_in(other))[2] == {"items": []}
    assert [d["title"] for d in portal.docs.all()] == ["Mine"]


def test_concurrent_creates_get_distinct_ids(portal):
    cookie = sign_in(portal)
    ids: list[str] = []
    lock = threading.Lock()

    def create(n: int) -> None:
        doc = call(portal, "POST", "/api/docs", cookie, {"title": f"t{n}"})[2]
        with lock:
            ids.append(doc["id"])

    threads = [threading.Thread(target=create, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert sorted(ids, key=lambda i: int(i[1:])) == [f"d{n}" for n in range(1, 13)]


def test_the_store_refuses_more_than_max_docs(monkeypatch, portal):
    monkeypatch.setattr(v12_http, "MAX_DOCS", 2)
    cookie = sign_in(portal)
    assert [call(portal, "POST", "/api/docs", cookie, {"title": "t"})[0] for _ in range(3)] == [201, 201, 507]


def test_slow_recommendations_answer_the_items(monkeypatch, portal):
    monkeypatch.setattr(v12_http, "SLOW_RECS_S", 0)
    status, _, body = call(portal, "GET", "/api/slow/recommendations", sign_in(portal))
    assert status == 200 and [i["name"] for i in body["items"]] == ["Desk lamp", "Notebook", "Fountain pen"]


def test_unknown_api_path_is_404_json(portal):
    assert call(portal, "GET", "/api/docs/d1/extra", sign_in(portal))[::2] == (404, {"error": "no API at /api/docs/d1/extra"})


def test_document_page_needs_a_session_and_escapes_the_document(portal):
    cookie = sign_in(portal)
    doc = call(portal, "POST", "/api/docs", cookie, {"title": "<b>T</b>", "body": "a & b"})[2]
    status, headers, _ = fetch(portal.url + f"/docs/{doc['id']}")
    assert status == 302 and headers["Location"] == f"/login?next=/docs/{doc['id']}"
    status, _, page = fetch(portal.url + f"/docs/{doc['id']}", headers=cookie)
    assert status == 200 and title_of(page) == f"Document {doc['id']}"
    assert 'data-testid="doc-title" id="shown-title">&lt;b&gt;T&lt;/b&gt;<' in page and "a &amp; b" in page
    assert fetch(portal.url + "/docs/d99", headers=cookie)[0] == 404
    assert fetch(portal.url + "/docs/d1", headers=cookie, method="POST", data=b"")[0] == 405


def test_shop_and_feed_are_pages_and_the_feed_host_is_outside(portal):
    for path, title in (("/shop", "Shop"), ("/feed", "News feed")):
        status, _, page = fetch(portal.url + path)
        assert status == 200 and title_of(page) == title
    assert urlsplit(v12_http.FEED_URL).hostname == "feed.outside.example"
    assert v12_http.FEED_URL in fetch(portal.url + "/feed")[2]
