"""The speed goals (issue 38's, as issue 50 set them), before and after, side by side in one run
(``--only goals --before PATH --after PATH``).

Why: the issue's goals are ratios (a plan against the same flow by hand) and counts;
taken in two runs, an hour apart on a shared machine, two ratios compare the loads
more than the code. Here both checkouts are measured in one run, alternating: for
every measurement of a round, one side then the other (the order swapped every
round), each in a fresh process (``goals_child.py``) importing its own checkout's
package. A checkout is any folder holding ``pytest_cometlocal/`` (a git worktree of
the commit). The flows, plans and hand-written tests are this copy's, for both.

Rows: the real flow (Django admin, 14 steps) ``fast`` / hand-written, ``balanced`` /
hand-written with tracing, ``balanced`` / hand-written (median s/flow of a round's
process, each process's first flow its warm-up); the bench page's 40 steps,
``balanced`` and ``fast`` / hand-written (bench_overhead: call phase, one process of
plan and hand items alternating); Playwright protocol calls per plain step (counted,
once per side, see goals_child.COUNT_CONFTEST); ``Executor._attempt``'s lines, from the
source; ``tests/unit`` with ``-n 2``, one run a side (``--goals-unit``). Ratios are
given min / median / max over the rounds, with the 1-min load average of each round.

The floors (left out with ``--goals-no-floors``; benchmarks/floors.py), in the same
rounds: on the real flow, two more hand-written processes a round and side, the
hand-written flow plus one read a step (``fast``'s floor) and plus a picture of
each state (``balanced``'s floor); on the bench page, the same two as items of
each bench process. Rows: each floor / hand-written ("(floor)": the cost of
the reads and pictures themselves) and each plan / its floor ("(executor's own)":
what the executor adds to them).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .bench_real import HAND, ONE_READ, PICTURES
from .common import median, table
from .goals_child import parse_result

SIDES = ("before", "after")
REAL_VARIANTS = ("fast", "balanced", "hand-written", "hand-written + tracing")
# (measure, goal, how the value of one round of one side is found: plan variant / reference variant)
REAL_ROWS = (("real flow, `fast`, vs hand-written", "<= 1.1x", "fast", "hand-written"),
             ("real flow, `balanced`, vs hand-written with tracing", "<= 1.1x", "balanced", "hand-written + tracing"),
             ("real flow, `balanced`, vs hand-written", "<= 1.3x", "balanced", "hand-written"))
BENCH_ROWS = (("bench page, 40 steps, `balanced` vs hand-written", "<= 1.8x", "balanced"),
              ("bench page, 40 steps, `fast` vs hand-written", "<= 1.4x", "fast"))
CALL_PROFILES = ("fast", "balanced")
# The floors (benchmarks/floors.py), measured in the same rounds unless left out (``--goals-no-floors``): the hand-written
# flow plus the one read a step of issue 38's executor (``fast``'s floor), plus a picture of each state (``balanced``'s).
# Each plan is also set against its floor: the rest of its ratio is the executor's own.
FLOOR, OWN = "(floor)", "(executor's own)"
REAL_FLOOR_VARIANTS = (ONE_READ, PICTURES)
REAL_FLOOR_ROWS = (("real flow, floor of `fast` (hand-written + one read a step) vs hand-written", FLOOR, ONE_READ, HAND),
                   ("real flow, floor of `balanced` (+ a picture a state) vs hand-written", FLOOR, PICTURES, HAND),
                   ("real flow, `fast` vs its floor", OWN, "fast", ONE_READ),
                   ("real flow, `balanced` vs its floor", OWN, "balanced", PICTURES))
# (measure, goal, profile of the bench process, bench_overhead's key)
BENCH_FLOOR_ROWS = (("bench page, floor of `fast` (hand-written + one read a step) vs hand-written", FLOOR, "fast",
                     "ratio_floor_one"),
                    ("bench page, floor of `balanced` (+ a picture a state) vs hand-written", FLOOR, "balanced",
                     "ratio_floor_pictures"),
                    ("bench page, `fast` vs its floor", OWN, "fast", "ratio_plan_one"),
                    ("bench page, `balanced` vs its floor", OWN, "balanced", "ratio_plan_pictures"))


def checkout(path: str) -> Path:
    """The folder of a checkout, or a clear stop when it holds no package."""
    root = Path(path).resolve()
    if not (root / "pytest_cometlocal" / "__init__.py").is_file():
        raise SystemExit(f"goals: {path} is not a checkout of the package (no pytest_cometlocal/__init__.py there); "
                         "make one with `git worktree add PATH COMMIT`")
    return root


def child_env(harness: Path, root: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a side's processes: the harness's ``benchmarks`` first, then the checkout, nothing else."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if k not in ("PYTHONPATH", "COMETLOCAL_BENCH_PROFILE", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join((str(harness), str(root)))
    return env


def attempt_lines(root: Path) -> int | None:
    """``Executor._attempt``'s lines, from its ``def`` to its last line, in the checkout's package (None: not found)."""
    for path in sorted((root / "pytest_cometlocal").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "_attempt" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and node.name == "Executor":
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "_attempt":
                        return item.end_lineno - item.lineno + 1  # type: ignore[operator]
    return None


def spread(values: list[float]) -> str:
    """min / median / max of the rounds' values, or n/a."""
    values = [v for v in values if v == v]
    if not values:
        return "n/a"
    return f"{min(values):.2f} / {median(values):.2f} / {max(values):.2f}x"


