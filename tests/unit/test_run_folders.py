"""``cometlocal verify``, ``show`` and ``diff`` over several output folders (the shards of one CI run).

verify and show take every path's runs together; diff pairs the runs of each plan
across two sides (docs/triage.md, "Output folders"). A path that names no run is a
usage error of one line naming it. Run folders are built without a browser: an
invalid plan's run (it verifies) and the hand-made runs of test_run_diff.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.executor.session import record_invalid_plan
from pytest_cometlocal.runs.diff import RunDiff
from pytest_cometlocal.runs.diff_folders import FolderDiff, compare_sides, selects
from pytest_cometlocal.runs.reader import find_runs
from tests.support import only_problems
from tests.unit.test_run_diff import sig, step, write_run


@pytest.fixture
def shards(validate, tmp_path: Path) -> list[Path]:
    """Two shards' output folders, one verified run in the first and two in the second."""
    invalid = only_problems(validate("name: broken\nsteps:\n  - {id: a, kind: clik}\n"))
    folders = [tmp_path / "shard1" / "cometlocal-runs", tmp_path / "shard2" / "cometlocal-runs"]
    for folder, count in zip(folders, (1, 2)):
        for _ in range(count):
            record_invalid_plan(invalid, folder)
    return folders


def refused(capsys, *argv: str) -> str:
    """Exit 2, nothing on standard output, one line on standard error (no traceback): that line."""
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured
    return captured.err


# --------------------------------------------------------------------------- verify


def test_verify_checks_every_shards_runs(shards: list[Path], capsys) -> None:
    assert main(["verify", *map(str, shards)]) == 0
    out = capsys.readouterr().out
    assert out.count("ok      ") == 3 and all(str(folder) in out for folder in shards)
    assert out.splitlines()[-1] == "3 run folders in 2 paths: 3 verified, 0 failed"


