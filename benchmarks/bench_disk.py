"""Disk: bytes a run folder takes per passing step and per failing step.

One inner pytest run (default evidence policy, tracing off) of: the benchmark
page's 40-step flow and the demo portal's 10-step plan (passing, every step
normal), the 8-step flow with one critical step (passing), and two failing
plans (a postcondition that never holds on a click; a fill target that does
not exist), which ``expect`` their error so the items pass.

Per passing step: the evidence pack (``evidence/`` files plus
``evidence_manifest.json``) divided by the plan's steps; the whole run folder
(adding ``trace.jsonl`` and ``run_manifest.json``) is shown beside it. Per
critical or failing step: the evidence files whose ``step_id`` is that step
(every attempt), from the evidence manifest.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from .bench_throughput import portal_plan
from .common import require_ok, run_pytest, table, verdict, write_suite
from .site import flow, plan_yaml, step_id

GOAL_BYTES = 20 * 1024


def _plans() -> dict[str, tuple[str, str, int | None]]:
    """file -> (text, what, step index of interest)."""
    f40, f8 = flow(40), flow(8)
    click = next(i for i, s in enumerate(f8) if s.kind == "click" and i > 3)
    fill = next(i for i, s in enumerate(f8) if s.kind == "fill" and i > 3)
    return {
        "plans/disk_pass_bench.actions.yaml": (plan_yaml("disk pass bench", f40), "passing, bench page, 40 steps", None),
        "plans/disk_pass_portal.actions.yaml": (portal_plan(1).replace("portal flow 0001", "disk pass portal"),
                                                "passing, demo portal, 10 steps", None),
        "plans/disk_critical.actions.yaml": (plan_yaml("disk critical", f8, critical=frozenset({click})),
                                             f"critical step {step_id(click, f8[click])} (passing)", click),
        "plans/disk_fail_post.actions.yaml": (plan_yaml("disk fail post", f8, broken={click: "text"}, expect="POSTCONDITION_FAILED"),
                                              f"POSTCONDITION_FAILED at {step_id(click, f8[click])}", click),
        "plans/disk_fail_target.actions.yaml": (plan_yaml("disk fail target", f8, broken={fill: "target"}, expect="TARGET_NOT_FOUND"),
                                                f"TARGET_NOT_FOUND at {step_id(fill, f8[fill])}", fill),
    }


def _folder(run_dir: Path) -> dict[str, Any]:
    manifest = json.loads((run_dir / "evidence_manifest.json").read_text(encoding="utf-8"))
    by_step: dict[str, int] = defaultdict(int)
    by_kind: dict[str, int] = defaultdict(int)
    by_step_kind: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    files = 0
    for entry in manifest["files"]:
        by_step[entry["step_id"]] += entry["size_bytes"]
        by_step_kind[entry["step_id"]][entry["kind"]] += entry["size_bytes"]
        by_kind[entry["kind"]] += entry["size_bytes"]
        files += 1
    evidence = sum(by_kind.values())
    run_manifest = json.loads((run_dir / "run_manifest.json").read_text(encoding="utf-8"))
    sizes = {name: (run_dir / name).stat().st_size for name in ("trace.jsonl", "evidence_manifest.json", "run_manifest.json")}
    return {"name": run_manifest["plan"]["name"], "status": run_manifest["status"], "error_code": run_manifest.get("error_code"),
            "evidence_files": files, "evidence_bytes": evidence, "by_step": dict(by_step), "by_kind": dict(by_kind),
            "by_step_kind": {k: dict(v) for k, v in by_step_kind.items()},
            "allocated": sum(p.stat().st_blocks * 512 for p in run_dir.rglob("*") if p.is_file()), **sizes}


def bench_disk(work: Path) -> dict[str, Any]:
    root = work / "disk"
    plans = _plans()
    write_suite(root, {name: text for name, (text, _, _) in plans.items()})
    run = run_pytest(root, ["plans"])
    require_ok(run, "disk", expected_passed=len(plans))  # a plan that did not pass is reported as it ended
    folders = {f["name"]: f for f in (_folder(d) for d in sorted((root / "runs").iterdir()))}
    res: dict[str, Any] = {"plans": {}}
    passing_rows, step_rows, passing_per_step = [], [], []
    for name, (text, what, index) in plans.items():
        plan_name = text.split("\n", 1)[0].split(": ", 1)[1]
        f = folders[plan_name]
        steps = text.count("\n  - id: ")
        pack = f["evidence_bytes"] + f["evidence_manifest.json"]
        whole = pack + f["trace.jsonl"] + f["run_manifest.json"]
        if index is None:
            per_step = pack / steps
            passing_per_step.append(per_step)
            f.update(per_step_pack=per_step, per_step_folder=whole / steps, per_step_allocated=f["allocated"] / steps)
            if f["status"] != "passed":
                what += f" [ended {f['status']} {f['error_code']}: not a passing run]"
            passing_rows.append([what, steps, f["evidence_files"], per_step / 1024, f["trace.jsonl"] / steps / 1024,
                                 whole / steps / 1024, f["allocated"] / steps / 1024, "< 20 KB", verdict(per_step < GOAL_BYTES)])
        else:
            sid = [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("  - id: ")][index]
            kinds = f["by_step_kind"].get(sid, {})
            step_bytes = sum(kinds.values())
            f["step_of_interest"] = {"step_id": sid, "evidence_bytes": step_bytes, "by_kind": kinds}
            step_rows.append([what, step_bytes / 1024, ", ".join(f"{k} {v / 1024:.1f}" for k, v in sorted(kinds.items()))])
        res["plans"][what] = f
    res["passing_step_kib"] = [v / 1024 for v in passing_per_step]
    res["goal_kib"] = 20
    res["goal_met"] = all(v < GOAL_BYTES for v in passing_per_step)
    print("\n## Disk — run folders under the default evidence policy (tracing off)")
    print("Passing plans, KiB per step: evidence pack (evidence/ + evidence_manifest.json; the goal), trace.jsonl, "
          "whole run folder, and blocks allocated on disk (4 KiB per small file)")
    print(table(["plan", "steps", "evidence files", "pack KiB/step", "trace KiB/step", "folder KiB/step",
                 "allocated KiB/step", "goal", "status"], passing_rows))
    print("One step's evidence files (every attempt), KiB")
    print(table(["step", "KiB", "by kind (KiB)"], step_rows))
    kinds: dict[str, int] = defaultdict(int)
    for f in res["plans"].values():
        for k, v in f["by_kind"].items():
            kinds[k] += v
    trace_total = sum(f["trace.jsonl"] for f in res["plans"].values())
    print("bytes by kind over these runs: " + ", ".join(f"{k} {v / 1024:.0f} KiB" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
          + f", trace.jsonl {trace_total / 1024:.0f} KiB")
    return res
