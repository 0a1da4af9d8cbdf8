"""Narrowing suggestions for TARGET_NOT_UNIQUE in a real Chromium (issue 24, part 3).

A narrowing suggestion resolves, on the failure's page, to exactly one
element, and that element is one of the failed target's matches: held here
by element identity in the page (the suggestion's one element is among the
failed target's element handles), on the Streamlit shape the issue reported
(two grids nested in containers with test ids, one in a hidden tab, and an
empty overlay with a test id of its own), on Datasette's two links named
"genre", and on generated pages. Matches are described by themselves, with
their container named apart; links that differ only by ``href`` get an
``href`` target each, before any ``nth``.
"""

from __future__ import annotations

import html
import random
from typing import Any

import pytest
from pydantic import TypeAdapter

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.executor.suggest import suggester as S
from pytest_cometlocal.executor.page.locators import compile_target
from tests.executor import test_suggestions
from tests.executor.test_suggestions import GRIDS, click, step_plan, suggestions_of, with_target

# The fixtures of test_suggestions.py, used here as they are (the same site and runner).
site = test_suggestions.site
go = test_suggestions.go

ONE = TypeAdapter(T.Target)

FILMS = """<!doctype html><title>films</title>
<table id="rows"><thead><tr><th><a href="/films?_sort=genre">genre</a></th><th>year</th></tr></thead></table>
<div class="facet-info" id="facet-genre"><a href="/films?_facet=genre&amp;_x=&quot;1&quot;">genre</a></div>
"""

GRID = {"type": "css", "selector": "[data-testid=stDataFrame]"}
GENRE = {"type": "role", "role": "link", "name": "genre", "exact": True}


@pytest.fixture
def page(chromium):
    context = chromium.browser().new_context(viewport={"width": 800, "height": 600})
    yield context.new_page()
    context.close()


def narrowed(page: Any, base: dict[str, Any]) -> list[dict[str, Any]]:
    request = S.SuggestionRequest([ONE.validate_python(base)], True, "clickable", "click")
    return S.suggest(page, request, budget_ms=10_000).suggestions


def assert_each_is_one_of_the_matches(page: Any, base: dict[str, Any], found: list[dict[str, Any]]) -> None:
    """Element identity in the page: the suggestion's one element is one of the base's elements."""
    matches = compile_target(page, ONE.validate_python(base)).element_handles()
    assert len(matches) > 1
    for s in found:
        elements = compile_target(page, ONE.validate_python(s["target"])).element_handles()
        assert len(elements) == 1, s
        at = page.evaluate("([el, all]) => all.indexOf(el)", [elements[0], matches])
        assert at >= 0, (s, "resolves to an element that is not one of the matches")
        if s["target"]["type"] == "nth":
            assert at == s["target"]["index"], s


def test_two_nested_grids_suggest_a_grid_never_the_overlay(page):
    page.set_content(GRIDS)
    found = narrowed(page, GRID)
    assert found, "the two grids get narrowing suggestions"
    assert all(s["target"] != {"type": "testid", "id": "portal"} for s in found), found
    assert_each_is_one_of_the_matches(page, GRID, found)
    # described by itself (the grid, not its container), its container named apart
    assert [s["matched"] for s in found] == ["div [testid=stDataFrame], in div [testid=stElementContainer]"] * 2
    assert found[0]["target"] == {"type": "nth", "base": GRID, "index": 0}
    assert found == narrowed(page, GRID)  # the same page, the same suggestions in the same order


def test_a_shown_grid_comes_before_one_in_a_hidden_tab(page):
    hidden = "<div style='display:none'><div data-testid='stDataFrame'></div></div>"
    hidden_first = GRIDS.replace("<main>", "<main>" + hidden)
    page.set_content(hidden_first)
    found = narrowed(page, GRID)
    assert [s["target"]["index"] for s in found] == [1, 0, 2], found
    assert_each_is_one_of_the_matches(page, GRID, found)


def test_two_grids_in_a_run_suggest_the_first_grid_and_it_works(go):
    r = go(step_plan(click(GRID, extra=", timeout_ms: 3000"), page="/grids"))
    found = suggestions_of(r, "TARGET_NOT_UNIQUE")
    assert found[0]["target"] == {"type": "nth", "base": GRID, "index": 0}, found
    assert "portal" not in str(found)
    clicked = with_target("click", found[0])[:-1] + \
        ", timeout_ms: 3000, postconditions: [{kind: title_contains, args: {text: grid clicked}}]}"
    fixed = go(step_plan(clicked, page="/grids"))
    assert fixed.result.status == "passed", fixed.error and fixed.error.message


