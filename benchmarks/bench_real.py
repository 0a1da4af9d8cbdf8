"""A real application (issue 27): one 14-step flow on Django's admin, as a plan and by hand.

Why: the other sections time the executor on the benchmark's own pages, built to
isolate it. What a user weighs is a whole flow on a real site — server round
trips, redirects, a multipart upload, a log-out — where the executor's per-step
work is one cost among others. The flow (log in, open the document list, add a
document with a file, open it, check it, log out) runs on the Django admin the
tests use (``tests/django_admin_site.py``, its ``library`` app), started once
here, outside the measured process trees.

The suites' files (the plan, the hand-written test, the conftest) are in
``real_flow.py``. Variants, each a fresh ``python -m pytest`` process (under ``benchmarks/cputree.py``)
running ``flows`` flows; the first flow of each process is its warm-up:
the plan in each execution profile (``--cometlocal-profile``; only ``balanced``,
without the option, when the plugin does not have it yet), the same flow
hand-written with pytest-playwright and ``expect()``, and that test with a
Playwright trace (screenshots and snapshots) per flow, and that test with the
page reads a plan makes at every step (``READS``: its floor in the browser), and
with the same calls reading nothing (``EMPTY_READS``), and with one read per step (``ONE_READ``:
the floor of issue 38's executor, which reads the page once between two steps: ``fast``'s floor), and
with one read and a picture per step (``PICTURES``: ``balanced``'s floor, benchmarks/floors.py);
plus a baseline process
(one page, no flow) for the CPU. After a warm-up round, the variants alternate
round by round, the order rotated each round. Timed per flow: the item's
setup + call + teardown (pytest's durations); CPU per flow: (process tree -
median baseline) / flows; kept: the run folders (plan) or trace.zip files.
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path
from typing import Any

from .common import dir_bytes, median, require_ok, run_pytest, table, verdict, write_suite
from .real_flow import BASELINE_TEST, CONFTEST, HAND_TEST, PLAN

PROFILES = ("balanced", "fast", "forensic")
HAND, TRACED, BASELINE = "hand-written", "hand-written + tracing", "baseline"
# The hand-written flow plus the page reads the evidence contract asks of every step, and nothing else: the
# "before" look with the target's match in one read (the DOM snapshot and the element before the action), the
# "after" look. No picture, no file, no trace, no check of the plugin's: the floor of what a plan costs the
# browser in any profile (the fast profile's reads, made by hand).
READS = "hand-written + page reads"
# The same calls with scripts that read nothing: what the round trips and Playwright's set-up of the page's
# main world cost by themselves, apart from the work of the plugin's scripts.
EMPTY_READS = "hand-written + empty reads"
# The hand-written flow plus one read per step (issue 38): step N's "after" look and step N+1's "before" look with
# N+1's target matched are one call, the plugin's own script, as an executor that reads once between two steps
# does; plus the last step's "after". The floor of that design.
ONE_READ = "hand-written + one read per step"
# ONE_READ plus, after each read, the picture the balanced profile takes of that state (benchmarks/floors.py): a
# fresh screencast frame and its sha256. The floor of balanced (one read and one fresh picture per state), as
# ONE_READ is the floor of fast (whose pictures are taken only where they can decide something).
PICTURES = "hand-written + one read and a picture per step"
# Goals of issue 27: (plan variant, reference, wall or cpu) -> at most.
GOALS = {("balanced", HAND, "wall"): 1.15, ("balanced", TRACED, "wall"): 1.0, ("fast", HAND, "wall"): 1.08,
         ("balanced", HAND, "cpu"): 1.5, ("fast", HAND, "cpu"): 1.3}
TIMEOUT_MS = 10_000
STEPS = 14

# The hand-written test's ``reads`` mode of each variant that reads (real_flow.HAND_TEST).
HAND_READS = {READS: "plan", ONE_READ: "one", PICTURES: "picture", EMPTY_READS: "empty"}


def _titles(variant: str, rnd: int, flows: int, tag: str = "") -> list[str]:
    """The flows' document titles: unique in the Django database the processes share (``tag``: a side of goals)."""
    slug = variant.replace("hand-written", "hand").replace(" + tracing", "-traced").replace(" + page reads", "-reads") \
        .replace(" + empty reads", "-empty").replace(" + one read per step", "-one") \
        .replace(" + one read and a picture per step", "-pictures")
    return [f"Report {tag}{slug} r{rnd:02d} f{i:02d}" for i in range(flows)]


