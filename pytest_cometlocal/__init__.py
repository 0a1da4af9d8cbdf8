"""pytest-cometlocal: browser action plans as auditable pytest items.

The library API is the names of ``__all__`` (docs/executor.md, "Library API"):
validate a plan, work out its settings, run it in a browser you launched, and
read the result. They are imported when first used (PEP 562), so importing the
package, or validating plans with ``cometlocal validate``, loads neither
Playwright nor pytest. The table below names them as strings, not imports:
the package root stays out of the layering (``runfolder`` and ``cli`` import
``__version__`` from it, and nothing but the entry point imports ``plugin/``).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Public name -> the module that defines it.
_PUBLIC: dict[str, str] = {
    # Plans: validate them, and the settings a run uses (no browser, no pytest).
    "validate_path": "pytest_cometlocal.contract.validate.validator",
    "validate_action_spec": "pytest_cometlocal.contract.validate.validator",
    "ValidationContext": "pytest_cometlocal.contract.validate.validated",
    "ValidPlan": "pytest_cometlocal.contract.validate.validated",
    "InvalidPlan": "pytest_cometlocal.contract.validate.validated",
    "effective_settings": "pytest_cometlocal.contract.settings",
    "EffectiveSettings": "pytest_cometlocal.contract.settings",
    "ErrorCode": "pytest_cometlocal.contract.model.codes",
    "ExecutorError": "pytest_cometlocal.contract.model.records",
    "CometLocalError": "pytest_cometlocal.contract.errors",
    # Running them in a browser (Playwright).
    "run_plan": "pytest_cometlocal.executor.session",
    "RunResult": "pytest_cometlocal.executor.results",
    "StepResult": "pytest_cometlocal.executor.results",
    "Executor": "pytest_cometlocal.executor.engine",
    "ExecutorSettings": "pytest_cometlocal.executor.results",
    "ExecutorFailure": "pytest_cometlocal.executor.errors",
    "RunFolder": "pytest_cometlocal.executor.runfolder.folder",
    "NetworkGuard": "pytest_cometlocal.executor.browser.network_guard",
    "find_chromium": "pytest_cometlocal.executor.browser.chromium",
    "LAUNCH_ARGS": "pytest_cometlocal.executor.browser.chromium",
    # What a plan item fails with under pytest.
    "PlanFailed": "pytest_cometlocal.plugin.reporting.errors",
}

__all__ = [
    "CometLocalError",
    "EffectiveSettings",
    "ErrorCode",
    "Executor",
    "ExecutorError",
    "ExecutorFailure",
    "ExecutorSettings",
    "InvalidPlan",
    "LAUNCH_ARGS",
    "NetworkGuard",
    "PlanFailed",
    "RunFolder",
    "RunResult",
    "StepResult",
    "ValidPlan",
    "ValidationContext",
    "__version__",
    "effective_settings",
    "find_chromium",
    "run_plan",
    "validate_action_spec",
    "validate_path",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
