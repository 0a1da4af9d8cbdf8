"""The package's own source, read once per test process: the self-inspection tests share this read.

test_architecture.py (its rooms and imports), test_page_scripts.py (its scripts and strings) and
test_errors.py (its exception classes) each looked at the whole package on their own, some of them
twice in one test; reading and parsing ~200 modules is most of what they cost. Each function here
reads on its first call and hands the same answer to every later one (one per xdist worker).
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest_cometlocal
from tests.unit.layering import Package

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_cometlocal"
# The demo portal is the sample web app the demo plans run against, not the library.
NOT_THE_LIBRARY = "pytest_cometlocal.demo"


@dataclass(frozen=True)
class SourceFile:
    path: Path  # absolute
    text: str
    tree: ast.Module


@functools.cache
def python_files() -> tuple[SourceFile, ...]:
    """Every module of the package, read and parsed, in path order."""
    files = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        files.append(SourceFile(path, text, ast.parse(text)))
    return tuple(files)


@functools.cache
def package() -> Package:
    """The package's rooms and imports (layering.py), from the shared read."""
    return Package.of(PACKAGE, ((f.path, f.text, f.tree) for f in python_files()))


@functools.cache
def script_files() -> frozenset[Path]:
    """The in-page scripts (``*.js``) of the package; third-party code vendored as published (a ``vendor/``
    folder: axe-core, executor/audits/vendor/) is not one of ours, and is held to its lock instead."""
    return frozenset(f for f in PACKAGE.rglob("*.js") if "vendor" not in f.relative_to(PACKAGE).parts)


@functools.cache
def library_modules() -> tuple[ModuleType, ...]:
    """Every module of the library (the demo site left out), imported."""
    names = [m.name for m in pkgutil.walk_packages(pytest_cometlocal.__path__, "pytest_cometlocal.")]
    return tuple(importlib.import_module(name) for name in names if not name.startswith(NOT_THE_LIBRARY))
