"""The session's browser through the fixtures: one Chromium for every item, a new one only after it died."""

from __future__ import annotations

import pytest

from tests.support import PORTAL_CONFTEST, plan, write

pytestmark = pytest.mark.browser

KILLING_CONFTEST = PORTAL_CONFTEST + """

from pytest_cometlocal.executor.browser.manager import BrowserManager

@pytest.fixture(autouse=True)
def _count_launches(request, cometlocal_browser_manager):
    assert isinstance(cometlocal_browser_manager, BrowserManager)
    yield
    manager = cometlocal_browser_manager
    print("LAUNCHES", request.node.name, manager.launches, flush=True)
    if request.node.name == "second":
        manager.browser().close()  # as if Chromium died after this item: no longer connected
"""

OPEN = "- {id: open, kind: navigate, target: {type: url, url: /login}}\n"


def test_items_share_one_chromium_and_a_dead_one_is_relaunched(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(KILLING_CONFTEST)
    for name in ("first", "second", "third"):
        write(pytester, f"{name}.actions.yaml", plan(OPEN, name))
    result = pytester.runpytest_subprocess("-s", "-p", "no:randomly", "first.actions.yaml", "second.actions.yaml",
                                           "third.actions.yaml")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*LAUNCHES first 1", "*LAUNCHES second 1", "*LAUNCHES third 2"])


BAD_HAR_CONFTEST = PORTAL_CONFTEST + """

from pytest_cometlocal.executor.page import watchdog

# The close below never returns until its bound ends it: a short bound, since the point is the items' results.
watchdog.CONTEXT_CLOSE_MS = 1_500

@pytest.fixture
def cometlocal_context_args():
    # Playwright writes the HAR when the context closes: here it cannot, so context.close() fails (Playwright
    # 1.64 never returns from it; the bound of close_context ends it with CallTimedOut).
    return {"record_har_path": "/proc/no-such-dir/run.har"}
"""


def test_an_error_closing_the_context_never_masks_the_item_result(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(BAD_HAR_CONFTEST)
    write(pytester, "good.actions.yaml", plan(OPEN, "good"))
    write(pytester, "bad.actions.yaml", plan(
        "- {id: open, kind: navigate, target: {type: url, url: /login}, postconditions: [{kind: title_contains, args: {text: Nowhere}}]}\n",
        "bad"))
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)  # and no teardown errors
    result.stdout.fnmatch_lines(["FAILED bad.actions.yaml::bad - POSTCONDITION_FAILED at step 'open'*"])
