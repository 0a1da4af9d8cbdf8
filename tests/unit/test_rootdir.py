"""``contract.load.rootdir``: the rootdir pytest would pick, found in process from config files.

tests/integration/test_rootdir_agrees_with_pytest.py runs real pytest in a subprocess on
layouts where a guess goes wrong, and checks ``cometlocal validate`` agrees with it.
"""

from __future__ import annotations

import gc
import re
import textwrap
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.load.rootdir import holds_pytest_config, pytest_rootdir
from pytest_cometlocal.contract.errors import RootdirError
from tests.support import VALID_PLAN

PLAN = "plans/a.actions.yaml"


def _build(base: Path, files: dict[str, str | None]) -> None:
    base.mkdir()
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(VALID_PLAN if text is None else text, encoding="utf-8")


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
    monkeypatch.setattr("pytest_cometlocal.cli_plans.validate_path",
                        lambda *a, **k: seen.append(gc.isenabled()) or [])
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert main(["validate", "plans"]) == 0
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [False]  # paused while the plans were validated
