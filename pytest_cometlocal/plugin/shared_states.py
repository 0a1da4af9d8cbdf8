"""Shared login in a pytest session: plans that start from a saved storage state.

Collection registers the plans that save each state (``save_storage_state``
on the plan or on a step group it uses) and moves them before the rest, so
in a serial run the saving plan has run when the first plan that needs its
state starts. When it has not (pytest-xdist gave it to another worker, or
``-k`` left it out), the state's maker is run once in this worker, on demand,
in a run folder of its own, before the item that needs it: a suite logs in
once per worker.

(v1.2) A state does not hold the browser settings it was made under, yet the
server and the application saw them: a state is reused only by plans whose
user agent (``browser.device``), ``browser.locale`` and ``browser.timezone``
(``STATE_SETTINGS``) are the ones it was made under. A plan with other
values gets its own maker run under them (the maker's plan with those three
keys set as the plan's), kept as another file of the same name; the other
settings (viewport, colours, permissions, geolocation, offline) and the
clock do not matter to a state. The maker is the first saver, in collection order, that is
valid: collection does not validate plans, so the savers are validated here,
in that order, until one is (the same choice on every worker, since each
collects the same items). An invalid saver is never the maker while a valid
one exists. If no saver is valid, or the maker's run fails, every item that
needs the state errors at setup, without running, saying why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pytest

from pytest_cometlocal.contract.model.plan import STATE_SETTINGS, BrowserSettings, state_settings
from pytest_cometlocal.contract.validate.validated import ValidPlan
from pytest_cometlocal.executor.session import run_plan
from pytest_cometlocal.executor.browser.storage_states import StateInUse, StorageStates, state_key
from pytest_cometlocal.plugin.options import settings

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@dataclass
class SharedStates:
    """This process's storage states, who saves them, and the ones that could not be made."""

    files: StorageStates
    providers: dict[str, list[Any]] = field(default_factory=dict)  # name -> items that save it
    # Keyed by state_key (the name, and the settings it is made under):
    failures: dict[str, str] = field(default_factory=dict)         # key -> why it could not be made
    on_demand: dict[str, str] = field(default_factory=dict)        # key -> run folder of the on-demand run
    made_by: dict[str, str] = field(default_factory=dict)          # key -> nodeid of the plan that saved it last

    def register(self, items: list[Any]) -> None:
        for item in items:
            if _saves(item):
                for name in item.outline.storage_saves:
                    self.providers.setdefault(name, []).append(item)

    def saved_by(self, nodeid: str, before: dict[str, Any]) -> None:
        """The states saved since ``before`` (a copy of ``files.saved``) were saved by the plan ``nodeid``."""
        for name, info in self.files.saved.items():
            if before.get(name) is not info:
                self.made_by[name] = nodeid


def _saves(item: Any) -> bool:
    """Does this item make storage states? A negative plan (``expect``) never counts as a maker."""
    outline = getattr(item, "outline", None)
    return outline is not None and bool(outline.storage_saves) and outline.expect is None


_KEY = pytest.StashKey[SharedStates]()


def shared_states(config: pytest.Config) -> SharedStates:
    states = config.stash.get(_KEY, None)
    if states is None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        states = SharedStates(StorageStates(settings(config).output, worker))
        config.stash[_KEY] = states
    return states


def order_providers_first(items: list[Any]) -> None:
    """Plans that save a state some collected plan starts from run before the others (stable)."""
    needed = {o.storage_state for o in (getattr(i, "outline", None) for i in items)
              if o is not None and o.storage_state}
    if not needed:
        return

    def saves_needed(item: Any) -> bool:
        return _saves(item) and any(name in needed for name in item.outline.storage_saves)

    items[:] = [i for i in items if saves_needed(i)] + [i for i in items if not saves_needed(i)]


def ensure_state(name: str, request: pytest.FixtureRequest, browser: Browser, default_base_url: str | None,
                 chain: tuple[str, ...] = ()) -> StateInUse:
    """The saved state ``name``, made now by running a plan that saves it if need be.

    Fails the requesting item's setup (pytest.fail) with the reason when the
    state cannot be had.
    """
    config = request.config
    states = shared_states(config)
    under = _under(request)
    key = state_key(name, under)
    if not states.files.exists(key):
        if key in states.failures:
            pytest.fail(states.failures[key], pytrace=False)
        _make(name, states, request, browser, default_base_url, chain, under)
    state = states.files.in_use(name, under)
    made = {"made_by": states.made_by[key]} if key in states.made_by else {}
    if key in states.on_demand:
        made["made_on_demand_in"] = states.on_demand[key]
    return replace(state, info={**state.info, **made})