def test_links_that_differ_only_by_href_get_href_targets_before_nth(page):
    page.set_content(FILMS)
    found = narrowed(page, GENRE)
    assert [s["target"] for s in found] == [
        {"type": "css", "selector": 'a[href="/films?_sort=genre"]'},
        {"type": "css", "selector": r'a[href="/films?_facet=genre&_x=\"1\""]'},
    ]
    assert [s["matched"] for s in found] == [
        'a link "genre" href="/films?_sort=genre", in table #rows',
        r'a link "genre" href="/films?_facet=genre&_x=\"1\"", in div #facet-genre',
    ]
    assert all("an attribute only it has" in s["why"] for s in found)
    assert_each_is_one_of_the_matches(page, GENRE, found)


def test_many_links_named_alike_get_href_targets_within_the_checks(page):
    """text=open names every link: not tried, so the checks (at most 15) reach each link's own href."""
    rows = "".join(f"<tr><td>row {i}</td><td><a href='/rows/{i}'>open</a></td></tr>" for i in range(200))
    page.set_content(f"<title>Rows</title><table>{rows}</table>")
    base = {"type": "role", "role": "link", "name": "open", "exact": True}
    found = narrowed(page, base)
    assert [s["target"] for s in found] == [{"type": "css", "selector": f'a[href="/rows/{i}"]'} for i in range(3)]
    assert_each_is_one_of_the_matches(page, base, found)


# -- generated pages --------------------------------------------------------------------------

HREFS = ["/films?_sort=genre", "/films?_facet=genre", '/q?x="a"', "/a\\b", "/films?_sort=genre"]


def generate_page(rng: random.Random) -> str:
    """Grids nested in containers (some hidden), empty overlays with a test id, links and buttons named
    alike with shared or distinct hrefs, names, values and aria labels, some inside shadow roots."""
    parts = []
    for n in range(rng.randint(3, 9)):
        kind = rng.choice(["grid", "overlay", "link", "button", "shadow"])
        hidden = ' style="display:none"' if rng.random() < 0.3 else ""
        if kind == "grid":
            parts.append(f'<div{hidden} data-testid="stElementContainer"><div data-testid="stDataFrame" '
                         f'style="width:200px;height:40px"><canvas width="200" height="40"></canvas></div></div>')
        elif kind == "overlay":
            testid = rng.choice([f"portal-{n}", f"portal-{n}", "stDataFrame", "stElementContainer"])
            parts.append(f'<div data-testid="{testid}" style="position:fixed;top:0;left:0"></div>')
        elif kind in ("link", "shadow"):
            href = html.escape(rng.choice(HREFS), quote=True)
            testid = f' data-testid="{rng.choice(["link", "portal"])}"' if rng.random() < 0.3 else ""
            link = f'<a href="{href}"{testid}>genre</a>'
            wrap = rng.choice(["<th>{}</th>", '<div id="facet-{n}">{}</div>', "<li>{}</li>", "{}"])
            if kind == "shadow":
                parts.append(f'<div class="host" data-inner="{html.escape(link, quote=True)}"></div>')
            else:
                parts.append(f"<div{hidden}>" + wrap.replace("{n}", str(n)).format(link) + "</div>")
        else:
            extra = "".join(f' {a}="{rng.choice(["1", "2"])}"' for a in ("value", "aria-describedby", "name")
                            if rng.random() < 0.5)
            parts.append(f'<section aria-label="Part {n % 2}"><button type="button"{extra}>Delete</button></section>')
    script = ("<script>for (const h of document.querySelectorAll('.host'))"
              " h.attachShadow({mode: 'open'}).innerHTML = h.dataset.inner;</script>")
    return "<!doctype html><title>Generated</title><main>" + "\n".join(parts) + "</main>" + script


def test_on_generated_pages_every_narrowing_suggestion_is_exactly_one_of_the_matches(page):
    rng = random.Random(2024)
    bases = [GRID, GENRE, {"type": "role", "role": "button", "name": "Delete", "exact": True}]
    checked = kinds = 0
    seen_types: set[str] = set()
    for _ in range(16):
        page.set_content(generate_page(rng))
        for base in bases:
            if compile_target(page, ONE.validate_python(base)).count() < 2:
                continue
            found = narrowed(page, base)
            assert_each_is_one_of_the_matches(page, base, found)
            assert found == narrowed(page, base)  # deterministic
            checked += len(found)
            seen_types |= {s["target"]["type"] for s in found}
    kinds = len(seen_types)
    assert checked > 20 and kinds >= 3, (checked, seen_types)  # nth, css attribute, test id at least
