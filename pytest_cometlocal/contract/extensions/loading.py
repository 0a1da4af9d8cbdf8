"""Where extensions come from, and the one way their kinds are registered (docs/extensions.md).

Two sources: installed packages, through the entry-point group ``cometlocal.extensions``, and the
conftest.py files of a suite (from its rootdir down to a plan's folder, as pytest scopes them).
Under pytest, pytest imports the conftests and the plugin layer loads the entry points into pytest's
plugin manager; the command-line tools (``validate``, ``schema``, ``show``, ``mcp``, ``fix``) use
``Extensions`` here, with a pluggy plugin manager of their own. Both call ``register_all``, so a kind
is registered, checked and refused the same way whichever tool reads the plan.

A source that cannot be imported, or whose hook raises, is recorded on the registry (never raised):
every plan that uses an unknown kind then names it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import pluggy

from pytest_cometlocal import hookspecs
from pytest_cometlocal.contract.extensions.registry import KindRegistry, Origin

GROUP = "cometlocal.extensions"
HOOK = "pytest_cometlocal_register_kinds"


@dataclass(frozen=True)
class LoadedSource:
    """An imported source (an entry point's module, a conftest module) and where it came from."""

    plugin: Any
    origin: Origin


def entry_point_sources() -> tuple[list[LoadedSource], list[tuple[Origin, str]]]:
    """The installed packages' extension modules, and the ones that failed to import (with why)."""
    loaded: list[LoadedSource] = []
    failed: list[tuple[Origin, str]] = []
    for ep in sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        origin = Origin(package=dist.metadata["Name"] if dist else ep.name, version=dist.version if dist else None)
        try:
            loaded.append(LoadedSource(ep.load(), origin))
        except Exception as exc:  # a broken package is a located problem for the plans that use its kinds
            failed.append((origin, f"entry point '{ep.name}' ({ep.value}) failed to load: {_one_line(exc)}"))
    return loaded, failed


def register_all(sources: Iterable[LoadedSource], failed: Iterable[tuple[Origin, str]] = ()) -> KindRegistry:
    """A registry with every source's ``pytest_cometlocal_register_kinds`` called, one source at a time
    (so each kind knows its origin). Each source is registered with a pluggy manager first, which
    checks its hook against the specification (hookspecs.py); a source it refuses, or whose hook
    raises, is recorded on the registry, not raised."""
    registry = KindRegistry()
    for origin, message in failed:
        registry.source_failed(origin, message)
    manager = _Manager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    for source in sources:
        try:
            manager.register(source.plugin, name=f"{source.origin.describe()}#{id(source.plugin)}")
        except ValueError:  # the same module twice (two paths to one conftest): registered once
            continue
        except Exception as exc:  # pluggy.PluginValidationError: a hook with arguments the spec has not
            registry.source_failed(source.origin, _refused_hook(exc))
            continue
        hook = next((impl.function for impl in manager.hook.pytest_cometlocal_register_kinds.get_hookimpls()
                     if impl.plugin is source.plugin), None)
        if hook is None:
            continue
        registry.origin = source.origin
        registry.sources.append(source.origin)
        try:
            hook(registry=registry)
        except Exception as exc:
            registry.source_failed(source.origin, f"{HOOK} raised {_one_line(exc)}")
    registry.origin = Origin(path="<code>")
    return registry


class _Manager(pluggy.PluginManager):
    """Takes a ``pytest_cometlocal_*`` function as a hook implementation without a marker, as pytest
    does in a conftest."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None and name.startswith("pytest_cometlocal_") and callable(getattr(plugin, name, None)):
            return {}
        return opts


@dataclass
class Extensions:
    """The command-line tools' extensions: the entry points once, a suite's conftests by folder.

    ``for_path(plan)`` is the registry a plan in that folder sees under pytest: the installed
    packages' kinds and those of the conftest.py files from ``root`` down to the plan's folder."""

    root: Path
    entry_points: bool = True
    _loaded: tuple[list[LoadedSource], list[tuple[Origin, str]]] | None = None
    _conftests: dict[Path, LoadedSource | tuple[Origin, str] | None] = field(default_factory=dict)
    _registries: dict[tuple[Path, ...], KindRegistry] = field(default_factory=dict)

    def for_path(self, path: Path) -> KindRegistry:
        folder = path.resolve() if path.is_dir() else path.resolve().parent
        chain = tuple(f for f in _folders(self.root.resolve(), folder) if (f / "conftest.py").is_file())
        found = self._registries.get(chain)
        if found is None:
            if self._loaded is None:
                self._loaded = entry_point_sources() if self.entry_points else ([], [])
            sources, failed = list(self._loaded[0]), list(self._loaded[1])
            for conftest in (self._conftest(f / "conftest.py") for f in chain):
                if isinstance(conftest, LoadedSource):
                    sources.append(conftest)
                elif conftest is not None:
                    failed.append(conftest)
            found = self._registries[chain] = register_all(sources, failed)
        return found

    def _conftest(self, path: Path) -> LoadedSource | tuple[Origin, str] | None:
        if path not in self._conftests:
            self._conftests[path] = import_conftest(path, self.root)
        return self._conftests[path]


def import_conftest(path: Path, root: Path) -> LoadedSource | tuple[Origin, str] | None:
    """Import a suite's conftest.py by its path (its folder first on sys.path, as pytest's default
    import mode does); None when it registers nothing."""
    origin = Origin(path=_shown(path, root))
    name = "cometlocal_conftest_" + "_".join(path.parent.resolve().parts[1:]).replace(".", "_").replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return origin, f"{origin.path} cannot be imported"
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        return origin, f"{origin.path} failed to import: {_one_line(exc)}"
    finally:
        try:
            sys.path.remove(str(path.parent))
        except ValueError:
            pass
    return LoadedSource(module, origin) if callable(getattr(module, HOOK, None)) else None


def _folders(root: Path, folder: Path) -> list[Path]:
    """``root`` down to ``folder`` (just ``folder`` when it is outside ``root``)."""
    if folder != root and not folder.is_relative_to(root):
        return [folder]
    parts = folder.relative_to(root).parts
    return [root, *(root.joinpath(*parts[: i + 1]) for i in range(len(parts)))]


def _shown(path: Path, root: Path) -> str:
    resolved = path.resolve()
    return resolved.relative_to(root.resolve()).as_posix() if resolved.is_relative_to(root.resolve()) else str(path)


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".splitlines()
    return text[0][:300] if text else type(exc).__name__


def _refused_hook(exc: BaseException) -> str:
    """pluggy's refusal of a hook: its first line names the plugin (with a made-up id), its last says why."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    why = lines[-1] if len(lines) > 1 else _one_line(exc)
    return f"{HOOK} does not match its specification: {why}"[:300]


def masked_traceback(exc: BaseException) -> str:
    """The traceback an EXTENSION_FAILED keeps as evidence (masked by the evidence store)."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=20))


__all__ = ["Extensions", "GROUP", "LoadedSource", "entry_point_sources", "import_conftest", "masked_traceback",
           "register_all"]
