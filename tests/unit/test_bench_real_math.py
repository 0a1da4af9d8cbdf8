"""The real-application benchmark's arithmetic, without a browser: a step's phases from its trace
events, the rounds' rotation, the per-variant figures and the ratios against the goals."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from benchmarks.trace_phases import step_phases
from benchmarks.bench_real import BASELINE, EMPTY_READS, HAND, READS, TRACED, by_round, ratios, rotation, summarize
from benchmarks.real_flow import HAND_TEST
from pytest_cometlocal.runs.events import Event

T0 = datetime(2026, 11, 26, 10, 0, tzinfo=timezone.utc)


def events(*rows: tuple[int, str, str | None, dict | None]) -> list[Event]:
    """(ms after T0, event type, step id, metadata) -> the trace's events, in order."""
    out = []
    for n, (ms, name, step, meta) in enumerate(rows, 1):
        data = {"event_type": name, "step_id": step, "ts_utc": (T0 + timedelta(milliseconds=ms)).isoformat(),
                "metadata": meta or {}}
        if name == "proposal_received":
            data["action_spec"] = {"kind": "click" if step == "go" else "assert"}
        out.append(Event.of(n, data))
    return out


def one_step(step: str, at: int, attempt_two: bool = False) -> list[tuple[int, str, str | None, dict | None]]:
    rows = [(at + 10, "observation_captured", step, {"attempt": 1}), (at + 11, "proposal_received", step, None),
            (at + 30, "preconditions_checked", step, None), (at + 31, "action_started", step, None),
            (at + 130, "action_executed", step, None), (at + 200, "postconditions_checked", step, None),
            (at + 203, "evidence_captured", step, None)]
    if attempt_two:
        rows[1:1] = [(at + 5, "retry_scheduled", step, None), (at + 6, "observation_captured", step, {"attempt": 2})]
    return rows


def test_step_phases_split_each_step_at_its_events_from_the_previous_steps_end():
    trace = events((0, "run_started", None, None), *one_step("go", 0), *one_step("check", 203),
                   (500, "run_finished", None, None))
    assert [kind for kind, _ in step_phases(trace)] == ["click", "assert"]
    (_, first), (_, second) = step_phases(trace)
    assert first == pytest.approx({"observation before": 10, "target + preconditions": 20, "action": 100,
                                   "postconditions + observation after": 70, "evidence": 3, "total": 203})
    assert second["observation before"] == pytest.approx(10) and second["total"] == pytest.approx(203)


def test_step_phases_leave_out_a_step_that_needed_a_second_attempt_but_keep_the_next():
    trace = events((0, "run_started", None, None), *one_step("go", 0, attempt_two=True), *one_step("check", 203))
    assert [kind for kind, _ in step_phases(trace)] == ["assert"]


def test_rotation_starts_each_round_one_variant_further():
    v = ["a", "b", "c"]
    assert [rotation(v, r) for r in range(4)] == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]]


def session(variant: str, items: list[float], cpu: float, rnd: int = 0) -> dict:
    return {"variant": variant, "round": rnd, "item_s": items, "call_s": items, "cpu_s": cpu}


def test_by_round_pairs_a_plan_with_its_reference_of_the_same_round_only():
    sessions = [session("balanced", [2.0, 4.0], 0, 0), session(HAND, [2.0], 0, 0), session("balanced", [3.0], 0, 1),
                session(HAND, [1.5], 0, 1), session("balanced", [9.0], 0, 2)]  # round 2 has no hand-written flow
    assert by_round(sessions, "balanced", HAND) == pytest.approx([1.5, 2.0])


