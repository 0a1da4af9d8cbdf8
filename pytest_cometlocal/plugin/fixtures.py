"""Fixtures a plan item uses; each can be overridden in a user's conftest.py.

Chain: cometlocal_browser (one Chromium per session, relaunched if it dies:
``executor.browser.BrowserManager``)
-> cometlocal_plan_settings (base URL, allowlist, mode, secrets of this item)
-> cometlocal_network_guard (the allowlist proxy of this item)
-> cometlocal_context (a fresh context per item; cometlocal_context_args adds
viewport, locale, storage_state, http_credentials, ...)
-> cometlocal_page -> cometlocal_runner (runs the plan, returns its outcome).
Names are prefixed so they never clash with pytest-playwright's fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cometlocal.contract.validate.validated import ValidPlan
from pytest_cometlocal.contract.settings import EffectiveSettings, effective_settings
from pytest_cometlocal.executor.browser.manager import BrowserManager
from pytest_cometlocal.executor.browser.channels import guard_channels
from pytest_cometlocal.executor.engine import RunResult
from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
from pytest_cometlocal.executor.browser.remote import RemoteBrowserUnavailable
from pytest_cometlocal.executor.session import (
    DEFAULT_CONTEXT_ARGS,
    create_run_folder,
    make_executor,
    record_storage_use,
)
from pytest_cometlocal.executor.page.watchdog import close_context
from pytest_cometlocal.plugin.options import settings
from pytest_cometlocal.plugin.allure_report import AllureSteps, allure_active, label_item
from pytest_cometlocal.plugin.pwtrace import PlaywrightTrace
from pytest_cometlocal.plugin.report import failure_text, step_printer
from pytest_cometlocal.plugin.shared_states import StateInUse, ensure_state, shared_states


@pytest.fixture(scope="session")
def cometlocal_launch_args(pytestconfig: pytest.Config) -> dict[str, Any]:
    """Keyword arguments for chromium.launch (override to add args, proxy, ...)."""
    opts = settings(pytestconfig)
    return {"headless": not opts.headed, "slow_mo": opts.slowmo}


@pytest.fixture(scope="session")
def cometlocal_browser_manager(request: pytest.FixtureRequest, pytestconfig: pytest.Config,
                               cometlocal_launch_args: dict[str, Any]) -> Iterator[BrowserManager]:
    opts = settings(pytestconfig)
    shared = None
    if pytestconfig.pluginmanager.has_plugin("playwright"):  # pytest-playwright: share its Playwright
        shared = request.getfixturevalue("playwright")
    manager = BrowserManager(cometlocal_launch_args, opts.chromium, opts.testid_attribute, playwright=shared,
                             remote=opts.remote)
    yield manager
    manager.close()


@pytest.fixture
def cometlocal_browser(cometlocal_browser_manager: BrowserManager):
    """The session's Chromium (a new one if the previous one crashed)."""
    try:
        return cometlocal_browser_manager.browser()
    except RemoteBrowserUnavailable as exc:
        message = str(exc)
    pytest.fail(message, pytrace=False)  # one line naming the endpoint, not a traceback


@pytest.fixture
def cometlocal_base_url(pytestconfig: pytest.Config) -> str | None:
    """The suite's default base URL (ini ``base_url``); override it to serve a portal from a fixture."""
    return settings(pytestconfig).default_base_url


@pytest.fixture
def cometlocal_plan_settings(request: pytest.FixtureRequest, pytestconfig: pytest.Config, cometlocal_base_url: str | None) -> EffectiveSettings:
    """Base URL precedence: --base-url > the plan's base_url > cometlocal_base_url (ini)."""
    result = getattr(request.node, "result", None)
    if not isinstance(result, ValidPlan):
        raise pytest.UsageError("cometlocal fixtures are for plan items")
    opts = settings(pytestconfig)
    return effective_settings(result, cli_base_url=opts.base_url, default_base_url=cometlocal_base_url,
                              force_dry_run=opts.dry_run)


@pytest.fixture
def cometlocal_network_guard(cometlocal_plan_settings: EffectiveSettings, pytestconfig: pytest.Config) -> Iterator[NetworkGuard]:
    guard = NetworkGuard(cometlocal_plan_settings.allowlist, host=settings(pytestconfig).guard_host).start()
    yield guard
    guard.stop()


