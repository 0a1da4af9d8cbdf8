"""Narrowing a target that matched several (TARGET_NOT_UNIQUE), without a browser (issue 24, part 3).

A narrowing suggestion must resolve to exactly one element, and that element
must be one of the failed target's matches: the decision is pure
(``narrowing_picks`` and ``resolved_match`` over what the page said of each
target), so it is held here on generated pages: a model of a page (elements
with their place in the tree, test ids, roles, names, attributes) and a model
of how the page resolves a target, with the traps real pages have: an empty
overlay with a test id, a container with the same test id as its child, a
text target that the page resolves to the wrapping element too, and a page
that re-rendered between the look and the check (a test id or an ``href``
now on another element, so a target built from a match finds one element
that is not it).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from pytest_cometlocal.executor.suggest.narrowing import (
    attribute_targets, describe_match, narrowing_picks, narrowing_targets, resolved_match,
)
from pytest_cometlocal.executor.suggest.ranking import css_string


def match(i: int, **fields: Any) -> dict[str, Any]:
    base = {"index": i, "tag": "a", "role": "link", "name": "genre", "label": "", "text": "genre", "testid": None,
            "id": None, "href": None, "attrs": {}, "container": None, "fp": f"a@0.1.{i}"}
    base.update(fields)
    return base


# -- CSS strings and attribute targets ------------------------------------------------------------


def css_unescape(quoted: str) -> str:
    """What a CSS engine reads from a double-quoted CSS string (the escapes css_string writes)."""
    assert quoted[0] == quoted[-1] == '"'
    return re.sub(r"\\([0-9a-fA-F]{1,6}) ?|\\(.)", lambda m: chr(int(m[1], 16)) if m[1] else m[2], quoted[1:-1])


@pytest.mark.parametrize("value, expected", [
    ("?_sort=genre", '"?_sort=genre"'),
    ('say "hi"', r'"say \"hi\""'),
    ("back\\slash", r'"back\\slash"'),
    ("two\nlines", r'"two\a lines"'),
    ("", '""'),
])
def test_css_string_escapes_quotes_backslashes_and_control_characters(value, expected):
    assert css_string(value) == expected
    assert css_unescape(expected) == value


def test_css_string_round_trips_any_text():
    rng = random.Random(7)
    alphabet = 'ab "\\\n\t\x7f?&=é#[]'
    for _ in range(300):
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert css_unescape(css_string(value)) == value, value


def test_links_that_differ_only_by_href_get_an_href_target_each():
    """Datasette: a column sort and a facet, both links named "genre"."""
    sort = match(0, href="?_sort=genre", attrs={"href": "?_sort=genre"})
    facet = match(1, href="/db/t?_facet=genre", attrs={"href": "/db/t?_facet=genre"})
    base = {"type": "role", "role": "link", "name": "genre", "exact": True}
    assert attribute_targets([sort, facet], 0, base) == [{"type": "css", "selector": 'a[href="?_sort=genre"]'}]
    assert attribute_targets([sort, facet], 1, base) == [{"type": "css", "selector": 'a[href="/db/t?_facet=genre"]'}]


def test_an_attribute_another_match_shares_does_not_tell_them_apart():
    a = match(0, attrs={"href": "/same", "aria-label": "Sort genre", "name": "g"})
    b = match(1, attrs={"href": "/same", "aria-label": "Facet genre"})
    c = match(2, attrs={"href": "/same", "name": "g"})
    assert attribute_targets([a, b, c], 0, {"type": "role", "role": "link"}) == [
        {"type": "css", "selector": 'a[aria-label="Sort genre"]'}]
    assert attribute_targets([a, b, c], 2, {"type": "role", "role": "link"}) == []


def test_a_css_base_is_also_narrowed_by_the_attribute_on_its_own_selector():
    a = match(0, tag="input", attrs={"name": "q", "value": "1"})
    b = match(1, tag="input", attrs={"name": "q", "value": "2"})
    assert [t["selector"] for t in attribute_targets([a, b], 1, {"type": "css", "selector": "form .field input"})] == [
        'input[value="2"]', 'form .field input[value="2"]']
    # a selector list cannot take one attribute for all its parts
    assert [t["selector"] for t in attribute_targets([a, b], 1, {"type": "css", "selector": "input, select"})] == [
        'input[value="2"]']


def test_attributes_come_after_the_matches_own_targets():
    a = match(0, testid="first", id="sort", attrs={"href": "/a"})
    b = match(1, attrs={"href": "/b"})
    base = {"type": "role", "role": "link", "name": "genre", "exact": True}
    tried = [(i, t["type"], by) for i, t, by in narrowing_targets([a, b], [0, 1], base)]
    assert tried == [
        (0, "testid", "its test id"),
        (0, "css", "a css target of its own"),  # #sort
        (0, "css", "an attribute only it has"), (1, "css", "an attribute only it has"),
    ]  # role + name is the failed target itself, text "genre" names both matches: neither is tried


def test_a_target_every_match_gives_is_never_tried():
    """A page of links all named "open": text=open names them all; each link's href tells it apart."""
    links = [match(i, name="open", text="open", attrs={"href": f"/r{i}"}) for i in range(20)]
    tried = narrowing_targets(links, list(range(20)), {"type": "role", "role": "link", "name": "open", "exact": True})
    assert [t for _, t, _ in tried] == [{"type": "css", "selector": f'a[href="/r{i}"]'} for i in range(20)]


