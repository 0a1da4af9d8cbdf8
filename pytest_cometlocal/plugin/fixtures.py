"""Fixtures a plan item uses; each can be overridden in a user's conftest.py.

Chain: cometlocal_browser (the item's browser of the matrix: one per browser name and session,
relaunched if it dies, ``cometlocal_browser_managers``, all on one Playwright;
``executor.browser.manager.BrowserManager``)
-> cometlocal_plan_settings (base URL, allowlist, mode, secrets of this item)
-> cometlocal_network_guard (the allowlist proxy of this item)
-> cometlocal_context (a fresh context per item; cometlocal_context_args adds
viewport, locale, storage_state, http_credentials, ...)
-> cometlocal_page -> cometlocal_runner (runs the plan, returns its outcome).
Each is thin: the guarded context and the run are ``executor.session``'s
(``guarded_context``, ``open_run``), as for ``run_plan`` and the MCP agent.
Names are prefixed so they never clash with pytest-playwright's fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

import pytest

from pytest_cometlocal.plugin.browsers.managers import BrowserManagers, SharedPlaywright, browser_record
from pytest_cometlocal.plugin.extensions import RunObservers, chained
from pytest_cometlocal.contract.model.records import ExecutorError
from pytest_cometlocal.contract.validate.validated import ValidPlan
from pytest_cometlocal.contract.settings import EffectiveSettings
from pytest_cometlocal.executor.browser.manager import BrowserManager
from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
from pytest_cometlocal.executor.browser.storage_states import StateInUse
from pytest_cometlocal.executor.page.observation import BlankFrames
from pytest_cometlocal.executor.errors import BrowserLaunchFailed, ContextRefused, Refusal, RemoteBrowserUnavailable
from pytest_cometlocal.executor.results import RunResult
from pytest_cometlocal.executor.setup_failure import browser_feature_refusal, device_refusal, record_refusal
from pytest_cometlocal.executor.session import (
    RunFinisher,
    RunRecord,
    TraceListener,
    create_run_folder,
    first_page,
    guarded_context,
    open_run,
    started_from,
)
from pytest_cometlocal.plugin.options import pytest_playwright_loaded, settings
from pytest_cometlocal.plugin.pause import step_listeners
from pytest_cometlocal.plugin.pwflags import device_context_args
from pytest_cometlocal.plugin.reporting.allure_report import AllureSteps, allure_active, label_item
from pytest_cometlocal.plugin.reporting.pwtrace import PlaywrightTrace
from pytest_cometlocal.plugin.reporting.pwvideo import NO_VIDEO_WITH_SECRETS, LastScreenshot, PlaywrightVideo, video_args
from pytest_cometlocal.plugin.reporting.report import failure_text, step_printer
from pytest_cometlocal.plugin.shared_states import ensure_state, shared_states
from pytest_cometlocal.plugin.snapshots import with_update_mode

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page


@pytest.fixture(scope="session")
def cometlocal_launch_args(pytestconfig: pytest.Config) -> dict[str, Any]:
    """Keyword arguments for chromium.launch (override to add args, proxy, ...); ``--browser-channel``
    unless ``--cometlocal-chromium`` names the binary. A channel is Chromium's only: Firefox's (``moz-firefox``)
    is the Firefox manager's own choice (browser/firefox/ ``firefox_launch_kwargs``), never passed here."""
    opts = settings(pytestconfig)
    # "chromium" names Playwright's own build of the browser the plugin finds by itself: no channel then.
    channel = opts.flags.channel
    named = channel and not channel.startswith(("chromium", "moz-")) and not opts.chromium
    return {"headless": not opts.headed, "slow_mo": opts.slowmo, **({"channel": channel} if named else {})}


@pytest.fixture(scope="session")
def cometlocal_shared_playwright(request: pytest.FixtureRequest, pytestconfig: pytest.Config) -> Iterator[SharedPlaywright]:
    """(v1.4) The session's one Playwright, which every browser's manager shares (the sync API allows one per
    thread): pytest-playwright's ``playwright`` fixture when it is loaded, else one started on first use."""
    shared = SharedPlaywright(request.getfixturevalue("playwright") if pytest_playwright_loaded(pytestconfig) else None)
    yield shared
    shared.stop()


