"""The pytest layer (entry point ``pytest11: cometlocal``): thin by design.

It reads options (``options``), turns plan files into items (``collection``),
provides the fixtures a plan item uses (``fixtures``) and turns executor
outcomes into pytest outcomes (``outcome``, ``errors``), markers and report
properties; ``hooks`` and ``interrupts`` hold the session-level hooks.
``extensions`` adds the plugin's own hooks (hookspecs.py) and builds the kinds a plan may use.
``options`` also settles who owns ``--base-url`` beside pytest-base-url and
pytest-playwright, and says how to get pytest-xdist when ``-n`` has no owner. Every
hook is imported here, so the entry point registers this package as one
plugin. Contract rules live in ``contract/``; running (and the session's
browser, ``executor.browser.manager.BrowserManager``) lives in ``executor/``.
"""

from pytest_cometlocal.plugin.collection import PlanFile, PlanItem, pytest_collect_file, pytest_collection_modifyitems
from pytest_cometlocal.plugin.fixtures import (
    cometlocal_base_url,
    cometlocal_browser,
    cometlocal_browser_manager,
    cometlocal_browser_managers,
    cometlocal_context,
    cometlocal_context_args,
    cometlocal_launch_args,
    cometlocal_network_guard,
    cometlocal_page,
    cometlocal_plan_settings,
    cometlocal_runner,
    cometlocal_shared_playwright,
    cometlocal_storage_state,
)
from pytest_cometlocal.plugin.extensions import pytest_addhooks
from pytest_cometlocal.plugin.hooks import pytest_collection, pytest_configure, pytest_runtest_call, pytest_sessionfinish, pytest_terminal_summary
from pytest_cometlocal.plugin.interrupts import pytest_sessionstart, pytest_unconfigure
from pytest_cometlocal.plugin.options import pytest_addoption, pytest_load_initial_conftests

__all__ = [
    "PlanFile",
    "PlanItem",
    "cometlocal_base_url",
    "cometlocal_browser",
    "cometlocal_browser_manager",
    "cometlocal_browser_managers",
    "cometlocal_context",
    "cometlocal_context_args",
    "cometlocal_launch_args",
    "cometlocal_network_guard",
    "cometlocal_page",
    "cometlocal_plan_settings",
    "cometlocal_runner",
    "cometlocal_shared_playwright",
    "cometlocal_storage_state",
    "pytest_addhooks",
    "pytest_addoption",
    "pytest_collect_file",
    "pytest_collection_modifyitems",
    "pytest_collection",
    "pytest_configure",
    "pytest_load_initial_conftests",
    "pytest_runtest_call",
    "pytest_sessionfinish",
    "pytest_sessionstart",
    "pytest_unconfigure",
    "pytest_terminal_summary",
]