def _suite(root: Path, variant: str, rnd: int, flows: int, tag: str = "") -> None:
    titles = _titles(variant, rnd, flows, tag)
    files = {"plans/files/note.txt": "A short note to upload.\n"}
    if variant in PROFILES:
        for i, title in enumerate(titles):
            files[f"plans/real_f{i:02d}.actions.yaml"] = PLAN.format(tag=title.lower(), title=title, timeout=TIMEOUT_MS)
    elif variant == BASELINE:
        files["test_baseline.py"] = BASELINE_TEST
    else:
        files["test_hand.py"] = HAND_TEST.format(timeout=TIMEOUT_MS, titles=titles, traced=variant == TRACED,
                                                 reads=HAND_READS.get(variant, ""))
    write_suite(root, files, conftest_extra=CONFTEST)


def rotation(variants: list[str], rnd: int) -> list[str]:
    """Round ``rnd``'s order: the variants rotated by ``rnd`` (A B C, B C A, C A B, ...)."""
    k = rnd % len(variants) if variants else 0
    return variants[k:] + variants[:k]


def has_profile_option(root: Path, env: dict[str, str]) -> bool:
    run = run_pytest(root, ["--help"], env=env)
    return "--cometlocal-profile" in run.stdout


def _session(work: Path, variant: str, rnd: int, flows: int, env: dict[str, str], profiles: bool,
             tag: str = "") -> dict[str, Any]:
    root = work / f"r{rnd:02d}-{variant.replace(' + ', '-').replace(' ', '-')}"
    _suite(root, variant, rnd, flows, tag)
    args = [f"--cometlocal-profile={variant}"] if profiles and variant in PROFILES else []
    run = run_pytest(root, args, cpu=True, env=env)
    try:
        failed = require_ok(run, f"real application, {variant}, round {rnd}",
                            expected_passed=1 if variant == BASELINE else flows)
    except SystemExit as exc:  # nothing passed: the variant is dropped, the others go on
        return {"variant": variant, "round": rnd, "root": str(root), "broken": str(exc)}
    assert run.cpu is not None
    items = sorted(run.reports.values(), key=lambda r: r.start)
    counted = [r for r in items[1:] if r.outcome == "passed"]  # the process's first flow warms it up
    kept = [root / d for d in ("runs", "traces") if (root / d).is_dir()]  # evidence packs, Playwright traces
    return {"variant": variant, "round": rnd, "root": str(root), "failed_items": failed, "wall_s": run.cpu["wall_s"],
            "cpu_s": run.cpu["user_s"] + run.cpu["sys_s"], "stragglers_killed": run.cpu["stragglers_killed"],
            "item_s": [r.total for r in counted], "call_s": [r.call for r in counted],
            "kept_kib_per_flow": sum(dir_bytes(d) for d in kept) / 1024 / flows, "load1": os.getloadavg()[0]}


def _paired(plan: str, ref: str) -> bool:
    """Which ratios are shown: each profile against each reference; the read variants against the hand flow;
    the picture floor against the one-read floor (what the pictures add)."""
    return plan != ref and (plan in PROFILES or ref == HAND or (plan, ref) == (PICTURES, ONE_READ))


