"""The plugin's session-level pytest hooks.

Registered through the package (``pytest11: cometlocal`` names
``pytest_cometlocal.plugin``, whose ``__init__`` imports them), like the
hooks of ``collection``, ``fixtures`` and ``interrupts``. Options themselves
are registered in ``options.pytest_addoption``.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from pytest_cometlocal.plugin.extensions import load_entry_points
from pytest_cometlocal.plugin.reporting.allure_report import allure_active, register_uncoded_messages, write_categories
from pytest_cometlocal.plugin.options import settings, store_settings
from pytest_cometlocal.plugin.pause import register_pauses
from pytest_cometlocal.plugin.reporting.html_report import register_html_report
from pytest_cometlocal.plugin.reporting.report import error_code_summary, suggested_fix_summary
from pytest_cometlocal.plugin.retries import flaky_summary, record_attempts, register_flaky_results
from pytest_cometlocal.plugin import xdist_groups
from pytest_cometlocal.plugin.browsers import summary as browsers_summary


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cometlocal_error_code(code): set on a plan item that raised an ExecutorError, with its error code",
    )
    config.addinivalue_line("markers", "cometlocal: a browser action plan item")
    store_settings(config)
    if not config.pluginmanager.is_registered(xdist_groups):
        config.pluginmanager.register(xdist_groups, "cometlocal-xdist-groups")
    if not config.pluginmanager.is_registered(browsers_summary):  # (v1.4) plans a browser did not run
        config.pluginmanager.register(browsers_summary, "cometlocal-browsers-summary")
    register_pauses(config)
    register_html_report(config)
    load_entry_points(config)  # (extensions) installed packages' kinds and observers
    if allure_active(config):
        register_uncoded_messages(config)
        register_flaky_results(config)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """Failures grouped by error code, so triage starts from the code, and how many have suggested targets
    (with the ``cometlocal fix`` command for them); then the plans that passed only after a retry."""
    failed = terminalreporter.stats.get("failed", [])
    lines = error_code_summary(failed)
    if lines:
        terminalreporter.write_sep("-", "cometlocal failures by error code")
        for line in lines:
            terminalreporter.write_line(line)
        fix = suggested_fix_summary(failed, settings(config).output, Path(config.invocation_params.dir))
        if fix:
            terminalreporter.write_line(fix)
    flaky = flaky_summary(terminalreporter.stats.get("passed", []))
    if flaky:
        terminalreporter.write_sep("-", f"cometlocal: {len(flaky)} passed after retries or recovery (flaky)")
        for line in flaky:
            terminalreporter.write_line(line)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """After a plan item runs: its attempts as JUnit properties, and a flaky pass marked as such."""
    try:
        result = yield
    except BaseException:
        record_attempts(item, passed=False, allure_on=allure_active(item.config))
        raise
    record_attempts(item, passed=True, allure_on=allure_active(item.config))
    return result


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session):
    """Collect with the cyclic garbage collector paused; afterwards it is as it was.

    Loading a plan allocates many small containers (every YAML node keeps its
    position), and each collected item adds its own objects to the heap, so
    generation-2 collections during collection walk an ever larger heap.
    Little of it is cyclic garbage; reference counting frees the rest as usual.
    (Items keep only an outline of their plan, ``PlanOutline``, so the heap left
    after collection stays small for the collections that follow.) The pause ends
    with collection, also when it raises: the tests themselves, and a conftest
    that turned the collector off (it stays off), see the state they had.
    Nothing is frozen (``gc.freeze``), which would outlive collection.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if was_enabled:
            gc.enable()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Allure's categories.json (by error code), written once, by the controller under xdist."""
    config = session.config
    if allure_active(config) and not hasattr(config, "workerinput"):
        write_categories(config.getoption("allure_report_dir"))
