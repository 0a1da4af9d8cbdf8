"""Every in-page script of the package parses in Chromium: each file as written, and each script as built.

A file is parsed as the body of a ``new Function`` on a blank page served on
127.0.0.1: parsed, not run (a placeholder is a plain identifier there). The
scripts the modules build from the files (placeholders filled) are parsed
the same way; what each one does is tested where it is used
(test_observation, test_suggestions*, reliability/test_channels, ...).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cometlocal.executor.browser.channels import page_script
from pytest_cometlocal.executor.page import conditions, controls, locators, observation, screenshots, texts
from pytest_cometlocal.executor.suggest import listing, suggester

pytestmark = pytest.mark.browser

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_cometlocal"
FILES = sorted(PACKAGE.rglob("*.js"))
BUILT = {
    "OBSERVE_JS": observation.OBSERVE_JS,
    "TARGET_CONTEXT_JS": locators.TARGET_CONTEXT_JS,
    "MATCH_JS": locators._MATCH_JS,
    "COUNT_JS": locators._COUNT_JS,
    "HIT_TEST_JS": conditions.HIT_TEST_JS,
    "VISIBLE_TEXTS_JS": conditions.VISIBLE_TEXTS_JS,
    "ELEMENT_TEXT_JS": texts.ELEMENT_TEXT_JS,
    "ELEMENT_VALUE_JS": texts.ELEMENT_VALUE_JS,
    "SHOWN_TEXTS_JS": texts.SHOWN_TEXTS_JS,
    "caret off, then the fence": screenshots._CARET_OFF_JS + ";\n" + screenshots._FENCE_JS,
    "CARET_ON_JS": screenshots._CARET_ON_JS,
    "channel guard for an allowlist": page_script(["127.0.0.1", "*.example.com", 'a"b']),
    "CANDIDATES_JS": suggester.CANDIDATES_JS,
    "CANDIDATES_IN_FRAME_JS": suggester.CANDIDATES_IN_FRAME_JS,
    "VERIFY_JS": suggester.VERIFY_JS,
    "MATCHES_JS": suggester.MATCHES_JS,
    "AMONG_JS": listing.AMONG_JS,
    "CHECKED_STATE_JS": controls.CHECKED_STATE_JS,
    "POINTER_TARGET_JS": controls.POINTER_TARGET_JS,
    "DROPDOWN_KIND_JS": controls.DROPDOWN_KIND_JS,
}
# The parse error of a script, or null.
PARSE = "(src) => { try { new Function(src); return null; } catch (e) { return e.name + ': ' + e.message; } }"


@pytest.fixture(scope="module")
def blank(chromium, portal):
    context = chromium.browser().new_context()
    page = context.new_page()
    page.goto(portal.url + "/")
    page.set_content("<!doctype html><title>blank</title>")
    yield page
    context.close()


@pytest.mark.parametrize("path", FILES, ids=[str(f.relative_to(PACKAGE)) for f in FILES])
def test_each_script_file_parses(blank, path: Path) -> None:
    assert blank.evaluate(PARSE, path.read_text(encoding="utf-8")) is None


@pytest.mark.parametrize("name", BUILT)
def test_each_built_script_parses(blank, name: str) -> None:
    assert blank.evaluate(PARSE, BUILT[name]) is None


def test_a_script_that_does_not_parse_is_seen(blank) -> None:
    assert blank.evaluate(PARSE, "(els) => { return els.length;").startswith("SyntaxError: ")
    assert blank.evaluate(PARSE, "(el) => el.id") is None