def test_summarize_takes_medians_over_flows_and_the_baseline_out_of_the_cpu():
    rows = summarize([session("balanced", [2.0, 3.0], 16.0), session("balanced", [4.0, 2.5], 20.0),
                      session(HAND, [2.0, 2.0], 10.0), session(BASELINE, [], 4.0), session(BASELINE, [], 6.0)],
                     flows=3)
    assert set(rows) == {"balanced", HAND}
    assert rows["balanced"]["median_s"] == pytest.approx(2.75)
    assert (rows["balanced"]["min_s"], rows["balanced"]["max_s"]) == (2.0, 4.0)
    assert rows["balanced"]["cpu_s_per_flow"] == pytest.approx((18.0 - 5.0) / 3)
    assert rows[HAND]["cpu_s_per_flow_raw"] == pytest.approx(10.0 / 3)


def test_ratios_divide_each_plan_profile_by_each_reference_and_check_the_goals():
    rows = {"balanced": {"median_s": 2.2, "cpu_s_per_flow": 3.0}, "fast": {"median_s": 2.1, "cpu_s_per_flow": 2.7},
            HAND: {"median_s": 2.0, "cpu_s_per_flow": 2.0}, TRACED: {"median_s": 2.4, "cpu_s_per_flow": 3.0}}
    got = {(r["plan"], r["reference"], r["what"]): r for r in ratios(rows)}
    assert len(got) == 8  # forensic has no row: it was not run
    assert got[("balanced", HAND, "wall")]["ratio"] == pytest.approx(1.1) and got[("balanced", HAND, "wall")]["met"]
    assert got[("balanced", TRACED, "wall")]["met"] is True
    assert got[("balanced", HAND, "cpu")]["met"] is True
    assert got[("fast", HAND, "wall")]["met"] is True  # 1.05 <= 1.08
    assert got[("fast", HAND, "cpu")]["ratio"] == pytest.approx(1.35) and got[("fast", HAND, "cpu")]["met"] is False
    assert got[("balanced", TRACED, "cpu")]["goal"] is None and got[("balanced", TRACED, "cpu")]["met"] is None


def test_the_page_reads_variant_is_set_against_the_hand_written_flow_and_each_profile_against_it():
    rows = {"fast": {"median_s": 2.6, "cpu_s_per_flow": 2.6}, HAND: {"median_s": 2.0, "cpu_s_per_flow": 2.0},
            TRACED: {"median_s": 2.4, "cpu_s_per_flow": 3.0}, READS: {"median_s": 2.4, "cpu_s_per_flow": 2.2},
            EMPTY_READS: {"median_s": 2.3, "cpu_s_per_flow": 2.1}}
    got = {(r["plan"], r["reference"], r["what"]): r for r in ratios(rows)}
    assert got[(EMPTY_READS, HAND, "wall")]["ratio"] == pytest.approx(1.15)
    assert (EMPTY_READS, READS, "wall") not in got and ("fast", EMPTY_READS, "wall") not in got
    assert got[(READS, HAND, "wall")]["ratio"] == pytest.approx(1.2) and got[(READS, HAND, "wall")]["goal"] is None
    assert got[("fast", READS, "cpu")]["ratio"] == pytest.approx(2.6 / 2.2)
    assert (READS, TRACED, "wall") not in got and (READS, READS, "wall") not in got


def test_the_hand_written_flow_makes_the_page_reads_only_in_its_own_variant():
    plain, reads, empty = (HAND_TEST.format(timeout=1, titles=["t"], traced=False, reads=mode)
                           for mode in ("", "plan", "empty"))
    for text in (plain, reads, empty):
        compile(text, "test_hand.py", "exec")
    assert "READS = ''" in plain and "READS = 'plan'" in reads and "READS = 'empty'" in empty
    # Every action of the flow is bracketed: a look before it (with its target), a look after it.
    actions = [line for line in reads.splitlines() if any(a in line for a in (".click()", ".fill(", ".set_input_files(", ".goto("))]
    assert len(actions) == 11
    lines = reads.splitlines()
    for line in actions:
        at = lines.index(line)
        assert "before(page" in line or "before(page" in lines[at - 1], line
        assert lines[at + 1].strip() == "after(page)", line
