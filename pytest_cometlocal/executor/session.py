"""Running one validated plan end to end, without pytest.

``effective_settings`` applies the base-URL precedence and the default
allowlist; ``run_plan`` opens a guarded context on a browser, runs the plan
and closes everything, leaving a complete run folder. The pytest fixtures do
the same through overridable fixtures; this is the library entry point.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..contract.validator import ValidPlan
from .allowlist import url_host
from .engine import Executor, ExecutorSettings, RunResult
from .guard import DEFAULT_GUARD_HOST, NetworkGuard
from .redaction import Redactor
from .runfolder import RunFolder
from .watchdog import close_context

DEFAULT_CONTEXT_ARGS: dict[str, Any] = {"accept_downloads": True, "viewport": {"width": 1280, "height": 720}}


@dataclass(frozen=True)
class EffectiveSettings:
    base_url: str | None
    allowlist: tuple[str, ...]
    mode: str
    secrets: dict[str, str]
    base_url_source: str | None = None  # cli | plan | suite | default


def effective_settings(plan: ValidPlan, *, cli_base_url: str | None = None, default_base_url: str | None = None,
                       force_dry_run: bool = False, env: Mapping[str, str] | None = None) -> EffectiveSettings:
    """Base URL: command line > the plan's base_url > the suite default. Allowlist: the
    plan's, else the host of that base URL. Secrets are read from the environment now."""
    env = os.environ if env is None else env
    p = plan.plan
    base = cli_base_url or p.base_url or default_base_url
    if cli_base_url:
        source = "cli"
    elif p.base_url:
        source = "suite" if plan.config_sources.get("base_url") == "suite" else "plan"
    else:
        source = "default" if default_base_url else None
    if p.allowlist is not None:
        allowlist = tuple(h.lower() for h in p.allowlist)
    else:
        allowlist = (url_host(base),) if base and url_host(base) else ()
    secrets = {name: env.get(ref.env, "") for name, ref in p.secrets.items()}
    return EffectiveSettings(base, allowlist, "dry_run" if force_dry_run else p.mode, secrets, source)


def effective_configuration(plan: ValidPlan, eff: EffectiveSettings) -> dict[str, Any]:
    """What the run manifest records as the run's configuration, and where each value came from.

    ``sources`` says, for every key the suite config could set, whether the
    value is the plan's, the suite config's, both merged (``policy``,
    ``defaults``), or the built-in default; the base URL can also come from
    the command line or the suite default (ini / fixture).
    """
    p = plan.plan
    keys = ("allowlist", "policy", "auth_signals", "toast_selector", "overlay_selectors", "defaults")
    sources = {key: plan.config_sources.get(key, "plan" if key in p.model_fields_set else "default") for key in keys}
    sources["base_url"] = eff.base_url_source
    if p.allowlist is None:
        sources["allowlist"] = "base_url host"
    return {
        "suite_config": plan.suite_config,
        "sources": sources,
        "effective": {
            "base_url": eff.base_url,
            "allowlist": list(eff.allowlist),
            "policy": p.policy.model_dump(mode="json"),
            "auth_signals": p.auth_signals.model_dump(mode="json") if p.auth_signals else None,
            "toast_selector": p.toast_selector,
            "overlay_selectors": list(p.overlay_selectors),
            "defaults": p.defaults.model_dump(mode="json", exclude_none=True) if p.defaults else None,
            "storage_state": p.storage_state,
            "saves_storage_state": [name for _step, name in plan.storage_saves],
        },
    }


def create_run_folder(plan: ValidPlan, eff: EffectiveSettings, output: Path, profile: dict[str, Any] | None = None,
                      extra_info: dict[str, Any] | None = None) -> RunFolder:
    row = {"row_id": plan.row.id, "row": dict(plan.row.values)} if plan.row else {}
    return RunFolder.create(
        output, plan.item_name, mode=eff.mode, policy=plan.plan.policy, allowlist=eff.allowlist,
        plan_info={"file": plan.source.file, "name": plan.name, "line": plan.source.mark.line,
                   "doc_index": plan.source.doc_index, **row, **(extra_info or {})},
        redactor=Redactor(eff.secrets.values()),
        profile={"name": "default", "base_url": eff.base_url, "browser": "chromium", **(profile or {})},
        extra={"configuration": effective_configuration(plan, eff)},
    )


def make_executor(page: Any, plan: ValidPlan, eff: EffectiveSettings, run: RunFolder, guard: NetworkGuard | None,
                  on_step: Any = None, storage: Any = None) -> Executor:
    settings = ExecutorSettings.for_plan(plan.plan, base_url=eff.base_url, allowlist=eff.allowlist, mode=eff.mode,
                                         uploads_root=plan.uploads_root, secrets=eff.secrets,
                                         step_sources=plan.source.step_origins,
                                         storage_saves=dict(plan.storage_saves))
    executor = Executor(page, run, settings, guard=guard, on_step=on_step)
    executor.storage = storage
    return executor


def run_plan(browser: Any, plan: ValidPlan, output: Path, eff: EffectiveSettings,
             context_args: dict[str, Any] | None = None, guard_host: str = DEFAULT_GUARD_HOST,
             storage: Any = None, profile: dict[str, Any] | None = None,
             extra_info: dict[str, Any] | None = None) -> RunResult:
    """Run ``plan`` in a fresh guarded context of ``browser``; always closes the context.

    ``guard_host``: where the guard listens; a browser on another machine must
    reach it. ``storage`` (a StorageStates): where the plan's save points write
    and where its ``storage_state`` is read from (it must be saved already).
    """
    guard = NetworkGuard(eff.allowlist, host=guard_host).start()
    context = None
    try:
        args = {**DEFAULT_CONTEXT_ARGS, **(context_args or {}), "proxy": guard.proxy_settings()}
        used = None
        if plan.plan.storage_state is not None and storage is not None:
            state_path, info, values = storage.load(plan.plan.storage_state)
            args["storage_state"] = str(state_path)
            used = (info, values)
        context = browser.new_context(**args)
        page = context.new_page()
        run = create_run_folder(plan, eff, output, profile=profile, extra_info=extra_info)
        metadata = record_storage_use(run, *used) if used else {}
        return make_executor(page, plan, eff, run, guard, storage=storage).run_plan(plan.plan, metadata=metadata)
    finally:
        if context is not None:
            try:
                close_context(context)
            except Exception:
                pass
        guard.stop()


def record_storage_use(run: RunFolder, info: dict[str, Any], values: list[str]) -> dict[str, Any]:
    """A run that starts from a saved storage state: mask its values, name it in the manifest.

    Returns the run_started metadata that names it (never its values).
    """
    from .storage import mask_values

    mask_values(run.redactor, values)
    run.manifest["storage_state"] = info
    run.manifest["redaction_policy"] = run.redactor.describe()
    return {"storage_state": info}
