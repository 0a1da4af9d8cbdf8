"""Path confinement: a plan can name files only inside its allowed root.

Used for ``uploads_root`` (inside the suite's root folder) and ``file_ref``
(inside ``uploads_root``). Absolute paths and ``..`` components are refused
outright, before touching the disk; symlinks are resolved and must still land
inside the root. The check is repeated by the executor right before it uses a
file, since the disk can change between validation and upload.

Also which file names are plans (``DEFAULT_GLOBS``), shared by the pytest
plugin and the ``cometlocal`` command so both find the same files, and how a
path is shown to a person (``shown_path``).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from pytest_cometlocal.contract.errors import ConfinementError

DEFAULT_GLOBS: tuple[str, ...] = ("*.actions.yaml", "*.actions.yml")
"""File name patterns of plan files, unless ``cometlocal_glob``/``--glob`` says otherwise."""


def confine(relative: str, root: Path) -> Path:
    """Return ``root / relative`` resolved, or raise ConfinementError."""
    if not relative or relative.strip() != relative:
        raise ConfinementError("path must be a non-empty relative path without surrounding spaces")
    if "\x00" in relative:
        raise ConfinementError("path contains a NUL byte")
    if PurePosixPath(relative).is_absolute() or PureWindowsPath(relative).is_absolute() or relative.startswith(("\\", "~")):
        raise ConfinementError(f"absolute path '{relative}' is not allowed; give a path relative to the root")
    parts = relative.replace("\\", "/").split("/")
    if ".." in parts:
        raise ConfinementError(f"'..' in '{relative}' is not allowed")
    root_real = root.resolve()
    return _resolved_under(root_real / relative, root_real, f"'{relative}' resolves outside its root (through a symlink)")


def inside_root(relative: str, base_dir: Path, root: Path, what: str = "path") -> Path:
    """``relative`` from ``base_dir``, resolved, symlinks followed; it must stay inside ``root``.

    Unlike :func:`confine`, it may climb with ``..`` (``../fixtures``,
    ``../groups/login.steps.yaml``) as long as it lands inside the suite's
    root folder. Used for ``uploads_root`` and step-group paths.
    """
    if os.path.isabs(relative) or relative.startswith(("~", "\\")) or "\x00" in relative:
        raise ConfinementError(f"absolute path '{relative}' is not allowed; give a {what} relative to the file that names it")
    root_real = root.resolve()
    return _resolved_under(base_dir / relative, root_real, f"'{relative}' resolves outside the suite's root folder {root_real}")


def _resolved_under(path: Path, root_real: Path, refusal: str) -> Path:
    """``path`` resolved (symlinks followed); it must be ``root_real`` or inside it."""
    candidate = path.resolve()
    if candidate != root_real and root_real not in candidate.parents:
        raise ConfinementError(refusal)
    return candidate


def shown_path(path: Path, cwd: Path | None = None) -> str:
    """``path`` as reported to a person: relative to ``cwd`` (default: the working folder) when inside it."""
    try:
        return path.resolve().relative_to((cwd or Path.cwd()).resolve()).as_posix()
    except ValueError:
        return str(path)
