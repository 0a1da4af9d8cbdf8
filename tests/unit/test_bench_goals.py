"""The goals section's arithmetic and protocol (benchmarks/bench_goals.py, goals_child.py), without a browser:
the floor variant's reads, the child's answer and path, the counter, the ratios and the table."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks.bench_goals import (SIDES, _Runner, attempt_lines, checkout, child_env, goal_rows, markdown,
                                    real_ratio, spread)
from benchmarks.goals_child import COUNT_CONFTEST, parse_result, per_plain_step, result_line
from benchmarks.real_flow import HAND_TEST

REPO = Path(__file__).resolve().parents[2]
ACTIONS = ("goto", "fill", "click", "set_input_files")
READS = ("evaluate", "evaluate_all")


class _Recorder:
    """A page and its locators that log the calls the hand-written flow makes (only the order is looked at)."""

    def __init__(self, log: list[str]) -> None:
        self._log = log

    def __getattr__(self, name: str):
        def call(*args, **kwargs):
            if name in ACTIONS + READS:
                self._log.append(name)
            return self
        return call


def _flow_calls(mode: str, tmp_path: Path, monkeypatch) -> list[str]:
    monkeypatch.setenv("BENCH_ADMIN_PASSWORD", "pw")
    source = HAND_TEST.format(timeout=1, titles=["t"], traced=False, reads=mode)
    namespace = {"__file__": str(tmp_path / "test_hand.py"), "__name__": "test_hand"}
    exec(compile(source, "test_hand.py", "exec"), namespace)
    log: list[str] = []
    namespace["expect"] = lambda _: _Recorder([])  # the checks are the hand-written test's own, not reads
    namespace["flow"](_Recorder(log), "http://127.0.0.1:1", "t")
    return log


def test_one_read_per_step_reads_once_between_two_actions_and_after_the_last(tmp_path, monkeypatch):
    calls = _flow_calls("one", tmp_path, monkeypatch)
    actions = [i for i, c in enumerate(calls) if c in ACTIONS]
    assert len(actions) == 11 and sum(c in READS for c in calls) == 14 + 1  # a read a step, the last "after"
    for a, b in zip(actions, actions[1:]):
        assert 1 <= sum(c in READS for c in calls[a + 1:b]) <= 2, calls[a:b + 1]  # 2: an assert step between
    assert calls[0] == "evaluate" and calls[-1] == "evaluate"
    # every action with a target is preceded by the read that matches it
    assert all(calls[i - 1] == "evaluate_all" for i in actions if calls[i] != "goto")
    # the plan variant reads twice around every action: the floor variant's reads are what one call saves
    plan = _flow_calls("plan", tmp_path, monkeypatch)
    assert sum(c in READS for c in plan) == 14 + 11
    assert not [c for c in _flow_calls("", tmp_path, monkeypatch) if c in READS]


def test_the_child_answers_on_its_last_marked_line():
    out = "noise\n" + result_line({"n": 1}) + "\nmore\n" + result_line({"n": 2, "package": "/x"}) + "\ntail\n"
    assert parse_result(out) == {"n": 2, "package": "/x"}
    assert parse_result("Traceback (most recent call last):\n  boom\n") is None


def test_a_side_runs_with_the_harness_then_its_checkout_and_nothing_inherited(tmp_path):
    env = child_env(tmp_path / "h", tmp_path / "co", {"PYTHONPATH": "/elsewhere", "COMETLOCAL_BENCH_PROFILE": "fast",
                                                      "PYTEST_ADDOPTS": "-x", "HOME": "/home/me"})
    assert env == {"PYTHONPATH": f"{tmp_path / 'h'}{os.pathsep}{tmp_path / 'co'}", "HOME": "/home/me"}


def test_a_folder_without_the_package_is_refused_by_name(tmp_path):
    with pytest.raises(SystemExit, match="is not a checkout of the package"):
        checkout(str(tmp_path))
    assert checkout(str(REPO)) == REPO


def _harness(tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(REPO / "benchmarks", tmp_path / "harness" / "benchmarks",
                    ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    return tmp_path / "harness"


def test_the_child_process_imports_its_sides_checkout_and_a_wrong_import_stops_the_run(tmp_path):
    harness = _harness(tmp_path)
    runner = _Runner(harness, {"after": REPO, "before": tmp_path / "not-a-checkout"}, {})
    got = runner.run("after", {"task": "package", "work": str(tmp_path / "w")}, 120)
    assert got is not None and Path(got["package"]) == REPO / "pytest_cometlocal"
    # a side whose folder holds no package imports another one: that is said, not measured
    with pytest.raises(SystemExit, match="the before side imported"):
        runner.run("before", {"task": "package", "work": str(tmp_path / "w")}, 120)
    # a child that dies is left out with its output, and the run goes on
    assert runner.run("after", {"task": "nope", "work": str(tmp_path / "w")}, 120) is None
    assert "KeyError" in runner.broken[-1]["why"]


def test_the_counter_counts_script_calls_apart_and_leaves_the_timing_dependent_ones_out(monkeypatch):
    try:
        from playwright._impl._connection import Connection
    except ImportError:
        from playwright._impl.connection import Connection
    sent: list[str] = []
    monkeypatch.setattr(Connection, "send_message_to_server", lambda self, obj, method, *a: sent.append(method))
    namespace: dict = {"pytest": pytest}
    exec(compile(COUNT_CONFTEST, "conftest.py", "exec"), namespace)

    class Obj:
        def __init__(self, type_: str) -> None:
            self._type = type_

    for type_, method in (("Frame", "evaluateExpression"), ("Frame", "evalOnSelectorAll"), ("Frame", "click"),
                          ("Frame", "waitForTimeout"), ("Page", "__waitInfo__"), ("CDPSession", "send"),
                          ("ElementHandle", "evaluateExpression"), ("Frame", "title")):
        Connection.send_message_to_server(None, Obj(type_), method, {}, {})
    assert len(sent) == 8  # every call still goes out
    assert namespace["_COUNTS"] == {"all": 5, "script": 3}


def test_calls_per_plain_step_are_what_the_long_plan_adds_to_the_short_one():
    items = {"calls_0_warm": {"all": 99, "script": 99}, "calls_1_short": {"all": 100, "script": 60},
             "calls_2_long": {"all": 180, "script": 80}}
    assert per_plain_step(items) == {"all": 4.0, "script": 1.0}


def test_attempt_lines_are_counted_from_the_executors_method_only(tmp_path):
    pkg = tmp_path / "pytest_cometlocal" / "executor"
    pkg.mkdir(parents=True)
    (pkg / "other.py").write_text("def _attempt():\n    pass\n")
    assert attempt_lines(tmp_path) is None
    (pkg / "engine.py").write_text("class Executor:\n    def run(self):\n        pass\n\n"
                                   "    def _attempt(self, x):\n        a = 1\n\n        return a\n")
    assert attempt_lines(tmp_path) == 4
    assert isinstance(attempt_lines(REPO), int)


def _session(side_round: int, variant: str, items: list[float]) -> dict:
    return {"variant": variant, "round": side_round, "item_s": items}


def test_real_ratios_pair_a_plan_with_its_reference_of_the_same_round():
    sessions = [_session(0, "fast", [3.0, 5.0]), _session(0, "hand-written", [2.0]), _session(1, "fast", [3.0]),
                _session(1, "hand-written", [3.0]), _session(2, "fast", [9.0])]  # round 2: no reference
    assert real_ratio(sessions, "fast", "hand-written") == pytest.approx([2.0, 1.0])
    assert spread([1.2, 1.0, 1.5]) == "1.00 / 1.20 / 1.50x" and spread([float("nan")]) == "n/a"


def _got(unit: bool) -> dict:
    def side(scale: float) -> dict:
        return {"real": [_session(r, v, [t * (scale if v in ("fast", "balanced") else 1)])
                         for r in range(2) for v, t in (("fast", 1.2), ("balanced", 1.5), ("hand-written", 1.0),
                                                        ("hand-written + tracing", 1.25))],
                "bench": {"balanced": [{"ratio_call": 3.0 * scale}], "fast": [{"ratio_call": 1.7 * scale}]},
                "calls": {"fast": {"per_step": {"all": 5.0, "script": 4.0 * scale}}}}

    sides = {"before": side(1.0), "after": side(0.5)}
    got = {key: {s: sides[s][key] for s in SIDES} for key in ("real", "bench", "calls")}
    got.update(before="/tmp/b", after="/tmp/a", flows=3, attempt={"before": 82, "after": 41}, total_s=600.0,
               rounds=[{"round": 0, "load1": [4.0, 6.5]}, {"round": 1, "load1": [5.0, 5.5]}])
    if unit:
        got["unit"] = {"before": {"wall_s": 160.0}, "after": {"wall_s": 40.0}}
    return got


def test_the_goals_table_sets_each_measure_before_against_after():
    rows = {r[0]: r[1:] for r in goal_rows(_got(unit=True))}
    assert rows["real flow, `fast`, vs hand-written"] == ["<= 1.15x", "1.20 / 1.20 / 1.20x", "0.60 / 0.60 / 0.60x", "0.50"]
    assert rows["real flow, `balanced`, vs hand-written with tracing"][1] == "1.20 / 1.20 / 1.20x"
    assert rows["bench page, 40 steps, `balanced` vs hand-written"][1:] == ["3.00 / 3.00 / 3.00x", "1.50 / 1.50 / 1.50x", "0.50"]
    assert rows["script calls per plain step, `fast`"][1:] == ["4", "2", "0.50"]
    assert rows["all protocol calls per plain step, `balanced`"][1:] == ["n/a", "n/a", "n/a"]  # not measured
    assert rows["`Executor._attempt`, lines"][1:] == ["82", "41", "-41"]
    assert rows["`tests/unit` (`-n 2`), one run, s"][1:] == ["160.0 s", "40.0 s", "0.25"]
    text = markdown(_got(unit=False))
    assert "1-min load average 4.0-6.5" in text and "2 rounds" in text and "| not run" in text
    assert sum(line.startswith("|") for line in text.splitlines()) == len(goal_rows(_got(unit=False))) + 2

