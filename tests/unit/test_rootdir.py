"""``cometlocal validate`` picks the rootdir real pytest picks, for the same paths from the same folder.

Each layout is built in tmp_path; pytest runs in a subprocess (``--collect-only``,
its header names the rootdir) and ``cometlocal validate`` in process, from the
same folder with the same arguments. The layouts are the ones where a guess
("the nearest folder with any config file") goes wrong.
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.load.rootdir import holds_pytest_config, pytest_rootdir
from pytest_cometlocal.contract.errors import RootdirError
from tests.support import VALID_PLAN

PLAN = "plans/a.actions.yaml"

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


def _build(base: Path, files: dict[str, str | None]) -> None:
    base.mkdir()
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(VALID_PLAN if text is None else text, encoding="utf-8")


def _pytest_rootdir(cwd: Path, args: list[str]) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
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


def test_pure_function_takes_the_invocation_folder_as_given(tmp_path: Path) -> None:
    _build(tmp_path / "t", {f"a/{PLAN}": None, "b/keep": ""})
    base = tmp_path / "t"
    assert pytest_rootdir(["../a/plans"], base / "b") == base
    assert pytest_rootdir([], base / "a") == base / "a"  # no arguments: the invocation folder
    assert pytest_rootdir(["missing", "a/plans"], base) == base  # absent arguments are ignored, as pytest does


def test_pytest_8_reads_neither_pytest_toml_nor_native_tool_pytest(tmp_path: Path) -> None:
    _build(tmp_path / "t", {"pytest.ini": "", "p/pytest.toml": "", "q/pyproject.toml": "[tool.pytest]\nx = 1\n",
                            f"p/{PLAN}": None, f"q/{PLAN}": None})
    base = tmp_path / "t"
    assert pytest_rootdir(["p/plans"], base, pytest_major=8) == base
    assert pytest_rootdir(["p/plans"], base, pytest_major=9) == base / "p"
    # pytest 8 reads only [tool.pytest.ini_options] in a pyproject.toml
    assert holds_pytest_config(base / "q/pyproject.toml", 8) is False


@pytest.mark.parametrize(("name", "text", "message"), [
    ("setup.cfg", "[pytest]\naddopts = -q\n", "use [tool:pytest]"),
    ("tox.ini", "addopts = -q\n", "no section header defined"),
    ("tox.ini", "[pytest]\n  indented first\n", "unexpected value continuation"),
    ("tox.ini", "[pytest]\n[pytest]\n", "duplicate section 'pytest'"),
    ("pyproject.toml", "[tool.pytest\n", "pyproject.toml"),
    ("pytest.toml", "addopts = '-q'\n", "must be under a [pytest] table"),
])
def test_config_files_pytest_refuses_are_a_usage_error(name: str, text: str, message: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    _build(tmp_path / "t", {name: text, PLAN: None})
    with pytest.raises(RootdirError, match=re.escape(message)):
        pytest_rootdir(["plans"], tmp_path / "t")
    monkeypatch.chdir(tmp_path / "t")
    assert main(["validate", "plans"]) == 2
    err = capsys.readouterr().err
    assert "cannot tell pytest's rootdir" in err and message in err and "Traceback" not in err


def test_ini_reading_follows_pytest_comments_and_continuations(tmp_path: Path) -> None:
    path = tmp_path / "tox.ini"
    path.write_text(textwrap.dedent("""\
        ; a comment
        [tox]  # trailing comment
        envlist =
            py311
        [testenv]
        deps: pytest
        [pytest]
    """))
    assert holds_pytest_config(path) is True
    path.write_text("[tox]\n[not pytest\n")  # no section header: a continuation line after a section
    with pytest.raises(RootdirError, match="unexpected value continuation"):
        holds_pytest_config(path)


def test_root_confines_with_the_rootdir_pytest_uses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """uploads_root may climb to the pytest.ini folder, past a tox.ini without [pytest]."""
    plan = VALID_PLAN.replace("name: minimal", "name: up\nuploads_root: ../../fixtures")
    _build(tmp_path / "t", {"pytest.ini": "", "proj/tox.ini": "[tox]\n", f"proj/{PLAN}": plan, "fixtures/f": ""})
    monkeypatch.chdir(tmp_path / "t" / "proj")
    assert main(["validate", "plans"]) == 0, capsys.readouterr().out
    (tmp_path / "t" / "proj" / "tox.ini").write_text("[pytest]\n")  # now proj is the rootdir: ../../fixtures leaves it
    assert main(["validate", "plans"]) == 1
    assert "[PATH_CONFINEMENT]" in capsys.readouterr().out


@pytest.mark.parametrize("enabled", [True, False])
def test_validate_restores_the_garbage_collector(enabled: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _build(tmp_path / "t", {"pytest.ini": "", PLAN: None})
    monkeypatch.chdir(tmp_path / "t")
    seen: list[bool] = []
    monkeypatch.setattr("pytest_cometlocal.cli.validate_path",
                        lambda *a, **k: seen.append(gc.isenabled()) or [])
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert main(["validate", "plans"]) == 0
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [False]  # paused while the plans were validated
