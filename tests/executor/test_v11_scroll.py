"""The v1.1 ``scroll`` action in a real Chromium: scrolled until the step's postconditions hold.

The portal's /spa/grid is a virtualized list of 1000 products that renders only
the rows in view, and only once scrolling stops: a row below the fold is not in
the page until it is scrolled to. Pages served here give a short scrolling list
that loads one more row near its bottom (its end is reached), a long page that loads more near its bottom (no target:
the page scrolls) and elements that cannot scroll themselves (their scrollable
ancestor, or the page, scrolls instead).
"""

from __future__ import annotations

import textwrap

import pytest

from tests.support import opened, served_pages

ROWS = "".join(f'<div class="row" id="row-{i}">Row {i}</div>' for i in range(1, 41))
LIST = f"""<title>List</title>
<style>#list {{ height: 200px; overflow-y: auto; border: 1px solid #999; }} .row {{ height: 30px; }}</style>
<h1>Letters</h1>
<div id="list" data-testid="letters">{ROWS}</div>
<script>
// Near its bottom the list loads one more row, once (rows that exist only after a scroll).
const list = document.getElementById("list");
list.addEventListener("scroll", () => {{
  if (list.scrollTop + list.clientHeight < list.scrollHeight - 100 || document.getElementById("row-41")) return;
  setTimeout(() => list.insertAdjacentHTML("beforeend", '<div class="row" id="row-41">Row 41</div>'), 100);
}});
</script>
"""

# A long page that adds a paragraph once it is scrolled near its bottom (a feed that loads more).
FEED = """<title>Feed</title>
<p id="intro">Today's posts</p>
<div style="height: 3000px">Posts</div>
<script>
addEventListener("scroll", () => {
  if (scrollY + innerHeight < 2500 || document.getElementById("late")) return;
  setTimeout(() => document.body.insertAdjacentHTML("beforeend", "<p id='late'>Older posts</p>"), 100);
});
</script>
"""

# A strip of tiles that scrolls sideways and loads one more tile near its right end.
TILES = "".join(f'<span class="tile" id="tile-{i}">{i}</span>' for i in range(1, 21))
STRIP = f"""<title>Strip</title>
<style>#strip {{ width: 300px; overflow-x: auto; white-space: nowrap; }}
       .tile {{ display: inline-block; width: 100px; height: 50px; }}</style>
<div id="strip" data-testid="strip">{TILES}</div>
<script>
const strip = document.getElementById("strip");
strip.addEventListener("scroll", () => {{
  if (strip.scrollLeft + strip.clientWidth < strip.scrollWidth - 100 || document.getElementById("tile-21")) return;
  setTimeout(() => strip.insertAdjacentHTML("beforeend", '<span class="tile" id="tile-21">21</span>'), 100);
}});
</script>
"""


@pytest.fixture(scope="module")
def pages():
    with served_pages({"/list": LIST, "/feed": FEED, "/strip": STRIP}) as url:
        yield url


def scrolled(r, step: str = "scroll") -> dict:
    """The action_executed metadata of ``step``."""
    (event,) = [e for e in r.events if e["event_type"] == "action_executed" and e["step_id"] == step]
    return event["metadata"]


def row(n: int) -> str:
    return f'{{type: css, selector: "[aria-rowindex=\\"{n}\\"]"}}'


GRID = "{type: testid, id: product-grid}"


def scroll_step(condition: str, *, target: str | None = GRID, timeout_ms: int = 30000, step: str = "scroll",
                direction: str | None = None) -> str:
    """A scroll step with one postcondition (a YAML list item)."""
    lines = [f"- id: {step}", "  kind: scroll", f"  timeout_ms: {timeout_ms}"]
    lines += [f"  direction: {direction}"] if direction else []
    lines += [f"  target: {target}"] if target else []
    return "\n".join([*lines, f"  postconditions: [{condition}]"]) + "\n"


def exists(target: str) -> str:
    return f"{{kind: element_exists, args: {{target: {target}}}}}"


def absent(target: str) -> str:
    """An assert step: ``target`` is not in the page."""
    return f"- {{id: absent, kind: assert, postconditions: [{{kind: element_count_equals, args: {{count: 0, target: {target}}}}}]}}\n"


def test_a_row_of_a_virtualized_list_is_scrolled_to(run):
    r = run(opened("/spa/grid", absent(row(100)) + textwrap.dedent("""\
        - id: scroll
          kind: scroll
          timeout_ms: 30000
          target: {type: testid, id: product-grid}
          postconditions:
            - {kind: element_visible, args: {target: {type: css, selector: "[aria-rowindex='100']"}}}
            - {kind: element_exists, args: {target: {type: text, text: Product 100, exact: true}}}
        - id: pick
          kind: click
          target: {type: text, text: P-100, exact: true}
          postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: "#selected"}, text: Selected P-100}}]
        """)))
    assert r.result.status == "passed", r.error and r.error.message
    assert [e["step_id"] for e in r.events if e["event_type"] == "assert_checked"] == ["absent"]
    meta = scrolled(r)
    assert meta["scrolled_element"] == 'div#viewport[data-testid="product-grid"][role="grid"][aria-label="Products"]'
    assert meta["direction"] == "down" and meta["postconditions_held"] is True and meta["reached_end"] is False
    # Row 100 starts at 2970 px in a 300 px view: it is reached after scrolling at least 2670 px.
    assert meta["scrolled_px"] >= 2670 and meta["scrolls"] > 1


