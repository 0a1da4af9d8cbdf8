"""Issue 27: a suite split into shards by pytest-split gives the unsharded run's outcomes, and one report.

A small suite against the demo portal (one plan signs in through a step group that
saves the session, three plans start signed in, two need no session, one fails)
runs once unsharded and serially, recording its durations with pytest-split's own
``--store-durations``. Then it runs as three shards (``--splits 3 --group N`` with
those durations), each with ``-n 2`` and its own output folder and Allure results
folder, as three CI machines would. The shards together must give:

- every item exactly once, with the unsharded run's outcome and error code;
- one sign-in per worker: each worker that ran a plan starting signed in saved the
  session once (by running the signing-in plan, or by making the state on demand),
  and no worker saved it twice;
- run folders that ``cometlocal verify`` accepts all together, and that ``cometlocal
  diff`` pairs plan by plan with the unsharded run's;
- Allure results that, copied into one folder, hold every plan once with its status,
  and render as one report with Allure 2 and Allure 3 when their CLIs are there.

Every inner session runs as a subprocess under a hard timeout; the four sessions
run once per process, in the first test's folder.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.runs.diff_folders import FolderDiff, compare_sides
from pytest_cometlocal.runs.reader import find_runs, read_events, read_manifest
from tests.plugin.test_allure_render import EXAMPLE_CONFIG, allure2, allure3, by_name, run_cli
from tests.support import OUTCOMES_CONFTEST, read_outcomes, write

pytestmark = pytest.mark.browser

SHARDS = 3
TIMEOUT = 240  # seconds for one inner session: a hang fails the test instead of the CI job

SUITE = {
    "cometlocal.yaml": """\
        defaults:
          criticality: normal
          timeout_ms: 5000
          preconditions: [{kind: host_in_allowlist}]
          postconditions: [{kind: host_in_allowlist}]
        """,
    "groups/sign_in.steps.yaml": """\
        save_storage_state: signed_in
        steps:
          - {id: open, kind: navigate, target: {type: url, url: /login}}
          - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
          - {id: password, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
          - id: submit
            kind: click
            target: {type: testid, id: login-submit}
            postconditions: [{kind: url_matches, args: {pattern: "/dashboard$"}}]
        """,
    "sign_in.actions.yaml": """\
        name: sign in
        steps:
          - use: groups/sign_in.steps.yaml
        """,
    "dashboard.actions.yaml": """\
        name: dashboard
        storage_state: signed_in
        steps:
          - {id: open, kind: navigate, target: {type: url, url: /dashboard},
             postconditions: [{kind: url_matches, args: {pattern: "/dashboard$"}}]}
        """,
    "greeting.actions.yaml": """\
        name: greeting
        storage_state: signed_in
        steps:
          - {id: open, kind: navigate, target: {type: url, url: /dashboard}}
          - id: hello
            kind: assert
            postconditions:
              - {kind: element_text_contains, args: {target: {type: testid, id: greeting}, text: "Welcome, alice"}}
        """,
    "reports.actions.yaml": """\
        name: reports
        storage_state: signed_in
        steps:
          - {id: open, kind: navigate, target: {type: url, url: /reports},
             postconditions: [{kind: title_contains, args: {text: Reports}}]}
        """,
    "home.actions.yaml": """\
        name: home
        steps:
          - {id: open, kind: navigate, target: {type: url, url: /}}
        """,
    "wrong_title.actions.yaml": """\
        name: wrong title
        policy: {retries_per_action: 0}
        steps:
          - {id: open, kind: navigate, target: {type: url, url: /form}, timeout_ms: 1000,
             postconditions: [{kind: title_contains, args: {text: No such title}}]}
        """,
}
USERS = {"dashboard.actions.yaml::dashboard", "greeting.actions.yaml::greeting", "reports.actions.yaml::reports"}


@dataclass
class Sharded:
    root: Path
    baseline: dict[str, tuple[str, str | None]]
    shards: list[dict[str, tuple[str, str | None]]]
    outputs: list[Path]  # each shard's output folder
    allure: list[Path]  # each shard's Allure results


_RUN: list[Sharded] = []


def session(pytester: pytest.Pytester, *args: str) -> dict[str, tuple[str, str | None]]:
    result = pytester.runpytest_subprocess("-p", "no:randomly", *args, timeout=TIMEOUT)
    assert result.ret in (0, 1), result.stdout.str()  # tests passed or failed: no usage error, no crash
    return read_outcomes(pytester.path / "outcomes.jsonl")


def sharded(pytester: pytest.Pytester) -> Sharded:
    """The unsharded run and the three shards, run once per process."""
    if _RUN:
        return _RUN[0]
    for name, text in SUITE.items():
        write(pytester, name, text)
    pytester.makeconftest(OUTCOMES_CONFTEST)
    durations = pytester.path / "durations.json"
    baseline = session(pytester, "--store-durations", f"--durations-path={durations}",
                       "--cometlocal-output=out-all")
    # What the shards are measured against: every plan does what it is written for.
    assert baseline == {**{nodeid: ("passed", None) for nodeid in USERS},
                        "sign_in.actions.yaml::sign in": ("passed", None), "home.actions.yaml::home": ("passed", None),
                        "wrong_title.actions.yaml::wrong title": ("failed", "POSTCONDITION_FAILED")}, baseline
    assert set(json.loads(durations.read_text(encoding="utf-8"))) == set(baseline)
    shards, outputs, allure = [], [], []
    for group in range(1, SHARDS + 1):
        outputs.append(pytester.path / f"shard{group}" / "cometlocal-runs")
        allure.append(pytester.path / f"shard{group}" / "allure-results")
        shards.append(session(pytester, f"--splits={SHARDS}", f"--group={group}", f"--durations-path={durations}",
                              "--splitting-algorithm=least_duration",
                              "-n", "2", f"--cometlocal-output={outputs[-1]}", f"--alluredir={allure[-1]}"))
    _RUN.append(Sharded(pytester.path, baseline, shards, outputs, allure))
    return _RUN[0]


def saves(run: Path) -> list[str]:
    """The storage states a run saved (its trace's ``storage_state_saved``), read through the run reader."""
    return [e.metadata["storage_state_saved"]["name"] for e in read_events(run / "trace.jsonl", {"evidence_captured"})
            if isinstance(e.metadata.get("storage_state_saved"), dict)]


def test_shards_give_the_unsharded_outcomes_and_sign_in_once_per_worker(pytester: pytest.Pytester, capsys) -> None:
    run = sharded(pytester)
    # Every item in exactly one shard, with the outcome it has unsharded.
    counted = Counter(nodeid for shard in run.shards for nodeid in shard)
    assert counted == Counter(run.baseline.keys()), counted
    assert {k: v for shard in run.shards for k, v in shard.items()} == run.baseline
    assert sum(1 for shard in run.shards if shard) >= 2, run.shards  # the suite was really split

    # One sign-in per worker: the serial run signed in once, and so did each worker of each shard.
    assert sum(saves(folder).count("signed_in") for folder in find_runs([run.root / "out-all"])) == 1
    on_demand = 0
    for number, output in enumerate(run.outputs, 1):
        workers: dict[str, dict[str, int]] = {}
        for folder in find_runs([output]) if output.is_dir() else []:
            manifest = read_manifest(folder)
            worker = workers.setdefault(manifest["platform"]["worker"], {"saves": 0, "users": 0})
            worker["saves"] += saves(folder).count("signed_in")
            worker["users"] += bool(manifest.get("storage_state"))
            on_demand += "purpose" in manifest["plan"]
        for name, worker in workers.items():
            assert worker["saves"] <= 1, (number, name, workers)  # never twice in one worker
            if worker["users"]:
                assert worker["saves"] == 1, (number, name, workers)  # once where a plan started signed in
    assert on_demand >= 1  # a shard without the signing-in plan made the session itself

    # The shards' output folders together: verify accepts them all; diff pairs every plan with its unsharded run.
    with_runs = [output for output in run.outputs if output.is_dir()]
    capsys.readouterr()
    assert main(["verify", "-q", *map(str, with_runs)]) == 0
    assert capsys.readouterr().out == f"{len(find_runs(with_runs))} run folders in {len(with_runs)} paths: " \
                                      f"{len(find_runs(with_runs))} verified, 0 failed\n"
    compared = compare_sides([run.root / "out-all"], with_runs)
    assert isinstance(compared, FolderDiff)
    assert len(compared.pairs) == len(run.baseline)
    assert all(p.diff is not None and p.diff.status_differs is None for p in compared.pairs), compared.pairs


def merged_allure(pytester: pytest.Pytester) -> Path:
    """The shards' Allure results copied into one folder, as a CI job collects its shards' artifacts."""
    run = sharded(pytester)
    merged = run.root / "allure-merged"
    if merged.is_dir():
        return merged
    merged.mkdir()
    for folder in run.allure:
        for path in folder.iterdir() if folder.is_dir() else []:
            target = merged / path.name
            if target.exists():  # only the categories, the same in every shard; results are named by uuid
                assert path.name == "categories.json" and target.read_bytes() == path.read_bytes(), path
                continue
            shutil.copyfile(path, target)
    return merged


def test_merged_allure_results_hold_every_plan_once_with_its_status(pytester: pytest.Pytester) -> None:
    run = sharded(pytester)
    merged = merged_allure(pytester)
    results = [json.loads(p.read_text(encoding="utf-8")) for p in merged.glob("*-result.json")]
    names = Counter(r["name"] for r in results)
    expected = {nodeid.split("::", 1)[1]: outcome for nodeid, outcome in run.baseline.items()}
    assert names == Counter(expected.keys()), names
    assert {r["name"]: r["status"] for r in results} == {name: o for name, (o, _) in expected.items()}
    assert (merged / "categories.json").is_file()


def test_merged_allure_results_render_with_allure2(pytester: pytest.Pytester) -> None:
    command, why = allure2()
    if command is None:
        pytest.skip(why)
    run = sharded(pytester)
    report = run.root / "report2"
    done = run_cli([*command, "generate", str(merged_allure(pytester)), "-o", str(report), "--clean"], run.root)
    assert done.returncode == 0, done.stdout
    cases = by_name((report / "data" / "test-cases").glob("*.json"))
    assert {name: case["status"] for name, case in cases.items()} == {
        nodeid.split("::", 1)[1]: outcome for nodeid, (outcome, _) in run.baseline.items()}


def test_merged_allure_results_render_with_allure3(pytester: pytest.Pytester) -> None:
    command, why = allure3()
    if command is None:
        pytest.skip(why)
    run = sharded(pytester)
    report = run.root / "report3"
    done = run_cli([*command, "generate", str(merged_allure(pytester)), "-o", str(report),
                    "--config", str(EXAMPLE_CONFIG)], run.root)
    assert done.returncode == 0, done.stdout
    tests = by_name((report / "data" / "test-results").glob("*.json"))
    assert {name: test["status"] for name, test in tests.items()} == {
        nodeid.split("::", 1)[1]: outcome for nodeid, (outcome, _) in run.baseline.items()}
