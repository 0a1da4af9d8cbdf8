"""Honest suggestions (issue 28, part 3), in a real Chromium against a page served on 127.0.0.1 by the test.

The page is an application after a release: a button, a label and a link
were renamed, and a button, a link and a field were removed while others of
their kind stayed ("Export" beside "Import", "Exports" beside "Imports",
"Country" beside "Company": close in spelling, another function; "Last name"
beside "First name", which the plan filled a step before). A renamed
target gets the element it became, first; a removed one gets no suggestion
and a note saying the element may have been removed, never its neighbour.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_cometlocal.executor.suggest.suggester import FLOOR_NOTE
from tests.executor.test_suggestions import click, step_plan
from tests.support import run_text, served_pages

AFTER = """<!doctype html><title>After the release</title>
<nav aria-label="Main"><a href="/after#docs">Library documents</a> <a href="/after#imports">Imports</a>
<a href="/after#help">Help</a></nav>
<form aria-label="Account" onsubmit="return false">
<label for="email">Email address</label><input id="email">
<label for="company">Company</label><input id="company">
<label for="first">First name</label><input id="first" name="first">
<button type="button">Sign in</button>
<button type="button">Import</button>
</form>
"""


@pytest.fixture(scope="module")
def site():
    with served_pages({"/after": AFTER}) as url:
        yield url


def role(r: str, name: str) -> dict[str, Any]:
    return {"type": "role", "role": r, "name": name, "exact": True}


def label(text: str) -> dict[str, Any]:
    return {"type": "label", "text": text, "exact": True}


FIRST = "- {id: first, kind: fill, target: {type: label, text: First name, exact: true}, value: Ada}\n"

CASES = [
    # (what happened, step kind, the plan's target, value, the top suggestion or None for none)
    ("renamed button", "click", role("button", "Log in"), None, role("button", "Sign in")),
    ("reworded label", "fill", label("E-mail"), "a@b.c", label("Email address")),
    ("changed link text", "click", role("link", "Documents"), None, role("link", "Library documents")),
    ("removed button beside another", "click", role("button", "Export"), None, None),
    ("removed link beside others", "click", role("link", "Exports"), None, None),
    ("removed field beside others", "fill", label("Country"), "Spain", None),
    # "Last name" shares a word with "First name" (0.5, at the floor), but an earlier step filled that one.
    ("removed field beside one the plan filled", "fill", label("Last name"), "Lovelace", None),
]


@pytest.mark.parametrize("what, kind, target, value, top", CASES, ids=[c[0] for c in CASES])
def test_a_renamed_target_gets_what_it_became_and_a_removed_one_gets_none(chromium, tmp_path, site, what, kind,
                                                                          target, value, top):
    extra = f", value: {value}" if value else ""
    before = FIRST if "plan filled" in what else ""
    r = run_text(chromium, tmp_path, step_plan(click(target, kind, extra), page="/after", extra_steps=before,
                                               timeout_ms=1500), site)
    assert r.code == "TARGET_NOT_FOUND", (r.code, r.error and r.error.message)
    details = r.error.details
    if top is None:
        assert details["suggestions"] == [], details["suggestions"]
        assert details["suggestions_note"] == FLOOR_NOTE
        assert "may have been removed" in FLOOR_NOTE
    else:
        assert details["suggestions"] and details["suggestions"][0]["target"] == top, details["suggestions"]
        assert "suggestions_note" not in details
