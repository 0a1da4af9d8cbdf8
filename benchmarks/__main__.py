"""The benchmarks of issue 6, in one command.

    .venv/bin/python -m benchmarks                      # everything, ~10-15 min on 2 CPUs
    .venv/bin/python -m benchmarks --quick              # smoke run with small counts (~3 min)
    .venv/bin/python -m benchmarks --only overhead,fixed --json out.json
    .venv/bin/python -m benchmarks --only scaling       # page size 10 -> 5,000 rows, ~8-10 min
    .venv/bin/python -m benchmarks --only real          # a 14-step flow on Django's admin, ~10 min
    .venv/bin/python -m benchmarks --only http --rounds 3   # a request step vs context.request by hand, ~1 min
    .venv/bin/python -m benchmarks --only goals --before /tmp/base --after .   # issue 50's speed goals, two checkouts

Sections: validation, overhead, fixed, disk, profile, http, scaling, real, throughput (run in
this order; throughput last, sized to what is left of ``--budget-min`` unless
``--plans`` is given). Each prints a table with its goal and whether it is met.
Browser sections start fresh ``python -m pytest`` processes on generated suites
in a temporary folder (``--keep DIR`` keeps them). Nothing here is part of the
test suite's asserts; figures go to benchmarks/RESULTS.md by hand, dated.

http (issue 37): a plan of v1.2 ``request`` steps (POST with a JSON body and a
``save``, GET of ``${saved.x}``, ``response_status`` + ``response_json`` checks)
against a local JSON API, side by side with a hand-written pytest-playwright test
making the same calls through ``context.request`` with the same checks, and a v1
navigate/assert plan for context; alternating in one session, ms per step and the
ratio. ``--cprofile FILE`` also profiles the request plan alone and splits a step's
time (HTTP call, looks, evidence file, trace, hashing).

goals (issues 38 and 50; only when named in ``--only``): every goal of the issue measured on
two checkouts of the package side by side, alternating round by round, each side in
processes importing its own checkout (bench_goals.py); ``--goals-md FILE`` writes the
table. ~45-60 min with the defaults and ``--goals-unit`` at load ~20 on 2 CPUs. The
floors of ``fast`` and ``balanced`` (hand-written + one read a step, + a picture a
state; benchmarks/floors.py) are measured in the same rounds unless ``--goals-no-floors``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SECTIONS = ("validation", "overhead", "fixed", "disk", "profile", "http", "scaling", "real", "throughput")
OPT_IN = ("goals",)  # run only when named: it needs --before and --after


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default=",".join(SECTIONS),
                   help=f"comma-separated sections to run (default: all): {', '.join(SECTIONS)}")
    p.add_argument("--quick", action="store_true", help="small counts, to check that the code works (figures are not meaningful)")
    p.add_argument("--json", metavar="FILE", help="also write every figure (and the machine) as JSON")
    p.add_argument("--keep", metavar="DIR", help="keep the generated suites and run folders in DIR")
    p.add_argument("--rounds", type=int, help="overhead, http: rounds of plan + hand-written (default 5; quick 1)")
    p.add_argument("--http-steps", type=int, help="http: steps per item, even: POST/GET pairs (default 20; quick 4)")
    p.add_argument("--items", type=int, help="fixed cost: 1-step items of each kind (default 30; quick 3)")
    p.add_argument("--plans", type=int, help="throughput: plans of 10 steps (default 200, reduced to fit --budget-min, "
                   "with a note; quick 4)")
    p.add_argument("--budget-min", type=float, default=13.0,
                   help="whole-run time target in minutes; sizes the throughput section when --plans is not given (default 13)")
    p.add_argument("--validation-plans", type=int, help="validation: plans of 20 steps (default 1000; quick 100)")
    p.add_argument("--profile-runs", type=int, help="profile: runs per plan, the first a warm-up (default 4; quick 2)")
    p.add_argument("--scaling-sizes", help="scaling: comma-separated row counts of the page (default 10,100,1000,5000; "
                   "quick 10,100)")
    p.add_argument("--scaling-rounds", type=int, help="scaling: counted rounds per size, plus a warm-up (default 3; quick 1)")
    p.add_argument("--scaling-big-rounds", type=int, help="scaling: counted rounds for sizes >= 5,000 rows (default 2)")
    p.add_argument("--scaling-xdist-rows", type=int, help="scaling: the size also run with -n 2, 0 for none "
                   "(default 1000; quick 100)")
    p.add_argument("--real-rounds", type=int, help="real: counted rounds of every variant, after a warm-up round "
                   "(default 4; quick 1)")
    p.add_argument("--real-flows", type=int, help="real: flows per pytest process, the first its warm-up (default 3; "
                   "quick 2)")
    p.add_argument("--cprofile", metavar="FILE", help="profile: also write cProfile stats of the counted runs to FILE; "
                   "http: profile the request plan alone, stats to FILE (FILE-http when profile runs too)")
    p.add_argument("--before", metavar="PATH", help="goals: the checkout measured as before (a git worktree)")
    p.add_argument("--after", metavar="PATH", help="goals: the checkout measured as after")
    p.add_argument("--goals-rounds", type=int, help="goals: rounds, each side once a round (default 3; quick 1)")
    p.add_argument("--goals-unit", action="store_true", help="goals: also time tests/unit -n 2 once a side (slow)")
    p.add_argument("--goals-no-floors", action="store_true",
                   help="goals: leave out the floors (hand-written + one read a step, + a picture a state; "
                        "two more real-flow processes a round and side)")
    p.add_argument("--goals-md", metavar="FILE", default="goals.md", help="goals: write the table there (default goals.md)")
    args = p.parse_args(argv)
    args.sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in args.sections if s not in SECTIONS + OPT_IN]
    if unknown:
        p.error(f"unknown section(s): {', '.join(unknown)}; choose from {', '.join(SECTIONS + OPT_IN)}")
    if "goals" in args.sections and not (args.before and args.after):
        p.error("--only goals needs --before PATH and --after PATH (checkouts of the package)")
    q = args.quick
    args.rounds = args.rounds or (1 if q else 5)
    args.items = args.items or (3 if q else 30)
    args.http_steps = args.http_steps or (4 if q else 20)
    args.plans = args.plans or (4 if q else None)
    args.validation_plans = args.validation_plans or (100 if q else 1000)
    args.profile_runs = args.profile_runs or (2 if q else 4)
    args.scaling_sizes = tuple(int(v) for v in (args.scaling_sizes or ("10,100" if q else "10,100,1000,5000")).split(","))
    args.scaling_rounds = args.scaling_rounds or (1 if q else 3)
    args.scaling_big_rounds = args.scaling_big_rounds or (1 if q else 2)
    args.real_rounds = args.real_rounds or (1 if q else 4)
    args.real_flows = max(2, args.real_flows or (2 if q else 3))
    args.goals_rounds = args.goals_rounds or (1 if q else 3)
    if args.scaling_xdist_rows is None:
        args.scaling_xdist_rows = 100 if q else 1000
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    from .common import machine, table, verdict

    started = time.perf_counter()
    info = machine()
    print("# pytest-cometlocal benchmarks" + (" — QUICK smoke run: counts too small for real figures" if args.quick else ""))
    print(f"# {info['date_utc']} UTC; {info['cpus']} CPUs ({info.get('cpu')}), {info.get('memory_gib')} GiB; {info['platform']}")
    print(f"# Python {info['python']}, Playwright {info['playwright']}, pytest {info['pytest']}, "
          f"pytest-xdist {info['pytest-xdist']}, pytest-playwright {info['pytest-playwright']}; Chromium {info['chromium']}")
    load = info["load_avg"]
    print(f"# load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
          + ("  (busy machine: treat timings as noisy)" if load[0] > 0.7 * (info["cpus"] or 1) else ""))
    print(f"# sections: {', '.join(args.sections)}", flush=True)

    work = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="cometlocal-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"machine": info, "quick": args.quick, "args": {k: v for k, v in vars(args).items()}}
    summary: list[list[Any]] = []
    section_log: dict[str, Any] = {}
    results["sections_log"] = section_log
    last = [time.perf_counter()]

    def mark(name: str) -> None:
        now = time.perf_counter()
        load1 = os.getloadavg()[0]
        section_log[name] = {"seconds": now - last[0], "load1_after": load1}
        print(f"[{name}: {now - last[0]:.0f} s; 1-min load average now {load1:.2f}]", flush=True)
        last[0] = now

    try:
        if "validation" in args.sections:
            from . import bench_validation

            rows = bench_validation.measure(args.validation_plans, 20, 1 if args.quick else 3, collect=True)
            print(f"\n## Validation and collection — {args.validation_plans} plans x 20 steps, {1 if args.quick else 3} rounds")
            bench_validation.print_table(rows, args.validation_plans)
            med = {name: sorted(v)[len(v) // 2] for name, v in rows}
            results["validation"] = {"plans": args.validation_plans, "rounds_s": dict(rows), "median_s": med}
            full = args.validation_plans == 1000
            for name, label in (("load + validate, from files", "validate, in process (from files)"),
                                ("cometlocal validate DIR (process)", "cometlocal validate DIR (process)"),
                                ("pytest --collect-only (process)", "pytest --collect-only (process)")):
                summary.append([f"{label}, {args.validation_plans} plans x 20 steps", f"{med[name]:.2f} s",
                                "< 3 s (1,000 plans)", verdict(med[name] < 3) if full else "n/a (not 1,000 plans)"])
            results["validation"]["ratios"] = dict(bench_validation.ratios(rows))
            for label, ratio in bench_validation.ratios(rows):
                summary.append([label, f"{ratio:.2f}x", f"<= {bench_validation.GOAL}x", verdict(ratio <= bench_validation.GOAL)])
            mark('validation')
        overhead = None
        if "overhead" in args.sections:
            from .bench_overhead import bench_overhead

            overhead = bench_overhead(work, steps=40, rounds=args.rounds)
            results["overhead"] = overhead
            summary.append(["executor overhead: plan / hand-written per step", f"{overhead['ratio_call']:.1f}x "
                            f"({overhead['plan_call_ms_per_step']:.0f} vs {overhead['hand_call_ms_per_step']:.0f} ms)",
                            "<= 1.5x", verdict(overhead["goal_met"])])
            mark('overhead')
        if "fixed" in args.sections:
            from .bench_overhead import bench_fixed

            fixed = bench_fixed(work, items=args.items, overhead=overhead)
            results["fixed"] = fixed
            summary.append(["per-item fixed cost: extra per 1-step item", f"{fixed['extra_ms']:.0f} ms", "< 60 ms",
                            verdict(fixed["goal_met"])])
            mark('fixed')
        if "disk" in args.sections:
            from .bench_disk import bench_disk

            disk = bench_disk(work)
            results["disk"] = disk
            summary.append(["evidence per passing step", ", ".join(f"{v:.1f}" for v in disk["passing_step_kib"]) + " KiB",
                            "< 20 KB", verdict(disk["goal_met"])])
            mark('disk')
        if "profile" in args.sections:
            from .bench_profile import bench_profile

            results["profile"] = bench_profile(work, runs=args.profile_runs, bench_steps=8 if args.quick else 40,
                                               cprofile=args.cprofile)
            mark('profile')
        if "http" in args.sections:
            from .bench_http import bench_http

            out = args.cprofile
            if out and "profile" in args.sections:
                out = str(Path(out).with_name(Path(out).stem + "-http" + Path(out).suffix))
            http = bench_http(work, steps=args.http_steps, rounds=args.rounds, cprofile=out)
            results["http"] = http
            med = http["median_call_ms_per_step"]
            summary.append(["request step: plan / context.request by hand, per step", f"{http['ratio_call']:.1f}x "
                            f"({med['request']:.1f} vs {med['hand']:.1f} ms; v1 navigate/assert {med['navigate']:.1f} ms)",
                            "(reported)", ""])
            mark('http')
        if "scaling" in args.sections:
            from .bench_scaling import GOAL, bench_scaling

            sc = bench_scaling(work, sizes=args.scaling_sizes, rounds=args.scaling_rounds,
                               big_rounds=args.scaling_big_rounds, xdist_rows=args.scaling_xdist_rows or None)
            results["scaling"] = sc
            sizes = sc["sizes"].values()
            ratios = [e["timing"]["ratio"] for e in sizes]
            cpu = [e["cpu"]["ratio"] for e in sizes]
            summary.append(["page-size scaling: plan / hand-written per 21-step flow, "
                            + "/".join(f"{e['rows']:,}" for e in sizes) + " rows",
                            ", ".join(f"{r:.2f}x" for r in ratios), f"<= {GOAL}x at every size",
                            verdict(all(r <= GOAL for r in ratios))])
            summary.append(["page-size scaling: CPU (incl. Chromium) plan / hand-written per flow",
                            ", ".join(f"{r:.2f}x" for r in cpu), f"<= {GOAL}x at every size",
                            verdict(all(r <= GOAL for r in cpu))])
            for e in sizes:
                x = e.get("xdist")
                if x:
                    summary.append([f"page-size scaling: -n 2 / -n 1 at {e['rows']:,} rows (items span)",
                                    f"plans {x['plans']['scaling_span']:.2f}x, hand-written {x['hand']['scaling_span']:.2f}x",
                                    "(reported)", ""])
            mark('scaling')
        if "real" in args.sections:
            from .bench_real import bench_real

            real = bench_real(work, rounds=args.real_rounds, flows=args.real_flows, warmup=not args.quick)
            results["real"] = real
            for r in real["ratios"]:
                if r["goal"] is not None:
                    summary.append([f"real application: {r['plan']} / {r['reference']}, "
                                    + ("median s/flow" if r["what"] == "wall" else "CPU s/flow (process tree)"),
                                    f"{r['ratio']:.2f}x" if r["ratio"] == r["ratio"] else "n/a", f"<= {r['goal']}x", verdict(r["met"])])
            mark('real')
        if "goals" in args.sections:
            from .bench_goals import bench_goals

            results["goals"] = bench_goals(work, args.before, args.after, rounds=args.goals_rounds, flows=args.real_flows,
                                           bench_rounds=min(args.rounds, 3), unit=args.goals_unit, md=Path(args.goals_md),
                                           floors=not args.goals_no_floors)
            mark('goals')
        if "throughput" in args.sections:
            from .bench_throughput import bench_throughput

            elapsed = time.perf_counter() - started
            budget = max(180.0, args.budget_min * 60 - elapsed - 30)
            tp = bench_throughput(work, plans=args.plans, budget_s=budget)
            results["throughput"] = tp
            summary.append([f"throughput, {tp['plans']} plans x 10 steps", f"-n 1: {tp['n1']['plans_per_min']:.1f}/min, "
                            f"-n 2: {tp['n2']['plans_per_min']:.1f}/min, scaling {tp['scaling']:.2f}x", "(reported)", ""])
            mark('throughput')
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    total = time.perf_counter() - started
    results["total_s"] = total
    load = os.getloadavg()
    results["load_avg_end"] = load
    print(f"\n## Summary ({total / 60:.1f} min; load average at end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")
    print(table(["measure", "figure", "goal", "status"], summary))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
