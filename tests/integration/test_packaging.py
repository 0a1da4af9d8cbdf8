"""``pip install .`` in a clean virtual environment gives the CLI and the plugin.

It is the only test that sees what a user gets from the package metadata:
entry points, package data, dependencies. The wheel is built from this
checkout's sources (kept while they are unchanged), and the venv with its
runtime dependencies alone comes from the cache of tests/integration/venvs.py
(built from the registry when pyproject.toml changes): this checkout's wheel
is installed into a copy of it, and ``pip check`` proves the dependencies its
metadata asks for are all there.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.integration.venvs import REPO, cached_venv, pip, wheel


@pytest.mark.skipif(os.environ.get("COMETLOCAL_SKIP_PACKAGING") == "1", reason="COMETLOCAL_SKIP_PACKAGING=1")
def test_pip_install_gives_cli_and_plugin(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    py = cached_venv(venv, wheel(tmp_path), [])
    check = pip(py, "check", timeout=120)  # every dependency the installed wheel's metadata names is installed
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-3000:]
    # The in-page scripts are package data: every one is installed, and the modules that read them import.
    scripts = subprocess.run([str(py), "-c", (
        "import pathlib, pytest_cometlocal.executor.page.conditions, pytest_cometlocal.executor.page.observation,"
        " pytest_cometlocal.executor.browser.channels, pytest_cometlocal.executor.suggest.suggester;"
        "root = pathlib.Path(pytest_cometlocal.__file__).parent;"
        "print(root, *sorted(str(f.relative_to(root)) for f in root.rglob('*.js')))")],
        cwd=tmp_path, capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert scripts.returncode == 0, scripts.stderr[-3000:]
    installed, *files = scripts.stdout.split()
    assert Path(installed).is_relative_to(venv)
    assert files == sorted(str(f.relative_to(REPO / "pytest_cometlocal")) for f in (REPO / "pytest_cometlocal").rglob("*.js"))

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "pytest.ini").write_text("[pytest]\n")
    (suite / "ok.actions.yaml").write_text(textwrap.dedent("""\
        name: ok
        base_url: http://127.0.0.1:1
        defaults: {criticality: normal, timeout_ms: 100, preconditions: [{kind: network_idle}], postconditions: [{kind: network_idle}]}
        steps:
          - {id: open, kind: navigate, target: {type: url, url: /}}
        """))
    (suite / "bad.actions.yaml").write_text("name: bad\nsteps: []\n")
    cli = venv / "bin" / "cometlocal"
    ok = subprocess.run([str(cli), "validate", "ok.actions.yaml"], cwd=suite, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = subprocess.run([str(cli), "validate", "."], cwd=suite, capture_output=True, text=True)
    assert bad.returncode == 1 and "bad.actions.yaml:2:8 steps: must not be empty" in bad.stdout

    run = subprocess.run(
        [str(py), "-m", "pytest", "-p", "no:cacheprovider", "-q", "--collect-only"],
        cwd=suite, capture_output=True, text=True,
    )
    assert "ok.actions.yaml::ok" in run.stdout and "bad.actions.yaml::bad" in run.stdout, run.stdout + run.stderr
    plugins = subprocess.run([str(py), "-m", "pytest", "--version", "--version"], cwd=suite, capture_output=True, text=True)
    assert "pytest-cometlocal" in plugins.stdout + plugins.stderr