@pytest.fixture(scope="session")
def cometlocal_browser_manager(pytestconfig: pytest.Config, cometlocal_launch_args: dict[str, Any],
                               cometlocal_shared_playwright: SharedPlaywright) -> Iterator[BrowserManager]:
    """The session's Chromium manager (``cometlocal_browser_managers["chromium"]``)."""
    opts = settings(pytestconfig)
    manager = BrowserManager(cometlocal_launch_args, opts.chromium, opts.testid_attribute,
                             playwright=cometlocal_shared_playwright.get(), remote=opts.remote)
    yield manager
    manager.close()


@pytest.fixture(scope="session")
def cometlocal_browser_managers(pytestconfig: pytest.Config, cometlocal_launch_args: dict[str, Any],
                                cometlocal_browser_manager: BrowserManager,
                                cometlocal_shared_playwright: SharedPlaywright) -> Iterator[BrowserManagers]:
    """(v1.4) browser name -> its BrowserManager, each made when an item first needs it, all on the session's
    one Playwright; ``"chromium"`` is ``cometlocal_browser_manager``. Firefox's binary: ``--cometlocal-firefox``
    or ini ``cometlocal_firefox`` (else COMETLOCAL_FIREFOX and the lookup of ``find_firefox``)."""
    opts = settings(pytestconfig)

    def make(name: str) -> BrowserManager:
        return BrowserManager(cometlocal_launch_args, opts.firefox if name == "firefox" else None,
                              opts.testid_attribute, playwright=cometlocal_shared_playwright.get(),
                              remote=opts.remote, browser_name=name)

    managers = BrowserManagers(make, chromium=cometlocal_browser_manager)
    yield managers
    managers.close(keep=cometlocal_browser_manager)


def item_browser(item: pytest.Item) -> str:
    """The browser an item runs on (``cometlocal_browser_name``, set at collection; Chromium for any other)."""
    return getattr(item, "cometlocal_browser_name", "chromium")


def item_profile(item: pytest.Item) -> dict[str, Any]:
    """The run manifest's browser keys of an item: its manager's profile once ``cometlocal_browser`` gave it a
    browser, else (refused before any launch) its browser's name; its JUnit properties say the same."""
    profile = getattr(item, "cometlocal_browser_profile", None) or {"browser": item_browser(item)}
    for key, prop in (("browser", "cometlocal.browser"), ("browser_version", "cometlocal.browser_version")):
        if not any(name == prop for name, _ in item.user_properties):
            item.user_properties.append((prop, str(profile.get(key) or "")))
    return dict(profile)


@pytest.fixture
def cometlocal_browser(request: pytest.FixtureRequest, cometlocal_browser_managers: BrowserManagers) -> Browser:
    """The item's browser (its manager's, a new one if the previous one crashed). A plan that uses a feature
    only Chromium has is refused here on another browser, before any launch (``executor.setup_failure``)."""
    name = item_browser(request.node)
    result = getattr(request.node, "result", None)
    if name != "chromium" and isinstance(result, ValidPlan):
        own_device = result.plan.browser is not None and result.plan.browser.device is not None
        refusal = browser_feature_refusal(result.plan, name) or (
            None if own_device else device_refusal(settings(request.config).flags.device, name))
        if refusal is not None:
            raise ContextRefused(refusal)
    manager = cometlocal_browser_managers[name]
    try:
        browser = manager.browser()
    except (RemoteBrowserUnavailable, BrowserLaunchFailed) as exc:
        message = str(exc)
    else:
        request.node.cometlocal_browser_version = manager.version
        request.node.cometlocal_browser_profile = browser_record(manager, name)
        return browser
    pytest.fail(message, pytrace=False)  # one line naming the endpoint or both versions, not a traceback


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
    return with_update_mode(opts.settings_of(result, cometlocal_base_url), pytestconfig)


