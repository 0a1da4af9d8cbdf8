"""Running one validated plan end to end, without pytest.

Given the plan's settings (``contract.settings.effective_settings``: the
base-URL precedence, the default allowlist, the secrets), ``run_plan``
opens a guarded context on a browser, runs the plan and closes everything,
leaving a complete run folder. The pytest fixtures do
the same through overridable fixtures; this is the library entry point.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_cometlocal.contract.validate.validated import ValidPlan
from pytest_cometlocal.contract.settings import EffectiveSettings
from pytest_cometlocal.executor.engine import Executor, ExecutorSettings, RunResult
from pytest_cometlocal.executor.browser.channels import guard_channels, guards_in_force
from pytest_cometlocal.executor.browser.network_guard import DEFAULT_GUARD_HOST, NetworkGuard
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.page.watchdog import close_context

DEFAULT_CONTEXT_ARGS: dict[str, Any] = {"accept_downloads": True, "viewport": {"width": 1280, "height": 720}}


def create_run_folder(plan: ValidPlan, eff: EffectiveSettings, output: Path, profile: dict[str, Any] | None = None,
                      extra_info: dict[str, Any] | None = None, context: Any = None) -> RunFolder:
    """The run's folder; its manifest names the guards in force for ``context`` (channels.guards_in_force)."""
    row = {"row_id": plan.row.id, "row": dict(plan.row.values)} if plan.row else {}
    return RunFolder.create(
        output, plan.item_name, mode=eff.mode, policy=plan.plan.policy, allowlist=eff.allowlist,
        plan_info={"file": plan.source.file, "name": plan.name, "line": plan.source.mark.line,
                   "doc_index": plan.source.doc_index, **row, **(extra_info or {})},
        redactor=Redactor(eff.secrets.values()),
        profile={"name": "default", "base_url": eff.base_url, "browser": "chromium", **(profile or {})},
        extra={"configuration": eff.configuration(),
               "guards": guards_in_force(context, (profile or {}).get("connection"))},
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
        guard_channels(context, guard)
        page = context.new_page()
        run = create_run_folder(plan, eff, output, profile=profile, extra_info=extra_info, context=context)
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
    from pytest_cometlocal.executor.browser.storage_states import mask_values

    mask_values(run.redactor, values)
    run.manifest["storage_state"] = info
    run.manifest["redaction_policy"] = run.redactor.describe()
    return {"storage_state": info}
