"""``cometlocal validate`` picks the rootdir real pytest picks, for the same paths from the same folder.

Each layout is built in tmp_path; pytest runs in a subprocess (``--collect-only``,
its header names the rootdir) and ``cometlocal validate`` in process, from the
same folder with the same arguments. The layouts are the ones where a guess
("the nearest folder with any config file") goes wrong.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from tests.unit.test_rootdir import PLAN, _build

# name: (files relative to tmp_path/"t" (None: the plan), folder to start in, arguments, expected rootdir)
LAYOUTS: dict[str, tuple[dict[str, str | None], str, list[str], str]] = {
    "tox.ini without [pytest] is skipped": (
        {"pytest.ini": "[pytest]\n", "proj/tox.ini": "[tox]\nenvlist = py311\n", f"proj/{PLAN}": None},
        "proj", ["plans"], ""),
    "tox.ini with [pytest]": (
        {"pytest.ini": "[pytest]\n", "proj/tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\nminversion = 8.0\n",
         f"proj/{PLAN}": None},
        "proj", ["plans"], "proj"),
    "setup.cfg without [tool:pytest] is skipped": (
        {"pytest.ini": "[pytest]\n", "proj/setup.cfg": "[metadata]\nname = x\n", f"proj/{PLAN}": None},
        "proj", ["plans"], ""),
    "setup.cfg with [tool:pytest]": (
        {"pytest.ini": "[pytest]\n", "proj/setup.cfg": "[metadata]\nname = x\n[tool:pytest]\n", f"proj/{PLAN}": None},
        "proj", ["plans"], "proj"),
    "pyproject.toml without the section, config above": (
        {"pytest.ini": "[pytest]\n", "proj/pyproject.toml": "[project]\nname = 'x'\n", f"proj/{PLAN}": None},
        "proj", ["plans"], ""),
    "pyproject.toml without the section, nothing above": (
        {"proj/pyproject.toml": "[project]\nname = 'x'\n", f"proj/{PLAN}": None},
        "proj", ["plans"], "proj"),
    "pyproject.toml with [tool.pytest.ini_options]": (
        {"pytest.ini": "[pytest]\n", "proj/pyproject.toml": "[tool.pytest.ini_options]\nminversion = '8.0'\n",
         f"proj/{PLAN}": None},
        "proj", ["plans"], "proj"),
    "pyproject.toml with [tool.pytest] (pytest 9)": (
        {"pytest.ini": "[pytest]\n", "proj/pyproject.toml": "[tool.pytest]\nminversion = '8.0'\n", f"proj/{PLAN}": None},
        "proj", ["plans"], "proj"),
    "an empty pytest.toml (pytest 9), one plan file given": (
        {"pytest.ini": "[pytest]\n", "proj/pytest.toml": "", f"proj/{PLAN}": None}, "proj", [PLAN], "proj"),
    "pytest.ini in a parent": (
        {"pytest.ini": "", "a/b/tox.ini": "[tox]\n", f"a/b/{PLAN}": None}, "a", ["b/plans"], ""),
    "nested args in two sibling folders, config in one of them": (
        {"x/.pytest.ini": "", f"x/deep/{PLAN}": None, f"y/{PLAN}": None}, "", ["x/deep/plans", "y/plans"], "x"),
    "two sibling folders, config above both": (
        {"pytest.ini": "[pytest]\n", f"x/{PLAN}": None, f"y/{PLAN}": None}, "x", ["plans", "../y/plans"], ""),
    "setup.py only": ({"proj/setup.py": "", f"proj/{PLAN}": None}, "", ["proj/plans"], "proj"),
    "nothing: the common ancestor with the start folder": (
        {f"a/{PLAN}": None, "other/keep": ""}, "other", ["../a/plans"], ""),
    "nothing, one plan file given": ({f"a/{PLAN}": None}, "", [f"a/{PLAN}"], ""),
}


def _pytest_rootdir(cwd: Path, args: list[str]) -> str:
    # Only pytest itself decides the rootdir: no plugin is loaded (each one costs the child seconds of imports).
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
    )
    found = re.search(r"^rootdir: (.*)$", proc.stdout, re.MULTILINE)
    assert found, proc.stdout + proc.stderr
    return found.group(1)


def _validate_rootdir(cwd: Path, args: list[str], monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    monkeypatch.chdir(cwd)
    assert main(["validate", *args]) == 0
    text = capsys.readouterr().out
    assert main(["validate", "--format", "json", *args]) == 0
    as_json = json.loads(capsys.readouterr().out)["rootdir"]
    found = re.search(r"^rootdir: (.*)$", text, re.MULTILINE)
    assert found, text
    return found.group(1), as_json


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_validate_and_pytest_agree_on_the_rootdir(layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    files, start, args, expected = LAYOUTS[layout]
    base = tmp_path / "t"
    _build(base, files)
    cwd = base / start
    by_pytest = _pytest_rootdir(cwd, args)
    text, as_json = _validate_rootdir(cwd, args, monkeypatch, capsys)
    assert text == as_json == by_pytest == str(base / expected)
