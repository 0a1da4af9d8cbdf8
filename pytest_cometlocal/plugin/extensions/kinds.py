"""Extensions under pytest (docs/extensions.md): the plugin's hooks and the kinds a plan's folder sees.

``pytest_addhooks`` adds hookspecs.py's specifications, so a conftest implements them as any pytest
hook; installed packages' ``cometlocal.extensions`` entry points are registered with pytest's plugin
manager at configure (each xdist worker does it too). A plan file's registry is built from the hook
implementations that apply to its path (``ihook``: its folder's conftests and every installed
extension), with contract/extensions/loading.py's ``register_all``, as the command-line tools build
theirs; one per set of implementations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal import hookspecs
from pytest_cometlocal.contract.extensions.loading import LoadedSource, entry_point_sources, register_all
from pytest_cometlocal.contract.extensions.registry import KindRegistry, Origin

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


