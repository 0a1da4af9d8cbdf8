"""A page that replaces the built-ins the executor's page scripts use, in its own world.

The observation script runs in the page's main world: a page that replaces
``JSON.stringify``, an ``Array.prototype`` method, a prototype's getter or
``getComputedStyle`` breaks it. The step gets a typed error naming it
(PAGE_UNRESPONSIVE, ``details.probe: malformed answer``), never a traceback,
and the run folder still verifies. One server and the suite's browsers
(Chromium, and Firefox: issue 49); one run per override.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Iterator

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.browsers import ON_BOTH
from tests.support import opened, run_text, served_pages

pytestmark = pytest.mark.browser

# Each replacement breaks the observation script (it throws, or answers something else).
OVERRIDES = {
    "json_stringify": "JSON.stringify = () => '{}';",
    "array_map": "Array.prototype.map = function () { return 1; };",
    "array_push": "Array.prototype.push = function () { throw new Error('no push'); };",
    "string_trim": "String.prototype.trim = function () { return 42; };",
    "query_selector_all": "Element.prototype.querySelectorAll = Document.prototype.querySelectorAll = () => 5;",
    "text_content": "Object.defineProperty(Node.prototype, 'textContent', {get() { throw new Error('no text'); }});",
    "computed_style": "window.getComputedStyle = () => null;",
}


def page(js: str, in_head: bool) -> str:
    """A page with a labelled field and a link; ``js`` runs in its head, or when #go is clicked."""
    head = f"<script>{js}</script>" if in_head else ""
    return (f"<!doctype html><html><head><title>Hostile</title>{head}</head><body><h1>Hostile</h1>"
            f"<label for=n>Name</label><input id=n><a href=/x>x</a>"
            f'<button id=go onclick="{html.escape(js)}">Go</button></body></html>')


PAGES = {f"/{name}/{when}": page(js, when == "head") for name, js in OVERRIDES.items() for when in ("head", "click")}
CLICK = '- {id: go, kind: click, target: {type: css, selector: "#go"}}\n'


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with served_pages(PAGES) as url:
        yield url


def check(run, step: str) -> None:
    error = run.error
    assert error is not None and (error.error_code.value, error.action_id) == ("PAGE_UNRESPONSIVE", step), error
    assert error.details["probe"] == "malformed answer" and error.details["during"] == "observation"
    assert error.message.startswith("the page gave no usable answer to the observation: ")
    verified = verify_run(run.run_dir)
    assert verified.ok, verified.problems


@ON_BOTH
@pytest.mark.parametrize("name", sorted(OVERRIDES))
def test_an_override_before_load_fails_the_first_step_typed(name: str, site: str, browser_manager, tmp_path: Path):
    check(run_text(browser_manager, tmp_path, opened(f"{site}/{name}/head", CLICK), site), "open")


@ON_BOTH
@pytest.mark.parametrize("name", ["json_stringify", "array_map"])
def test_an_override_installed_by_a_step_fails_that_step_typed(name: str, site: str, browser_manager, tmp_path: Path):
    check(run_text(browser_manager, tmp_path, opened(f"{site}/{name}/click", CLICK), site), "go")