@pytest.fixture
def cometlocal_context_args() -> dict[str, Any]:
    """Extra keyword arguments for browser.new_context (viewport, locale, storage_state, http_credentials, ...)."""
    return {}


@pytest.fixture
def cometlocal_storage_state(request: pytest.FixtureRequest, cometlocal_browser,
                             cometlocal_base_url: str | None) -> StateInUse | None:
    """The saved storage state the item's plan starts from (``storage_state: NAME``), or None.

    Made first, in this worker, by the plan that saves it when that plan has not run here yet.
    """
    result = getattr(request.node, "result", None)
    name = result.plan.storage_state if isinstance(result, ValidPlan) else None
    if name is None:
        return None
    return ensure_state(name, request, cometlocal_browser, cometlocal_base_url)


@pytest.fixture
def cometlocal_context(cometlocal_browser, cometlocal_context_args: dict[str, Any], cometlocal_network_guard: NetworkGuard,
                       cometlocal_storage_state: StateInUse | None):
    args = {**DEFAULT_CONTEXT_ARGS, **cometlocal_context_args}
    if cometlocal_storage_state is not None:
        args["storage_state"] = cometlocal_storage_state.path
    args["proxy"] = cometlocal_network_guard.proxy_settings()  # the guard is not optional
    context = cometlocal_browser.new_context(**args)
    guard_channels(context, cometlocal_network_guard)  # WebRTC and WebTransport, which the proxy cannot see
    context.set_default_timeout(30_000)
    yield context
    # Teardown never changes the item's result: closing a context whose browser died, or
    # whose HAR/video cannot be written, raises, and is not the plan's failure. (A page
    # whose main thread spins forever does not keep Chromium from closing it.)
    try:
        close_context(context)
    except Exception:
        pass


@pytest.fixture
def cometlocal_page(cometlocal_context):
    page = cometlocal_context.new_page()
    yield page


@dataclass
class PlanOutcome:
    """What the item needs from a run: the typed error, the run folder, the failure text."""

    error: Any
    run_dir: Path | None
    failure_text: str
    result: RunResult | None = None


@pytest.fixture
def cometlocal_runner(cometlocal_page, cometlocal_plan_settings: EffectiveSettings, cometlocal_network_guard: NetworkGuard,
                      cometlocal_storage_state: StateInUse | None, pytestconfig: pytest.Config):
    """Runs the item's plan in the page and returns a PlanOutcome."""
    opts = settings(pytestconfig)

    def run(plan: ValidPlan, item: pytest.Item) -> PlanOutcome:
        eff = cometlocal_plan_settings
        profile = {"name": "pytest", "headless": not opts.headed, **opts.connection_profile}
        run_folder = create_run_folder(plan, eff, opts.output, profile=profile, extra_info={"nodeid": item.nodeid},
                                       context=cometlocal_page.context)
        item.cometlocal_run_dir = run_folder.path
        metadata: dict[str, Any] = {"nodeid": item.nodeid}
        if cometlocal_storage_state is not None:
            metadata.update(record_storage_use(run_folder, cometlocal_storage_state.info, cometlocal_storage_state.values))
        if allure_active(pytestconfig):
            label_item(item, plan, eff)
            run_folder.trace.listeners.append(AllureSteps(list(plan.plan.steps), plan.plan.all_steps()))
        executor = make_executor(cometlocal_page, plan, eff, run_folder, cometlocal_network_guard,
                                 on_step=step_printer(pytestconfig), storage=shared_states(pytestconfig).files)
        if opts.tracing != "off":
            if eff.secrets:
                run_folder.manifest["playwright_trace"] = "not recorded: the plan uses secrets"
            elif plan.plan.storage_state or plan.storage_saves:
                run_folder.manifest["playwright_trace"] = "not recorded: the plan uses or saves a storage state"
            else:
                pw_trace = PlaywrightTrace(cometlocal_page.context, run_folder, opts.tracing, plan.name)
                run_folder.trace.listeners.append(pw_trace.on_event)
                executor.finishers.append(pw_trace.finish)
        result = executor.run_plan(plan.plan, metadata=metadata)
        text = failure_text(plan, result.error, run_folder.path) if result.error else ""
        return PlanOutcome(result.error, run_folder.path, run_folder.redactor.text(text), result)

    return run
