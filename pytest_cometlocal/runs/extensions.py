"""(extensions) The run manifest's ``extensions`` for ``verify``, ``show`` and ``diff``.

A run whose plan could use extension kinds lists them in run_manifest.json:
``extensions: [{name, type: action|condition, package, version} | {name, type, path}]`` (the package
and version of an installed extension, or the conftest.py that registered the kind). The key is
absent when no kind was loaded, as in a run recorded before extensions
(docs/trace-and-evidence.md). ``verify`` checks its shape; ``show`` lists the kinds; ``diff`` says
which kind was added, removed, or came from another version or file between two runs: a difference
between the runs may then be the extension's, not the page's.
"""

from __future__ import annotations

from typing import Any, Mapping

from pytest_cometlocal.contract.model.checks.extension import is_extension_kind
from pytest_cometlocal.contract.run_folder import RUN_MANIFEST
from pytest_cometlocal.runs.reader import StoredRun

TYPES = ("action", "condition")

__all__ = ["extension_changes", "extension_lines", "extension_note", "extension_problems", "origin_of"]


def extension_problems(manifest: Any) -> list[str]:
    """What is wrong with the manifest's ``extensions`` (``[]``: nothing, or no such key)."""
    if not isinstance(manifest, dict) or "extensions" not in manifest:
        return []
    kinds = manifest["extensions"]
    if not isinstance(kinds, list):
        return [f"{RUN_MANIFEST}: extensions is not a list"]
    problems, seen = [], set()
    for i, kind in enumerate(kinds):
        where = f"{RUN_MANIFEST}: extensions[{i}]"
        if not isinstance(kind, dict):
            problems.append(f"{where} is not an object")
            continue
        name = kind.get("name")
        if not isinstance(name, str) or not is_extension_kind(name):
            problems.append(f"{where}: name {name!r} is not an extension kind (x_<name> or <team>.<name>)")
        elif name in seen:
            problems.append(f"{where}: kind '{name}' is listed twice")
        seen.add(name)
        if kind.get("type") not in TYPES:
            problems.append(f"{where}: type {kind.get('type')!r} is not action or condition")
        if isinstance(kind.get("package"), str):
            if not (kind.get("version") is None or isinstance(kind.get("version"), str)):
                problems.append(f"{where}: version {kind.get('version')!r} is not a string")
        elif not isinstance(kind.get("path"), str):
            problems.append(f"{where}: neither a package nor a path says where the kind comes from")
        unknown = sorted(set(kind) - {"name", "type", "package", "version", "path"})
        if unknown:
            problems.append(f"{where}: unknown key(s) {', '.join(unknown)}")
    return problems


def origin_of(kind: Mapping[str, Any]) -> str:
    """``acme-ext 1.2``, ``acme-ext`` or ``tests/conftest.py``: where a listed kind came from."""
    if isinstance(kind.get("package"), str):
        return f"{kind['package']} {kind['version']}" if isinstance(kind.get("version"), str) else kind["package"]
    return str(kind.get("path") or "?")


def extension_lines(run: StoredRun) -> list[str]:
    """``cometlocal show``'s line: ``  extensions: x_hold (action, conftest.py), ...``; none without any."""
    kinds = run.extensions
    if not kinds:
        return []
    return ["  extensions: " + ", ".join(f"{k['name']} ({k.get('type')}, {origin_of(k)})" for k in kinds)]


def extension_changes(a: StoredRun, b: StoredRun) -> list[str]:
    """Each kind added, removed, or from another origin between the runs: ``x_hold added in B (acme 1.1)``."""
    kinds_a = {k["name"]: k for k in a.extensions}
    kinds_b = {k["name"]: k for k in b.extensions}
    changes = []
    for name in sorted(set(kinds_a) | set(kinds_b)):
        ka, kb = kinds_a.get(name), kinds_b.get(name)
        if kb is None:
            changes.append(f"{name} only in A ({origin_of(ka)})")  # type: ignore[arg-type]
        elif ka is None:
            changes.append(f"{name} only in B ({origin_of(kb)})")
        elif origin_of(ka) != origin_of(kb):
            changes.append(f"{name} {origin_of(ka)} in A, {origin_of(kb)} in B")
        elif ka.get("type") != kb.get("type"):
            changes.append(f"{name} is of type {ka.get('type')} in A, {kb.get('type')} in B")
    return changes


def extension_note(a: StoredRun, b: StoredRun) -> str | None:
    """``the runs used different extensions: ...`` for ``diff``'s notes (None: the same, or none)."""
    changes = extension_changes(a, b)
    if not changes:
        return None
    return ("the runs used different extensions: " + "; ".join(changes)
            + ": a difference may be the extension's, not the page's")
