"""The goals section's arithmetic and protocol (benchmarks/bench_goals.py, goals_child.py), without a browser:
the floor variants' reads and pictures, the bench items' turns, the child's answer and path, the counter, the
ratios and the table."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from benchmarks.bench_goals import (SIDES, _Runner, attempt_lines, checkout, child_env, goal_rows, markdown,
                                    real_ratio, spread)
from benchmarks.bench_real import ONE_READ, PICTURES
from benchmarks.goals_child import COUNT_CONFTEST, parse_result, per_plain_step, result_line
from benchmarks.real_flow import HAND_TEST

REPO = Path(__file__).resolve().parents[2]
ACTIONS = ("goto", "fill", "click", "set_input_files")
READS = ("evaluate", "evaluate_all")


class _Recorder:
    """A page and its locators that log the calls the hand-written flow makes (only the order is looked at).

    A read answers as the plugin's scripts do: observe.js a JSON text, match_observe.js one holding the look."""

    def __init__(self, log: list[str]) -> None:
        self._log = log

    def __getattr__(self, name: str):
        def call(*args, **kwargs):
            if name in ACTIONS + READS:
                self._log.append(name)
            if name == "evaluate":
                return '{"url": "u"}'
            if name == "evaluate_all":
                return json.dumps({"match": "{}", "look": '{"url": "u"}'})
            return self
        return call


def _flow_calls(mode: str, tmp_path: Path, monkeypatch) -> list[str]:
    from playwright.sync_api import expect

    monkeypatch.setenv("BENCH_ADMIN_PASSWORD", "pw")
    # The test module sets expect()'s timeout for its process: here that process is this pytest worker's, whose
    # later tests (a real expect() in tests/executor/test_demo_portal_in_chromium.py) must keep the default.
    monkeypatch.setattr(expect, "set_options", lambda **_: None)
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


def test_the_balanced_floor_takes_a_picture_right_after_each_of_the_one_reads(tmp_path, monkeypatch):
    from benchmarks.floors import Floor

    monkeypatch.setattr(Floor, "picture", lambda self, page, look: page._log.append("picture") or "h")
    calls = _flow_calls("picture", tmp_path, monkeypatch)
    reads = [i for i, c in enumerate(calls) if c in READS]
    assert len(reads) == 14 + 1 and calls.count("picture") == len(reads)
    assert all(calls[i + 1] == "picture" for i in reads)
    # the same reads as the floor of fast, in the same places
    assert [c for c in calls if c != "picture"] == _flow_calls("one", tmp_path, monkeypatch)


class _Shots:
    """The capture functions ``Floor.picture`` uses, logging which one took a picture (no browser)."""

    def __init__(self, monkeypatch) -> None:
        from pytest_cometlocal.executor.page import screenshots

        self.log: list[tuple] = []
        monkeypatch.setattr(screenshots, "grab_frame", lambda page, caret=True: self._shot("frame", caret))
        monkeypatch.setattr(screenshots, "capture_png", lambda page, masked, caret=True: self._shot("png", masked, caret))
        monkeypatch.setattr(screenshots, "retried", lambda page, take: (take(), None))

    def _shot(self, *what) -> bytes:
        self.log.append(what)
        return repr(len(self.log)).encode()


def test_the_floors_picture_is_taken_as_balanced_takes_it(monkeypatch):
    import hashlib

    from benchmarks.floors import Floor

    shots = _Shots(monkeypatch)
    monkeypatch.setattr(Floor, "blanks", {})
    floor = Floor({}, pictures=True)
    page_look = json.dumps({"url": "a", "caret": False})
    assert floor.picture(None, page_look) == hashlib.sha256(b"1").hexdigest() and shots.log == [("frame", False)]
    assert floor.picture(None, page_look) == hashlib.sha256(b"1").hexdigest()  # the same read: carried over
    assert floor.picture(None, json.dumps({"url": "a", "marked": 2})) == hashlib.sha256(b"2").hexdigest()
    assert shots.log[-1] == ("png", True, True)  # a secret on screen: the masked full-size capture
    assert floor.picture(None, json.dumps({"url": "b", "unpainted": True})) is None and len(shots.log) == 2
    blank = json.dumps({"url": "about:blank", "blank": [1280, 720]})
    first = floor.picture(None, blank)
    assert Floor({}, True).picture(None, blank) == first and len(shots.log) == 3  # once a process
    assert Floor({}, True).picture(None, page_look) == hashlib.sha256(b"4").hexdigest()  # a fresh one a flow


