"""The real-application flow's files (bench_real.py): the plan, the same flow hand-written, the conftest.

Why a module of its own: these are the texts the benchmark writes into each
generated suite; bench_real.py runs and measures them. ``HAND_TEST`` is one
template for five variants: plain, with a Playwright trace (``traced``), with
the page reads a plan makes at every step (``reads="plan"``: a "before" and an
"after" look), with one read per step (``reads="one"``: step N's "after" and
step N+1's "before" with N+1's target matched are one call, as issue 38's
executor reads between two steps; plus the last step's "after"), with one read
and a picture per step (``reads="picture"``: those reads, each followed by the
picture ``balanced`` takes of that state, benchmarks/floors.py: the floor of
``balanced`` as ``"one"`` is the floor of ``fast``), or with the plan's calls
reading nothing (``reads="empty"``).
"""

from __future__ import annotations

from .common import SHARED_BROWSER_FIXTURES

PLAN = """\
name: real admin {tag}
tags: [bench, real]
uploads_root: files
vars: {{title: '{title}'}}
secrets: {{password: {{env: BENCH_ADMIN_PASSWORD}}}}
defaults:
  criticality: normal
  timeout_ms: {timeout}
  preconditions: [{{kind: host_in_allowlist}}]
  postconditions: [{{kind: host_in_allowlist}}]
steps:
  - {{id: open_login, kind: navigate, target: {{type: url, url: /admin/login/}},
     postconditions: [{{kind: title_contains, args: {{text: Log in}}}}]}}
  - {{id: user, kind: fill, target: {{type: label, text: 'Username:', exact: true}}, value: admin,
     postconditions: [{{kind: element_value_equals, args: {{value: admin}}}}]}}
  - {{id: password, kind: fill, target: {{type: label, text: 'Password:', exact: true}}, value: '${{secrets.password}}'}}
  - {{id: log_in, kind: click, criticality: critical, target: {{type: role, role: button, name: Log in, exact: true}},
     postconditions: [{{kind: url_matches, args: {{pattern: /admin/$}}}}]}}
  - {{id: open_documents, kind: click, target: {{type: role, role: link, name: Documents, exact: true}},
     postconditions: [{{kind: url_matches, args: {{pattern: /admin/library/document/$}}}}]}}
  - {{id: add_document, kind: click, target: {{type: role, role: link, name: Add document, exact: true}},
     postconditions: [{{kind: url_matches, args: {{pattern: /admin/library/document/add/$}}}}]}}
  - {{id: title, kind: fill, target: {{type: label, text: 'Title:', exact: true}}, value: '${{vars.title}}',
     postconditions: [{{kind: element_value_equals, args: {{value: '${{vars.title}}'}}}}]}}
  - {{id: attach, kind: upload, target: {{type: label, text: 'File:', exact: true}}, file_ref: note.txt,
     postconditions: [{{kind: upload_completed}}]}}
  - {{id: save, kind: click, criticality: critical, target: {{type: role, role: button, name: Save, exact: true}},
     postconditions: [{{kind: url_matches, args: {{pattern: /admin/library/document/$}}}}]}}
  - {{id: saved, kind: assert, postconditions: [{{kind: element_text_contains,
     args: {{target: {{type: css, selector: .messagelist .success}}, text: was added successfully}}}}]}}
  - {{id: open_document, kind: click,
     target: {{type: xpath, selector: '//table[@id="result_list"]//a[normalize-space()="${{vars.title}}"]'}},
     postconditions: [{{kind: url_matches, args: {{pattern: '/admin/library/document/\\d+/change/$'}}}}]}}
  - id: check_document
    kind: assert
    postconditions:
      - {{kind: element_text_contains, args: {{target: {{type: css, selector: '#content h2'}}, text: '${{vars.title}}'}}}}
      - {{kind: element_value_equals, args: {{target: {{type: label, text: 'Title:', exact: true}}, value: '${{vars.title}}'}}}}
  - {{id: log_out, kind: click, target: {{type: role, role: button, name: Log out, exact: true}},
     postconditions: [{{kind: url_matches, args: {{pattern: /admin/logout/$}}}}]}}
  - {{id: logged_out, kind: assert, postconditions: [{{kind: title_contains, args: {{text: Logged out}}}}]}}
"""