def change(before: list[float], after: list[float]) -> str:
    """after / before of the medians."""
    b, a = median([v for v in before if v == v]), median([v for v in after if v == v])
    return f"{a / b:.2f}" if b == b and a == a and b > 0 else "n/a"


def real_ratio(sessions: list[dict[str, Any]], plan: str, ref: str) -> list[float]:
    """Per round: median s/flow of ``plan`` / that of ``ref`` in the same round (one side's sessions)."""
    med = {(s["variant"], s["round"]): median(s["item_s"]) for s in sessions if s.get("item_s")}
    return [med[plan, r] / med[ref, r] for (v, r) in sorted(med, key=lambda k: k[1]) if v == plan and (ref, r) in med]


def goal_rows(got: dict[str, Any]) -> list[list[str]]:
    """The goals table's rows (measure, goal, before, after, after / before) from what the run collected."""
    rows: list[list[str]] = []
    floors = got.get("floors", False)
    for measure, goal, plan, ref in REAL_ROWS + (REAL_FLOOR_ROWS if floors else ()):
        b, a = (real_ratio(got["real"][side], plan, ref) for side in SIDES)
        rows.append([measure, goal, spread(b), spread(a), change(b, a)])
    bench_rows = [(measure, goal, profile, "ratio_call") for measure, goal, profile in BENCH_ROWS]
    for measure, goal, profile, key in bench_rows + list(BENCH_FLOOR_ROWS if floors else ()):
        b, a = ([r.get(key, float("nan")) for r in got["bench"][side][profile]] for side in SIDES)
        rows.append([measure, goal, spread(b), spread(a), change(b, a)])
    for profile in CALL_PROFILES:
        for key, label, goal in (("script", "script calls", "1"), ("all", "all protocol calls", "(reported)")):
            b, a = (got["calls"][side].get(profile, {}).get("per_step", {}).get(key) for side in SIDES)
            rows.append([f"{label} per plain step, `{profile}`", goal, _num(b), _num(a),
                         f"{a / b:.2f}" if a is not None and b else "n/a"])
    b, a = (got["attempt"][side] for side in SIDES)
    rows.append(["`Executor._attempt`, lines", "<= 45", _num(b), _num(a), f"{a - b:+d}" if a and b else "n/a"])
    unit = got.get("unit")
    if unit:
        b, a = (unit[side]["wall_s"] for side in SIDES)
        rows.append(["`tests/unit` (`-n 2`), one run, s", "<= 60 s", f"{b:.1f} s", f"{a:.1f} s", f"{a / b:.2f}"])
    else:
        rows.append(["`tests/unit` (`-n 2`)", "<= 60 s", "not run", "not run", "(--goals-unit)"])
    return rows


def _num(value: float | int | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2f}" if isinstance(value, float) and value != int(value) else str(int(value))


def markdown(got: dict[str, Any]) -> str:
    """The goals table and what it was taken on, as RESULTS.md holds it."""
    loads = [load for r in got["rounds"] for load in r["load1"]]
    head = (f"before: `{got['before']}`, after: `{got['after']}`; {len(got['rounds'])} rounds, "
            f"{got['flows']} flows a real-flow process (the first its warm-up); 1-min load average "
            + (f"{min(loads):.1f}-{max(loads):.1f}" if loads else "n/a") + f" on {os.cpu_count()} CPUs; "
            f"{got['total_s'] / 60:.0f} min.")
    return head + "\n\n" + table(["measure", "goal", "before (min / median / max)", "after (min / median / max)",
                                  "after / before"], goal_rows(got)) + "\n"


