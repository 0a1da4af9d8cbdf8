"""Executor overhead and per-item fixed cost: plan items vs hand-written pytest-playwright tests.

Both kinds run in **one** inner pytest session (a fresh process), against the
benchmark's own page (``benchmarks/site.py``) served by that session, in the
**same Chromium process**: pytest-playwright's ``browser`` fixture is overridden
to return the plugin's browser (``find_chromium`` + ``LAUNCH_ARGS``), and its
contexts get the plugin's default context options (viewport 1280x720,
downloads accepted). Items alternate plan/hand, hand/plan, ... (ABBA) over the
rounds; round 0 of each kind is a warm-up and is not counted.

What is timed, per item (pytest's own report durations):
- ``call``: the test body. Plan item: run folder, executor, every step with its
  observations, conditions, evidence and trace, run manifest. Hand-written
  test: the Playwright calls and ``expect`` checks.
- ``steps only``: plan: ``run_started`` -> ``run_finished`` in its trace;
  hand-written: ``perf_counter`` around its steps.
- fixed cost: setup + call + teardown of a 1-step item (context, page, network
  guard, run folder, manifests, the step).

With ``floors`` (the goals section), two more hand-written tests run in the same
rounds, rotated with the others: the hand-written flow plus the one read a step
of issue 38's executor (``fast``'s floor) and plus a picture of each state
(``balanced``'s floor); see benchmarks/floors.py and ``site.hand_test_body``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from .common import SITE_CONFTEST, Report, median, require_ok, run_pytest, table, verdict, write_suite
from .site import flow, hand_test_body, plan_yaml

ORDER_CONFTEST = '''

import re as _re

def _kind(item):
    """0 a plan item, 1 the hand-written test, 2 and 3 its floors (one read a step; and a picture a state)."""
    path, _, name = item.nodeid.partition("::")
    if path.endswith((".actions.yaml", ".actions.yml")):
        return 0
    name = name.split("[")[0]
    return 2 if name.endswith("_one") else 3 if name.endswith("_pictures") else 1


def pytest_collection_modifyitems(items):
    """Round by round, the kinds in turn, their order rotated each round (plan/hand alone: ABBA); round 0 first."""
    kinds = sorted({_kind(item) for item in items})
    def key(item):
        m = _re.search(r"round-(\\d+)", item.nodeid)
        rnd = int(m.group(1)) if m else -1
        return (rnd, (kinds.index(_kind(item)) - rnd) % len(kinds))
    items.sort(key=key)
'''

HAND_TEST = '''"""Hand-written pytest-playwright test: the same flow as the plan, checked with expect()."""
import re
import time

import pytest
from playwright.sync_api import expect

expect.set_options(timeout=5_000)


@pytest.mark.parametrize("round_", range({rounds}), ids=[f"round-{{i:02d}}" for i in range({rounds})])
def test_{kind}(page, bench_url, record_property, round_):
    start = time.perf_counter()
{body}    record_property("steps_s", time.perf_counter() - start)
'''

# The same test plus the one read a step (``one``), and a picture of each state (``pictures``): the floors.
FLOOR_TEST = '''

@pytest.mark.parametrize("round_", range({rounds}), ids=[f"round-{{i:02d}}" for i in range({rounds})])
def test_{kind}_{name}(page, bench_url, record_property, round_):
    from benchmarks.floors import Floor
    from pytest_cometlocal.executor.page.observation import look_arg

    floor = Floor(look_arg((), True), pictures={pictures})
    start = time.perf_counter()
{body}    record_property("steps_s", time.perf_counter() - start)
    record_property("pictures", len(set(floor.hashes) - {{None}}))  # the distinct pictures: fresh ones were taken
'''
FLOORS = (("one", False), ("pictures", True))


def _suite(root: Path, kind: str, steps: int, rounds: int, floors: bool = False) -> None:
    f = flow(steps)
    files = {f"plans/{kind}_{i:02d}.actions.yaml": plan_yaml(f"{kind} round-{i:02d}", f) for i in range(rounds + 1)}
    files[f"test_{kind}_hand.py"] = HAND_TEST.format(rounds=rounds + 1, kind=kind, body=hand_test_body(f))
    if floors:
        files[f"test_{kind}_hand.py"] += "".join(
            FLOOR_TEST.format(rounds=rounds + 1, kind=kind, name=name, pictures=pictures,
                              body=hand_test_body(f, reads=True)) for name, pictures in FLOORS)
    write_suite(root, files, conftest_extra=SITE_CONFTEST + ORDER_CONFTEST)


def _split(reports: dict[str, Report]) -> tuple[list[Report], list[Report]]:
    """(plan items, hand items) without the warm-up round 0; the floors' items are in neither."""
    kinds = _by_kind(reports)
    return kinds["plan"], kinds["hand"]


def _by_kind(reports: dict[str, Report]) -> dict[str, list[Report]]:
    """The passed items of each kind (plan, hand, one, pictures), without the warm-up round 0."""
    kinds: dict[str, list[Report]] = {"plan": [], "hand": [], **{name: [] for name, _ in FLOORS}}
    for nodeid, r in reports.items():
        if "round-00" in nodeid or r.outcome != "passed":
            continue
        path, _, name = nodeid.partition("::")
        name = name.split("[")[0]
        kind = "plan" if ".actions.y" in path else next((f for f, _ in FLOORS if name.endswith("_" + f)), "hand")
        kinds[kind].append(r)
    return kinds


