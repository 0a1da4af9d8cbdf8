"""A URL the browser reads otherwise than urllib, in a real Chromium (contract/browser_url.py).

- Chromium's ``new URL(u).hostname`` is the host our parser reads, over the
  whole differential table of tests/unit/test_browser_url.py (None: both refuse);
- a ``request`` whose URL comes at run time (a saved value, a secret), so load
  cannot see it, ends DOMAIN_BLOCKED before anything is sent: the API on
  127.0.0.1 gets no request for it and the listener on 127.0.0.2 no connection.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cometlocal.contract.browser_url import read_url
from tests.executor.api_server import ApiServer
from tests.support import DEFAULTS, run_text
from tests.unit.test_browser_url import TABLE

pytestmark = pytest.mark.browser
# Not the default host_in_allowlist precondition (which waits for its timeout): the client's own check.
ANY_PAGE = "preconditions: [{kind: url_matches, args: {pattern: '.*'}}]"


def test_our_reading_is_chromiums_over_the_whole_table(chromium) -> None:
    page = chromium.browser().new_page()
    try:
        hosts = page.evaluate("urls => urls.map(u => { try { return new URL(u).hostname; } catch (e) { return null; } })",
                              [url for url, _host, _refused in TABLE])
    finally:
        page.close()
    assert hosts == [read_url(url).host for url, _host, _refused in TABLE]
    assert hosts == [host for _url, host, _refused in TABLE]


@pytest.mark.parametrize("via", ["saved", "secret"])
def test_a_request_read_two_ways_is_domain_blocked_and_nothing_is_sent(chromium, tmp_path: Path, via: str) -> None:
    with ApiServer() as api:
        # urllib reads the API's host (allowed); Chromium reads the outside listener's.
        sneaky = f"{api.outside.url}\\@{api.url.removeprefix('http://')}/api/docs"
        first = (f"  - {{id: get, kind: request, method: POST, url: /api/echo, body: '{sneaky}', save: {{u: /body}}}}\n"
                 if via == "saved" else "")
        url = "${saved.u}" if via == "saved" else "${secrets.u}"
        extra = "" if via == "saved" else "secrets: {u: {env: SNEAKY_URL}}\n"
        text = ("name: two-ways\npolicy: {retries_per_action: 0}\n" + extra + DEFAULTS + "steps:\n" + first
                + f"  - {{id: leave, kind: request, method: POST, url: \"{url}\", json: {{title: x}}, {ANY_PAGE}}}\n")
        r = run_text(chromium, tmp_path, text, api.url, env={"SNEAKY_URL": sneaky})
        assert r.code == "DOMAIN_BLOCKED", r.error
        assert r.error.action_id == "leave" and r.error.stage == "precondition"
        assert r.error.details["stopped_before_request"] is True and r.error.details["host"] == "127.0.0.2"
        assert "read two ways" in r.error.message and "read two ways" in r.error.details["refused"]
        assert [path for _method, path in api.received if path != "/api/echo"] == []
        assert api.outside.connections == 0
        if via == "secret":  # the URL is the secret's value: never shown, nor written in the run folder
            needle = api.outside.url.removeprefix("http://")
            assert needle not in r.error.model_dump_json()
            assert [p.name for p in r.run_dir.rglob("*") if p.is_file() and needle in p.read_text(errors="replace")] == []
