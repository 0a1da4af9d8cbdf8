"""Observations in a real Chromium: the frame and its freshness, the caret, the carried-over frame."""

from __future__ import annotations

import hashlib
import struct

import pytest

from pytest_cometlocal.executor.page.observation import observe
from tests.support import LOGIN, soak

PAGE = """<!doctype html><title>Form</title>
<h1 id="head">Order</h1>
<label>Name <input id="name" value="Ada"></label>
<button>Save</button>"""


@pytest.fixture
def page(chromium):
    context = chromium.browser().new_context(viewport={"width": 800, "height": 600})
    page = context.new_page()
    page.set_content(PAGE)
    yield page
    context.close()


def test_an_unchanged_page_carries_the_screenshot_over(page):
    first = observe(page)
    second = observe(page, previous=first)
    assert first.screenshot[:3] == b"\xff\xd8\xff" and first.signature.algorithm_version == "v2-frame-320"
    assert "screenshot_from" not in first.signature.metadata
    assert second.signature.metadata["screenshot_from"] == "previous_observation"
    assert second.screenshot is first.screenshot
    assert second.signature.screenshot_hash == first.signature.screenshot_hash
    assert second.state_key == first.state_key


@pytest.mark.parametrize("change", [
    "document.getElementById('head').textContent = 'Invoice'",   # visible text
    "document.getElementById('name').value = 'Grace'",           # an input's value (snapshot only)
    "document.title = 'Other'",                                  # title
    "document.querySelector('button').disabled = true",          # key elements
])
def test_a_changed_page_gets_a_fresh_screenshot(page, change):
    first = observe(page)
    page.evaluate(change)
    second = observe(page, previous=first)
    assert "screenshot_from" not in second.signature.metadata
    assert second.screenshot is not first.screenshot
    hashes = ("url_hash", "title_hash", "key_elements_hash", "visible_text_hash", "screenshot_hash")
    assert any(getattr(second.signature, h) != getattr(first.signature, h) for h in hashes) \
        or second.snapshot != first.snapshot


def _hashes_over_a_second(page) -> set[str]:
    """The screenshot hashes of six looks 180 ms apart: a blinking caret shows in them."""
    hashes = set()
    for _ in range(6):
        hashes.add(observe(page).signature.screenshot_hash)
        page.wait_for_timeout(180)
    return hashes


def test_the_caret_of_a_focused_field_does_not_change_the_hash(page):
    # A blinking caret (500 ms on, 500 ms off) would give two looks at the same page
    # two hashes; the observation makes it steady.
    page.focus("#name")
    assert len(_hashes_over_a_second(page)) == 1
    # The caret is still shown, only steady: one constructed sheet, and no element in the DOM.
    assert page.evaluate("getComputedStyle(document.getElementById('name')).caretAnimation") == "manual"
    assert page.evaluate("getComputedStyle(document.getElementById('name')).caretColor") != "rgba(0, 0, 0, 0)"
    assert page.evaluate("document.adoptedStyleSheets.length") == 1
    assert page.evaluate("document.querySelectorAll('style, link').length") == 0


def test_the_caret_inside_a_focused_contenteditable_does_not_change_the_hash(page):
    # The caret is drawn in the element that holds it, inside the focused host.
    page.set_content("<title>Editor</title><div id='ed' contenteditable='true'><p>Some <b>bold</b> text</p></div>")
    page.click("#ed b")
    assert len(_hashes_over_a_second(page)) == 1


def test_the_caret_of_a_document_in_design_mode_does_not_change_the_hash(page):
    page.set_content("<title>Design</title><p id='x'>hello world</p>")
    page.evaluate("document.designMode = 'on'")
    page.click("#x")
    assert len(_hashes_over_a_second(page)) == 1


