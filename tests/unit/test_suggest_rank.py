"""Suggested targets without a browser: similarity, ranking, the targets built, what asks for them, the text shown."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import pytest
import yaml
from pydantic import TypeAdapter

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.contract.model.suggestion import HEADING, suggestion_lines
from pytest_cometlocal.runs.reader import read_trace
from pytest_cometlocal.runs.show import suggested_lines
from pytest_cometlocal.executor.suggest.ranking import (
    SIMILARITY_FLOOR, Wanted, describe_candidate, element_key, edit_distance, normalise, place_key, rank, similarity,
    target_options, wanted_from,
)
from pytest_cometlocal.executor.suggest.suggester import request_for

ONE = TypeAdapter(T.Target)


def cand(index: int, **fields) -> dict:
    base = {"index": index, "tag": "button", "role": "button", "name": "", "label": "", "text": "", "testid": None,
            "id": None, "name_attr": None, "clickable": True, "fillable": False, "selectable": False, "file": False,
            "box": [0, index * 20, 80, 18], "containers": [], "ancestors": [], "fp": f"button|{index}"}
    base.update(fields)
    return base


# -- similarity -----------------------------------------------------------------


def test_normalise_folds_case_whitespace_and_punctuation():
    assert normalise("  Sign-In:\n now ") == "sign in now"


@pytest.mark.parametrize("a, b, distance", [("", "", 0), ("save", "save", 0), ("save", "safe", 1),
                                            ("kitten", "sitting", 3), ("", "abc", 3), ("abc", "", 3)])
def test_edit_distance(a, b, distance):
    assert edit_distance(a, b) == distance == edit_distance(b, a)


@pytest.mark.parametrize("a, b, expected", [
    ("Save  Changes", "save changes", 1.0),  # case and whitespace do not count
    ("E-mail", "Email", 1.0),  # compared without spaces: one word either way
    ("Save", "Save changes", 0.667),  # Dice: 2 x 1 shared word / 3 words
    ("save-button", "save-profile", 0.5),
    ("saveButton", "save_button", 1.0),  # camelCase and snake_case are the same words
    ("E-mail", "Email address", 0.667),  # "E-mail" read as one word, "email": Dice 2 x 1 / 3
    ("Colour", "Color", 0.909),  # one spelling: 1 deletion over 11 letters
    ("Edit", "Exit", 0.0),  # a letter changed in a short word is another word
    ("Inbox (3)", "Inbox (12)", 1.0),  # numbers are data, not the name
    ("Save", "", 0.0),
])
def test_similarity(a, b, expected):
    assert similarity(a, b) == expected


def test_very_different_lengths_are_not_compared_by_edits():
    assert similarity("ok", "a very long sentence of words") == 0.0


# -- what the failed target asked for ---------------------------------------------


def test_wanted_reads_names_ids_and_the_frame_of_every_alternative():
    alternatives = [
        ONE.validate_python({"type": "frame", "selector": "#f", "inner": {"type": "role", "role": "button", "name": "Save"}}),
        ONE.validate_python({"type": "testid", "id": "save-btn"}),
        ONE.validate_python({"type": "css", "selector": "form #profile-save[name='commit']"}),
        ONE.validate_python({"type": "nth", "base": {"type": "label", "text": "Email", "exact": True}, "index": 1}),
    ]
    w = wanted_from(alternatives, "clickable", "click")
    assert w.frame == "#f" and w.role == "button" and w.target_type == "role"
    assert w.ids == ("save-btn", "profile-save", "commit")
    assert w.texts == ("Save", "save-btn", "profile-save", "commit", "Email")


# -- ranking ----------------------------------------------------------------------


def test_the_element_that_can_take_the_action_comes_first_and_ties_keep_document_order():
    wanted = Wanted(texts=("Save",), need="clickable", action="click")
    heading = cand(0, tag="h2", role="heading", text="Save", name="Save", clickable=False)
    button = cand(1, name="Save changes", text="Save changes")
    twin = cand(2, name="Save changes", text="Save changes")
    ranked = rank(wanted, [heading, button, twin])
    assert [r.candidate["index"] for r in ranked] == [1, 2, 0]
    assert ranked[0].score == ranked[1].score > ranked[2].score
    assert ranked[0].reasons[0] == "clickable as click needs"


def test_an_element_that_cannot_take_the_action_needs_a_name_nearly_the_same():
    """A heading sharing a word with a removed button is not it (KIND_FLOOR); one named the same may be."""
    wanted = Wanted(texts=("Send request",), role="button", need="clickable", action="click")
    heading = cand(0, tag="h1", role="heading", name="Request form", text="Request form", clickable=False)
    assert similarity("Send request", "Request form") >= SIMILARITY_FLOOR
    assert rank(wanted, [heading]) == []
    field = cand(1, tag="textarea", role="textbox", name="SQL query", label="SQL query", clickable=False,
                 fillable=True)
    assert rank(Wanted(texts=("Run SQL",), role="button", need="clickable", action="click"), [field]) == []
    assert rank(Wanted(texts=("SQL query",), need=None, action="element_visible"), [field])  # no action asked


def test_fill_suggests_only_fields():
    wanted = Wanted(texts=("E-mail",), need="fillable", action="fill")
    nav = cand(0, tag="nav", role="navigation", name="Main", clickable=False)
    field = cand(1, tag="input", role="textbox", name="Email address", label="Email address", fillable=True,
                 clickable=False)
    assert [r.candidate["index"] for r in rank(wanted, [nav, field])] == [1]


def test_nothing_close_gives_nothing_and_a_distant_one_is_cut_beside_a_close_one():
    wanted = Wanted(texts=("Export to spreadsheet",), need="clickable")
    assert rank(wanted, [cand(0, name="Monthly reports Help")]) == []
    wanted = Wanted(texts=("Send",), need="clickable")
    close = cand(0, name="Send request")
    distant = cand(1, tag="p", role=None, text="Send it later", clickable=False)
    assert similarity("Send", "Send it later") >= SIMILARITY_FLOOR  # over the floor, under half the best score
    assert [r.candidate["index"] for r in rank(wanted, [close, distant])] == [0]


# What a rename keeps (a word, a spelling, an id) and what a removal leaves (names that share none): the floor
# (SIMILARITY_FLOOR) passes the first and stops the second, whatever the candidate's kind and role.
RENAMED = [("Save", "Save changes"), ("E-mail", "Email address"), ("Documents", "Library documents"),
           ("Log in", "Sign in"), ("Group name:", "Name:"), ("View website", "View site"),
           ("Save and add more", "Save and add another"), ("Send", "Send request"), ("Colour", "Color"),
           ("Login", "Log in"), ("User name", "Username"), ("save-button", "save-profile"),
           ("login-submit", "login-button"), ("id_group_name", "id_name")]
REMOVED_BESIDE = [("Edit", "Exit"), ("Import", "Export"), ("Imports", "Exports"), ("Delete", "Select"),
                  ("Send", "Ready"), ("Company", "Country"), ("Archive", "Save changes"), ("Remove", "Rename"),
                  ("Help", "Hello"), ("Print", "Paint"), ("Phone", "Email address"), ("Submit", "Send")]


@pytest.mark.parametrize("old, new", RENAMED, ids=[f"{a}->{b}" for a, b in RENAMED])
def test_a_rename_clears_the_floor_and_is_suggested(old, new):
    assert similarity(old, new) >= SIMILARITY_FLOOR
    wanted = Wanted(texts=(old,), ids=(old,), role="button", need="clickable", action="click")
    assert [r.candidate["index"] for r in rank(wanted, [cand(0, name=new, testid=new)])] == [0]


@pytest.mark.parametrize("gone, left", REMOVED_BESIDE, ids=[f"{a}-beside-{b}" for a, b in REMOVED_BESIDE])
def test_a_removed_elements_neighbour_of_the_same_kind_and_role_is_not_suggested(gone, left):
    """Clickable, a button as the target was, in the place it was: none of that makes it the same element."""
    place = (place_key({"tag": "form", "id": "f", "classes": ""}),)
    wanted = Wanted(texts=(gone,), ids=(gone.lower(),), role="button", need="clickable", action="click",
                    old_place=place)
    neighbour = cand(0, name=left, text=left, testid=left.lower(), ancestors=list(place))
    assert similarity(gone, left) < SIMILARITY_FLOOR
    assert rank(wanted, [neighbour]) == []


def test_ids_count_for_a_test_id_or_css_target():
    wanted = wanted_from([ONE.validate_python({"type": "testid", "id": "save-button"})], "clickable", "click")
    other = cand(0, name="Cancel", testid="cancel")
    renamed = cand(1, name="Save changes", testid="save-profile")
    ranked = rank(wanted, [other, renamed])
    assert ranked[0].candidate["index"] == 1 and ranked[0].parts["ids"] == 0.5


def test_the_old_place_puts_the_candidate_where_the_target_was_first():
    old = (place_key({"tag": "form", "id": "a", "classes": ""}), place_key({"tag": "body", "id": None, "classes": ""}))
    wanted = Wanted(texts=("Save",), need="clickable", old_place=old)
    elsewhere = cand(0, name="Save now", ancestors=["section|b|", "body||"])
    there = cand(1, name="Save now", ancestors=["form|a|", "body||"])
    ranked = rank(wanted, [elsewhere, there])
    assert [r.candidate["index"] for r in ranked] == [1, 0]
    assert ranked[0].parts["place"] == 1.0 and ranked[1].parts["place"] == 0.5


def test_an_element_an_earlier_step_found_under_another_target_is_not_suggested():
    first = cand(0, tag="input", role="textbox", name="First name", label="First name", id="first", fillable=True,
                 clickable=False, ancestors=["form|f|"])
    wanted = Wanted(texts=("Last name",), need="fillable", action="fill")
    assert [r.candidate["index"] for r in rank(wanted, [first])] == [0]  # at the floor: 0.5
    claimed = frozenset({element_key("input", "first", None, None, ("form|f|",))})
    assert rank(Wanted(texts=("Last name",), need="fillable", action="fill", claimed=claimed), [first]) == []


def test_ranking_is_deterministic_whatever_the_order_the_candidates_come_in():
    wanted = Wanted(texts=("Save",), need="clickable")
    cands = [cand(i, name=name) for i, name in enumerate(["Save", "Save all", "Saved", "Save changes", "Safe"])]
    expected = [r.candidate["index"] for r in rank(wanted, cands)]
    for seed in range(5):
        shuffled = cands[:]
        random.Random(seed).shuffle(shuffled)
        assert [r.candidate["index"] for r in rank(wanted, shuffled)] == expected


# -- the targets a candidate gets ---------------------------------------------------


def test_targets_are_valid_plan_targets_most_robust_first_and_the_failed_type_first():
    field = cand(0, tag="input", role="textbox", name="Email address", label="Email address", testid="email",
                 id="e-mail", fillable=True, clickable=False)
    options = target_options(field)
    assert [o["type"] for o in options] == ["role", "label", "testid", "css"]
    assert [o["type"] for o in target_options(field, prefer="css")] == ["css", "role", "label", "testid"]
    for option in options:
        model = ONE.validate_python(option)
        if option["type"] in ("role", "label", "text"):
            assert model.exact is True  # U2 for label and text; exact names for role
    assert options[3] == {"type": "css", "selector": "#e-mail"}


def test_clipped_names_are_never_used_and_odd_ids_are_quoted():
    c = cand(0, name="x" * 80, name_clipped=True, text="x" * 80, text_clipped=True, id='a b"c')
    assert target_options(c) == [{"type": "css", "selector": '[id="a b\\"c"]'}]


def test_a_frame_target_wraps_every_suggestion():
    options = target_options(cand(0, name="Go"), frame="#inner")
    assert options[0] == {"type": "frame", "selector": "#inner",
                          "inner": {"type": "role", "role": "button", "name": "Go", "exact": True}}
    ONE.validate_python(options[0])


def test_describe_candidate_names_the_element_and_its_container():
    c = cand(0, name="Save", id="save", testid="save-btn", containers=['form "Profile"'])
    assert describe_candidate(c) == 'button "Save" #save [testid=save-btn] in form "Profile"'


# -- which failures ask for suggestions ----------------------------------------------


def _spec(kind="click", target=None):
    target = target or {"type": "role", "role": "button", "name": "Save", "exact": True}
    return SimpleNamespace(kind=kind, alternatives=[ONE.validate_python(target)])


def _fc(kind, observed, target=None):
    args = {"target": target} if target else {}
    return FailedCondition(kind=kind, args=args, phase="post", observed=observed)


def test_target_codes_ask_for_replacements_or_narrowing():
    assert request_for(_spec(), ErrorCode.TARGET_NOT_FOUND, None).narrow is False
    narrowing = request_for(_spec("fill"), ErrorCode.TARGET_NOT_UNIQUE, None)
    assert narrowing.narrow is True and narrowing.need == "fillable"
    assert request_for(_spec(), ErrorCode.OVERLAY_BLOCKING, None) is None


def test_an_element_condition_asks_only_when_its_target_matched_none_or_several():
    own = {"type": "testid", "id": "result"}
    missing = request_for(_spec("assert"), ErrorCode.POSTCONDITION_FAILED,
                          [_fc("element_text_contains", {"count": 0, "counts": [0]}, own)])
    assert missing.alternatives[0].id == "result" and missing.narrow is False and missing.action == "element_text_contains"
    several = request_for(_spec("assert"), ErrorCode.PRECONDITION_FAILED, [_fc("element_visible", {"count": 3})])
    assert several.narrow is True and several.alternatives[0].type == "role"
    assert request_for(_spec(), ErrorCode.POSTCONDITION_FAILED, [_fc("element_visible", {"count": 1, "visible": False})]) is None
    assert request_for(_spec(), ErrorCode.POSTCONDITION_FAILED, [_fc("element_count_equals", {"count": 0})]) is None
    assert request_for(_spec(), ErrorCode.POSTCONDITION_FAILED, [_fc("url_matches", {"url": "x"})]) is None


def test_the_v1_3_kinds_and_element_checks_ask_as_the_older_ones_do():
    """(v1.3) focus, blur and dispatch_event name one element as a click does: a target that matched none or
    several gets suggestions; so does an element_css / element_in_viewport / element_html_contains whose
    target did not match one. A count with number keys counts, as element_count_equals always did."""
    for kind in ("focus", "blur", "dispatch_event"):
        assert request_for(_spec(kind), ErrorCode.TARGET_NOT_FOUND, None).narrow is False
        assert request_for(_spec(kind), ErrorCode.TARGET_NOT_UNIQUE, None).narrow is True
    assert [request_for(_spec(k), ErrorCode.TARGET_NOT_FOUND, None).need for k in ("focus", "blur", "dispatch_event")] \
        == ["clickable", "clickable", None]  # a field or control is what takes focus; an event, any element
    for kind in ("element_css", "element_in_viewport", "element_html_contains"):
        asked = request_for(_spec("assert"), ErrorCode.POSTCONDITION_FAILED, [_fc(kind, {"count": 0})])
        assert asked is not None and asked.action == kind
        assert request_for(_spec("assert"), ErrorCode.POSTCONDITION_FAILED, [_fc(kind, {"count": 1})]) is None


# -- the text shown ---------------------------------------------------------------------

SUGGESTIONS = [
    {"target": {"type": "label", "text": "Name:", "exact": True}, "matched": 'textbox "Name:" #id_name',
     "score": 0.55, "why": 'fillable as fill needs; "Name:" is close to "Group name:" (0.67)'},
    {"target": {"type": "nth", "base": {"type": "role", "role": "button", "name": "Delete", "exact": True}, "index": 0},
     "matched": 'button "Delete"', "score": 0.5, "why": "match 0 of the 3",
     "rationale": "match 0 (0-based) of the 3 elements role=button[name=\"Delete\"] matches: button \"Delete\""},
]


def test_the_suggestions_are_yaml_ready_to_paste():
    lines = suggestion_lines({"suggestions": SUGGESTIONS, "suggestions_note": "only the first 2000 elements"})
    assert lines[0] == "  " + HEADING
    pasted = [line for line in lines if line.strip().startswith(("target:", "metadata:"))]
    assert len(pasted) == 3
    assert yaml.safe_load(pasted[0]) == {"target": SUGGESTIONS[0]["target"]}
    assert pasted[0].strip().startswith("target: {type: label, text: 'Name:', exact: true}  # textbox")
    step = yaml.safe_load(pasted[1] + "\n" + pasted[2])  # the nth one: its target and its rationale (U3)
    assert step == {"target": SUGGESTIONS[1]["target"], "metadata": {"target_rationale": SUGGESTIONS[1]["rationale"]}}
    assert lines[-1] == "    # note: only the first 2000 elements"


def test_no_suggestion_work_shows_nothing_and_none_found_says_so():
    assert suggestion_lines({"count_observed": 0}) == []
    assert suggestion_lines(None) == []
    none = suggestion_lines({"suggestions": []})
    assert none[0].strip() == HEADING and none[1].strip().startswith("# none:")


def test_show_reads_the_last_error_of_a_run_folder(tmp_path):
    error = {"error_code": "TARGET_NOT_FOUND", "details": {"suggestions": SUGGESTIONS[:1]}}
    lines = [{"event_type": "run_started"}, {"event_type": "error_raised", "error": error}, {"event_type": "run_finished"}]
    (tmp_path / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines), encoding="utf-8")
    errors = read_trace(tmp_path / "trace.jsonl").errors
    assert suggested_lines(errors) == suggestion_lines(error["details"])
    assert suggested_lines(errors[:0]) == []
