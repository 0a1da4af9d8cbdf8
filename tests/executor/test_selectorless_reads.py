"""The reads that match no element go through no Playwright selector (issue 38, item 2).

Playwright builds its selector engine in a page's main world for the first
selector read there (``locator.evaluate_all``): a cost per document. The
observation alone and the page conditions need no selector, so they are a
plain ``page.evaluate`` or a call of the page's own, never a locator. Real
Chromium; the page is a real Page behind a proxy that lists the Playwright
calls made on it (and anything reached through them).
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest
import yaml
from pydantic import TypeAdapter

from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.conditions import Condition
from pytest_cometlocal.executor.page.conditions import EVALUATORS, CheckContext
from pytest_cometlocal.executor.page.observation import observe

from tests.support import CallRecorder, page_with

pytestmark = pytest.mark.browser

PAGE = """<title>Reads</title>
<h1>Orders</h1><label for="q">Search</label><input id="q" value="x">
<div role="status">Saved</div>
"""

# Page calls that match a selector (each sets up, or uses, Playwright's selector engine).
SELECTOR_CALLS = {"locator", "get_by_role", "get_by_text", "get_by_label", "get_by_placeholder", "get_by_test_id",
                  "get_by_title", "get_by_alt_text", "query_selector", "query_selector_all", "eval_on_selector",
                  "eval_on_selector_all", "wait_for_selector", "frame_locator"}


@pytest.fixture(scope="module")
def page(chromium) -> Iterator[Any]:
    yield from page_with(chromium, PAGE)


def test_the_observation_is_one_plain_evaluate(page):
    spy = CallRecorder(page)
    observation = observe(spy, screenshot=False)
    assert observation.snapshot["title"] == "Reads"
    assert spy.calls == ["evaluate"]


@pytest.mark.parametrize(("cond", "holds"), [
    ("{kind: url_matches, args: {pattern: 'about:blank'}}", True),
    ("{kind: title_contains, args: {text: Reads}}", True),
    ("{kind: title_contains, args: {text: Invoices}}", False),
    ("{kind: toast_contains, args: {text: Saved}}", True),
    ("{kind: host_in_allowlist}", True),  # about:blank is no host
])
def test_a_page_condition_reads_no_selector(page, cond, holds):
    step = ActionSpec.model_validate({
        "id": "s", "kind": "assert", "criticality": "normal", "timeout_ms": 1000,
        "preconditions": [{"kind": "host_in_allowlist"}], "postconditions": [{"kind": "host_in_allowlist"}]})
    spy = CallRecorder(page)
    ctx = CheckContext(page=spy, step=step, base_url=None, allowlist=("127.0.0.1",), toast_selector="[role=status]",
                       overlay_selectors=())
    kind = TypeAdapter(Condition).validate_python(yaml.safe_load(cond))
    ok, _observed = EVALUATORS[kind.kind](kind, ctx, "post")
    assert ok is holds
    assert not set(spy.calls) & SELECTOR_CALLS, spy.calls
