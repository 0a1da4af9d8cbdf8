"""The real flow (bench_real.py) on two Chromium builds side by side: the browser as a variable (issue 50).

Why: Debian ships the old headless shell (``chromium-headless-shell``, what
Playwright launches by default for headless runs) next to ``chromium`` (the
new headless mode, a full browser without a window). The picture ``balanced``
takes of every state waits for compositor frames, and the two builds draw
differently; what matters is the plan against the hand-written test on the
same build, and each variant on one build against the other. The binary is
given to each pytest process by ``COMETLOCAL_CHROMIUM`` (the plugin's browser
and the hand-written test's, which shares it). Variants alternate round by
round, the order rotated, as in bench_real.

    python -m benchmarks.bench_browsers [--rounds 3] [--flows 3]
    BENCH_BROWSERS="chromium=/usr/bin/chromium,shell=/usr/bin/chromium-headless-shell"  (the default)
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from .bench_real import BASELINE, HAND, TRACED, _session, rotation
from .common import median, table

VARIANTS = ("balanced", "fast", HAND, TRACED)
DEFAULT_BROWSERS = "chromium=/usr/bin/chromium,shell=/usr/bin/chromium-headless-shell"


def browsers() -> dict[str, str]:
    spec = os.environ.get("BENCH_BROWSERS") or DEFAULT_BROWSERS
    return dict(item.split("=", 1) for item in spec.split(","))


def bench_browsers(work: Path, rounds: int, flows: int, variants: tuple[str, ...] = VARIANTS,
                   warmup: bool = True) -> dict[str, Any]:
    from tests.django_admin import PASSWORD, django_admin

    builds = browsers()
    pairs = [(v, b) for b in builds for v in (*variants, BASELINE)]
    sessions: list[dict[str, Any]] = []
    (work / "django").mkdir(parents=True, exist_ok=True)
    with django_admin(work / "django", hard_limit_s=3 * 3600) as url:
        base_env = {"BENCH_REAL_URL": url, "BENCH_ADMIN_PASSWORD": PASSWORD}
        for rnd in ((99,) if warmup else ()) + tuple(range(rounds)):  # 99: the warm-up round, not counted
            for variant, build in rotation(pairs, rnd if rnd != 99 else 0):
                env = {**base_env, "COMETLOCAL_CHROMIUM": builds[build]}
                n = 1 if variant == BASELINE else (2 if rnd == 99 else flows)
                s = _session(work / build, variant, rnd, n, env, True, tag=f"{build} ")
                s["build"] = build
                if "broken" in s:
                    print(f"BROKEN {variant} @ {build} round {rnd}: {s['broken'][-1500:]}", flush=True)
                    continue
                print(f"[round {rnd}: {variant} @ {build}: {', '.join(f'{v:.2f}' for v in s['item_s'])} s/flow; "
                      f"load {s['load1']:.2f}]", flush=True)
                if rnd != 99:
                    sessions.append(s)
    return {"sessions": sessions, "builds": list(builds)}


def report(result: dict[str, Any]) -> str:
    sessions = result["sessions"]
    med: dict[tuple[str, str, int], float] = {(s["variant"], s["build"], s["round"]): median(s["item_s"])
                                               for s in sessions if s.get("item_s")}
    rows, out = [], []
    for build in result["builds"]:
        for v in dict.fromkeys(s["variant"] for s in sessions):
            items = [x for s in sessions if s["variant"] == v and s["build"] == build for x in s["item_s"]]
            rows.append([v, build, len(items), median(items), f"{min(items, default=0):.2f}-{max(items, default=0):.2f}"])
    out.append(table(["variant", "build", "flows", "median s/flow", "min-max s"], rows))

    def by_round(a: tuple[str, str], b: tuple[str, str]) -> list[float]:
        return [med[(*a, r)] / med[(*b, r)] for (v, bd, r) in med if (v, bd) == a and (*b, r) in med]

    ratio_rows = []
    for build in result["builds"]:
        for plan, ref in (("balanced", HAND), ("balanced", TRACED), ("fast", HAND), (TRACED, HAND)):
            r = by_round((plan, build), (ref, build))
            ratio_rows.append([f"{plan} / {ref}", build, ", ".join(f"{x:.2f}" for x in r), median(r)])
    first, *others = result["builds"]
    for other in others:
        for v in VARIANTS:
            r = by_round((v, other), (v, first))
            ratio_rows.append([f"{v}: {other} / {first}", "-", ", ".join(f"{x:.2f}" for x in r), median(r)])
    out.append(table(["ratio (wall, median s/flow of the same round)", "build", "round by round", "median"], ratio_rows))
    loads = [s["load1"] for s in sessions]
    out.append(f"load (1 min) during the run: min {min(loads):.2f}, median {median(loads):.2f}, max {max(loads):.2f}")
    return "\n\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_browsers", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--flows", type=int, default=3, help="flows per pytest process, the first its warm-up")
    p.add_argument("--variants", default=",".join(VARIANTS), help="a comma list among: " + ", ".join(VARIANTS))
    p.add_argument("--no-warmup", action="store_true", help="no warm-up round (each process's first flow still is one)")
    p.add_argument("--keep", metavar="DIR")
    args = p.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-browsers-"))
    variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        p.error(f"unknown variants: {sorted(unknown)}")
    print(report(bench_browsers(work, args.rounds, args.flows, variants, not args.no_warmup)))


if __name__ == "__main__":
    main()
