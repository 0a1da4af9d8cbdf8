"""pytest's rootdir, worked out without pytest, so ``cometlocal validate`` confines like a run would.

``uploads_root`` and step-group paths must stay inside the suite's root folder,
which under pytest is its rootdir. ``cometlocal validate`` has no pytest
session, so it repeats pytest's own choice (``determine_setup`` in
``_pytest/config/findpaths.py``, for a run with the same paths and neither
``-c`` nor ``--rootdir``); otherwise a plan could pass validation and fail
collection, or the reverse. The package may not import pytest's private
modules, so the algorithm is re-implemented here, small and pure:

1. the common ancestor of the existing arguments (files count as their folder);
2. from there upwards, the first folder with a file holding pytest
   configuration, the files of one folder tried in pytest's order: a
   ``pytest.ini``/``.pytest.ini`` (and in pytest 9 ``pytest.toml``/
   ``.pytest.toml``) always counts, ``pyproject.toml`` only with
   ``[tool.pytest.ini_options]`` (pytest 9: or ``[tool.pytest]``), ``tox.ini``
   only with ``[pytest]``, ``setup.cfg`` only with ``[tool:pytest]``; when none
   holds any, the folder of the first ``pyproject.toml`` met on the way;
3. else the nearest folder upwards with a ``setup.py``;
4. else the same search as 2 from each argument's folder (it finds
   configuration between an argument and the common ancestor);
5. else the common ancestor of the invocation folder and the arguments (the
   arguments' ancestor when that is the file system root).

A configuration file pytest would refuse to read raises :class:`RootdirError`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

from pytest_cometlocal.contract.errors import RootdirError

__all__ = ["config_names", "holds_pytest_config", "pytest_rootdir"]

_TOML_NAMES = ("pytest.toml", ".pytest.toml")  # pytest 9
_NAMES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def config_names(pytest_major: int = 9) -> tuple[str, ...]:
    """The configuration file names pytest looks for in one folder, in its order of precedence."""
    return (_TOML_NAMES + _NAMES) if pytest_major >= 9 else _NAMES


def holds_pytest_config(path: Path, pytest_major: int = 9) -> bool:
    """Whether pytest takes this existing file (one of :func:`config_names`) as its configuration file."""
    name = path.name
    if name in _TOML_NAMES:
        document = _toml(path)
        if "pytest" not in document and any(not isinstance(v, dict) for v in document.values()):
            raise RootdirError(f"{path}: pytest configuration must be under a [pytest] table")
        return True
    if name in ("pytest.ini", ".pytest.ini"):
        _ini_sections(path)  # read for its errors: these files count even without [pytest]
        return True
    if name == "pyproject.toml":
        tool = _toml(path).get("tool", {})
        table = tool.get("pytest", {}) if isinstance(tool, dict) else {}
        if not isinstance(table, dict):
            return False
        if pytest_major < 9:
            return "ini_options" in table
        native = any(key != "ini_options" for key in table)
        if native and table.get("ini_options"):  # pytest lets an empty ini_options table pass
            raise RootdirError(f"{path}: cannot use both [tool.pytest] and [tool.pytest.ini_options]")
        return native or "ini_options" in table
    if name == "tox.ini":
        return "pytest" in _ini_sections(path)
    if name == "setup.cfg":
        sections = _ini_sections(path)
        if "tool:pytest" in sections:
            return True
        if "pytest" in sections:
            raise RootdirError(f"{path}: a [pytest] section in setup.cfg is no longer supported by pytest; "
                               "use [tool:pytest]")
        return False
    return False


def pytest_rootdir(args: Sequence[str | os.PathLike[str]], invocation_dir: Path, pytest_major: int = 9) -> Path:
    """The rootdir of ``pytest ARGS`` started in ``invocation_dir`` (no ``-c``, no ``--rootdir``).

    Like pytest, the result is absolute but not resolved: symlinks in the
    arguments stay as given.
    """
    names = config_names(pytest_major)
    given = [os.fspath(a).partition("::")[0] for a in args if not os.fspath(a).startswith("-")]
    absolute = [Path(os.path.normpath(os.path.join(invocation_dir, a))) for a in given]
    dirs = [p if p.is_dir() else p.parent for p in absolute if _exists(p)]
    ancestor = _common_ancestor(invocation_dir, dirs)
    found = _locate_config([ancestor], names, pytest_major)
    if found is not None:
        return found
    for folder in (ancestor, *ancestor.parents):
        if (folder / "setup.py").is_file():
            return folder
    if dirs != [ancestor]:
        found = _locate_config(dirs, names, pytest_major)
        if found is not None:
            return found
    rootdir = _common_ancestor(invocation_dir, [invocation_dir, ancestor])
    return ancestor if os.path.splitdrive(str(rootdir))[1] == os.sep else rootdir


def _locate_config(starts: Iterable[Path], names: Sequence[str], pytest_major: int) -> Path | None:
    """The first folder upwards from each start with a pytest configuration file, else the first ``pyproject.toml``'s."""
    first_pyproject: Path | None = None
    for start in starts:
        for base in (start, *start.parents):
            for index, name in enumerate(names):
                path = base / name
                if not path.is_file():
                    continue
                if name == "pyproject.toml" and first_pyproject is None:
                    first_pyproject = path
                if holds_pytest_config(path, pytest_major):
                    for later in names[index + 1:]:  # pytest reads them too (to warn), so their errors count
                        if (base / later).is_file():
                            holds_pytest_config(base / later, pytest_major)
                    return base
    return first_pyproject.parent if first_pyproject is not None else None


