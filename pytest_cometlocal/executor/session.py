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
from .guard import NetworkGuard
from .redaction import Redactor
from .runfolder import RunFolder

DEFAULT_CONTEXT_ARGS: dict[str, Any] = {"accept_downloads": True, "viewport": {"width": 1280, "height": 720}}


@dataclass(frozen=True)
class EffectiveSettings:
    base_url: str | None
    allowlist: tuple[str, ...]
    mode: str
    secrets: dict[str, str]


def effective_settings(plan: ValidPlan, *, cli_base_url: str | None = None, default_base_url: str | None = None,
                       force_dry_run: bool = False, env: Mapping[str, str] | None = None) -> EffectiveSettings:
    """Base URL: command line > the plan's base_url > the suite default. Allowlist: the
    plan's, else the host of that base URL. Secrets are read from the environment now."""
    env = os.environ if env is None else env
    p = plan.plan
    base = cli_base_url or p.base_url or default_base_url
    if p.allowlist is not None:
        allowlist = tuple(h.lower() for h in p.allowlist)
    else:
        allowlist = (url_host(base),) if base and url_host(base) else ()
    secrets = {name: env.get(ref.env, "") for name, ref in p.secrets.items()}
    return EffectiveSettings(base, allowlist, "dry_run" if force_dry_run else p.mode, secrets)


def create_run_folder(plan: ValidPlan, eff: EffectiveSettings, output: Path, profile: dict[str, Any] | None = None,
                      extra_info: dict[str, Any] | None = None) -> RunFolder:
    row = {"row_id": plan.row.id, "row": dict(plan.row.values)} if plan.row else {}
    return RunFolder.create(
        output, plan.item_name, mode=eff.mode, policy=plan.plan.policy, allowlist=eff.allowlist,
        plan_info={"file": plan.source.file, "name": plan.name, "line": plan.source.mark.line,
                   "doc_index": plan.source.doc_index, **row, **(extra_info or {})},
        redactor=Redactor(eff.secrets.values()),
        profile={"name": "default", "base_url": eff.base_url, "browser": "chromium", **(profile or {})},
    )


def make_executor(page: Any, plan: ValidPlan, eff: EffectiveSettings, run: RunFolder, guard: NetworkGuard | None,
                  on_step: Any = None) -> Executor:
    settings = ExecutorSettings.for_plan(plan.plan, base_url=eff.base_url, allowlist=eff.allowlist, mode=eff.mode,
                                         uploads_root=plan.uploads_root, secrets=eff.secrets)
    return Executor(page, run, settings, guard=guard, on_step=on_step)


def run_plan(browser: Any, plan: ValidPlan, output: Path, eff: EffectiveSettings,
             context_args: dict[str, Any] | None = None) -> RunResult:
    """Run ``plan`` in a fresh guarded context of ``browser``; always closes the context."""
    guard = NetworkGuard(eff.allowlist).start()
    context = None
    try:
        args = {**DEFAULT_CONTEXT_ARGS, **(context_args or {}), "proxy": guard.proxy_settings()}
        context = browser.new_context(**args)
        page = context.new_page()
        run = create_run_folder(plan, eff, output)
        return make_executor(page, plan, eff, run, guard).run_plan(plan.plan)
    finally:
        if context is not None:
            try:
                context.close()
            except Exception:
                pass
        guard.stop()