def test_in_a_frame_attribute_targets_stay_in_the_frame_and_use_the_inner_selector():
    a = match(0, tag="input", attrs={"value": "1"})
    b = match(1, tag="input", attrs={"value": "2"})
    base = {"type": "frame", "selector": "#inner", "inner": {"type": "css", "selector": "input.q"}}
    tried = [(i, t["type"], t["inner"]) for i, t, by in narrowing_targets([a, b], [0, 1], base, "#inner")
             if by == "an attribute only it has"]
    assert tried[:2] == [(0, "frame", {"type": "css", "selector": 'input[value="1"]'}),
                         (0, "frame", {"type": "css", "selector": 'input.q[value="1"]'})]


# -- describing a match ------------------------------------------------------------------------


def test_a_match_is_described_by_itself_and_its_container_separately():
    grid = match(0, tag="div", role=None, name="", text="", testid="stDataFrame",
                 container="div [testid=stElementContainer]")
    assert describe_match(grid) == "div [testid=stDataFrame], in div [testid=stElementContainer]"
    link = match(1, href="?_sort=genre", container='table "Films"')
    assert describe_match(link) == 'a link "genre" href="?_sort=genre", in table "Films"'
    button = match(2, tag="button", role="button", name="Delete", container='region "Danger zone"')
    assert describe_match(button) == 'button "Delete", in region "Danger zone"'


def test_resolved_match_needs_one_element_that_is_a_match():
    matches = [match(0), match(1)]
    assert resolved_match({"count": 1, "fp": "a@0.1.1"}, matches) == 1
    assert resolved_match({"count": 1, "fp": "div@0.1.9"}, matches) is None  # one element, elsewhere
    assert resolved_match({"count": 2, "fp": None}, matches) is None
    assert resolved_match({"count": 0, "fp": None}, matches) is None
    assert resolved_match(None, matches) is None  # an invalid target, or no look left


# -- the invariant on generated pages -----------------------------------------------------------

VOCAB = {"testid": [None, None, "stDataFrame", "stElementContainer", "portal", "save"],
         "name": ["genre", "year", "Delete"], "href": ["?_sort=genre", "?_facet=genre", '/x?q="a"', "a\\b"]}


def generate_page(rng: random.Random) -> list[dict[str, Any]]:
    """Elements with their place (fp), parent, tag, role, name, test id and attributes: nested grids,
    links named alike, empty overlays with a test id, twins with the same href."""
    elements: list[dict[str, Any]] = []

    def add(parent: dict[str, Any] | None, depth: int) -> None:
        for n in range(rng.randint(1, 4) if depth < 3 else 0):
            kind = rng.choice(["grid", "link", "button", "overlay", "div"])
            testid = rng.choice(VOCAB["testid"])
            tag, role, name, attrs = "div", None, "", {}
            if kind == "grid":
                testid = rng.choice(["stDataFrame", "stElementContainer"])
            elif kind == "link":
                tag, role, name = "a", "link", rng.choice(VOCAB["name"])
                attrs["href"] = rng.choice(VOCAB["href"])
            elif kind == "button":
                tag, role, name = "button", "button", rng.choice(VOCAB["name"])
                if rng.random() < 0.5:
                    attrs["aria-label"] = name
                if rng.random() < 0.5:
                    attrs["value"] = rng.choice(["1", "2"])
            elif kind == "overlay":
                testid = rng.choice(["portal", "stDataFrame"])
            fp = f"{tag}@{parent['fp'].split('@')[1] if parent else '0'}.{n}"
            el = {"tag": tag, "role": role, "name": name, "text": name, "label": "", "testid": testid, "id": None,
                  "href": attrs.get("href"), "attrs": attrs, "fp": fp, "parent": parent and parent["fp"]}
            elements.append(el)
            add(el, depth + 1)

    add(None, 0)
    return elements


