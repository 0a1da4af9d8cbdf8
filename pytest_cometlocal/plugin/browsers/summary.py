"""(v1.4) The terminal summary's count of plans a browser of the matrix did not run (their ``browser.name``).

Collection counts them (no item is made for them). Under pytest-xdist the controller collects
nothing: each worker collects every file and sends its count in ``workeroutput``; the controller
keeps the first (every worker counts the same files). Registered as a plugin of its own by
``hooks.pytest_configure``, so xdist's optional hook is only ever seen here.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_cometlocal.plugin.browsers.matrix import not_run_lines

_NOT_RUN = pytest.StashKey[dict]()
_OUTPUT_KEY = "cometlocal_not_run"


def not_run(config: pytest.Config) -> dict[str, int]:
    """browser -> how many plans (rows) the matrix's browser does not run (filled at collection)."""
    return config.stash.setdefault(_NOT_RUN, {})


def count_not_run(config: pytest.Config, browsers: list[str]) -> None:
    counts = not_run(config)
    for browser in browsers:
        counts[browser] = counts.get(browser, 0) + 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_OUTPUT_KEY] = dict(not_run(session.config))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    counts = (getattr(node, "workeroutput", None) or {}).get(_OUTPUT_KEY)
    config = node.config
    if counts and not not_run(config):
        not_run(config).update(counts)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    lines = not_run_lines(not_run(config))
    if lines:
        terminalreporter.write_sep("-", "cometlocal browsers")
        for line in lines:
            terminalreporter.write_line(line)
