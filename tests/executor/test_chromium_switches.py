"""The feature switches a launched Chromium really gets, read from its processes' command lines.

Chromium keeps only the last ``--disable-features``: the one ``launch_args`` writes
must hold every feature Playwright disables itself (``PLAYWRIGHT_DISABLED``, a copy;
a Playwright that adds one fails here). Ours keep the omnibox popup's WebUI from being
preloaded in a renderer of its own for every context; with Playwright's switches
alone, it is (the neighbour that shows the switch does something).
"""

from __future__ import annotations

import os

import pytest

from pytest_cometlocal.executor.browser.chromium import OUR_DISABLED, PLAYWRIGHT_DISABLED, system_chromium
from tests.conftest import shared_playwright
from tests.reliability.procs import command_line, descendants

pytestmark = pytest.mark.browser

WEBUI = "--top-chrome-webui"


def browser_mains() -> dict[int, list[str]]:
    """pid -> command line of every Chromium main process below this one (the suite's, a test's own)."""
    lines = {pid: command_line(pid) for pid in descendants(os.getpid())}
    return {pid: line for pid, line in lines.items()
            if "--remote-debugging-pipe" in line and not any(arg.startswith("--type=") for arg in line)}


def disabled_features(line: list[str]) -> list[str]:
    switches = [arg for arg in line if arg.startswith("--disable-features=")]
    return switches[-1].split("=", 1)[1].split(",") if switches else []


def webui_renderers(browser) -> int:
    """Open three contexts with a page each; count the top-chrome WebUI renderers below this process."""
    contexts = [browser.new_context() for _ in range(3)]
    try:
        for context in contexts:
            context.new_page().set_content("<p>a page</p>")
        contexts[-1].pages[0].wait_for_timeout(1000)  # a preloaded WebUI starts after the window
        return sum(WEBUI in command_line(pid) for pid in descendants(os.getpid()))
    finally:
        for context in contexts:
            context.close()


@pytest.fixture
def playwrights_own(chromium):
    """A Chromium launched by Playwright with no args of ours: what Playwright itself passes."""
    path = system_chromium()
    if path is None:
        pytest.skip("no system Chromium")
    before = set(browser_mains())
    browser = shared_playwright(chromium).chromium.launch(executable_path=path)
    try:
        (line,) = [line for pid, line in browser_mains().items() if pid not in before]
        yield browser, line
    finally:
        browser.close()


def test_ours_keep_every_feature_playwright_disables(chromium, playwrights_own) -> None:
    _, playwright_line = playwrights_own
    assert set(disabled_features(playwright_line)) <= set(PLAYWRIGHT_DISABLED)
    chromium.browser()
    ours = [line for line in browser_mains().values() if line != playwright_line]
    assert ours, "the suite's Chromium is not below this process"
    for line in ours:
        assert set(PLAYWRIGHT_DISABLED) | set(OUR_DISABLED) <= set(disabled_features(line))


def test_no_omnibox_webui_renderer_per_context_with_ours_one_with_playwrights(chromium, playwrights_own) -> None:
    bare, _ = playwrights_own
    preloaded = webui_renderers(bare)
    if preloaded == 0:
        pytest.skip("this Chromium preloads no omnibox WebUI for a context: nothing for our switches to keep away")
    assert preloaded >= 3
    bare.close()
    assert webui_renderers(chromium.browser()) == 0