def test_the_bench_floor_reads_once_a_step_with_the_next_steps_target():
    from benchmarks.site import flow, hand_test_body, target_code

    steps = flow(12)
    plain, body = hand_test_body(steps), hand_test_body(steps, reads=True).splitlines()
    assert "floor" not in plain and [line for line in body if "floor." not in line] == plain.splitlines()
    reads = [i for i, line in enumerate(body) if "floor.read(" in line]
    assert len(reads) == len(steps) + 1 and reads[0] == 0 and reads[-1] == len(body) - 1
    acts = [i for i, line in enumerate(body) if re.search(r"\.(goto|fill|select_option|click)\(", line)]
    assert len(acts) == sum(s.kind != "assert" for s in steps)  # the assert steps have no action
    for step, i in zip([s for s in steps if s.kind != "assert"], acts):
        last = body[max(r for r in reads if r < i)].strip()
        assert last == ("floor.read(page)" if step.kind == "navigate" else f"floor.read(page, {target_code(step)})")
        assert sum(r < i for r in reads) == steps.index(step) + 1  # one read before each step, and only one


def test_the_bench_items_take_turns_round_by_round():
    from benchmarks.bench_overhead import ORDER_CONFTEST

    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    namespace: dict = {}
    exec(compile(ORDER_CONFTEST, "conftest.py", "exec"), namespace)
    names = ["plans/o_{r:02d}.actions.yaml::o round-{r:02d}", "test_o_hand.py::test_o[round-{r:02d}]",
             "test_o_hand.py::test_o_one[round-{r:02d}]", "test_o_hand.py::test_o_pictures[round-{r:02d}]"]
    kinds = ["plan", "hand", "one", "pictures"]

    def order(n: int) -> list[str]:
        kind_of = {name.format(r=r): kind for name, kind in zip(names[:n], kinds) for r in range(3)}
        items = [Item(nodeid) for nodeid in kind_of]
        namespace["pytest_collection_modifyitems"](items)
        return [kind_of[item.nodeid] for item in items]

    assert order(2) == ["plan", "hand", "hand", "plan", "plan", "hand"]  # plan and hand alone: ABBA, as before
    assert order(4) == ["plan", "hand", "one", "pictures", "hand", "one", "pictures", "plan",
                        "one", "pictures", "plan", "hand"]


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
    name = "send_message_to_server" if hasattr(Connection, "send_message_to_server") else "_send_message_to_server"
    monkeypatch.setattr(Connection, name, lambda self, obj, method, *a: sent.append(method))
    namespace: dict = {"pytest": pytest}
    exec(compile(COUNT_CONFTEST, "conftest.py", "exec"), namespace)

    class Obj:
        def __init__(self, type_: str) -> None:
            self._type = type_

    for type_, method in (("Frame", "evaluateExpression"), ("Frame", "evalOnSelectorAll"), ("Frame", "click"),
                          ("Frame", "waitForTimeout"), ("Page", "__waitInfo__"), ("CDPSession", "send"),
                          ("ElementHandle", "evaluateExpression"), ("Frame", "title")):
        getattr(Connection, name)(None, Obj(type_), method, {}, {})
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


def _got(unit: bool, floors: bool = False) -> dict:
    def side(scale: float) -> dict:
        variants = (("fast", 1.2), ("balanced", 1.5), ("hand-written", 1.0), ("hand-written + tracing", 1.25))
        variants += ((ONE_READ, 1.1), (PICTURES, 1.4)) if floors else ()
        floor = {"ratio_floor_one": 1.1, "ratio_floor_pictures": 1.4, "ratio_plan_one": 1.6 * scale,
                 "ratio_plan_pictures": 2.0 * scale} if floors else {}
        return {"real": [_session(r, v, [t * (scale if v in ("fast", "balanced") else 1)])
                         for r in range(2) for v, t in variants],
                "bench": {"balanced": [{"ratio_call": 3.0 * scale, **floor}], "fast": [{"ratio_call": 1.7 * scale, **floor}]},
                "calls": {"fast": {"per_step": {"all": 5.0, "script": 4.0 * scale}}}}

    sides = {"before": side(1.0), "after": side(0.5)}
    got = {key: {s: sides[s][key] for s in SIDES} for key in ("real", "bench", "calls")}
    got.update(before="/tmp/b", after="/tmp/a", flows=3, attempt={"before": 82, "after": 41}, total_s=600.0,
               rounds=[{"round": 0, "load1": [4.0, 6.5]}, {"round": 1, "load1": [5.0, 5.5]}], floors=floors)
    if unit:
        got["unit"] = {"before": {"wall_s": 160.0}, "after": {"wall_s": 40.0}}
    return got


