"""The agent's aria snapshot (v1.1, agent/page_view.aria_view, which reads it as the evidence does:
executor/step/evidence.aria_text, cut by executor/page/texts.aria_cut): masked before it is cut, cut at a
whole line to its bound, and an answer (not a fault) when the page gives none. No browser: a page that answers
``locator("body").aria_snapshot()`` with a given text."""

from __future__ import annotations

from typing import Any

from pytest_cometlocal.executor.page import texts
from pytest_cometlocal.agent.page_view import aria_view
from pytest_cometlocal.executor.runfolder.redactor import Redactor

SECRET = "hunter2-correct-horse"


class _Page:
    def __init__(self, snapshot: str | Exception):
        self.snapshot = snapshot
        self.asked: list[tuple[str, Any]] = []

    def locator(self, selector: str) -> "_Page":
        self.asked.append(("locator", selector))
        return self

    def aria_snapshot(self, timeout: float) -> str:
        self.asked.append(("aria_snapshot", timeout))
        if isinstance(self.snapshot, Exception):
            raise self.snapshot
        return self.snapshot


def test_a_small_snapshot_comes_whole_with_its_secrets_masked():
    page = _Page(f'- heading "Sign in" [level=1]\n- textbox "User name": {SECRET}')
    view = aria_view(page, Redactor([SECRET]))
    assert view == {"aria_snapshot": '- heading "Sign in" [level=1]\n- textbox "User name": ***'}
    assert page.asked[0] == ("locator", "body")


def test_a_large_snapshot_is_cut_after_the_last_whole_line_that_fits(monkeypatch):
    monkeypatch.setattr(texts, "MAX_ARIA_BYTES", 40)
    lines = [f"- row \"{i:02d} é\"\n" for i in range(10)]  # 14 bytes each in UTF-8
    view = aria_view(_Page("".join(lines)), Redactor())
    assert view == {"aria_snapshot": "".join(lines[:2]), "aria_snapshot_truncated": True}


def test_masking_comes_before_the_cut_so_no_part_of_a_secret_is_left(monkeypatch):
    monkeypatch.setattr(texts, "MAX_ARIA_BYTES", 30)
    # Cut before masking, the first 30 bytes would end inside the secret.
    view = aria_view(_Page(f"- text: {SECRET} and more\n- b\n"), Redactor([SECRET]))
    assert view["aria_snapshot"] == "- text: *** and more\n- b\n" and "aria_snapshot_truncated" not in view
    monkeypatch.setattr(texts, "MAX_ARIA_BYTES", 15)
    view = aria_view(_Page(f"- a\n- text: {SECRET}\n"), Redactor([SECRET]))
    assert view == {"aria_snapshot": "- a\n", "aria_snapshot_truncated": True}
    assert SECRET[:5] not in str(view)


def test_a_page_without_a_snapshot_says_why_masked():
    view = aria_view(_Page(RuntimeError(f"Target closed while reading {SECRET}\nstack")), Redactor([SECRET]))
    assert view == {"aria_snapshot_unavailable": "Target closed while reading ***"}


def test_a_failed_conditions_actual_is_cut_at_the_same_bound_and_marked_within_it(monkeypatch):
    """aria_snapshot_matches' ``actual`` and the evidence (this view) are one cut (``texts.aria_cut``) at one
    bound: masked first, then after the last whole line; the condition's says so in a last line, within the bound."""
    monkeypatch.setattr(texts, "MAX_ARIA_BYTES", 40)
    snapshot = f"- a\n- text: {SECRET}\n" + "- row\n" * 10
    mask = Redactor([SECRET]).text
    assert texts.aria_cut(snapshot, mask) == ("- a\n- text: ***\n" + "- row\n" * 4, True)
    actual, cut = texts.aria_cut(snapshot, mask, marked=True)
    assert (actual, cut) == ("- a\n- text: ***\n- row\n... (truncated)", True) and len(actual.encode()) <= 40
    assert texts.aria_cut("- a\n", mask, marked=True) == ("- a\n", False)
    # Cut first, the marked bound (24 bytes before the mark) would end inside the secret.
    assert SECRET[:3] not in actual and len(f"- a\n- text: {SECRET}".encode()) > 40 - len(texts.TRUNCATED.encode())
