"""Fresh venvs with this checkout's wheel, built once and kept, for the tests that install the package.

Building a venv (its dependencies from the registry) costs far more than a test, so each set of packages is
built once and kept in ``CACHE`` (keyed by Python, pyproject.toml and the packages; the wheel by its sources):
each session gets a hard-linked copy and installs this checkout's wheel into it (``--no-deps
--force-reinstall``). The venvs are built without a pip of their own: this environment's pip installs into them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT = 600
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pytest-cometlocal-tests" / "beside"
# What the outer session may have set that would leak into the inner ones.
LEAKS = ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_BASE_URL",
         "COMETLOCAL_BASE_URL", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_CURRENT_TEST")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LEAKS}
    return {**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def wheel(tmp: Path) -> Path:
    """One wheel of this checkout, built from a copy (so no build/ folder lands in the checkout), or the
    cached one built from the same sources."""
    source = tmp / "source"
    shutil.copytree(REPO / "pytest_cometlocal", source / "pytest_cometlocal",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    digest = hashlib.sha256()
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(source)}\0".encode() + path.read_bytes() + b"\0")
    cached = CACHE / "wheels" / digest.hexdigest()[:24]
    if not cached.is_dir():
        built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                                str(tmp / "dist"), str(source)],
                               capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=clean_env())
        assert built.returncode == 0, built.stderr[-3000:]
        keep(tmp / "dist", cached)
    return next(cached.glob("pytest_cometlocal-*.whl"))


def keep(built: Path, cached: Path) -> None:
    """Move ``built`` into the cache at ``cached`` in one rename (a concurrent session that got there first wins)."""
    cached.parent.mkdir(parents=True, exist_ok=True)
    try:
        built.rename(cached)
    except OSError:
        if not cached.is_dir():
            raise
        shutil.rmtree(built, ignore_errors=True)


def pip(python: Path, *args: str, timeout: int = INSTALL_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """This environment's pip, acting on the venv of ``python`` (``pip --python``): the venvs need no pip of
    their own, whose install (ensurepip) cost each venv more than its packages."""
    return subprocess.run([sys.executable, "-m", "pip", "--python", str(python), *args],
                          capture_output=True, text=True, timeout=timeout, env=clean_env())


def _venv(root: Path, wheel: Path, packages: list[str]) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    install = pip(python, "install", "--quiet", "--no-compile", str(wheel), *packages)
    if install.returncode != 0 and re.search(r"(?i)connection|network is unreachable|name resolution", install.stderr):
        pytest.skip(f"package registry unreachable: {install.stderr.strip()[-300:]}")
    assert install.returncode == 0, install.stderr[-3000:]
    return python


def cached_venv(root: Path, wheel: Path, packages: list[str]) -> Path:
    """A venv at ``root``: a hard-linked copy of the cached one with ``packages`` (built on a miss), with this
    checkout's wheel installed over the cached one's (pip replaces files, it never writes into a linked one)."""
    key = hashlib.sha256(json.dumps([sys.version, (REPO / "pyproject.toml").read_text(encoding="utf-8"),
                                     packages]).encode()).hexdigest()[:24]
    cached = CACHE / "venvs" / key
    if not (cached / "bin" / "python").exists():
        building = CACHE / "building" / uuid.uuid4().hex
        building.parent.mkdir(parents=True, exist_ok=True)
        try:
            _venv(building, wheel, packages)
            keep(building, cached)
        finally:
            shutil.rmtree(building, ignore_errors=True)
    try:
        shutil.copytree(cached, root, symlinks=True, copy_function=os.link)
    except (OSError, shutil.Error):  # the cache on another file system: a plain copy
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(cached, root, symlinks=True)
    python = root / "bin" / "python"
    install = pip(python, "install", "--quiet", "--no-compile", "--no-deps", "--force-reinstall", str(wheel))
    assert install.returncode == 0, install.stderr[-3000:]
    return python
