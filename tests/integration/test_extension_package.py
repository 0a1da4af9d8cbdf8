"""Issue 48: an installable extension package, installed into a fresh venv, is seen by every tool.

tests/fixtures/extension_pkg is a tiny package whose pyproject.toml declares the entry point
``demo = "cometlocal_demo_ext.kinds"`` in the group ``cometlocal.extensions`` (kinds ``acme.stamp``, an
action, and ``acme.has_title``, a condition). It is installed with pip, offline (its build backend is in
its tree), into a venv made here that sees this checkout's pytest_cometlocal and the running
environment's packages through a .pth file (no network, no copy of the dependencies: a few seconds).

No browser: plans whose args the package's models refuse, and a plan naming a kind nobody registered,
prove under pytest (through the entry point alone: the suite has no conftest) that the kinds are
registered with their package and version. ``cometlocal validate`` and ``schema`` are checked the same
way; they are expected to fail until the CLI loads the entry points (issue 48's CLI part).
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "tests" / "fixtures" / "extension_pkg"

HEAD = """\
name: {name}
base_url: http://127.0.0.1:1
defaults: {{criticality: normal, timeout_ms: 1000, preconditions: [{{kind: host_in_allowlist}}], \
postconditions: [{{kind: host_in_allowlist}}]}}
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /}}}}
"""
GOOD = HEAD.format(name="good") + """\
  - id: stamp
    kind: acme.stamp
    args: {text: Stamped, times: 2}
    postconditions: [{kind: acme.has_title, args: {text: Stamped Stamped}}]
"""
BAD = HEAD.format(name="bad") + """\
  - id: stamp
    kind: acme.stamp
    args: {text: Stamped, times: 9}
"""
UNKNOWN = HEAD.format(name="unknown") + """\
  - id: stamp
    kind: acme.stomp
"""
ORIGIN = "cometlocal-demo-ext 0.3.1"
# Plugins the inner pytest does not need (as tests/conftest.py's lean_inner_runs): it starts faster.
LEAN = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly", "-p", "no:playwright",
        "--assert=plain")


def _clean_env() -> dict[str, str]:
    """The environment without what points at the outer session (PYTHONPATH, pytest's own variables)."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS") and not k.startswith("PYTEST_XDIST")}


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv where this checkout's pytest_cometlocal is importable and the demo package is
    installed by pip; its python."""
    started = time.monotonic()
    root = tmp_path_factory.mktemp("extension_venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True, timeout=120)
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True, env=_clean_env()).stdout.strip()
    # This checkout first, then the running environment's packages (pytest, pydantic, playwright, the
    # project's dist-info with its pytest11 entry point): plain paths, so their own .pth files are not run.
    outer = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    lines = [str(REPO), *dict.fromkeys(p for p in outer if Path(p).is_dir())]
    Path(purelib, "_cometlocal_under_test.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "--no-build-isolation",
         "--no-deps", "--disable-pip-version-check", "--quiet", str(PACKAGE)],
        capture_output=True, text=True, timeout=300, env=_clean_env())
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-3000:]
    # Installed as a package is: its own files in the venv, its entry point in its dist-info; and the
    # project is this checkout's.
    where = subprocess.run([str(python), "-c", (
        "import importlib.metadata as m, cometlocal_demo_ext, pytest_cometlocal;"
        "print(cometlocal_demo_ext.__file__); print(pytest_cometlocal.__file__);"
        "print([(e.name, e.value) for e in m.entry_points(group='cometlocal.extensions')])")],
        capture_output=True, text=True, env=_clean_env(), cwd=root)
    assert where.returncode == 0, where.stderr
    module, project, entry_points = where.stdout.splitlines()
    assert Path(module).is_relative_to(root / "venv"), module
    assert Path(project).is_relative_to(REPO), project
    assert entry_points == "[('demo', 'cometlocal_demo_ext.kinds')]"
    assert time.monotonic() - started < 60, "making the venv should take seconds"
    return python


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A suite of plans using the package's kinds, with no conftest: only the entry point registers them."""
    root = tmp_path_factory.mktemp("extension_suite")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for name, text in (("good", GOOD), ("bad", BAD), ("unknown", UNKNOWN)):
        (root / f"{name}.actions.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _run(venv: Path, suite: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv), *args], cwd=suite, capture_output=True, text=True, timeout=300,
                          env=_clean_env())


def _where(text: str, needle: str) -> str:
    """``line:col`` of ``needle`` in a plan's text."""
    lines = text.splitlines()
    line = next(i for i, row in enumerate(lines, 1) if needle in row)
    return f"{line}:{lines[line - 1].index(needle) + 1}"


def test_pytest_in_the_venv_registers_the_packages_kinds_through_the_entry_point(venv: Path, suite: Path) -> None:
    """The plugin registers installed extensions at configure: the package's kinds are known (args
    checked against its models, located) and named with its distribution and version."""
    result = _run(venv, suite, "-m", "pytest", *LEAN, "-q", "bad.actions.yaml", "unknown.actions.yaml")
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "2 failed" in out and "INVALID_ACTIONSPEC" in out, out
    at = _where(BAD, "9}")
    assert f"bad.actions.yaml:{at} steps[1].args.times: input should be less than or equal to 3 " \
           "(acme.stamp's args)  [EXTENSION]" in out, out
    assert ("unknown extension action kind 'acme.stomp' (registered: "
            f"acme.has_title ({ORIGIN}), acme.stamp ({ORIGIN}))") in out, out


def test_cometlocal_validate_in_the_venv_sees_the_packages_kinds(venv: Path, suite: Path) -> None:
    good = _run(venv, suite, "-m", "pytest_cometlocal.cli", "validate", "good.actions.yaml")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = _run(venv, suite, "-m", "pytest_cometlocal.cli", "validate", "bad.actions.yaml")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert f"bad.actions.yaml:{_where(BAD, '9}')} steps[1].args.times" in bad.stdout, bad.stdout


def test_cometlocal_schema_in_the_venv_includes_the_packages_kinds(venv: Path, suite: Path) -> None:
    schema = _run(venv, suite, "-m", "pytest_cometlocal.cli", "schema")
    assert schema.returncode == 0, schema.stderr
    assert "acme.stamp" in schema.stdout and "acme.has_title" in schema.stdout
