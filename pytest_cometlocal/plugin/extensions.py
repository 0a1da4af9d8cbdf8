"""Extensions under pytest (docs/extensions.md): the plugin's hooks, the kinds a plan's folder sees,
and the observer hooks told about each run.

``pytest_addhooks`` adds hookspecs.py's specifications, so a conftest implements them as any pytest
hook; installed packages' ``cometlocal.extensions`` entry points are registered with pytest's plugin
manager at configure (each xdist worker does it too). A plan file's registry is built from the hook
implementations that apply to its path (``ihook``: its folder's conftests and every installed
extension), with contract/extensions/loading.py's ``register_all``, as the command-line tools build
theirs; one per set of implementations.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import pytest

from pytest_cometlocal import hookspecs
from pytest_cometlocal.contract.extensions.loading import LoadedSource, entry_point_sources, register_all
from pytest_cometlocal.contract.extensions.registry import KindRegistry, Origin

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.records import TraceEvent
    from pytest_cometlocal.contract.validate.validated import ValidPlan
    from pytest_cometlocal.executor.results import StepResult
    from pytest_cometlocal.executor.runfolder.redactor import Redactor

_LOADED = pytest.StashKey[tuple[dict[int, Origin], list[tuple[Origin, str]]]]()
_REGISTRIES = pytest.StashKey[dict[tuple[int, ...], KindRegistry]]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def load_entry_points(config: pytest.Config) -> None:
    """Register the installed extensions with pytest; one that fails to load is recorded, not raised."""
    origins: dict[int, Origin] = {}
    sources, failed = entry_point_sources()
    for source in sources:
        try:
            config.pluginmanager.register(source.plugin, name=f"cometlocal.extensions:{source.origin.describe()}")
        except ValueError:  # registered already (by -p or a conftest's pytest_plugins)
            pass
        except Exception as exc:  # a hook whose arguments the specification has not
            failed.append((source.origin, f"{type(exc).__name__}: {exc}".splitlines()[0]))
            continue
        origins[id(source.plugin)] = source.origin
    config.stash[_LOADED] = (origins, failed)


def registry_for(collector: pytest.Collector) -> KindRegistry:
    """The kinds a plan in ``collector``'s file may use: its conftests' and the installed extensions'."""
    config = collector.config
    origins, failed = config.stash.get(_LOADED, ({}, []))
    impls = collector.ihook.pytest_cometlocal_register_kinds.get_hookimpls()
    key = tuple(id(impl.plugin) for impl in impls)
    cache = config.stash.setdefault(_REGISTRIES, {})
    if key not in cache:
        sources = [LoadedSource(impl.plugin, origins.get(id(impl.plugin)) or _origin(impl.plugin, config.rootpath))
                   for impl in reversed(impls)]  # registration order: the outer conftests first
        cache[key] = register_all(sources, failed)
    return cache[key]


def _origin(plugin: Any, root: Path) -> Origin:
    """A conftest's path (relative to the rootdir), or a module's name."""
    file = getattr(plugin, "__file__", None)
    if file:
        path = Path(file).resolve()
        return Origin(path=path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path))
    return Origin(package=getattr(plugin, "__name__", repr(plugin)))


class RunObservers:
    """Calls the observer hooks of an item's run with the public records, masked (``redactor`` is the
    run's, set once its folder exists). An observer that raises is a warning, never the plan's failure."""

    def __init__(self, item: pytest.Item, plan: ValidPlan):
        self.hook = item.ihook
        self.plan, self.nodeid = plan, item.nodeid
        self.redactor: Redactor | None = None
        self.run_dir: Path | None = None
        self.steps = 0

    def wanted(self) -> bool:
        return any(getattr(self.hook, name).get_hookimpls() for name in
                   ("pytest_cometlocal_run_started", "pytest_cometlocal_step_finished", "pytest_cometlocal_run_finished"))

    def on_event(self, event: TraceEvent) -> None:
        if event.event_type == "run_started":
            self._call("pytest_cometlocal_run_started", run={
                **self._plan(), "run_id": event.run_id, "run_dir": str(self.run_dir) if self.run_dir else None,
                "extensions": (self.plan.extensions.manifest() if self.plan.extensions else [])})
        elif event.event_type == "run_finished":
            meta = event.metadata
            self._call("pytest_cometlocal_run_finished", run={
                **self._plan(), "run_id": event.run_id, "status": meta.get("status"),
                "error_code": meta.get("error_code"), "run_dir": str(self.run_dir) if self.run_dir else None,
                "steps": self.steps})

    def on_step(self, result: StepResult) -> None:
        self.steps += 1
        error = result.typed_error
        self._call("pytest_cometlocal_step_finished", step={
            **self._plan(), "step_id": result.step_id, "kind": result.kind, "passed": result.ok,
            "error_code": error.error_code.value if error is not None else None,
            "message": error.message if error is not None else None,
            "duration_ms": result.duration_ms, "attempts": result.attempts})

    def _plan(self) -> dict[str, Any]:
        return {"plan": self.plan.item_name, "file": self.plan.source.file, "nodeid": self.nodeid}

    def _call(self, name: str, **record: Any) -> None:
        masked = {key: self.redactor.tree(value) if self.redactor else value for key, value in record.items()}
        try:
            getattr(self.hook, name)(**masked)
        except Exception as exc:  # an observer must never break a run
            warnings.warn(pytest.PytestWarning(f"{name} raised {type(exc).__name__}: {exc}".splitlines()[0]))


def chained(*calls: Callable[[Any], None] | None) -> Callable[[Any], None]:
    """One callback that calls each of ``calls`` (the step printer, the observers)."""
    present = [c for c in calls if c is not None]
    return lambda value: [c(value) for c in present] and None