def _under(request: pytest.FixtureRequest) -> dict[str, str]:
    """The STATE_SETTINGS of the item that needs the state (a maker down the chain runs under them too)."""
    result = getattr(request.node, "result", None)
    return state_settings(result.plan.browser) if isinstance(result, ValidPlan) else {}


def _made_under(plan: ValidPlan, under: dict[str, str]) -> ValidPlan:
    """The maker's plan with its STATE_SETTINGS set as ``under`` says (cleared where it says none)."""
    if state_settings(plan.plan.browser) == under:
        return plan
    browser = (plan.plan.browser or BrowserSettings()).model_copy(
        update={key: under.get(key) for key in STATE_SETTINGS})
    return replace(plan, plan=plan.plan.model_copy(update={"browser": browser}))


def _make(name: str, states: SharedStates, request: pytest.FixtureRequest, browser: Browser,
          default_base_url: str | None, chain: tuple[str, ...], under: dict[str, str]) -> None:
    providers = states.providers.get(name, [])
    key = state_key(name, under)
    shown = name + (f" (made under {', '.join(f'{k}={v}' for k, v in sorted(under.items()))})" if under else "")
    if not providers:
        states.failures[key] = (
            f"storage state '{name}' is saved by no collected plan: collect the plan that has "
            f"`save_storage_state: {name}` (or uses a step group that has it) in the same session")
        pytest.fail(states.failures[key], pytrace=False)
    if name in chain:
        states.failures[key] = f"storage states need each other in a cycle: {' -> '.join(chain + (name,))}"
        pytest.fail(states.failures[key], pytrace=False)
    provider = _maker(name, providers, states, key)
    plan = _made_under(provider.result, under)
    opts = settings(request.config)
    if plan.plan.storage_state:  # the saving plan itself starts from another state
        ensure_state(plan.plan.storage_state, request, browser, default_base_url, chain + (name,))
    eff = opts.settings_of(plan, default_base_url)
    context_args = request.getfixturevalue("cometlocal_context_args")
    before = dict(states.files.saved)
    result = run_plan(browser, plan, opts.output, eff, context_args=context_args, guard_host=opts.guard_host,
                      storage=states.files, profile={"runner": "pytest", "headless": not opts.headed,
                                                     **opts.connection_profile},
                      extra_info={"nodeid": provider.nodeid, "purpose": f"storage state '{name}' for "
                                  f"{request.node.nodeid}"})
    states.on_demand[key] = str(result.run_dir)
    states.saved_by(provider.nodeid, before)
    if result.error is not None or not states.files.exists(key):
        why = (f"{result.error.error_code.value} at step '{result.error.action_id}'" if result.error
               else "the run passed but did not save it")
        # The next saver is not tried: the maker is chosen by validity alone, the same on every worker.
        states.failures[key] = (
            f"storage state '{shown}' could not be made: its maker {provider.nodeid} failed with {why}"
            f" — run folder: {result.run_dir}")
        pytest.fail(states.failures[key], pytrace=False)


def _maker(name: str, providers: list[Any], states: SharedStates, key: str) -> Any:
    """The first valid saver of ``name`` in collection order; fails naming every saver's first problem if none is.

    Each saver is validated when asked (``item.result``), so only the savers
    of a state some item needs, and only up to the first valid one, are.
    """
    invalid = []
    for provider in providers:
        result = provider.result
        if isinstance(result, ValidPlan):
            return provider
        first = result.problems[0].format() if result.problems else "invalid"
        more = f" (and {len(result.problems) - 1} more)" if len(result.problems) > 1 else ""
        invalid.append(f"{provider.nodeid}: {first}{more}")
    states.failures[key] = (f"storage state '{name}' could not be made: no plan that saves it is valid"
                            + "".join(f"\n  {line}" for line in invalid))
    pytest.fail(states.failures[key], pytrace=False)