HAND_TEST = '''"""The plan's flow hand-written with pytest-playwright, the same checks with expect(){traced}."""
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

expect.set_options(timeout={timeout})
NOTE = Path(__file__).with_name("plans") / "files" / "note.txt"
TRACES = Path(__file__).with_name("traces")
TITLES = {titles!r}


READS = {reads!r}
if READS in ("plan", "one", "picture"):
    from pytest_cometlocal.executor.page.locators import _MATCH_OBSERVE_JS
    from pytest_cometlocal.executor.page.observation import OBSERVE_JS, look_arg

    ARG = look_arg((os.environ["BENCH_ADMIN_PASSWORD"],), True)
elif READS == "empty":  # the same calls, scripts that read nothing
    _MATCH_OBSERVE_JS, OBSERVE_JS, ARG = "(els, arg) => els.length", "(arg) => 0", None
if READS == "picture":  # the one read, then the picture balanced takes of that state
    from benchmarks.floors import Floor

    FLOOR = Floor(ARG, pictures=True)


def before(page, locator=None):
    """The plan's "before" look: with the step's target, its match in the same read.

    With one read per step, this read is also the previous step's "after" look."""
    if READS == "picture":
        FLOOR.read(page, locator)
    elif READS:
        page.evaluate(OBSERVE_JS, ARG) if locator is None else locator.evaluate_all(_MATCH_OBSERVE_JS, ARG)
    return locator


def after(page):
    """The plan's "after" look; with one read per step, the next "before" is that look: nothing here."""
    if READS in ("plan", "empty"):
        page.evaluate(OBSERVE_JS, ARG)


def last(page):
    """The last step's "after" look, which one read per step still takes (the plan variant's flow has none)."""
    if READS in ("one", "picture"):
        before(page)


def flow(page, url, title):
    before(page)
    page.goto(url + "/admin/login/")
    after(page)
    expect(page).to_have_title(re.compile("Log in"))
    field = before(page, page.get_by_label("Username:", exact=True))
    field.fill("admin")
    after(page)
    expect(field).to_have_value("admin")
    before(page, page.get_by_label("Password:", exact=True)).fill(os.environ["BENCH_ADMIN_PASSWORD"])
    after(page)
    before(page, page.get_by_role("button", name="Log in", exact=True)).click()
    after(page)
    expect(page).to_have_url(re.compile("/admin/$"))
    before(page, page.get_by_role("link", name="Documents", exact=True)).click()
    after(page)
    expect(page).to_have_url(re.compile("/admin/library/document/$"))
    before(page, page.get_by_role("link", name="Add document", exact=True)).click()
    after(page)
    expect(page).to_have_url(re.compile("/admin/library/document/add/$"))
    field = before(page, page.get_by_label("Title:", exact=True))
    field.fill(title)
    after(page)
    expect(field).to_have_value(title)
    field = before(page, page.get_by_label("File:", exact=True))
    field.set_input_files(NOTE)
    after(page)
    expect(field).to_have_value(re.compile(r"note\\.txt$"))
    before(page, page.get_by_role("button", name="Save", exact=True)).click()
    after(page)
    expect(page).to_have_url(re.compile("/admin/library/document/$"))
    before(page)
    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    before(page, page.locator("#result_list").get_by_role("link", name=title, exact=True)).click()
    after(page)
    expect(page).to_have_url(re.compile(r"/admin/library/document/\\d+/change/$"))
    before(page)
    expect(page.locator("#content h2")).to_contain_text(title)
    expect(page.get_by_label("Title:", exact=True)).to_have_value(title)
    before(page, page.get_by_role("button", name="Log out", exact=True)).click()
    after(page)
    expect(page).to_have_url(re.compile("/admin/logout/$"))
    before(page)
    expect(page).to_have_title(re.compile("Logged out"))
    last(page)


@pytest.mark.parametrize("title", TITLES, ids=[f"f{{i:02d}}" for i in range(len(TITLES))])
def test_flow(page, context, admin_url, title):
    if {traced}:
        TRACES.mkdir(exist_ok=True)
        context.tracing.start(screenshots=True, snapshots=True)
        try:
            flow(page, admin_url, title)
        finally:
            context.tracing.stop(path=TRACES / (title.replace(" ", "-") + ".zip"))
    else:
        flow(page, admin_url, title)
'''

BASELINE_TEST = '''"""Start-up only: the session, the browser and one page, no flow."""


def test_baseline(page, admin_url):
    assert admin_url
'''

CONFTEST = '''
import os

import pytest


@pytest.fixture
def admin_url():
    return os.environ["BENCH_REAL_URL"]


@pytest.fixture
def cometlocal_base_url(admin_url):
    return admin_url

''' + SHARED_BROWSER_FIXTURES


__all__ = ["BASELINE_TEST", "CONFTEST", "HAND_TEST", "PLAN"]
