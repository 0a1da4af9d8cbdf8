"""Validation and collection throughput: 1,000 generated valid plans of 20 steps.

Run: .venv/bin/python benchmarks/bench_validation.py [--plans N] [--steps N] [--rounds N]
(or as the ``validation`` section of ``.venv/bin/python -m benchmarks``).

Every measure is taken once per round, rounds interleaved, so they share the
machine's state; medians are given. The yardstick (issue 12) is the cost of
parsing the same files with PyYAML's C loader (``yaml.load_all`` with
``CSafeLoader``, bytes read from disk): in process, and as a process of its own
(``python -c``), against which the two user-facing commands are compared:

- ``validate``: load + validate from files, in process / C-loader parse in
  process; and ``cometlocal validate DIR`` / the parse process (start-up of
  each included);
- ``collect``: (``pytest --collect-only DIR`` - the same on an empty folder) /
  the C-loader parse in process.

Goal (issue 12, again issue 50): each at most 1.25x. The last lines give validate / parse per round
(min, median, max), in this process's CPU seconds and in wall seconds, and whether the median of the
CPU-time ratios meets it (on a quiet machine the two agree; on a shared one only CPU time holds still); ``--check`` makes a miss exit 1, so the goal can
be checked on demand (the test suite asserts no timing).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.plans import plan_text  # noqa: E402
from pytest_cometlocal.contract.validate.validator import (  # noqa: E402
    InvalidPlan,
    ValidationContext,
    validate_path,
    validate_text,
)


PARSE_SCRIPT = """
import sys, yaml
from pathlib import Path
for path in sorted(Path(sys.argv[1]).glob("*.actions.yaml")):
    list(yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader))
"""
GOAL = 1.25


def bench_parse(files: list[Path]) -> float:
    """The yardstick: PyYAML's C loader on the same files, in process."""
    import yaml

    start = time.perf_counter()
    for path in files:
        list(yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader))
    return time.perf_counter() - start


def _process(cmd: list[str], cwd: Path, check) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    check(proc)
    return elapsed


def bench_parse_process(root: Path) -> float:
    def check(proc):
        if proc.returncode != 0:
            raise SystemExit(f"the parse process failed:\n{proc.stderr[-2000:]}")
    return _process([sys.executable, "-c", PARSE_SCRIPT, str(root)], root, check)


def bench_collect_empty(empty: Path) -> float:
    def check(proc):
        if proc.returncode not in (0, 5):
            raise SystemExit(f"collection of an empty folder failed:\n{proc.stdout[-2000:]}")
    return _process([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(empty)],
                    empty, check)


def bench_in_memory(texts: list[bytes], root: Path) -> float:
    ctx = ValidationContext(root=root, plan_path=root / "x.actions.yaml", env={})
    start = time.perf_counter()
    for i, text in enumerate(texts):
        (result,) = validate_text(text, ctx, file=f"p{i}.actions.yaml")
        if isinstance(result, InvalidPlan):
            raise SystemExit("generated plan is invalid:\n" + "\n".join(p.format() for p in result.problems))
    return time.perf_counter() - start


def bench_files(files: list[Path], root: Path) -> float:
    start = time.perf_counter()
    for path in files:
        ctx = ValidationContext(root=root, plan_path=path, env={})
        (result,) = validate_path(path, ctx)
        assert not isinstance(result, InvalidPlan)
    return time.perf_counter() - start