def _trace_span_s(run_dir: Path) -> float:
    """run_started -> run_finished, from the trace timestamps."""
    first = last = None
    with open(run_dir / "trace.jsonl", encoding="utf-8") as fh:
        for line in fh:
            event = json.loads(line)
            if event["event_type"] == "run_started":
                first = event["ts_utc"]
            elif event["event_type"] == "run_finished":
                last = event["ts_utc"]
    if not first or not last:
        return float("nan")
    return (datetime.fromisoformat(last.replace("Z", "+00:00")) - datetime.fromisoformat(first.replace("Z", "+00:00"))).total_seconds()


def _plan_spans(root: Path) -> list[float]:
    spans = []
    for run_dir in sorted((root / "runs").iterdir()):
        manifest = json.loads((run_dir / "run_manifest.json").read_text(encoding="utf-8"))
        if "round-00" in manifest["plan"]["name"] or manifest["status"] != "passed":
            continue
        spans.append(_trace_span_s(run_dir))
    return spans


def bench_overhead(work: Path, *, steps: int = 40, rounds: int = 5, floors: bool = False) -> dict[str, Any]:
    root = work / "overhead"
    _suite(root, "overhead", steps, rounds, floors)
    run = run_pytest(root, [])
    failed = require_ok(run, "overhead", expected_passed=(2 + 2 * floors) * (rounds + 1))
    kinds = _by_kind(run.reports)
    plans, hands = kinds["plan"], kinds["hand"]
    plan_call = median([r.call for r in plans]) * 1000 / steps
    hand_call = median([r.call for r in hands]) * 1000 / steps
    plan_steps = median(_plan_spans(root)) * 1000 / steps
    hand_steps = median([r.props["steps_s"] for r in hands]) * 1000 / steps
    ratio_call, ratio_steps = plan_call / hand_call, plan_steps / hand_steps
    result = {
        "steps": steps, "rounds": rounds, "run_root": str(root),
        "plan_call_ms_per_step": plan_call, "hand_call_ms_per_step": hand_call, "ratio_call": ratio_call,
        "plan_steps_ms_per_step": plan_steps, "hand_steps_ms_per_step": hand_steps, "ratio_steps": ratio_steps,
        "overhead_ms_per_step": plan_call - hand_call,
        "plan_call_s_all": [r.call for r in plans], "hand_call_s_all": [r.call for r in hands],
        "goal_ratio": 1.5, "goal_met": ratio_call <= 1.5, "failed_items": failed,
    }
    rows = [["test body (pytest call phase)", plan_call, hand_call, f"{ratio_call:.1f}x", "<= 1.5x", verdict(ratio_call <= 1.5)],
            ["steps only (trace run span / perf_counter)", plan_steps, hand_steps, f"{ratio_steps:.1f}x", "", ""]]
    for name, _ in FLOORS if floors else ():
        floor = median([r.call for r in kinds[name]]) * 1000 / steps
        result.update({f"floor_{name}_call_ms_per_step": floor, f"ratio_floor_{name}": floor / hand_call,
                       f"ratio_plan_{name}": plan_call / floor,
                       f"floor_{name}_pictures": median([r.props["pictures"] for r in kinds[name]])})
        rows.append([f"test body vs floor `{name}` (the floor's ms/step in the hand column)", plan_call, floor,
                     f"{plan_call / floor:.1f}x", f"floor / hand {floor / hand_call:.2f}x", ""])
    print(f"\n## Executor overhead — one {steps}-step flow (fill, select, click, assert), {rounds} rounds alternating "
          f"plan/hand-written, one pytest session, one Chromium; medians")
    print(table(["what is timed", "plan ms/step", "hand-written ms/step", "ratio", "goal", "status"], rows))
    print(f"per-round call s — plan: {', '.join(f'{v:.2f}' for v in result['plan_call_s_all'])}; "
          f"hand: {', '.join(f'{v:.2f}' for v in result['hand_call_s_all'])}")
    return result


def bench_fixed(work: Path, *, items: int = 30, overhead: dict[str, Any] | None = None) -> dict[str, Any]:
    root = work / "fixed"
    _suite(root, "fixed", 1, items)
    run = run_pytest(root, [])
    failed = require_ok(run, "fixed", expected_passed=2 * (items + 1))
    plans, hands = _split(run.reports)
    rows = []
    res: dict[str, Any] = {"items_per_kind": items, "run_root": str(root), "failed_items": failed}
    for label, attr in (("setup (context, page, guard)", "setup"), ("call (body)", "call"),
                        ("teardown", "teardown"), ("setup+call+teardown", "total"),
                        ("item wall (setup start -> teardown end)", "wall")):
        p = median([getattr(r, attr) for r in plans]) * 1000
        h = median([getattr(r, attr) for r in hands]) * 1000
        res[f"plan_{attr}_ms"], res[f"hand_{attr}_ms"] = p, h
        rows.append([label, p, h, p - h])
    extra = res["plan_total_ms"] - res["hand_total_ms"]
    res["extra_ms"] = extra
    res["goal_ms"] = 60
    res["goal_met"] = extra < 60
    rows[3] += ["< 60 ms", verdict(extra < 60)]
    for r in rows:
        r += [""] * (6 - len(r))
    print(f"\n## Per-item fixed cost — 1-step item (navigate + title check), {items} of each kind alternating, medians")
    print(table(["what is timed", "plan item ms", "hand-written ms", "extra ms", "goal", "status"], rows))
    if overhead:
        per_step = overhead["overhead_ms_per_step"]
        res["extra_minus_one_step_overhead_ms"] = extra - per_step
        print(f"of which one step's executor overhead (overhead section): ~{per_step:.0f} ms; "
              f"the rest, ~{extra - per_step:.0f} ms, is the per-item cost (run folder, manifests, guard, executor set-up)")
    return res


__all__ = ["bench_overhead", "bench_fixed"]