def test_the_next_step_carries_the_after_screenshot_unless_critical(run, monkeypatch):
    from pytest_cometlocal.executor.step import observer

    monkeypatch.setattr(observer, "CARRY_MAX_AGE_S", 60.0)  # the age bound has its own test (test_planner_api)
    # The sign-in plan of test_smoke, its submit made critical.
    r = run(LOGIN.replace("    kind: click\n", "    kind: click\n    criticality: critical\n"))
    assert r.error is None, r.error
    before = {e["step_id"]: e["state_signature_before"] for e in r.events if e["event_type"] == "observation_captured"}
    after = {e["step_id"]: e["state_signature_after"] for e in r.events if e["event_type"] == "postconditions_checked"}
    # Nothing before the first step to carry over (a fresh page's blank frame may be reused).
    assert before["open"]["metadata"].get("screenshot_from") in (None, "blank_page")
    # The fill of "user" changed nothing between its "after" and the "before" of "pw".
    assert before["pw"]["metadata"]["screenshot_from"] == "previous_observation"
    assert before["pw"]["screenshot_hash"] == after["user"]["screenshot_hash"]
    # A critical step's "before" is its evidence: always a capture of its own.
    assert "screenshot_from" not in before["submit"]["metadata"]
    assert before["submit"]["screenshot_hash"].startswith("sha256:")
    # Its evidence is a full-size PNG taken at that observation, beside the frame the hash is from.
    shot = next(f for f in r.evidence["files"] if f["step_id"] == "submit" and f["metadata"].get("which") == "before")
    assert shot["uri"].endswith(".png") and (r.run_dir / shot["uri"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert before["submit"]["algorithm_version"] == "v2-frame-320"


LABELS = """<!doctype html><title>Labels</title>
<label>Wrapped <input id="w" name="w"></label>
<label for="two">First</label><label for="two">Second</label><input id="two" name="two">
<label for="nowhere">Orphan</label>
<label>Outer <span><select id="pick" name="pick"><option>x</option></select></span></label>
<input name="aria" aria-label="By aria" id="aria">
<span id="l1">Part one</span><span id="l2">part two</span><input name="by" aria-labelledby="l1 l2">
<textarea name="note" placeholder="A note"></textarea>"""


def test_labels_are_read_as_the_browser_associates_them(page):
    # Labels by for=, by nesting, several for one control, aria-label and aria-labelledby
    # first, the placeholder last: what el.labels gives, read in one pass over the labels.
    page.set_content(LABELS)
    inputs = {i["name"]: i["label"] for i in observe(page).snapshot["visible_inputs"]}
    assert inputs == {"w": "Wrapped", "two": "First Second", "pick": "Outer x", "aria": "By aria",
                      "by": "Part one part two", "note": "A note"}


def test_labels_agree_with_the_browsers_own_association_on_awkward_markup(page):
    # A wrapping label that names another control, duplicate ids, a label before and
    # after its control: compared with what el.labels gives, control by control.
    page.set_content("""<title>Awkward</title>
<label for="z">Zed <input name="inner"></label><input id="z" name="zed">
<input id="d" name="d1"><input id="d" name="d2"><label for="d">Dup</label>
<label for="late">Before</label><input id="late" name="late"><label for="late">After</label>
<label>Wrap <input id="w2" name="w2"></label><label for="w2">Also</label>""")
    browser = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('input')].map(
        (el) => [el.name, [...el.labels].map((l) => l.textContent).join(' ').replace(/\\s+/g, ' ').trim()]))""")
    ours = {i["name"]: i["label"] for i in observe(page).snapshot["visible_inputs"]}
    assert ours == browser
    assert ours["zed"] == "Zed" and ours["inner"] == "" and ours["d1"] == "Dup" and ours["d2"] == ""
    assert ours["late"] == "Before After" and ours["w2"] == "Wrap Also"


def test_only_the_first_elements_are_read_on_a_large_page(page, monkeypatch):
    from pytest_cometlocal.executor.page import observation as observe_module

    rows = "".join(f'<p><a href="/r{i}">row {i}</a></p>' for i in range(50))
    page.set_content(f"<title>Rows</title>{rows}")
    monkeypatch.setattr(observe_module, "MAX_ELEMENTS", 20)
    obs = observe(page)
    assert obs.signature.metadata["key_elements"] == 20
    assert [a["text"] for a in obs.snapshot["visible_anchors"]] == [f"row {i}" for i in range(20)]


def _text_hash(page) -> str:
    return observe(page, screenshot=False).signature.visible_text_hash


@pytest.mark.parametrize("change, counts", [
    ("document.getElementById('shown').textContent = 'Other words'", True),
    ("document.getElementById('gone').textContent = 'Other words'", False),       # display: none
    ("document.getElementById('veiled').textContent = 'Other words'", False),     # visibility: hidden
    ("document.getElementById('inner').textContent = 'Other words'", False),      # inside a display: none
    ("document.getElementById('code').textContent = 'var y = 2;'", False),        # script text
    ("document.getElementById('gone').style.display = 'block'", True),            # hidden text shown
])
def test_the_visible_text_hash_sees_only_text_on_show(page, change, counts):
    page.set_content("""<title>Text</title><p id="shown">Some words</p><p id="gone" style="display:none">Hidden</p>