def bench_collect(root: Path, expected: int) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(root)],
        cwd=root, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - start
    if f"{expected} tests collected" not in proc.stdout:
        raise SystemExit(f"collection did not find {expected} items:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return elapsed


def bench_cli(root: Path) -> float:
    """``cometlocal validate <dir>`` as a user runs it (a process: start-up included)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest_cometlocal.cli", "validate", str(root)],
                          cwd=root, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"cometlocal validate failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return elapsed


def measure(plans: int = 1000, steps: int = 20, rounds: int = 3, collect: bool = True) -> list[tuple[str, list[float]]]:
    """(measure, seconds of each round): the C-loader yardstick, validation, ``--collect-only``; rounds interleaved."""
    texts = [plan_text(i, steps).encode() for i in range(plans)]
    with tempfile.TemporaryDirectory() as tmp:
        root, empty = Path(tmp) / "suite", Path(tmp) / "empty"
        for folder in (root, empty):
            folder.mkdir()
            (folder / "pytest.ini").write_text("[pytest]\n")
        files = []
        for i, text in enumerate(texts):
            path = root / f"plan_{i:04d}.actions.yaml"
            path.write_bytes(text)
            files.append(path)
        measures: dict[str, Any] = {
            "C-loader parse, from files": lambda: bench_parse(files),
            "load + validate, in memory": lambda: bench_in_memory(texts, root),
            "load + validate, from files": lambda: bench_files(files, root),
        }
        if collect:
            measures.update({
                "C-loader parse (process)": lambda: bench_parse_process(root),
                "cometlocal validate DIR (process)": lambda: bench_cli(root),
                "pytest --collect-only (process)": lambda: bench_collect(root, plans),
                "pytest --collect-only, empty folder": lambda: bench_collect_empty(empty),
            })
        times: dict[str, list[float]] = {name: [] for name in measures}
        for name in IN_PROCESS:
            times[name + CPU] = []
        for _ in range(rounds):
            for name, run in measures.items():
                cpu = time.process_time()
                times[name].append(run())
                if name in IN_PROCESS:  # this process's CPU seconds: what a busy machine's other work leaves alone
                    times[name + CPU].append(time.process_time() - cpu)
    return list(times.items())


IN_PROCESS = ("C-loader parse, from files", "load + validate, in memory", "load + validate, from files")
CPU = " (CPU s)"


def ratios(rows: list[tuple[str, list[float]]]) -> list[tuple[str, float]]:
    """Issue 12's ratios to the C-loader yardstick, from the medians."""
    med = {name: statistics.median(times) for name, times in rows}
    parse = med["C-loader parse, from files"]
    out = [("validate, in process / C-loader parse", med["load + validate, from files"] / parse)]
    if "cometlocal validate DIR (process)" in med:
        out.append(("cometlocal validate DIR / C-loader parse process",
                    med["cometlocal validate DIR (process)"] / med["C-loader parse (process)"]))
        out.append(("pytest --collect-only minus an empty session / C-loader parse",
                    (med["pytest --collect-only (process)"] - med["pytest --collect-only, empty folder"]) / parse))
    return out


def round_ratios(rows: list[tuple[str, list[float]]], suffix: str = CPU) -> list[float]:
    """validate from files / C-loader parse, round by round (the two measured side by side in each round);
    by default in CPU seconds of this process, which a shared machine's other work disturbs far less."""
    times = dict(rows)
    return [v / p for v, p in zip(times["load + validate, from files" + suffix], times["C-loader parse, from files" + suffix])]


def verdict(rows: list[tuple[str, list[float]]]) -> tuple[bool, list[str]]:
    """Issue 50's goal, validate / parse <= GOAL on the median of the rounds' CPU-time ratios: (met, lines)."""
    lines = []
    for suffix, what in ((CPU, "CPU time"), ("", "wall time")):
        per_round = round_ratios(rows, suffix)
        med = statistics.median(per_round)
        lines.append(f"validate / C-loader parse, {what}, per round: min {min(per_round):.2f}x, median {med:.2f}x, "
                     f"max {max(per_round):.2f}x")
        if suffix == CPU:
            met = med <= GOAL
    lines.append(f"goal: median CPU-time ratio <= {GOAL}x: {'met' if met else 'NOT met'}")
    return met, lines


def print_table(rows: list[tuple[str, list[float]]], plans: int) -> None:
    print(f"| {'measure':<36} | {'median s':>9} | {'min s':>7} | {'ms/plan':>8} |")
    print(f"|{'-' * 38}|{'-' * 11}|{'-' * 9}|{'-' * 10}|")
    for name, times in rows:
        med = statistics.median(times)
        print(f"| {name:<36} | {med:>9.3f} | {min(times):>7.3f} | {1000 * med / plans:>8.3f} |")
    print()
    print(f"| {'ratio to the yardstick (medians)':<62} | {'ratio':>6} | goal <= {GOAL}x |")
    print(f"|{'-' * 64}|{'-' * 8}|{'-' * 16}|")
    for name, ratio in ratios(rows):
        print(f"| {name:<62} | {ratio:>5.2f}x | {'met' if ratio <= GOAL else 'NOT met':<14} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plans", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-collect", action="store_true")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when the median validate / parse ratio is above {GOAL}x (run on demand)")
    args = parser.parse_args()

    rows = measure(args.plans, args.steps, args.rounds, collect=not args.no_collect)
    print(f"# Validation benchmark — {args.plans} plans x {args.steps} steps, {args.rounds} rounds")
    print(f"# {platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs")
    print()
    print_table(rows, args.plans)
    met, lines = verdict(rows)
    print()
    print(f"# load average (1 min) at the end: {os.getloadavg()[0]:.2f}")
    print("\n".join(lines))
    if args.check and not met:
        sys.exit(1)


if __name__ == "__main__":
    main()
