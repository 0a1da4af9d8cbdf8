"""The settings a plan runs with, and where each came from: the one place that computes them.

A plan's base URL can come from the command line (``--base-url``), the plan,
the suite config, or the suite default (ini ``cometlocal_base_url`` or the
``cometlocal_base_url`` fixture); its allowlist from the plan or the suite
config, else the host of that base URL. The pytest runtime, the run manifest
(``configuration``), ``cometlocal validate --format json`` and the tests all
ask ``effective_settings``, so what a check reports is what a run uses.
Pure: secrets are read from the ``env`` mapping given, nothing else.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping

from pytest_cometlocal.contract.allowlist import url_host
from pytest_cometlocal.contract.model.plan import V12_PLAN_KEYS, routes_record, settings_record
from pytest_cometlocal.contract.model.profiles import DEFAULT_PROFILE
from pytest_cometlocal.contract.validate.validated import ValidPlan

# The plan keys a suite config can also set, whose source the run manifest records.
CONFIGURABLE_KEYS = ("allowlist", "policy", "auth_signals", "toast_selector", "overlay_selectors", "defaults",
                     "browser", "clock", "routes")  # (v1.2) browser, clock and routes


def default_allowlist(base_url: str | None) -> tuple[str, ...]:
    """The allowlist of a plan that has none: the base URL's host, as a plan would write it
    (an IPv6 address in brackets, which the allowlist's host pattern and Chromium's proxy bypass list need)."""
    host = url_host(base_url)
    if not host:
        return ()
    return (f"[{host}]" if ":" in host else host,)


@dataclass(frozen=True)
class EffectiveSettings:
    """What one run of a plan uses. ``secrets`` holds values: never write it anywhere."""

    plan: ValidPlan
    base_url: str | None
    allowlist: tuple[str, ...]
    mode: str
    secrets: dict[str, str] = field(repr=False)
    # key -> "cli" | "plan" | "suite" | "plan+suite" | "default" | "base_url host" | None; and "vars":
    # var name -> "row" | "plan" | "cli" | "ini", for a plan that has vars (names only, never values)
    sources: Mapping[str, Any] = field(default_factory=dict)
    profile: str = DEFAULT_PROFILE  # the execution profile (contract/model/profiles.py)
    # (v1.2) --cometlocal-update-snapshots: which screenshot_matches baselines a run writes beside the plan
    update_snapshots: str = "none"

    @property
    def base_url_source(self) -> str | None:
        return self.sources.get("base_url")

    def configuration(self) -> dict[str, Any]:
        """What the run manifest records as the run's configuration, and where each value came from."""
        p = self.plan.plan
        return {
            "suite_config": self.plan.suite_config,
            "sources": dict(self.sources),
            "effective": {
                "base_url": self.base_url,
                "allowlist": list(self.allowlist),
                "profile": self.profile,
                "policy": p.policy.model_dump(mode="json"),
                "auth_signals": p.auth_signals.model_dump(mode="json") if p.auth_signals else None,
                "toast_selector": p.toast_selector,
                "overlay_selectors": list(p.overlay_selectors),
                "defaults": p.defaults.model_dump(mode="json", exclude_none=True) if p.defaults else None,
                "storage_state": p.storage_state,
                "saves_storage_state": [name for _step, name in self.plan.storage_saves],
                # (v1.2) only the keys set: a v1 plan's record is unchanged
                **settings_record(p.browser, p.clock),
                # (v1.2) the stubs, in the order they are tried (the plan's, then the suite's); masked on write
                **({"routes": routes_record(p.routes)} if p.routes else {}),
            },
        }


def effective_settings(plan: ValidPlan, *, cli_base_url: str | None = None, default_base_url: str | None = None,
                       force_dry_run: bool = False, env: Mapping[str, str] | None = None,
                       cli_profile: str | None = None, default_profile: str | None = None) -> EffectiveSettings:
    """Base URL: command line > the plan's (or its suite config's) > the suite default.
    Allowlist: the plan's (or its suite config's), else the host of that base URL.
    Mode: ``dry_run`` when forced, else the plan's. Secrets: read from ``env`` now.
    Profile: command line > the suite config's > the suite default (ini) > ``balanced``.
    Vars (where each came from): the parametrize row > the plan > ``--cometlocal-var`` > ini ``cometlocal_vars``."""
    env = os.environ if env is None else env
    p = plan.plan
    sources: dict[str, Any] = {
        key: plan.config_sources.get(key, "plan" if key in p.model_fields_set else "default") for key in CONFIGURABLE_KEYS
        if key not in V12_PLAN_KEYS or getattr(p, key) is not None  # (v1.2) recorded only when set
    }
    base = cli_base_url or p.base_url or default_base_url
    if cli_base_url:
        sources["base_url"] = "cli"
    elif p.base_url:
        sources["base_url"] = "suite" if plan.config_sources.get("base_url") == "suite" else "plan"
    else:
        sources["base_url"] = "default" if default_base_url else None
    if p.allowlist is not None:
        allowlist = tuple(h.lower() for h in p.allowlist)
    else:
        allowlist = default_allowlist(base)
        sources["allowlist"] = "base_url host"
    secrets = {name: env.get(ref.env, "") for name, ref in p.secrets.items()}
    if plan.var_sources:
        sources["vars"] = dict(plan.var_sources)
    profile, sources["profile"] = next((value, source) for value, source in (
        (cli_profile, "cli"), (plan.suite_profile, "suite"), (default_profile, "ini"), (DEFAULT_PROFILE, "default"))
        if value)
    return EffectiveSettings(plan, base, allowlist, "dry_run" if force_dry_run else p.mode, secrets, sources, profile)
