"""The plugin's session-level pytest hooks.

Registered through the package (``pytest11: cometlocal`` names
``pytest_cometlocal.plugin``, whose ``__init__`` imports them), like the
hooks of ``collection``, ``fixtures`` and ``interrupts``. Options themselves
are registered in ``options.pytest_addoption``.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest

from .allure_report import allure_active, register_code_first_messages, write_categories
from .options import store_settings
from .report import error_code_summary


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cometlocal_error_code(code): set on a plan item that raised an ExecutorError, with its error code",
    )
    config.addinivalue_line("markers", "cometlocal: a browser action plan item")
    store_settings(config)
    if allure_active(config):
        register_code_first_messages(config)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Failures grouped by error code, so triage starts from the code."""
    lines = error_code_summary(terminalreporter.stats.get("failed", []))
    if lines:
        terminalreporter.write_sep("-", "cometlocal failures by error code")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session):
    """Collect with the cyclic garbage collector paused, then freeze what was collected.

    Loading a plan allocates many small containers (every YAML node keeps its
    position) and items keep their validated plans alive, so generation-2
    collections during collection walk an ever larger heap: on 1,000 plans of
    20 steps they cost about as much as the validation itself. Nothing
    collected becomes garbage before the session ends, so ``gc.freeze`` then
    keeps later collections from walking it again. Reference counting still
    frees everything acyclic as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Allure's categories.json (by error code), written once, by the controller under xdist."""
    config = session.config
    if allure_active(config) and not hasattr(config, "workerinput"):
        write_categories(config.getoption("allure_report_dir"))
