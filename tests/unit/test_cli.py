"""``cometlocal validate`` and ``cometlocal schema``: exit codes and output."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from tests.support import VALID_PLAN


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "plans").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def put(suite: Path, name: str, text: str) -> Path:
    path = suite / "plans" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_valid_folder_exits_0(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    put(suite, "a.actions.yaml", VALID_PLAN)
    put(suite, "sub/b.actions.yml", VALID_PLAN)
    put(suite, "notes.yaml", "not: a plan")  # not matched by the globs
    assert main(["validate", "plans"]) == 0
    assert "2 plans in 2 files: 2 valid, 0 invalid" in capsys.readouterr().out


def test_invalid_plan_exits_1_and_prints_located_problems(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    put(suite, "a.actions.yaml", VALID_PLAN)
    put(suite, "b.actions.yaml", VALID_PLAN.replace("kind: click", "kind: clack"))
    assert main(["validate", "plans"]) == 1
    out = capsys.readouterr()
    line = VALID_PLAN.splitlines().index("    kind: click") + 1
    assert f"plans/b.actions.yaml:{line}:11 steps[1].kind: 'clack' is not one of the" in out.out
    assert "[SCHEMA]" in out.out
    assert "2 plans in 2 files: 1 valid, 1 invalid" in out.out  # the summary follows the problems


def test_syntax_error_is_reported_not_raised(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    put(suite, "a.actions.yaml", "name: x\nsteps: [\n")
    assert main(["validate", "plans/a.actions.yaml"]) == 1
    assert "plans/a.actions.yaml:3:1: YAML syntax error" in capsys.readouterr().out


def test_negative_plan_expecting_invalid_is_not_a_failure(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    put(suite, "neg.actions.yaml", "name: neg\nexpect: {error_code: INVALID_ACTIONSPEC}\nsteps: []\n")
    assert main(["validate", "plans"]) == 0
    out = capsys.readouterr().out
    assert "plan 'neg' is invalid as expected" in out
    assert "1 invalid as expected" in out


def test_usage_errors_exit_2(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "missing-folder"]) == 2
    assert "no such file or folder: missing-folder" in capsys.readouterr().err
    assert main(["validate", "plans"]) == 2  # folder without plans
    assert "no plan files found" in capsys.readouterr().err
    assert main([]) == 2
    assert "error: the following arguments are required: command" in capsys.readouterr().err
    assert main(["validate"]) == 2
    assert "error: the following arguments are required: paths" in capsys.readouterr().err
    assert main(["frobnicate"]) == 2
    assert "error: argument command: invalid choice: 'frobnicate'" in capsys.readouterr().err


def test_json_format(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    put(suite, "a.actions.yaml", VALID_PLAN + "---\nname: bad\nsteps: []\n")
    assert main(["validate", "--format", "json", "plans"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] == 1 and data["invalid"] == 1
    bad = next(p for p in data["plans"] if p["plan"] == "bad")
    assert bad["problems"][0]["rule"] == "SCHEMA" and bad["problems"][0]["key_path"] == "steps"
    good = next(p for p in data["plans"] if p["valid"])
    assert good["format_versions"] and good["steps"] >= 1  # the JSON report says which formats a valid plan needs


def test_root_confines_uploads_root(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = VALID_PLAN.replace("name: minimal", "name: up\nuploads_root: ../..")
    put(suite, "a.actions.yaml", plan)
    assert main(["validate", "plans"]) == 1
    assert "[PATH_CONFINEMENT]" in capsys.readouterr().out
    assert main(["validate", "--root", str(suite.parent.parent), "plans"]) == 0


def test_schema_to_file(suite: Path) -> None:
    assert main(["schema", "-o", "schema.json"]) == 0
    schema = json.loads((suite / "schema.json").read_text())
    assert schema["title"].startswith("pytest-cometlocal plan")


@pytest.mark.parametrize("version", ["v1", "v1.1", "v1.2", "v1.3", "v1.4"])
def test_committed_schema_is_up_to_date(version: str) -> None:
    """docs/plan-format-<version>.schema.json is what editors load; it must match the models."""
    from pytest_cometlocal.contract.model.schema import plan_json_schema

    committed = Path(__file__).resolve().parents[2] / "docs" / f"plan-format-{version}.schema.json"
    assert json.loads(committed.read_text()) == plan_json_schema(version), (
        f"run: cometlocal schema --format-version {version} -o docs/plan-format-{version}.schema.json")


def test_schema_format_versions(suite: Path) -> None:
    """The default schema is v1.4's; --format-version v1.1 refuses what only v1.2 has, v1 what only v1.1 has."""
    assert main(["schema", "-o", "newest.json"]) == 0
    assert main(["schema", "--format-version", "v1.1", "-o", "new.json"]) == 0
    newest = json.loads((suite / "newest.json").read_text())
    assert "StorageItem" in newest["$defs"] and "level" in newest["$defs"]["RoleTarget"]["properties"]
    assert newest["$id"].endswith("plan-format-v1.4.json")
    assert "name" in newest["$defs"]["BrowserSettings"]["properties"]  # (v1.4) browser.name
    assert main(["schema", "--format-version", "v1", "-o", "old.json"]) == 0
    new = json.loads((suite / "new.json").read_text())
    old = json.loads((suite / "old.json").read_text())
    assert "press" in new["$defs"]["ActionSpec"]["properties"]["kind"]["enum"]
    assert "press" not in old["$defs"]["ActionSpec"]["properties"]["kind"]["enum"]
    assert "key" in new["$defs"]["ActionSpec"]["properties"] and "key" not in old["$defs"]["ActionSpec"]["properties"]
    assert "ElementChecked" in new["$defs"] and "ElementChecked" not in old["$defs"]
    assert "element_checked" not in json.dumps(old)
    assert "storage_item" not in json.dumps(new) and "include_hidden" not in json.dumps(new)
    assert new["$id"] != old["$id"] and old["$id"].endswith("plan-format-v1.json")


@pytest.mark.parametrize("command", [["schema"], ["fix", "runs"]])
def test_an_output_file_that_cannot_be_written_is_a_usage_error(command: list[str], suite: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`-o` into a missing folder, or onto a folder, is one line and exit 2 (no traceback), before fix reads a run."""
    (suite / "runs").mkdir()
    assert main([*command, "-o", "nodir/out.txt"]) == 2
    assert capsys.readouterr().err == "cometlocal: error: nodir/out.txt: the folder nodir does not exist\n"
    assert main([*command, "-o", "plans"]) == 2
    assert capsys.readouterr().err == "cometlocal: error: plans: a folder, not a file\n"
    assert not (suite / "nodir").exists()
