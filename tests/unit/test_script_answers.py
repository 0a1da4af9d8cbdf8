"""The one check of what a page script answered (executor/scripts.py): a malformed answer is PageTampered."""

from __future__ import annotations

import json

import pytest

from pytest_cometlocal.executor.errors import PageTampered
from pytest_cometlocal.executor.page.observation import look_of
from pytest_cometlocal.executor.scripts import checked_answer

SHAPE = {"url": str, "key": list, "controls": (dict, type(None))}
GOOD = {"url": "http://127.0.0.1/", "key": [], "controls": None, "extra": 1}


@pytest.mark.parametrize("raw, problem", [
    ("{}", "no 'url'"),
    ("not json", "not JSON: 'not json'"),
    ("[1, 2]", "not an object but list"),
    (7, "not an object but int"),
    ({**GOOD, "key": 1}, "'key' is int"),
    ({**GOOD, "key": None}, "'key' is NoneType"),
    ({**GOOD, "controls": []}, "'controls' is list"),
    ({**GOOD, "url": True}, "'url' is bool"),
])
def test_a_malformed_answer_is_page_tampered_naming_what_is_wrong(raw, problem):
    with pytest.raises(PageTampered) as caught:
        checked_answer("observation", raw, SHAPE)
    assert (caught.value.what, caught.value.problem) == ("observation", problem)


def test_a_well_formed_answer_passes_as_text_or_object():
    assert checked_answer("observation", json.dumps(GOOD), SHAPE) == GOOD
    assert checked_answer("observation", GOOD, SHAPE) == GOOD


def test_look_of_checks_the_shape_and_asks_for_controls_only_when_used():
    data = {"url": "u", "title": "t", "text": "x", "key": [["a"]], "anchors": [], "inputs": [], "controls": None}
    assert look_of(json.dumps(data), False).metadata["key_elements"] == 1
    with pytest.raises(PageTampered, match="'controls' is NoneType"):
        look_of(data, True)
    del data["controls"]
    assert look_of(data, False).metadata["key_elements"] == 1
    with pytest.raises(PageTampered, match="no 'title'"):
        look_of({k: v for k, v in data.items() if k != "title"}, False)
