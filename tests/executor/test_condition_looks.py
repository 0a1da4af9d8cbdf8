"""An element condition looks at the page once: its element's count and its text or value in one call.

Issue 36's cost of a v1 step: ``element_text_contains`` read the text with
``locator.evaluate`` (three round trips: wait for the element, read it, release
its handle) after a ``count()`` of the step's own element, and
``element_value_equals`` counted before ``input_value``; each look is now one
``evaluate_all`` that counts and reads (page/texts.py). Real Chromium; the
step's element is a real Locator behind a proxy that lists the Playwright calls
made on it. What is read is Playwright's own reading (``input_value``).
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from pydantic import TypeAdapter

from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.conditions import Condition
from pytest_cometlocal.executor.page.conditions import EVALUATORS, CheckContext
from pytest_cometlocal.executor.page.texts import element_value

from tests.support import CallRecorder, page_with

pytestmark = pytest.mark.browser

PAGE = """<title>Looks</title>
<label for="name">Name</label><input id="name" value="Ann">
<textarea id="notes">two  words</textarea>
<select id="size"><option>S</option><option selected>M</option></select>
<label id="wrap">Town <input value="Oslo"></label>
<p id="out">Applied <b>Ann</b>
   (M)</p>
<p class="twin">a</p><p class="twin">b</p>
"""


@pytest.fixture(scope="module")
def page(chromium) -> Iterator[Any]:
    yield from page_with(chromium, PAGE)


def condition(text: str) -> Any:
    import yaml

    return TypeAdapter(Condition).validate_python(yaml.safe_load(text))


def look(page: Any, selector: str, cond: str) -> tuple[bool, Any, list[str]]:
    """The condition evaluated once on the step's own element (``selector``), and the calls it made."""
    step = ActionSpec.model_validate({
        "id": "s", "kind": "fill", "criticality": "normal", "timeout_ms": 1000, "value": "x",
        "target": {"type": "css", "selector": selector},
        "preconditions": [{"kind": "host_in_allowlist"}], "postconditions": [{"kind": "host_in_allowlist"}]})
    spy = CallRecorder(page.locator(selector))
    ctx = CheckContext(page=page, step=step, base_url=None, allowlist=("127.0.0.1",), toast_selector="[role=status]",
                       overlay_selectors=(), step_locator=spy)
    kind = condition(cond)
    ok, observed = EVALUATORS[kind.kind](kind, ctx, "post")
    return ok, observed, spy.calls


@pytest.mark.parametrize(("selector", "cond", "observed"), [
    ("#name", "{kind: element_value_equals, args: {value: Ann}}", {"count": 1, "value": "Ann"}),
    ("#notes", "{kind: element_value_equals, args: {value: two  words}}", {"count": 1, "value": "two  words"}),
    ("#size", "{kind: element_value_equals, args: {value: M}}", {"count": 1, "value": "M"}),
    ("#out", "{kind: element_text_contains, args: {text: Ann (M)}}", {"count": 1, "text": "Applied Ann (M)"}),
    ("#out", "{kind: element_text_matches, args: {pattern: 'Ann \\(M\\)$'}}", {"count": 1, "text": "Applied Ann (M)"}),
    ("#name", "{kind: element_value_contains, args: {text: nn}}", {"count": 1, "value": "Ann"}),
])
def test_a_look_at_the_steps_element_is_one_call_that_counts_and_reads(page, selector, cond, observed):
    ok, seen, calls = look(page, selector, cond)
    assert (ok, seen) == (True, observed)
    assert calls == ["evaluate_all"]


def test_a_text_that_does_not_hold_is_still_one_call(page):
    ok, seen, calls = look(page, "#out", "{kind: element_text_contains, args: {text: Bob}}")
    assert (ok, seen, calls) == (False, {"count": 1, "text": "Applied Ann (M)"}, ["evaluate_all"])


def test_a_step_element_that_now_matches_two_is_said_so_from_the_same_look(page):
    ok, seen, calls = look(page, ".twin", "{kind: element_text_contains, args: {text: a}}")
    assert (ok, seen, calls) == (False, {"count": 2, "problem": "the target now matches 2 elements"}, ["evaluate_all"])


def test_element_exists_counts_once(page):
    ok, seen, calls = look(page, "#name", "{kind: element_exists}")
    assert (ok, seen, calls) == (True, {"count": 1}, ["count"])


@pytest.mark.parametrize("selector", ["#name", "#notes", "#size", "#wrap"])
def test_the_value_read_with_the_count_is_input_values(page, selector):
    """A form control's value, read in the look; a label (#wrap) is followed to its control by input_value."""
    locator = page.locator(selector)
    assert element_value(locator) == (1, locator.input_value())


BUSY_PAGE = """<title>Busy</title><p data-testid="shown">2 items left</p>
<script>
const spin = () => { const t = Date.now(); while (Date.now() - t < 450) {} };
window.startBusy = () => { setTimeout(spin, 0); setInterval(spin, 500); };
</script>"""


def test_a_look_answered_late_counts_the_element_not_nothing(chromium):
    """A condition's own target on a page whose main thread is busy 450 ms of every 500: the short
    look gets no answer, the second look does, so the element the page shows is counted 1, not 0
    (before, such a failing check reported {count: 0} for an element on the page)."""
    from pytest_cometlocal.contract.model.targets import TestIdTarget
    from pytest_cometlocal.executor.page.locators import resolve_now

    context = chromium.browser().new_context()
    try:
        busy = context.new_page()
        busy.set_content(BUSY_PAGE)
        # One look while the page is idle: Playwright sets up its helper script in the page on the
        # first look, several round trips that a page busy 90 % of the time may not let through in
        # 2 s on a loaded machine. A condition's look comes after its step has looked, so this is
        # the case the second look is for.
        assert resolve_now(busy, [TestIdTarget(type="testid", id="shown")]).resolved is not None
        busy.evaluate("startBusy()")
        looks = [resolve_now(busy, [TestIdTarget(type="testid", id="shown")]) for _ in range(8)]
        assert [look.resolved is not None for look in looks] == [True] * 8
        assert any(look.rounds == 2 for look in looks)  # the busy page did keep a short look unanswered
    finally:
        context.close()