def test_the_goals_table_sets_each_measure_before_against_after():
    rows = {r[0]: r[1:] for r in goal_rows(_got(unit=True))}
    assert rows["real flow, `fast`, vs hand-written"] == ["<= 1.1x", "1.20 / 1.20 / 1.20x", "0.60 / 0.60 / 0.60x", "0.50"]
    assert rows["real flow, `balanced`, vs hand-written with tracing"][1] == "1.20 / 1.20 / 1.20x"
    assert rows["bench page, 40 steps, `balanced` vs hand-written"][1:] == ["3.00 / 3.00 / 3.00x", "1.50 / 1.50 / 1.50x", "0.50"]
    assert rows["script calls per plain step, `fast`"][1:] == ["4", "2", "0.50"]
    assert rows["all protocol calls per plain step, `balanced`"][1:] == ["n/a", "n/a", "n/a"]  # not measured
    assert rows["`Executor._attempt`, lines"][1:] == ["82", "41", "-41"]
    assert rows["`tests/unit` (`-n 2`), one run, s"][1:] == ["160.0 s", "40.0 s", "0.25"]
    text = markdown(_got(unit=False))
    assert "1-min load average 4.0-6.5" in text and "2 rounds" in text and "| not run" in text
    assert sum(line.startswith("|") for line in text.splitlines()) == len(goal_rows(_got(unit=False))) + 2



def test_the_floors_rows_split_each_ratio_into_the_floors_share_and_the_executors_own():
    plain = goal_rows(_got(unit=False))
    assert not [r for r in plain if "floor" in r[0]]  # left out (--goals-no-floors): no rows
    rows = {r[0]: r[1:] for r in goal_rows(_got(unit=False, floors=True))}
    assert [r[0] for r in goal_rows(_got(unit=False, floors=True)) if "floor" not in r[0]] == [r[0] for r in plain]
    assert rows["real flow, floor of `fast` (hand-written + one read a step) vs hand-written"] == \
        ["(floor)", "1.10 / 1.10 / 1.10x", "1.10 / 1.10 / 1.10x", "1.00"]
    assert rows["real flow, floor of `balanced` (+ a picture a state) vs hand-written"][1] == "1.40 / 1.40 / 1.40x"
    # the plan against its floor: 1.2 / 1.1 and 1.5 / 1.4 before; after, the plans take half as long
    assert rows["real flow, `fast` vs its floor"][:3] == ["(executor's own)", "1.09 / 1.09 / 1.09x", "0.55 / 0.55 / 0.55x"]
    assert rows["real flow, `balanced` vs its floor"][1:] == ["1.07 / 1.07 / 1.07x", "0.54 / 0.54 / 0.54x", "0.50"]
    assert rows["bench page, floor of `balanced` (+ a picture a state) vs hand-written"][1] == "1.40 / 1.40 / 1.40x"
    assert rows["bench page, `fast` vs its floor"][1:] == ["1.60 / 1.60 / 1.60x", "0.80 / 0.80 / 0.80x", "0.50"]
    assert rows["bench page, `balanced` vs its floor"][1] == "2.00 / 2.00 / 2.00x"
    # a side whose bench process did not measure the floors shows n/a, not a wrong figure
    got = _got(unit=False, floors=True)
    got["bench"]["before"]["fast"] = [{"ratio_call": 1.7}]
    assert {r[0]: r[1:] for r in goal_rows(got)}["bench page, `fast` vs its floor"][1:] == \
        ["n/a", "0.80 / 0.80 / 0.80x", "n/a"]