@pytest.fixture
def cometlocal_network_guard(cometlocal_plan_settings: EffectiveSettings, pytestconfig: pytest.Config) -> Iterator[NetworkGuard]:
    """The item's allowlist proxy (the allowlist of ``cometlocal_plan_settings``), stopped after the item."""
    with NetworkGuard(cometlocal_plan_settings.allowlist, host=settings(pytestconfig).guard_host) as guard:
        yield guard


@pytest.fixture
def cometlocal_context_args() -> dict[str, Any]:
    """Extra keyword arguments for browser.new_context (viewport, locale, storage_state, http_credentials, ...)."""
    return {}


@pytest.fixture
def cometlocal_storage_state(request: pytest.FixtureRequest, cometlocal_browser: Browser,
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
def cometlocal_context(cometlocal_browser: Browser, cometlocal_context_args: dict[str, Any],
                       cometlocal_network_guard: NetworkGuard, cometlocal_storage_state: StateInUse | None,
                       cometlocal_plan_settings: EffectiveSettings, pytestconfig: pytest.Config) -> Iterator[BrowserContext]:
    """A fresh guarded context per item (``executor.session.guarded_context``, as every run's), made
    with the plan's (v1.2) ``browser:`` settings (they win over cometlocal_context_args, which win over
    ``--cometlocal-device``) and clock; recording its video under ``--cometlocal-video``."""
    flags = settings(pytestconfig).flags
    with video_args(flags.video, flags.video_secrets, cometlocal_plan_settings) as video, \
            guarded_context(cometlocal_browser, cometlocal_network_guard,
                            {**device_context_args(flags), **video, **cometlocal_context_args},
                            cometlocal_storage_state, cometlocal_plan_settings.plan.plan) as context:
        yield context


@pytest.fixture
def cometlocal_page(cometlocal_context: BrowserContext, cometlocal_plan_settings: EffectiveSettings) -> Page:
    """The item's first page (``executor.session.first_page``: a locale or zone Chromium refuses is typed)."""
    return first_page(cometlocal_context, cometlocal_plan_settings.plan.plan)


_BLANK_FRAMES = pytest.StashKey[BlankFrames]()


def blank_frames(config: pytest.Config) -> BlankFrames:
    """The session's frames of empty pages: each item's first look reuses the one an earlier item kept."""
    return config.stash.setdefault(_BLANK_FRAMES, BlankFrames())


class Outcome(Protocol):
    """What a runner returns for an item that did not pass (docs/pytest-integration.md, "The runner"):
    the default runner's PlanOutcome, or an object of a runner of one's own with these three."""

    error: ExecutorError | None
    run_dir: Path | None
    failure_text: str


# ``cometlocal_runner``'s function: None is a pass (or a plan's ``expect`` not met).
Runner = Callable[[ValidPlan, pytest.Item], "Outcome | None"]


@dataclass
class PlanOutcome:
    """What the item needs from a run: the typed error, the run folder, the failure text."""

    error: ExecutorError | None
    run_dir: Path | None
    failure_text: str
    result: RunResult | None = None


@pytest.fixture
def cometlocal_runner(cometlocal_page: Page, cometlocal_plan_settings: EffectiveSettings,
                      cometlocal_network_guard: NetworkGuard, cometlocal_storage_state: StateInUse | None,
                      pytestconfig: pytest.Config) -> Runner:
    """Runs the item's plan in the page (``executor.session.open_run``) and returns a PlanOutcome."""
    opts = settings(pytestconfig)

    def run(plan: ValidPlan, item: pytest.Item) -> PlanOutcome:
        eff = cometlocal_plan_settings
        listeners: list[TraceListener] = []
        finishers: list[RunFinisher] = []
        notes: dict[str, Any] = {}
        if allure_active(pytestconfig):
            label_item(item, plan, eff)
            listeners.append(AllureSteps(list(plan.plan.steps), plan.plan.all_steps()))
        if opts.tracing != "off":
            if eff.secrets:
                notes["playwright_trace"] = "not recorded: the plan uses secrets"
            elif plan.plan.storage_state or plan.storage_saves:
                notes["playwright_trace"] = "not recorded: the plan uses or saves a storage state"
            else:
                pw_trace = PlaywrightTrace(cometlocal_page.context, opts.tracing, plan.name)
                listeners.append(pw_trace.on_event)
                finishers.append(pw_trace.finish)
        listeners += step_listeners(pytestconfig, plan, eff.secrets, cometlocal_page.context)  # --cometlocal-step
        observers = RunObservers(item, plan.extensions.manifest() if plan.extensions else [])  # (extensions)
        observers = observers if observers.wanted() else None
        if observers is not None:
            listeners.append(observers.on_event)
        finishers.append(LastScreenshot(cometlocal_page, opts.flags.screenshot, bool(eff.secrets)).finish)
        if opts.flags.video != "off":  # last: it closes the pages, which completes their videos
            if cometlocal_page.video is None:
                notes["video"] = NO_VIDEO_WITH_SECRETS if eff.secrets else "not recorded: the context records none"
            else:
                pausing = opts.headed and bool(pytestconfig.getoption("cometlocal_pause_on_failure", False))
                finishers.append(PlaywrightVideo(cometlocal_page.context, opts.flags.video, pausing).finish)
        record = RunRecord.of_plan(eff, {"runner": "pytest", "headless": not opts.headed, **opts.flags.launch_record(),
                                         **opts.connection_profile, **item_profile(item)},
                                   {"nodeid": item.nodeid}, notes)
        with open_run(None, eff, opts.output, record, guard=cometlocal_network_guard, page=cometlocal_page,
                      state=cometlocal_storage_state, storage=shared_states(pytestconfig).files, listeners=listeners,
                      finishers=finishers, on_step=chained(step_printer(pytestconfig, plan),
                                                           observers and observers.on_step),
                      blank_frames=blank_frames(pytestconfig)) as executor:
            item.cometlocal_run_dir = executor.run.path
            if observers is not None:
                observers.attach(executor.run)
            result = executor.run_plan(plan.plan, metadata={"nodeid": item.nodeid,
                                                            **started_from(cometlocal_storage_state)})
        text = failure_text(plan, result.error, result.run_dir) if result.error else ""
        return PlanOutcome(result.error, result.run_dir, executor.run.redactor.text(text), result)

    return run


def refused_outcome(request: pytest.FixtureRequest, item: pytest.Item, refusal: Refusal,
                    data: bytes | None) -> PlanOutcome:
    """(v1.2) The outcome of an item whose browser context was refused at setup: its run folder holds the
    typed error (``executor.setup_failure``), reported as any run's failure; ``data``: the plan file's bytes."""
    opts = settings(request.config)
    eff: EffectiveSettings = request.getfixturevalue("cometlocal_plan_settings")  # set up before the context
    try:
        state = request.getfixturevalue("cometlocal_storage_state")
    except ContextRefused:  # the saved state itself was refused: nothing of it to name or mask
        state = None
    record = RunRecord.of_plan(eff, {"runner": "pytest", "headless": not opts.headed, **opts.connection_profile,
                                     **item_profile(item)}, {"nodeid": item.nodeid})
    run = create_run_folder(eff, opts.output, record, None, state)
    error = record_refusal(eff, run, refusal, data, {"nodeid": item.nodeid})
    problems = error.details.get("validation_errors", [])
    lines = failure_text(eff.plan, error, run.path).splitlines()
    if problems:  # the located setting says it all (the head names it): the message and the cause would repeat it
        p = problems[0]
        lines = [f"{error.error_code.value} — {p['file']}:{p['line']} {p['key_path']} refused by the browser",
                 f"  {p['file']}:{p['line']}:{p['col']} {p['key_path']}: {p['message']}  [{p['rule']}]",
                 *(line for line in lines[2:] if not line.startswith("  cause:"))]
    return PlanOutcome(error, run.path, run.redactor.text("\n".join(lines)))
