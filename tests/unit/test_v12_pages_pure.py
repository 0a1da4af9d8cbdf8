"""(v1.2) The pages' pure logic, without a browser: which page becomes active when one closes, and an action
whose page closed itself (a popup's submit running ``window.close()``) is done, not a crash."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from pytest_cometlocal.contract.validate.validator import validate_action_spec
from pytest_cometlocal.executor.pages.pages import Pages
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.step import actions as A


@dataclass(eq=False)
class FakePage:
    name: str
    context: Any = None
    closed: bool = False
    opened_by: Any = None

    def is_closed(self) -> bool:
        return self.closed

    def opener(self) -> Any:
        return self.opened_by

    def close(self, **_: Any) -> None:
        self.closed = True


@dataclass
class FakeContext:
    listeners: list = field(default_factory=list)
    pages: list = field(default_factory=list)

    def on(self, _event: str, listener: Any) -> None:
        self.listeners.append(listener)

    def open(self, page: FakePage) -> FakePage:
        page.context = self
        self.pages.append(page)
        for listener in self.listeners:
            listener(page)
        return page


def three_pages() -> tuple[Pages, FakePage, FakePage, FakePage]:
    context = FakeContext()
    first = context.open(FakePage("first"))
    pages = Pages(first)
    popup = context.open(FakePage("popup", opened_by=first))
    tab = context.open(FakePage("tab", opened_by=popup))
    assert pages.take_opened() == [popup, tab]  # openers are noted when the executor first sees a page
    return pages, first, popup, tab


def test_a_closed_active_page_hands_over_to_its_opener_else_the_first_page():
    pages, first, popup, tab = three_pages()
    pages.activate(tab)
    tab.closed = True  # it closed itself
    assert pages.active is popup and pages.index() == 1
    popup.closed = True
    assert pages.active is first and pages.open == [first]
    assert pages.signature_metadata() == {"page": 0}


def test_close_active_closes_it_and_the_opener_takes_over():
    pages, first, popup, tab = three_pages()
    pages.activate(popup)
    assert pages.close_active() is first and popup.closed
    assert pages.open == [first, tab] and pages.index(tab) == 1


def test_a_one_page_run_names_no_page_in_its_signatures():
    context = FakeContext()
    pages = Pages(context.open(FakePage("only")))
    assert pages.signature_metadata() == {} and pages.take_opened() == []


CLOSED = "Locator.click: Target page, context or browser has been closed"


@pytest.mark.parametrize("closed_itself, expected", [(True, {"page_closed": True, "page": 0}), (False, "classified")])
def test_an_action_whose_page_closed_itself_is_done(monkeypatch, closed_itself, expected):
    pages, first, popup, _tab = three_pages()
    pages.activate(popup)

    def click(_actions: Any, _attempt: Any) -> dict[str, Any]:
        popup.closed = closed_itself  # the submit ran window.close(); or the whole browser went away
        raise PlaywrightError(CLOSED)

    monkeypatch.setitem(A.ACTIONS, "click", A.ActionRow(click, A.KINDS["click"]))
    ctx = SimpleNamespace(pages=pages, page=pages.active, events=SimpleNamespace(crashed=False))
    actions = A.Actions(ctx, failures=None, safety=None)  # type: ignore[arg-type]
    monkeypatch.setattr(A.Actions, "classify", lambda self, attempt, exc: RuntimeError("classified"))
    spec = validate_action_spec({"id": "submit", "kind": "click", "criticality": "normal", "timeout_ms": 1000,
                                 "target": {"type": "testid", "id": "go"},
                                 "preconditions": [{"kind": "host_in_allowlist"}],
                                 "postconditions": [{"kind": "host_in_allowlist"}]})
    attempt = StepAttempt(spec, 0, "step_000", 1, False)
    if expected == "classified":
        with pytest.raises(RuntimeError, match="classified"):
            actions.perform(attempt)
    else:
        assert actions.perform(attempt) == expected