<p id="veiled" style="visibility:hidden">Veiled</p><div style="display:none"><span id="inner">Inner</span></div>
<script id="code">var x = 1;</script>""")
    before = _text_hash(page)
    page.evaluate(change)
    assert (_text_hash(page) != before) == counts


def test_the_visible_text_hashed_is_its_first_characters_on_a_large_page(page, monkeypatch):
    # The read stops at MAX_TEXT_CHARS: its cost does not grow with the page beyond it.
    from pytest_cometlocal.executor.page import observation as observe_module

    monkeypatch.setattr(observe_module, "MAX_TEXT_CHARS", 200)
    rows = "".join(f"<p id='p{i}'>paragraph number {i:03d}</p>" for i in range(100))  # 2,200 characters
    page.set_content(f"<title>Long</title><div role='main' tabindex='-1'>{rows}</div>")
    first = observe(page, screenshot=False)
    assert first.signature.metadata["visible_text_capped"] == 200
    page.evaluate("document.getElementById('p2').textContent = 'changed near the top'")
    near = observe(page, screenshot=False)
    assert near.signature.visible_text_hash != first.signature.visible_text_hash
    page.evaluate("document.getElementById('p90').textContent = 'changed far below'")
    assert observe(page, screenshot=False).signature.visible_text_hash == near.signature.visible_text_hash
    # A short page is read whole, and says nothing about a cap.
    page.set_content("<title>Short</title><p>Just this</p>")
    assert "visible_text_capped" not in observe(page, screenshot=False).signature.metadata


def test_a_key_elements_label_is_the_start_of_its_text_however_large_the_element(page):
    # A [role=main] holding the whole page is a key element: its label is read from its
    # first text nodes (clipped to 80 characters), not from the innerText of the page.
    import json
    import re

    from pytest_cometlocal.executor.page.observation import OBSERVE_JS

    rows = "".join(f"<p>line {i}</p>" for i in range(2000))
    page.set_content(f"<title>Main</title><div role='main'>{rows}</div><button>Save <b>now</b></button>")
    data = json.loads(page.evaluate(OBSERVE_JS, {"maxElements": 400, "maxTextChars": 20_000, "secrets": []}))
    expected = re.sub(r"\s+", " ", " ".join(f"line {i}" for i in range(100))).strip()[:80]
    assert data["key"][0][:3] == ["div", "main", expected]
    assert data["key"][1][:3] == ["button", "", "Save now"]


def test_the_target_is_described_by_its_own_text_and_the_start_of_its_ancestors(page):
    from pytest_cometlocal.contract.model.targets import TestIdTarget
    from pytest_cometlocal.executor.page.locators import resolve

    rows = "".join(f"<tr><td>Row {i}</td><td><button data-testid='b{i}'>Edit {i}</button></td></tr>" for i in range(300))
    page.set_content(f"<title>Table</title><table id='t'><tbody>{rows}</tbody></table><script>var x = 1;</script>")
    resolution = resolve(page, [TestIdTarget(type="testid", id="b150")], 2000)
    context = resolution.resolved.context
    assert context["target"]["text"] == "Edit 150"
    table = next(a for a in context["ancestors"] if a["tag"] == "table")
    assert table["text"].startswith("Row 0 Edit 0 Row 1") and len(table["text"]) <= 80
    row = next(a for a in context["ancestors"] if a["tag"] == "tr")
    assert row["text"] == "Row 150 Edit 150"
    assert context["siblings"] == []  # alone in its cell


def test_a_document_without_a_root_element_is_observed_empty(page):
    # Between two documents a page can briefly have none: nothing to read, no error.
    page.evaluate("document.removeChild(document.documentElement)")
    obs = observe(page, secrets=("hidden-value",))
    assert obs.signature.metadata["key_elements"] == 0
    assert obs.snapshot["visible_anchors"] == [] and obs.snapshot["visible_inputs"] == []


def _jpeg_size(data: bytes) -> tuple[int, int]:
    """Width and height from a JPEG's start-of-frame segment."""
    i = 2
    while i < len(data):
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    raise AssertionError("no start-of-frame segment")


