"""``cometlocal import`` of what plan format v1.3 adds for scrolling and the viewport (no browser):
``page.set_viewport_size({...})`` is a ``set_viewport`` step; ``page.evaluate("window.scrollTo(X, Y)")``
to a fixed place (Y may be the document's scrollHeight) is a ``scroll`` with ``to``; any other script,
``page.mouse.wheel`` and ``scroll_into_view_if_needed`` stay unmapped, each with its reason.

Every plan here comes out of the command, so it also passed the plan validator."""

from __future__ import annotations

import pytest

from tests.planners.test_codegen_import import GOTO, imported


def test_viewport_and_fixed_scrolls_map(tmp_path):
    code, plan = imported(tmp_path, GOTO + """\
page.set_viewport_size({"width": 390, "height": 844})
page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
page.evaluate("() => window.scrollTo(0, 0)")
page.evaluate("window.scrollTo(10, 250);")""")
    assert code == 0
    assert plan["steps"][1:] == [
        {**plan["steps"][1], "kind": "set_viewport", "viewport": {"width": 390, "height": 844}},
        {**plan["steps"][2], "kind": "scroll", "to": {"x": 0, "y": "100%"}},
        {**plan["steps"][3], "kind": "scroll", "to": {"x": 0, "y": 0}},
        {**plan["steps"][4], "kind": "scroll", "to": {"x": 10, "y": 250}},
    ]
    assert all("target" not in s and "direction" not in s for s in plan["steps"][1:])


@pytest.mark.parametrize("call, reason", [
    ('page.set_viewport_size({"width": 0, "height": 844})', "set_viewport_size() maps with a literal {width, height}"),
    ('page.evaluate("document.title = 1")', "page.evaluate() does not map: a plan runs no page code"),
    ('page.evaluate("window.scrollBy(0, 500)")', "only window.scrollTo(x, y) to a fixed place maps"),
    ("page.mouse.wheel(0, 500)", "page.mouse.wheel() does not map: a plan acts on elements"),
    ('page.get_by_test_id("grid").scroll_into_view_if_needed()',
     "scroll_into_view_if_needed() does not map: every step scrolls its element into view itself"),
])
def test_what_does_not_map_says_why(tmp_path, capsys, call, reason):
    code, plan = imported(tmp_path, GOTO + call)
    assert code == 1 and plan is None
    assert reason in capsys.readouterr().err
