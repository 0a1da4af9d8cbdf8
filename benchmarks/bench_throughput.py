"""Suite throughput: N plans of 10 steps against the demo portal, ``-n 1`` and ``-n 2`` (pytest-xdist).

Each run is a fresh ``python -m pytest -n W`` process over the same generated
suite (the suite's conftest serves ``DemoPortal`` per worker, as
``example_plans/conftest.py`` does). Timed: the whole process (start-up,
collection, workers, every item), and, from the item reports, the span from the
first item's start to the last item's end.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .common import median, require_ok, run_pytest, table, write_suite

STEPS = 10
FULL_PLANS = 200
ASSUMED_SCALING = 1.6  # used only to estimate the -n 2 run's length before it runs


def portal_plan(n: int) -> str:
    return f"""name: portal flow {n:04d}
tags: [bench]
vars: {{user: user{n}, password: demo}}
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{{kind: host_in_allowlist}}]
  postconditions: [{{kind: host_in_allowlist}}]
steps:
  - id: open_login
    kind: navigate
    target: {{type: url, url: /login}}
    postconditions: [{{kind: url_matches, args: {{pattern: "/login$"}}}}]
  - id: type_user
    kind: fill
    target: {{type: label, text: User name, exact: true}}
    value: ${{vars.user}}
    postconditions: [{{kind: element_value_equals, args: {{value: "${{vars.user}}"}}}}]
  - id: type_password
    kind: fill
    target: {{type: label, text: Password, exact: true}}
    value: ${{vars.password}}
  - id: sign_in
    kind: click
    target: {{type: role, role: button, name: Sign in, exact: true}}
    postconditions: [{{kind: url_matches, args: {{pattern: "/dashboard$"}}}}]
  - id: greeting
    kind: assert
    postconditions:
      - {{kind: element_text_contains, args: {{target: {{type: testid, id: greeting}}, text: "Welcome, user{n}"}}}}
  - id: open_form
    kind: navigate
    target: {{type: url, url: /form}}
    postconditions: [{{kind: url_matches, args: {{pattern: "/form$"}}}}]
  - id: wait_ready
    kind: wait_for
    target: {{type: css, selector: "#status"}}
    postconditions: [{{kind: element_text_contains, args: {{text: Ready}}}}]
  - id: subject
    kind: fill
    target: {{type: testid, id: subject}}
    value: Request {n}
    postconditions: [{{kind: element_value_equals, args: {{value: Request {n}}}}}]
  - id: country
    kind: select
    target: {{type: label, text: Country, exact: true}}
    value: Spain
    postconditions: [{{kind: element_value_equals, args: {{value: ES}}}}]
  - id: send
    kind: click
    target: {{type: role, role: button, name: Send request, exact: true}}
    postconditions: [{{kind: toast_contains, args: {{text: Request sent}}}}]
"""


def _suite(root: Path, plans: int) -> None:
    write_suite(root, {f"plans/portal_{i:04d}.actions.yaml": portal_plan(i) for i in range(plans)})


def _run(root: Path, workers: int, plans: int) -> dict[str, Any]:
    run = run_pytest(root, ["-n", str(workers), "plans"])
    failed = require_ok(run, f"throughput -n {workers}", expected_passed=plans)
    reports = list(run.reports.values())  # every item ran (failed ones too): all count for the rate
    span = max(r.stop for r in reports) - min(r.start for r in reports)
    return {
        "workers": workers, "plans": plans, "wall_s": run.wall_s, "items_span_s": span,
        "plans_per_min": plans / run.wall_s * 60, "plans_per_min_items": plans / span * 60,
        "median_item_s": median([r.wall for r in reports if r.outcome == "passed"]),
        "passed": run.passed(), "failed_items": failed,
    }


def calibrate(work: Path, plans: int = 4) -> dict[str, Any]:
    """A short -n 1 run: per-plan time and fixed start-up, to size the real runs."""
    root = work / "throughput-calibration"
    _suite(root, plans)
    r = _run(root, 1, plans)
    per_plan = r["median_item_s"]
    startup = max(0.0, r["wall_s"] - r["items_span_s"])
    return {"plans": plans, "per_plan_s": per_plan, "startup_s": startup, "wall_s": r["wall_s"]}


def estimate_s(plans: int, cal: dict[str, Any]) -> tuple[float, float]:
    n1 = cal["startup_s"] + plans * cal["per_plan_s"]
    n2 = cal["startup_s"] + plans * cal["per_plan_s"] / ASSUMED_SCALING
    return n1, n2


def bench_throughput(work: Path, *, plans: int | None, budget_s: float) -> dict[str, Any]:
    """``plans=None``: 200, or fewer when a calibration run says 200 would not fit ``budget_s`` (said loudly)."""
    note = ""
    cal = None
    if plans is None:
        cal = calibrate(work)
        full_n1, full_n2 = estimate_s(FULL_PLANS, cal)
        if full_n1 + full_n2 <= budget_s:
            plans = FULL_PLANS
        else:
            fit = (budget_s - 2 * cal["startup_s"]) / (cal["per_plan_s"] * (1 + 1 / ASSUMED_SCALING))
            plans = max(20, min(FULL_PLANS, 10 * math.floor(fit / 10)))
            note = (f"COUNT REDUCED: {plans} plans instead of {FULL_PLANS}. At the calibrated {cal['per_plan_s']:.2f} s "
                    f"per plan, {FULL_PLANS} plans would take ~{full_n1 / 60:.1f} min (-n 1) + ~{full_n2 / 60:.1f} min (-n 2), "
                    f"over this run's throughput budget of {budget_s / 60:.1f} min; run with --plans {FULL_PLANS} for the full count.")
    root = work / "throughput"
    _suite(root, plans)
    if cal is not None:
        est1, est2 = estimate_s(plans, cal)
        print(f"\n[throughput] calibration: {cal['per_plan_s']:.2f} s per 10-step plan, {cal['startup_s']:.1f} s start-up; "
              f"running {plans} plans, estimated {est1:.0f} s (-n 1) + {est2:.0f} s (-n 2)", flush=True)
    n1 = _run(root, 1, plans)
    n2 = _run(root, 2, plans)
    scaling = n2["plans_per_min"] / n1["plans_per_min"]
    scaling_items = n2["plans_per_min_items"] / n1["plans_per_min_items"]
    print(f"\n## Suite throughput — {plans} plans x {STEPS} steps against the demo portal, pytest-xdist"
          + (f"  [{note}]" if note else ""))
    rows = [[f"-n {r['workers']}", f"{r['passed']}/{r['plans']}", r["wall_s"], r["plans_per_min"], r["items_span_s"], r["plans_per_min_items"],
             r["median_item_s"]] for r in (n1, n2)]
    print(table(["workers", "passed/plans", "process wall s", "plans/min", "items span s", "plans/min (items span)",
                 "median item s"], rows))
    print(f"scaling -n 2 / -n 1: {scaling:.2f}x (process wall), {scaling_items:.2f}x (items span); "
          f"{STEPS * n1['plans_per_min'] / 60:.1f} steps/s with -n 1")
    if note:
        print(note)
    return {"plans": plans, "full_plans": FULL_PLANS, "reduced_note": note or None, "calibration": cal,
            "n1": n1, "n2": n2, "scaling": scaling, "scaling_items_span": scaling_items}