def test_the_hash_is_taken_from_a_reduced_frame_and_full_size_is_on_request(page):
    obs = observe(page, full=True)
    assert obs.signature.algorithm_version == "v2-frame-320"
    assert obs.signature.screenshot_hash == "sha256:" + hashlib.sha256(obs.screenshot).hexdigest()
    assert _jpeg_size(obs.screenshot) == (320, 240)  # the 800x600 viewport, scaled down
    assert obs.full[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", obs.full[16:24]) == (800, 600)
    assert observe(page).full is None


def test_identical_pages_hash_the_same_and_a_visible_change_changes_the_hash(page):
    # A change only the picture shows (a colour): the DOM-derived hashes stay the same.
    look = {}
    for state, colour in (("a", ""), ("b", "rgb(200, 0, 0)"), ("a2", ""), ("b2", "rgb(200, 0, 0)")):
        page.evaluate("(c) => document.getElementById('head').style.color = c", colour)
        look[state] = observe(page).signature
    assert look["a"].screenshot_hash == look["a2"].screenshot_hash
    assert look["b"].screenshot_hash == look["b2"].screenshot_hash
    assert look["a"].screenshot_hash != look["b"].screenshot_hash
    assert look["a"].visible_text_hash == look["b"].visible_text_hash
    # One character of text is a visible change too.
    page.evaluate("document.getElementById('head').textContent = 'Orders'")
    assert observe(page).signature.screenshot_hash != look["a"].screenshot_hash


# Slow to paint: blurred, shadowed gradients, on a renderer slowed down eight times
# (DevTools CPU throttling). The compositor can still be drawing the frame before the
# change when the screencast starts: without the fence, most frames here were stale.
HEAVY = "<title>Heavy</title><h1 id='head'>Red</h1>" + "".join(
    f"<div style='filter: blur({i % 5 + 1}px) drop-shadow(0 0 8px red); box-shadow: 0 0 30px {i % 7}px blue;"
    f" display: inline-block; width: 120px; height: 40px; background: linear-gradient({i}deg, red, yellow)'>cell {i}</div>"
    for i in range(300))


def frame_hash(page) -> str | None:
    """The hash of a look's picture: a fresh reduced frame (the usual method)."""
    return observe(page).signature.screenshot_hash


def png_hash(page) -> str:
    """The hash of a full-size capture alone: what `fast` hashes for a critical step or a failure."""
    from pytest_cometlocal.executor.page.screenshots import capture_png

    return hashlib.sha256(capture_png(page, False)).hexdigest()


def throttled_heavy_references(page, picture=frame_hash) -> dict[str, str]:
    """The heavy page on a renderer slowed down 8x, and the settled ``picture`` of its Red and Blue states.

    Each reference is taken once two pictures in a row agree (on a throttled, loaded
    renderer the heavy page's first paint can take longer than any fixed wait).
    """
    page.set_content(HEAVY)
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 8})
    reference = {}
    for text in ("Red", "Blue"):
        page.evaluate("(t) => document.getElementById('head').textContent = t", text)
        pictures = [None]
        for _ in range(10):
            page.wait_for_timeout(300)
            pictures.append(picture(page))
            if pictures[-1] == pictures[-2]:
                break
        assert pictures[-1] == pictures[-2], f"the {text} state never settled"
        reference[text] = pictures[-1]
    assert reference["Red"] != reference["Blue"]
    return reference


@pytest.mark.parametrize("picture", [frame_hash, png_hash], ids=["frame", "full-size capture"])
def test_the_picture_is_never_older_than_a_change_made_just_before_it(page, picture):
    """The page changes and is pictured at once: every picture shows the change. The full-size capture is
    checked alone because `fast` hashes it without a fence or a frame (a critical step, a failure)."""
    reference = throttled_heavy_references(page, picture)
    stale = []
    for i in range(soak(16, 40)):  # 40 changes under COMETLOCAL_SOAK=1; each lands at another moment
        text = ("Red", "Blue")[i % 2]
        page.evaluate("(t) => document.getElementById('head').textContent = t", text)
        if picture(page) != reference[text]:
            stale.append(i)
    assert stale == []


def test_a_fresh_pages_blank_document_reuses_the_frame_of_the_first(chromium):
    from pytest_cometlocal.executor.page.observation import BlankFrames

    frames = BlankFrames()  # a run's (or a session's): what one look keeps, the next one reuses
    context = chromium.browser().new_context(viewport={"width": 640, "height": 480})
    try:
        first, second = context.new_page(), context.new_page()
        taken = observe(first, blanks=frames)
        reused = observe(second, blanks=frames)
        assert "screenshot_from" not in taken.signature.metadata
        assert reused.signature.metadata["screenshot_from"] == "blank_page"
        assert reused.signature.screenshot_hash == taken.signature.screenshot_hash
        # The same picture a frame of that page gives now; a look given no frames keeps and reuses none.
        alone = observe(second)
        assert alone.signature.screenshot_hash == taken.signature.screenshot_hash
        assert "screenshot_from" not in alone.signature.metadata
        # Anything written into the document makes it a page like any other.
        second.evaluate("document.body.style.background = 'red'")
        written = observe(second, blanks=frames)
        assert written.signature.metadata.get("screenshot_from") != "blank_page"
        assert written.signature.screenshot_hash != taken.signature.screenshot_hash
        # Another viewport is another picture.
        other = chromium.browser().new_context(viewport={"width": 800, "height": 480})
        try:
            assert observe(other.new_page(), blanks=frames).signature.metadata.get("screenshot_from") != "blank_page"
        finally:
            other.close()
    finally:
        context.close()