def ratios(rows: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    """Each plan profile / each hand-written reference, wall (median item s) and CPU (s/flow), with the goals."""
    out = []
    for plan in (*PROFILES, READS, ONE_READ, PICTURES, EMPTY_READS):
        for ref in (HAND, TRACED, READS, ONE_READ, PICTURES):
            if plan not in rows or ref not in rows or not _paired(plan, ref):
                continue
            for what, key in (("wall", "median_s"), ("cpu", "cpu_s_per_flow")):
                den = rows[ref][key]
                value = rows[plan][key] / den if den > 0 else float("nan")  # nan stays nan: not measured
                goal = GOALS.get((plan, ref, what))
                out.append({"plan": plan, "reference": ref, "what": what, "ratio": value, "goal": goal,
                            "met": None if goal is None or value != value else value <= goal})
    return out


def by_round(sessions: list[dict[str, Any]], plan: str, ref: str) -> list[float]:
    """Plan / reference median s/flow of the same round, round by round (the two ran a few minutes apart)."""
    med = {(s["variant"], s["round"]): median(s["item_s"]) for s in sessions if s.get("item_s")}
    return [med[plan, r] / med[ref, r] for (v, r) in med if v == plan and (ref, r) in med]


def summarize(sessions: list[dict[str, Any]], flows: int) -> dict[str, dict[str, float]]:
    """Per variant: median, min and max item s/flow, median call s, CPU s/flow net of the baseline."""
    base = [s["cpu_s"] for s in sessions if s["variant"] == BASELINE]
    base_cpu = median(base) if base else 0.0
    rows: dict[str, dict[str, float]] = {}
    for variant in dict.fromkeys(s["variant"] for s in sessions):
        if variant == BASELINE:
            continue
        mine = [s for s in sessions if s["variant"] == variant]
        items = [v for s in mine for v in s["item_s"]]
        cpu = [s["cpu_s"] for s in mine if not s.get("failed_items")]  # a failed flow stops early: less CPU
        rows[variant] = {"flows_counted": len(items), "flows_failed": sum(len(s.get("failed_items", ())) for s in mine),
                         "median_s": median(items),
                         "min_s": min(items, default=float("nan")), "max_s": max(items, default=float("nan")),
                         "call_s": median([v for s in mine for v in s["call_s"]]),
                         "cpu_s_per_flow": (median(cpu) - base_cpu) / flows,
                         "cpu_s_per_flow_raw": median(cpu) / flows,
                         "kept_kib_per_flow": median([s.get("kept_kib_per_flow", 0.0) for s in mine])}
    return rows


def bench_real(work: Path, *, rounds: int = 4, flows: int = 3, warmup: bool = True) -> dict[str, Any]:
    base = work / "real"
    base.mkdir(parents=True, exist_ok=True)
    # common.run_pytest adds --cometlocal-profile $COMETLOCAL_BENCH_PROFILE to every process; here each variant picks its own.
    saved = os.environ.pop("COMETLOCAL_BENCH_PROFILE", None)
    try:
        return _bench_real(base, rounds, flows, warmup)
    finally:
        if saved is not None:
            os.environ["COMETLOCAL_BENCH_PROFILE"] = saved


def _bench_real(base: Path, rounds: int, flows: int, warmup: bool) -> dict[str, Any]:
    from tests.django_admin import PASSWORD, django_admin

    from .trace_phases import trace_phases

    result: dict[str, Any] = {"steps": STEPS, "rounds": rounds, "flows_per_process": flows,
                              "load_avg_start": os.getloadavg()}
    (base / "django").mkdir(exist_ok=True)
    with django_admin(base / "django", hard_limit_s=6 * 3600) as url:
        env = {"BENCH_REAL_URL": url, "BENCH_ADMIN_PASSWORD": PASSWORD}
        _suite(base / "probe", BASELINE, 0, 1)
        profiles = has_profile_option(base / "probe", env)
        plans = list(PROFILES) if profiles else ["balanced"]
        if not profiles:
            print("NOTE real: this plugin has no --cometlocal-profile option yet: the plan runs in its default "
                  "(balanced) only", flush=True)
        variants = [*plans, HAND, TRACED, READS, ONE_READ, PICTURES, EMPTY_READS, BASELINE]
        result["variants"] = variants
        if warmup:
            for variant in variants:
                _session(base / "warmup", variant, 99, 1 if variant == BASELINE else 2, env, profiles)  # broken: below
        sessions, broken = [], {}
        for rnd in range(rounds):
            for variant in rotation(variants, rnd):
                if variant in broken:
                    continue
                s = _session(base, variant, rnd, flows, env, profiles)
                if "broken" in s:
                    broken[variant] = s["broken"]
                    print(f"WARNING real: {variant} is left out: no flow passed in round {rnd}:\n{s['broken'][-3000:]}",
                          flush=True)
                    continue
                sessions.append(s)
                print(f"[real round {rnd}: {variant}: {', '.join(f'{v:.2f}' for v in s['item_s'])} s/flow, "
                      f"process CPU {s['cpu_s']:.1f} s; load {s['load1']:.2f}]", flush=True)
    result["sessions"] = sessions
    result["broken"] = broken
    plans = [p for p in plans if p not in broken]
    rows = summarize(sessions, flows)
    result["rows"] = rows
    result["ratios"] = ratios(rows)
    result["load_avg_end"] = os.getloadavg()
    _print(result)
    phases: dict[str, Any] = {}
    for plan in plans:
        runs = [Path(s["root"]) / "runs" for s in sessions if s["variant"] == plan]
        folders = sorted(d for r in runs if r.is_dir() for d in r.iterdir() if d.is_dir())
        phases[plan] = trace_phases(folders, skip=lambda name: name.endswith(" f00"))  # each process's warm-up
        print_trace_phases(phases[plan], f"{plan} profile, real application ({phases[plan]['runs']} runs)")
    result["trace_phases_ms"] = phases
    return result


def print_trace_phases(result: dict[str, Any], title: str) -> None:
    from .trace_phases import TRACE_PHASES

    names = [name for name, _ in TRACE_PHASES]
    print(f"\n### Where a step's time goes, {title}: median ms per phase, from the trace's timestamps "
          "(a phase ends at its event; the first starts at the previous step's last event)")
    print(table(["step kind", "steps", *names, "total"],
                [[kind, v["steps"], *(v[n] for n in names), v["total"]] for kind, v in result["kinds"].items()]))


def _print(result: dict[str, Any]) -> None:
    rows = result["rows"]
    print(f"\n## Real application — Django admin, one {STEPS}-step flow (log in, add a document with an upload, "
          f"open it, check it, log out); {result['rounds']} rounds, variants alternating (rotated), each a fresh "
          f"pytest process of {result['flows_per_process']} flows, the first its warm-up")
    print(table(["variant", "flows (failed)", "median s/flow", "min-max s", "call s", "CPU s/flow", "CPU s/flow incl. start-up",
                 "kept KiB/flow"],
                [[v, f"{r['flows_counted']} ({r['flows_failed']})", r["median_s"], f"{r['min_s']:.2f}-{r['max_s']:.2f}", r["call_s"],
                  r["cpu_s_per_flow"], r["cpu_s_per_flow_raw"], r["kept_kib_per_flow"]] for v, r in rows.items()]))
    print("\n### Ratios (plan / reference; wall: median s/flow, CPU: process tree s/flow net of the baseline)")
    print(table(["plan", "reference", "what", "ratio", "goal", "status"],
                [[r["plan"], r["reference"], r["what"], f"{r['ratio']:.2f}x" if r["ratio"] == r["ratio"] else "n/a",
                  f"<= {r['goal']}x" if r["goal"] else "", verdict(r["met"]) if r["goal"] else ""]
                 for r in result["ratios"]]))
    for plan in (*PROFILES, READS, ONE_READ, PICTURES, EMPTY_READS):
        for ref in (HAND, TRACED, READS, ONE_READ, PICTURES):
            if not _paired(plan, ref):
                continue
            pairs = by_round(result["sessions"], plan, ref)
            if pairs:
                print(f"  {plan} / {ref}, wall, round by round: {', '.join(f'{v:.2f}' for v in pairs)}; "
                      f"median {median(pairs):.2f}x")
    for v in rows:
        per = [f"{statistics.median(s['item_s']):.2f}" if s["item_s"] else "n/a"
               for s in result["sessions"] if s["variant"] == v]
        print(f"  {v}: median s/flow by round: {', '.join(per)}")


__all__ = ["bench_real", "by_round", "ratios", "rotation", "summarize"]