class _Runner:
    """Runs the children of one goals run and keeps what they said (a broken child is reported, not fatal)."""

    def __init__(self, harness: Path, roots: dict[str, Path], env: dict[str, str]) -> None:
        self.harness, self.roots, self.env, self.broken = harness, roots, env, []

    def run(self, side: str, task: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        import json

        env = child_env(self.harness, self.roots[side], {**os.environ, **self.env})
        cmd = [sys.executable, "-m", "benchmarks.goals_child", json.dumps(task)]
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=self.harness, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return self._broken(side, task, f"no answer in {timeout:.0f} s")
        result = parse_result(proc.stdout)
        if result is not None:
            result["child_s"] = time.perf_counter() - start
        if result is None:
            return self._broken(side, task, f"exit {proc.returncode}\n{proc.stdout[-1500:]}\n{proc.stderr[-1500:]}")
        package = Path(result["package"])
        if not package.is_relative_to(self.roots[side]):
            raise SystemExit(f"goals: the {side} side imported {package}, not its checkout {self.roots[side]}")
        return result

    def _broken(self, side: str, task: dict[str, Any], why: str) -> None:
        self.broken.append({"side": side, "task": task, "why": why})
        print(f"WARNING goals: {side} {task['task']} {task.get('variant') or task.get('profile', '')} "
              f"left out: {why[-2500:]}", flush=True)
        return None


def bench_goals(work: Path, before: str, after: str, *, rounds: int = 3, flows: int = 3, bench_rounds: int = 3,
                unit: bool = False, md: Path | None = None, floors: bool = True) -> dict[str, Any]:
    started = time.perf_counter()
    roots = {"before": checkout(before), "after": checkout(after)}
    base = work / "goals"
    harness = base / "harness"
    shutil.rmtree(harness, ignore_errors=True)
    shutil.copytree(Path(__file__).resolve().parent, harness / "benchmarks",
                    ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    got: dict[str, Any] = {"before": str(roots["before"]), "after": str(roots["after"]), "flows": flows, "floors": floors,
                           "attempt": {side: attempt_lines(roots[side]) for side in SIDES},
                           "real": {side: [] for side in SIDES}, "calls": {side: {} for side in SIDES},
                           "bench": {side: {p: [] for p in CALL_PROFILES} for side in SIDES}, "rounds": []}
    from tests.django_admin import PASSWORD, django_admin

    from .bench_real import rotation

    (base / "django").mkdir(parents=True, exist_ok=True)
    with django_admin(base / "django", hard_limit_s=6 * 3600) as url:
        runner = _Runner(harness, roots, {"BENCH_REAL_URL": url, "BENCH_ADMIN_PASSWORD": PASSWORD})
        for side in SIDES:  # each side imports its own checkout, or nothing is measured
            if runner.run(side, {"task": "package", "work": str(base / side)}, 120) is None:
                raise SystemExit(f"goals: the {side} side's process does not start: {runner.broken[-1]['why']}")
        for profile in CALL_PROFILES:
            for side in SIDES:
                r = runner.run(side, {"task": "calls", "profile": profile, "work": str(base / side)}, 900)
                if r:
                    got["calls"][side][profile] = r
                    print(f"[goals calls {side} {profile}: per plain step {r['per_step']}; {r['child_s']:.0f} s]",
                          flush=True)
        for rnd in range(rounds):
            order = SIDES if rnd % 2 == 0 else SIDES[::-1]
            loads = [os.getloadavg()[0]]
            variants = list(REAL_VARIANTS) + list(REAL_FLOOR_VARIANTS if floors else ())
            tasks = [{"task": "real", "variant": v, "round": rnd, "flows": flows} for v in rotation(variants, rnd)]
            tasks += [{"task": "bench", "profile": p, "steps": 40, "rounds": bench_rounds, "floors": floors}
                      for p in CALL_PROFILES]
            for task in tasks:
                for side in order:
                    r = runner.run(side, {**task, "work": str(base / side), "tag": side + " "}, 1800)
                    if r and task["task"] == "real":
                        got["real"][side].append(r)
                        print(f"[goals round {rnd} {side} {task['variant']}: "
                              f"{', '.join(f'{v:.2f}' for v in r['item_s'])} s/flow; {r['child_s']:.0f} s]", flush=True)
                    elif r:
                        got["bench"][side][task["profile"]].append(r)
                        print(f"[goals round {rnd} {side} bench {task['profile']}: {r['ratio_call']:.2f}x; "
                              f"{r['child_s']:.0f} s]", flush=True)
            loads.append(os.getloadavg()[0])
            got["rounds"].append({"round": rnd, "order": list(order), "load1": loads})
    if unit:
        got["unit"] = {side: unit_run(roots[side]) for side in SIDES}
    got["broken"] = runner.broken
    got["total_s"] = time.perf_counter() - started
    text = markdown(got)
    print("\n## Issue 50 goals, before and after\n\n" + text)
    if md is not None:
        md.write_text(text, encoding="utf-8")
        print(f"goals table written to {md}")
    return got


def unit_run(root: Path) -> dict[str, Any]:
    """One ``tests/unit -n 2`` run in the checkout, with its own package; wall seconds and pytest's last line."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(root)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "tests/unit", "-n", "2", "-q", "-p", "no:cacheprovider"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - start
    last = (proc.stdout.strip().splitlines() or [""])[-1]
    print(f"[goals tests/unit {root}: {wall:.1f} s, exit {proc.returncode}: {last}]", flush=True)
    return {"wall_s": wall, "returncode": proc.returncode, "summary": last}


__all__ = ["bench_goals", "child_env", "goal_rows", "markdown", "real_ratio", "spread"]
