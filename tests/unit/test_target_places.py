"""Where earlier steps found a target, kept in memory by the executor (executor/suggest/places.py).

The rule is the one the suggester used to read from the trace and the "before"
snapshots: the last step that resolved one of the target's alternatives
counts, once it passed; a later step that resolved it and did not pass
leaves no place.
"""

from __future__ import annotations

from pydantic import TypeAdapter

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.executor.page.locators import describe_compiled
from pytest_cometlocal.executor.suggest.places import TargetPlaces

_TARGET = TypeAdapter(T.Target)
SAVE = _TARGET.validate_python({"type": "testid", "id": "save"})
SAVE_CSS = _TARGET.validate_python({"type": "css", "selector": "#save"})
OTHER = _TARGET.validate_python({"type": "testid", "id": "other"})
FORM = {"target": {"tag": "button"},
        "ancestors": [{"tag": "form", "id": "a", "classes": "edit  wide"}, {"tag": "body"}]}
SECTION = {"target": {"tag": "button"}, "ancestors": [{"tag": "section", "id": "b", "classes": ""}]}


def test_the_place_of_the_last_passing_step_that_found_the_target() -> None:
    places = TargetPlaces()
    assert places.old_place([SAVE]) == ()
    places.found("first", describe_compiled(SAVE))
    places.passed("first", FORM)
    places.found("elsewhere", describe_compiled(OTHER))
    places.passed("elsewhere", SECTION)
    assert places.old_place([SAVE]) == ("form|a|edit wide", "body||")
    assert places.old_place([OTHER, SAVE_CSS]) == ("section|b|",)  # one of the alternatives is enough
    assert places.old_place([SAVE_CSS]) == ()


def test_a_later_step_that_found_it_and_did_not_pass_leaves_no_place() -> None:
    places = TargetPlaces()
    places.found("first", describe_compiled(SAVE))
    places.passed("first", FORM)
    places.found("again", describe_compiled(SAVE))  # then it failed: no pass recorded
    assert places.old_place([SAVE]) == ()
    places.passed("again", SECTION)  # its retry passed
    assert places.old_place([SAVE]) == ("section|b|",)
    places.passed("no_target", None)
    assert places.old_place([SAVE]) == ("section|b|",)


def test_elements_found_under_other_targets_are_claimed_and_the_failed_targets_own_are_not() -> None:
    """The plan names those elements already: the suggester does not offer them as the failed target renamed."""
    places = TargetPlaces()
    first = {"target": {"tag": "input", "id": "first", "name": "first"}, "ancestors": [{"tag": "form", "id": "f"}]}
    anonymous = {"target": {"tag": "input"}, "ancestors": [{"tag": "form", "id": "f"}]}  # cannot be told apart
    places.found("first", describe_compiled(OTHER))
    places.passed("first", first)
    places.found("save", describe_compiled(SAVE))
    places.passed("save", FORM | {"target": {"tag": "button", "id": "save-btn"}})
    places.found("plain", describe_compiled(SAVE_CSS))
    places.passed("plain", anonymous)
    assert places.claimed([SAVE]) == {("input", "first", "", "first", "form|f|")}
    assert places.claimed([OTHER]) == {("button", "save-btn", "", "", "form|a|edit wide", "body||")}
