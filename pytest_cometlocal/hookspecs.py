"""The plugin's own hooks (docs/extensions.md): how a team adds kinds, and watches runs.

Implemented in a conftest.py, or in a module an installed package names under the entry-point
group ``cometlocal.extensions``. pytest adds these specifications (``pytest_addhooks``); the
command-line tools (``cometlocal validate``, ``schema``, ``show``, ``mcp``, ``fix``) load the same
implementations through contract/extensions/loading.py, so every tool knows the same kinds.

The observer hooks get the public records, masked as the trace writes them: never a secret, a page
or the executor's internals. They are read-only; an exception in one is reported, never a failure of
the plan.
"""

from __future__ import annotations

from typing import Any

import pluggy

PROJECT = "pytest"  # pytest's hook markers and the ``pytest_`` prefix both work in a conftest
hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec
def pytest_cometlocal_register_kinds(registry: Any) -> None:
    """Register action and condition kinds: ``registry.action(name, perform=..., args=Model,
    side_effect=True, target="none")`` and ``registry.condition(name, check=..., args=Model,
    polled=True, strong=False)`` (contract/extensions/registry.py ``KindRegistry``)."""


@hookspec
def pytest_cometlocal_run_started(run: dict[str, Any]) -> None:
    """A plan's run started: ``run`` is its run_started record (plan, run id, run folder, extensions)."""


@hookspec
def pytest_cometlocal_step_finished(step: dict[str, Any]) -> None:
    """A step finished (passed or failed for good): ``step`` is its step_finished record, masked."""


@hookspec
def pytest_cometlocal_run_finished(run: dict[str, Any]) -> None:
    """A plan's run finished: ``run`` is its run_finished record (status, error_code, run folder, plan)."""
