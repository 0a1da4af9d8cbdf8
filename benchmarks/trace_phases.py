"""A finished run's steps split into phases by their trace events' timestamps (no instrumentation).

Why: the real-application section (bench_real.py) runs plans under pytest, in processes of
their own, where nothing can be wrapped; the trace's timestamps still say where a step's time
went (``TRACE_PHASES``), per step kind.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable


# A step's phases, each ending at its event; the first starts where the previous step (or run_started) ended.
TRACE_PHASES = (
    ("observation before", ("observation_captured",)),
    ("target + preconditions", ("preconditions_checked",)),
    ("action", ("action_executed",)),
    ("postconditions + observation after", ("postconditions_checked", "assert_checked")),
    ("evidence", ("evidence_captured",)),
)


def step_phases(events: Any) -> list[tuple[str, dict[str, float]]]:
    """(kind, {phase: ms, "total": ms}) of each step that passed at its first attempt, from the ``ts_utc`` of a
    run's events (``pytest_cometlocal.runs.reader``), in order; retried, recovery and incomplete steps left out."""
    from datetime import datetime as dt

    from pytest_cometlocal.runs.steps import steps_of

    events = list(events)
    start = next((dt.fromisoformat(e.ts_utc) for e in events if e.event_type == "run_started" and e.ts_utc), None)
    out = []
    for record in steps_of(events):
        timed = [e for e in record.events if e.ts_utc]
        first: dict[str, dt] = {}
        for e in timed:
            first.setdefault(e.event_type, dt.fromisoformat(e.ts_utc))
        marks = [next((first[n] for n in names if n in first), None) for _, names in TRACE_PHASES]
        if record.outcome == "passed" and record.attempts == 1 and not record.recovery and start and all(marks):
            bounds = [start, *marks]
            phases = {name: (b - a).total_seconds() * 1000 for (name, _), a, b in zip(TRACE_PHASES, bounds, bounds[1:])}
            out.append((record.kind or "?", {**phases, "total": (bounds[-1] - start).total_seconds() * 1000}))
        if timed:
            start = dt.fromisoformat(timed[-1].ts_utc)
    return out


def trace_phases(run_dirs: list[Path], skip: Callable[[str], bool] = lambda name: False) -> dict[str, Any]:
    """Median ms per phase per step kind (and over all steps) of the passed runs in ``run_dirs``;
    ``skip(plan name)``: runs left out (a warm-up)."""
    from pytest_cometlocal.runs.reader import read_trace

    by_kind: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    runs = 0
    for run_dir in run_dirs:
        manifest = json.loads((run_dir / "run_manifest.json").read_text(encoding="utf-8"))
        if manifest.get("status") != "passed" or skip(manifest["plan"]["name"]):
            continue
        runs += 1
        for kind, phases in step_phases(read_trace(run_dir / "trace.jsonl").events):
            for key in (kind, "all steps"):
                for name, ms in phases.items():
                    by_kind[key][name].append(ms)
    return {"runs": runs, "kinds": {kind: {"steps": len(v["total"]), **{n: statistics.median(ms) for n, ms in v.items()}}
                                    for kind, v in sorted(by_kind.items(), key=lambda kv: kv[0] == "all steps")}}