def resolve(page: list[dict[str, Any]], target: dict[str, Any], base: dict[str, Any]) -> list[str]:
    """What the page matches for a target (the fps), as the page would, quirks included: a text target
    also matches a wrapping element with the same text."""
    kind = target["type"]
    if kind == "nth":
        found = resolve(page, target["base"], base)
        return found[target["index"]:target["index"] + 1]
    if kind == "testid":
        return [e["fp"] for e in page if e["testid"] == target["id"]]
    if kind == "role":
        return [e["fp"] for e in page if e["role"] == target["role"] and e["name"] == target["name"]]
    if kind == "text":
        found = {e["fp"] for e in page if e["text"] == target["text"]}
        found |= {e["parent"] for e in page if e["fp"] in found and e["parent"]}  # the page's quirk
        return [e["fp"] for e in page if e["fp"] in found]
    if kind == "css":
        if target["selector"] == "[data-testid=stDataFrame]":
            return [e["fp"] for e in page if e["testid"] == "stDataFrame"]
        m = re.fullmatch(r"([a-z]*)(\[data-testid=stDataFrame\])?\[([\w-]+)=(\".*\")\]", target["selector"])
        assert m, target
        tag, scoped, attr, value = m[1], m[2], m[3], css_unescape(m[4])
        return [e["fp"] for e in page if (not tag or e["tag"] == tag) and e["attrs"].get(attr) == value
                and (not scoped or e["testid"] == "stDataFrame")]
    raise AssertionError(target)


def rerendered(page: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """The page after a re-render: two elements swapped their test ids and attributes."""
    now = [dict(e) for e in page]
    a, b = rng.sample(range(len(now)), 2) if len(now) > 1 else (0, 0)
    for key in ("testid", "attrs", "href"):
        now[a][key], now[b][key] = now[b][key], now[a][key]
    return now


BASES = [{"type": "css", "selector": "[data-testid=stDataFrame]"},
         {"type": "role", "role": "link", "name": "genre", "exact": True},
         {"type": "role", "role": "button", "name": "Delete", "exact": True}]


def test_every_narrowing_pick_on_generated_pages_is_exactly_one_of_the_matches():
    rng = random.Random(24)
    pages = picked = by_attribute = 0
    for _ in range(400):
        page = generate_page(rng)
        by_fp = {e["fp"]: e for e in page}
        for base in BASES:
            fps = resolve(page, base, base)
            if len(fps) < 2:
                continue
            pages += 1
            matches = [{**by_fp[fp], "index": i} for i, fp in enumerate(fps)]

            now = rerendered(page, rng) if rng.random() < 0.5 else page

            def check(target: dict[str, Any]) -> dict[str, Any]:  # the page as it is at the check
                found = resolve(now, target, base)
                return {"count": len(found), "fp": found[0] if len(found) == 1 else None}

            order = list(range(len(matches)))
            picks = list(narrowing_picks(matches, order, base, None, check))
            assert picks == list(narrowing_picks(matches, order, base, None, check))  # deterministic
            assert len({i for i, _, _ in picks}) == len(picks)  # one per match
            for i, target, by in picks:
                assert resolve(now, target, base) == [fps[i]], (target, fps)
            picked += len(picks)
            by_attribute += sum(1 for _, _, by in picks if by == "an attribute only it has")
            # A match whose test id no other element has is always narrowed by it.
            for i, m in enumerate(matches):
                if now is page and m["testid"] and sum(e["testid"] == m["testid"] for e in page) == 1:
                    assert (i, {"type": "testid", "id": m["testid"]}, "its test id") in picks
    assert pages > 100 and picked > 50 and by_attribute > 10  # the generator reaches every kind of pick
