"""``cometlocal import`` of what plan format v1.2 adds for pages (no browser): ``expect_popup`` around a click
or a key press is that step with ``opens: page``; calls on another open page switch to it first, a popup's
``close()`` is ``close_page``; ``go_back``, ``go_forward`` and ``reload`` map to their kinds.

Every plan here comes out of the command, so it also passed the plan validator."""

from __future__ import annotations

from tests.planners.test_codegen_import import GOTO, imported

LINK = {"type": "role", "role": "link", "name": "Help"}


def kinds(plan: dict) -> list[tuple]:
    return [(s["kind"], s.get("opens"), (s.get("page") or {}).get("index")) for s in plan["steps"]]


def test_history_calls_map_to_their_kinds(tmp_path):
    code, plan = imported(tmp_path, GOTO + "page.go_back()\npage.go_forward()\npage.reload()")
    assert code == 0
    assert [s["kind"] for s in plan["steps"]] == ["navigate", "go_back", "go_forward", "reload"]
    assert "target" not in plan["steps"][1]


def test_popups_are_followed_switched_to_and_closed(tmp_path):
    body = GOTO + """\
with page.expect_popup() as page1_info:
    page.get_by_role("link", name="Help").click()
page1 = page1_info.value
page1.get_by_label("User").fill("ada")
with page.expect_popup() as page2_info:
    page.get_by_label("Search").press("Enter")
page2 = page2_info.value
expect(page2.get_by_test_id("done")).to_be_visible()
page1.close()
page.get_by_test_id("who").click()
page2.close()"""
    code, plan = imported(tmp_path, body)
    assert code == 0
    # page1's fill is on the active page (the popup); the second popup is opened from page (index 0): switch
    # first; page1.close(): switch to it (index 1), close, its opener (page) is active; page2 (now index 1) last.
    assert kinds(plan) == [("navigate", None, None), ("click", "page", None), ("fill", None, None),
                           ("switch_page", None, 0), ("press", "page", None), ("switch_page", None, 1),
                           ("close_page", None, None), ("click", None, None), ("switch_page", None, 1),
                           ("close_page", None, None)]
    assert plan["steps"][1]["target"] == LINK
    assert plan["steps"][4]["postconditions"][0]["kind"] == "element_visible"  # the check on page2 joins its step


def test_closing_the_only_page_is_no_step(tmp_path):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("go").click()\npage.close()')
    assert code == 0 and [s["kind"] for s in plan["steps"]] == ["navigate", "click"]
