"""The v1.1 actions without a browser: which rows resolve a target, what a check may do, which element's
failure asks for suggestions, and the bounded poll the new actions wait with."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
from pydantic import TypeAdapter

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.page import locators
from pytest_cometlocal.executor.page.controls import ControlState, can_set
from pytest_cometlocal.executor.step.actions import ACTIONS
from pytest_cometlocal.executor.suggest.ranking import ACTION_NEEDS
from pytest_cometlocal.executor.suggest.suggester import request_for

ONE = TypeAdapter(T.Target)
NEW_KINDS = ("press", "hover", "check", "uncheck", "drag")


def test_each_new_kind_is_a_row_that_resolves_its_target():
    for kind in NEW_KINDS:
        row = ACTIONS[kind]
        assert row.kind.resolves_target and not (row.url_of or row.kind.waits or row.kind.ends_run) and row.kind.post_phase == "post"


def state(kind: str | None, checked: bool | None = False) -> ControlState:
    return ControlState(checkable=kind is not None, kind=kind, checked=checked, tag="input" if kind else "button")


@pytest.mark.parametrize(("kind", "checked", "allowed"), [
    ("checkbox", True, True), ("checkbox", False, True), ("switch", False, True), ("menuitemcheckbox", False, True),
    ("radio", True, True), ("radio", False, False),  # a radio is unchecked by checking another of its group
    (None, True, False), (None, False, False),
])
def test_what_a_check_or_uncheck_may_act_on(kind, checked, allowed):
    assert can_set(state(kind), checked) is allowed


def test_a_control_is_described_for_a_failed_condition():
    assert state("radio", True).described() == {"tag": "input", "role": None, "type": None, "kind": "radio",
                                                  "checked": True}


def _drag(target_id: str = "task-shipp", to_id: str = "task-wrte"):
    return SimpleNamespace(kind="drag", alternatives=[ONE.validate_python({"type": "testid", "id": target_id})],
                           to_alternatives=[ONE.validate_python({"type": "testid", "id": to_id})])


@pytest.mark.parametrize(("which", "asked"), [(None, "task-shipp"), ("target", "task-shipp"), ("to", "task-wrte")])
def test_a_target_failure_asks_suggestions_for_the_element_it_names(which, asked):
    request = request_for(_drag(), ErrorCode.TARGET_NOT_FOUND, None, which)
    assert [t.id for t in request.alternatives] == [asked]
    assert request.need == "clickable" and request.action == "drag"


def test_a_missing_option_asks_for_none():
    select = SimpleNamespace(kind="select", alternatives=[ONE.validate_python({"type": "testid", "id": "country"})])
    assert request_for(select, ErrorCode.TARGET_NOT_FOUND, None, "option") is None
    assert request_for(select, ErrorCode.TARGET_NOT_UNIQUE, None, "option") is None


def test_the_pointer_and_key_kinds_ask_what_a_click_asks():
    assert {kind: ACTION_NEEDS[kind] for kind in NEW_KINDS} == dict.fromkeys(NEW_KINDS, ACTION_NEEDS["click"])


class Clock:
    """A page whose waits advance a fake clock (poll_until's pauses), so no test sleeps."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.now = 100.0
        self.waits: list[float] = []
        monkeypatch.setattr(locators.time, "monotonic", lambda: self.now)

    def wait_for_timeout(self, ms: float) -> None:
        self.waits.append(ms)
        self.now += ms / 1000


def test_poll_until_looks_until_true(monkeypatch):
    page = Clock(monkeypatch)
    answers = iter([False, False, True])
    assert locators.poll_until(page, page.now + 5, lambda: next(answers)) is True
    assert page.waits == [20, 40]  # the pause grows between looks


def test_poll_until_gives_up_at_the_deadline_after_a_last_look(monkeypatch):
    page = Clock(monkeypatch)
    looks = itertools.count(1)
    deadline = page.now + 1
    assert locators.poll_until(page, deadline, lambda: next(looks) < 0) is False
    assert page.now >= deadline and max(page.waits) <= 200  # never a pause of more than 200 ms
    assert sum(page.waits) == pytest.approx(1000)  # the last pause ends at the deadline, then one more look


def test_call_ms_is_the_time_left_and_leaves_a_last_call_some(monkeypatch):
    page = Clock(monkeypatch)
    assert locators.call_ms(page.now + 5) == 5_000
    assert locators.call_ms(page.now - 10) == locators.MIN_MATCH_BOUND_MS
