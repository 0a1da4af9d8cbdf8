"""Validation and collection throughput: 1,000 generated valid plans of 20 steps.

Run: .venv/bin/python benchmarks/bench_validation.py [--plans N] [--steps N] [--rounds N]
(or as the ``validation`` section of ``.venv/bin/python -m benchmarks``).

Prints a table of: load + validate (in process, from bytes), validate from
files on disk, and `pytest --collect-only` over the same files (a separate
process, so it includes interpreter and plugin start-up). Goal (issue 2):
validating 1,000 plans of 20 steps in well under 5 s.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.plans import plan_text  # noqa: E402
from pytest_cometlocal.contract.validator import (  # noqa: E402
    InvalidPlan,
    ValidationContext,
    validate_path,
    validate_text,
)


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
    """(measure, seconds of each round) for in-memory validation, from files, and ``--collect-only``."""
    texts = [plan_text(i, steps).encode() for i in range(plans)]
    rows: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n")
        files = []
        for i, text in enumerate(texts):
            path = root / f"plan_{i:04d}.actions.yaml"
            path.write_bytes(text)
            files.append(path)
        rows.append(("load + validate, in memory", [bench_in_memory(texts, root) for _ in range(rounds)]))
        rows.append(("load + validate, from files", [bench_files(files, root) for _ in range(rounds)]))
        if collect:
            rows.append(("cometlocal validate DIR (process)", [bench_cli(root) for _ in range(rounds)]))
            rows.append(("pytest --collect-only (process)", [bench_collect(root, plans) for _ in range(rounds)]))
    return rows


def print_table(rows: list[tuple[str, list[float]]], plans: int) -> None:
    print(f"| {'measure':<34} | {'median s':>9} | {'min s':>7} | {'ms/plan':>8} |")
    print(f"|{'-' * 36}|{'-' * 11}|{'-' * 9}|{'-' * 10}|")
    for name, times in rows:
        med = statistics.median(times)
        print(f"| {name:<34} | {med:>9.3f} | {min(times):>7.3f} | {1000 * med / plans:>8.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plans", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-collect", action="store_true")
    args = parser.parse_args()

    rows = measure(args.plans, args.steps, args.rounds, collect=not args.no_collect)
    print(f"# Validation benchmark — {args.plans} plans x {args.steps} steps, {args.rounds} rounds")
    print(f"# {platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs")
    print()
    print_table(rows, args.plans)


if __name__ == "__main__":
    main()