def test_verify_fails_on_a_bad_run_in_any_shard(shards: list[Path], capsys) -> None:
    run = sorted(p for p in shards[1].iterdir() if p.is_dir())[1]
    report = run / "evidence" / "validation_report.json"
    report.write_text(report.read_text().replace("broken", "fine!!"))
    assert main(["verify", "-q", *map(str, shards)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == f"FAILED  {run}"
    assert "3 run folders in 2 paths: 2 verified, 1 failed" in captured.err


def test_verify_refuses_a_missing_or_empty_folder_among_others(shards: list[Path], tmp_path: Path, capsys) -> None:
    missing = tmp_path / "shard3" / "cometlocal-runs"
    assert refused(capsys, "verify", str(shards[0]), str(missing)) == (
        f"cometlocal: error: no such run folder or output folder: {missing}\n")
    (tmp_path / "empty").mkdir()
    assert refused(capsys, "verify", str(tmp_path / "empty"), str(shards[1])) == (
        f"cometlocal: error: no run folders under {tmp_path / 'empty'}\n")
    # The shard's own folder instead of its output folder: the hint names the one that holds runs.
    assert refused(capsys, "verify", str(tmp_path / "shard1")) == (
        f"cometlocal: error: no run folders under {tmp_path / 'shard1'} (did you mean {shards[0]}?)\n")
    (tmp_path / "file.txt").write_text("x")
    assert "not a folder" in refused(capsys, "verify", str(tmp_path / "file.txt"))


def test_a_run_named_twice_is_verified_once(shards: list[Path], capsys) -> None:
    run = next(p for p in shards[0].iterdir() if p.is_dir())
    assert find_runs([shards[0], run, shards[0]]) == [run]
    assert main(["verify", str(shards[0]), str(run)]) == 0
    assert "1 run folders in 2 paths: 1 verified, 0 failed" in capsys.readouterr().out


# --------------------------------------------------------------------------- show


def test_show_lists_the_runs_of_every_folder(shards: list[Path], capsys) -> None:
    assert main(["show", *map(str, shards)]) == 0
    out = capsys.readouterr().out
    assert f"== {shards[0]}: 1 run\n" in out and f"== {shards[1]}: 2 runs\n" in out
    assert out.index(f"== {shards[0]}") < out.index(f"== {shards[1]}")
    assert out.count("status: failed") == 3
    assert main(["show", "--list", *map(str, shards)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("==")]
    assert len(lines) == 3
    assert all(line.startswith("failed INVALID_ACTIONSPEC") and "plans/p.actions.yaml::broken" in line
               for line in lines), lines


def test_show_refuses_a_missing_folder(shards: list[Path], tmp_path: Path, capsys) -> None:
    assert refused(capsys, "show", str(shards[0]), str(tmp_path / "nope")) == (
        f"cometlocal: error: no such run folder or output folder: {tmp_path / 'nope'}\n")


# --------------------------------------------------------------------------- diff


def two_builds(tmp_path: Path) -> tuple[Path, Path]:
    """Two output folders of one suite: 'login' the same, 'menu' diverges, 'export' in A only, 'search' in B only."""
    a, b = tmp_path / "build1", tmp_path / "build2"
    for out, text in ((a, "open"), (b, "closed")):
        write_run(out / f"login-{out.name}", [step("open")], name="login", file="plans/login.actions.yaml")
        write_run(out / f"menu-{out.name}", [step("open", sig("/"), sig("/menu", text=text))])
    write_run(a / "export-1", [step("open")], name="export", file="plans/export.actions.yaml")
    write_run(b / "search-2", [step("open")], name="search", file="plans/search.actions.yaml")
    return a, b


def test_diff_of_two_output_folders_pairs_the_runs_by_plan(tmp_path: Path, capsys) -> None:
    a, b = two_builds(tmp_path)
    result = compare_sides([a], [b])
    assert isinstance(result, FolderDiff)
    assert {p.identity["name"]: p.result for p in result.pairs} == {
        "login": "match", "menu opens": "diverges", "export": "only_in_a", "search": "only_in_b"}
    assert main(["diff", str(a), str(b)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"A: {a}  (3 runs)" and out[1] == f"B: {b}  (3 runs)"
    menu = next(line for line in out if "'menu opens'" in line)
    assert menu.startswith("  *  diverges") and "step 'open': before: same; after: visible_text" in menu
    assert next(line for line in out if "'login'" in line).startswith("     match")
    assert out[-1] == "4 plans: 1 match, 1 diverges, 1 only in A, 1 only in B"
    assert main(["diff", "--json", str(a), str(b)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["comparison"] == "folders" and data["match"] is False
    assert data["sides"]["a"] == {"paths": [str(a)], "runs": 3}
    by_name = {p["plan"]["name"]: p for p in data["plans"]}
    assert by_name["export"]["b"] is None and by_name["export"]["a"]["status"] == "passed"
    assert by_name["menu opens"]["first_divergence"]["step_id"] == "open"
    assert by_name["login"]["first_divergence"] is None


def test_diff_of_two_sharded_runs_pairs_plans_across_shards(tmp_path: Path, capsys) -> None:
    """Each CI run split in two shards, the plans split differently: every plan is still paired."""
    names = ["p1", "p2", "p3"]
    first = [tmp_path / "ci1" / f"shard{i}" for i in (1, 2)]
    second = [tmp_path / "ci2" / f"shard{i}" for i in (1, 2)]
    for i, name in enumerate(names):
        write_run(first[i % 2] / f"{name}-a", [step("open")], name=name)
        write_run(second[0 if i < 2 else 1] / f"{name}-b", [step("open")], name=name)
    assert main(["diff", *map(str, first), "--against", *map(str, second)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "3 plans: 3 match, 0 diverges, 0 only in A, 0 only in B"


def test_diff_of_folders_with_one_plan_each_is_the_step_diff(tmp_path: Path, capsys) -> None:
    a, b = two_builds(tmp_path)
    result = compare_sides([a], [b], plan="menu opens")
    assert isinstance(result, RunDiff) and result.first_divergence.step_id == "open"
    # A run folder against an output folder: its plan's run there.
    run = a / "menu-build1"
    assert main(["diff", str(run), str(b)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("plan 'menu opens' (plans/m.actions.yaml)\n")
    assert out.splitlines()[-1].startswith("first divergence: step 'open'")
    assert main(["diff", str(a), str(b), "--plan", "plans/login.actions.yaml::login"]) == 0
    assert "the runs match: 1 steps" in capsys.readouterr().out


def test_diff_refuses_a_plan_one_side_does_not_have(tmp_path: Path, capsys) -> None:
    a, b = two_builds(tmp_path)
    assert refused(capsys, "diff", str(a), str(b), "--plan", "export") == (
        f"cometlocal: error: no run of plan 'export' under side B: {b}\n")
    assert refused(capsys, "diff", str(a / "export-1"), str(b)) == (
        f"cometlocal: error: no run of plan 'export' (plans/export.actions.yaml) under side B: {b}\n")
    assert refused(capsys, "diff", str(a), str(b), "--plan", "nothing") == (
        f"cometlocal: error: no run of plan 'nothing' under side A: {a}\n")
    assert refused(capsys, "diff", str(a), str(tmp_path / "gone")) == (
        f"cometlocal: error: no such run folder or output folder: {tmp_path / 'gone'}\n")
    assert "--against" in refused(capsys, "diff", str(a), str(b), str(a))


def test_an_unreadable_run_is_a_note_in_a_folder_and_a_refusal_when_named(tmp_path: Path, capsys) -> None:
    a, b = two_builds(tmp_path)
    broken = write_run(b / "broken", [step("open")], name="broken")
    (broken / "run_manifest.json").write_text("{not json", encoding="utf-8")
    result = compare_sides([a], [b])
    assert isinstance(result, FolderDiff) and len(result.pairs) == 4
    (note,) = [n for n in result.notes if "broken" in n]
    assert note.startswith("side B: skipped, not a run folder (run_manifest.json is not valid JSON: ")
    assert note.endswith(f"): {broken}")
    assert "run_manifest.json is not valid JSON" in refused(capsys, "diff", str(broken), str(a))


def test_several_runs_of_a_plan_on_one_side_compare_the_latest_of_its_own(tmp_path: Path, capsys) -> None:
    """The latest run of the plan's item, not a later one that made a storage state on demand (xdist)."""
    a, b = tmp_path / "a", tmp_path / "b"
    old = write_run(a / "old", [step("open", after=sig(text="old"))])
    new = write_run(a / "new", [step("open")])
    made = write_run(a / "made", [step("open", after=sig(text="made"))])
    write_run(b / "only", [step("open")])
    for run, started in ((old, "2026-11-24T08:00:00Z"), (new, "2026-11-24T09:00:00Z"), (made, "2026-11-24T10:00:00Z")):
        manifest = json.loads((run / "run_manifest.json").read_text())
        manifest["started_at"] = started
        if run is made:
            manifest["plan"]["purpose"] = "storage state 'signed_in' for plans/d.actions.yaml::d"
        (run / "run_manifest.json").write_text(json.dumps(manifest))
    result = compare_sides([a], [b])
    assert isinstance(result, RunDiff) and result.match and result.a.path == new
    assert result.notes == [f"side A holds 3 runs of 'menu opens' (plans/m.actions.yaml) (1 made on demand for a "
                            f"storage state): the latest of its own is compared, {new}"]
    shutil.rmtree(new)
    shutil.rmtree(old)
    assert compare_sides([a], [b]).a.path == made  # only a run made on demand: it is compared


@pytest.mark.parametrize(("selector", "chosen"), [
    ("pages", True), ("pages[form]", True), ("pages[bob]", False), ("pages open", False),
    ("plans/pages.actions.yaml", True), ("pages.actions.yaml", True), ("s.actions.yaml", False),
    ("pages.actions.yaml::pages[form]", True), ("plans/pages.actions.yaml::pages", True),
    ("other.actions.yaml::pages", False),
])
def test_plan_selectors(selector: str, chosen: bool) -> None:
    assert selects(selector, {"file": "plans/pages.actions.yaml", "name": "pages", "row_id": "form"}) is chosen


def test_plan_selector_by_name_without_a_row() -> None:
    assert selects("pages", {"file": "plans/pages.actions.yaml", "name": "pages"})