def test_scroll_up_brings_back_rows_the_list_dropped(run):
    r = run(opened("/spa/grid", scroll_step(exists(row(40)), step="down") + absent(row(1))
                   + scroll_step(exists(row(1)), direction="up")))
    assert r.result.status == "passed", r.error and r.error.message
    down, up = scrolled(r, "down"), scrolled(r, "scroll")
    assert up["direction"] == "up" and up["postconditions_held"] is True
    assert 0 < up["scrolled_px"] <= down["scrolled_px"]


def test_scroll_that_reaches_the_end_without_the_postconditions_fails_with_reached_end(run, pages):
    r = run(opened(pages + "/list", scroll_step(exists('{type: css, selector: "#row-99"}'),
                                                    target="{type: testid, id: letters}")))
    assert (r.code, r.error.action_id, r.error.stage) == ("POSTCONDITION_FAILED", "scroll", "postcondition")
    # 41 rows (the last loaded near the bottom) of 30 px in a 200 px view: 1030 px to the end.
    assert r.error.details["reached_end"] is True and r.error.details["scrolled_px"] == 1030
    assert [c.kind for c in r.error.failed_conditions] == ["element_exists"]
    assert "at the end" in r.error.message
    meta = scrolled(r)
    assert meta["reached_end"] is True and meta["postconditions_held"] is False


def test_scroll_stops_when_its_timeout_runs_out(run):
    r = run(opened("/spa/grid", scroll_step(exists(row(900)), timeout_ms=3000)))
    assert (r.code, r.error.action_id) == ("POSTCONDITION_FAILED", "scroll")
    assert r.error.details["reached_end"] is False and r.error.details["scrolled_px"] > 0
    assert [c.kind for c in r.error.failed_conditions] == ["element_exists"]
    assert "timeout_ms 3000 ran out" in r.error.message


def test_without_a_target_the_page_scrolls(run, pages):
    r = run(opened(pages + "/feed", scroll_step(exists('{type: css, selector: "#late"}'), target=None)))
    assert r.result.status == "passed", r.error and r.error.message
    meta = scrolled(r)
    assert meta["scrolled_element"] == "page" and meta["scrolled_px"] > 0


@pytest.mark.parametrize(("page", "target", "wanted", "element"), [
    ("/list", '{type: css, selector: "#row-2"}', "#row-41", 'div#list[data-testid="letters"]'),
    ("/feed", '{type: css, selector: "#intro"}', "#late", "page"),
])
def test_a_target_that_cannot_scroll_scrolls_its_nearest_ancestor_that_can(run, pages, page, target, wanted, element):
    visible = f'{{kind: element_visible, args: {{target: {{type: css, selector: "{wanted}"}}}}}}'
    r = run(opened(pages + page, scroll_step(visible, target=target)))
    assert r.result.status == "passed", r.error and r.error.message
    meta = scrolled(r)
    assert meta["scrolled_element"] == element and meta["scrolled_px"] > 0


def test_postconditions_that_already_hold_scroll_nothing(run, pages):
    visible = '{kind: element_visible, args: {target: {type: css, selector: "#row-1"}}}'
    r = run(opened(pages + "/list", scroll_step(visible, target="{type: testid, id: letters}")))
    assert r.result.status == "passed", r.error and r.error.message
    meta = scrolled(r)
    assert (meta["scrolls"], meta["scrolled_px"], meta["postconditions_held"]) == (0, 0, True)


def test_scroll_right_and_back_left(run, pages):
    strip = "{type: testid, id: strip}"
    r = run(opened(pages + "/strip", scroll_step(exists('{type: css, selector: "#tile-21"}'), target=strip,
                                                     direction="right")
                   + scroll_step(exists('{type: css, selector: "#nope"}'), target=strip, direction="left",
                                 step="back")))
    assert (r.code, r.error.action_id) == ("POSTCONDITION_FAILED", "back")
    right, left = scrolled(r), scrolled(r, "back")
    assert right["direction"] == "right" and right["postconditions_held"] is True and right["scrolled_px"] > 0
    # Back to the left end: as far as it went right.
    assert left["reached_end"] is True and r.error.details["scrolled_px"] == left["scrolled_px"] > 0
    assert left["scrolled_px"] == right["scrolled_px"]
