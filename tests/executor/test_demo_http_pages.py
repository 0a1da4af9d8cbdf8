"""(v1.2) The demo portal's API pages in a real Chromium, run as v1 plans: /docs/<id> saves through the API,
/shop shows the slow recommendations, /feed cannot reach its outside host under the guard.

(The HTTP steps and stubs that use them, example_plans/v12/http_*.actions.yaml, run in
test_demo_http_examples.py.)
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from pytest_cometlocal.demo.pages import v12_http
from tests.support import plan

pytestmark = pytest.mark.browser

SIGN_IN = """
- {id: login, kind: navigate, target: {type: url, url: /login}}
- {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
- {id: password, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
- {id: submit, kind: click, target: {type: testid, id: login-submit}}
"""


def text_is(testid: str, text: str) -> str:
    return f"[{{kind: element_text_contains, args: {{target: {{type: testid, id: {testid}}}, text: {text}}}}}]"


def test_a_document_page_saves_its_edit_through_the_api(run, portal):
    doc = portal.docs.create("Draft", "first")
    r = run(plan(SIGN_IN + f"""
- {{id: open, kind: navigate, target: {{type: url, url: /docs/{doc['id']}}},
   postconditions: {text_is('doc-title', 'Draft')}}}
- {{id: title, kind: fill, target: {{type: label, text: Title, exact: true}}, value: Final}}
- {{id: save, kind: click, target: {{type: role, role: button, name: Save}},
   postconditions: {text_is('doc-status', 'Saved')}}}
- {{id: shown, kind: assert, postconditions: {text_is('doc-title', 'Final')}}}
        """, timeout_ms=5000))
    assert r.error is None, r.error
    assert portal.docs.get(doc["id"]) == {"id": doc["id"], "title": "Final", "body": "first"}  # the API has it
    assert ("PUT", f"/api/docs/{doc['id']}") in portal.hits


def test_a_deleted_document_page_is_not_found(run, portal):
    doc = portal.docs.create("Gone", "")
    portal.docs.delete(doc["id"])
    r = run(plan(SIGN_IN + f"""
- {{id: open, kind: navigate, target: {{type: url, url: /docs/{doc['id']}}},
   postconditions: [{{kind: title_contains, args: {{text: Not found}}}}]}}
        """))
    assert r.error is None, r.error


def test_the_shop_shows_the_slow_recommendations_once_signed_in(run, portal):
    r = run(plan(SIGN_IN + f"""
- {{id: shop, kind: navigate, target: {{type: url, url: /shop}}, timeout_ms: 10000,
   postconditions: {text_is('recs', '3 recommendations')}}}
        """))
    assert r.error is None, r.error
    assert ("GET", "/api/slow/recommendations") in portal.hits


def test_the_shop_without_a_session_says_unavailable(run):
    r = run(plan(f"""
- {{id: shop, kind: navigate, target: {{type: url, url: /shop}},
   postconditions: {text_is('recs', 'Recommendations unavailable')}}}
        """))
    assert r.error is None, r.error


def test_the_feed_host_is_not_allowed_so_the_feed_is_unavailable(run):
    r = run(plan(f"""
- {{id: feed, kind: navigate, target: {{type: url, url: /feed}},
   postconditions: {text_is('feed-status', 'Feed unavailable')}}}
        """))
    assert r.error is None, r.error
    # The demo's allowlist is its default, the base URL's host: the feed's host is not on it.
    assert r.manifest["domain_allowlist"] == ["127.0.0.1"]
    assert r.manifest["configuration"]["sources"]["allowlist"] == "base_url host"
    assert urlsplit(v12_http.FEED_URL).hostname not in r.manifest["domain_allowlist"]