def _common_ancestor(invocation_dir: Path, paths: Iterable[Path]) -> Path:
    common: Path | None = None
    for path in paths:
        if not _exists(path):
            continue
        if common is None or path in common.parents:
            common = path
        elif path != common and common not in path.parents:
            try:
                common = Path(os.path.commonpath((str(path), str(common))))
            except ValueError:  # different drives
                pass
    if common is None:
        return invocation_dir
    return common.parent if common.is_file() else common


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long, or not a valid path on this system
        return False


def _toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RootdirError(f"{path}: {exc}") from None


def _ini_sections(path: Path) -> set[str]:
    """The section names of an INI file, refused where pytest's INI reader (iniconfig) refuses it.

    configparser accepts and rejects other files than iniconfig does (for one,
    a continuation line before any value), so its rules are repeated here.
    """
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        raise RootdirError(f"{path}: {exc}") from None
    sections: dict[str, set[str]] = {}
    section: str | None = None
    after_value = False  # a continuation line extends the value just before it
    for number, raw in enumerate(text.splitlines(), 1):
        line = "" if raw.lstrip()[:1] in ("", "#", ";") else raw.rstrip()
        if not line:
            continue
        if line[0] == "[":
            head = line.split("#")[0].rstrip().split(";")[0].rstrip()
            if head[-1] == "]":
                section = head[1:-1]
                if not section:
                    raise RootdirError(f"{path}:{number}: empty section name")
                if section in sections:
                    raise RootdirError(f"{path}:{number}: duplicate section {section!r}")
                sections[section], after_value = set(), False
                continue
        elif not line[0].isspace():
            key, equals, _ = line.partition("=")
            if not equals or ":" in key:
                key, colon, _ = line.partition(":")
                if not colon:
                    raise RootdirError(f"{path}:{number}: unexpected line: {line!r}")
            if section is None:
                raise RootdirError(f"{path}:{number}: no section header defined")
            if key.strip() in sections[section]:
                raise RootdirError(f"{path}:{number}: duplicate name {key.strip()!r}")
            sections[section].add(key.strip())
            after_value = True
            continue
        if not after_value:  # an indented line, or a "[" line that is no section header
            raise RootdirError(f"{path}:{number}: unexpected value continuation")
    return set(sections)
