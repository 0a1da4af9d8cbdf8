"""SIGKILL at random moments of a run that writes evidence in batches: the trace's lines all
parse and the evidence manifest verifies (``verify_run``), whatever the moment.

No browser: a child process opens a real run folder and writes what a step
writes (a batch of DOM snapshots and a screenshot, then evidence_captured),
with a pause standing for the browser's part of a step, until it is killed.

A kill between the first file of a batch moved into evidence/ and the new
manifest replacing the old one (a few renames; see executor/runfolder/evidence_store.py)
leaves files that only the complete ``evidence_manifest.json.tmp`` lists:
``verify_run`` recognises that state and accepts it with a note
(tests/unit/test_evidence_batches.py builds it on purpose). Any problem fails
the test.
"""

from __future__ import annotations

import os
import random
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from pytest_cometlocal.runs.verify import verify_run

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import os, random, sys, time
from pathlib import Path
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.executor.runfolder.folder import RunFolder

run = RunFolder.create(Path(sys.argv[1]), "killed", mode="live", policy=Policy(), allowlist=(),
                       plan_info={"name": "killed"})
run.trace.emit("run_started")
print(run.path, flush=True)
rng = random.Random(int(sys.argv[2]))
step = 0
while True:
    step += 1
    tag = f"step_{step:05d}"
    with run.evidence.batch():
        refs = [
            run.evidence.add_json("dom_snapshot_partial", f"dom/{tag}_before.json",
                                  {"step": step, "text": "x" * rng.randint(0, 40000)}, step_id=tag),
            run.evidence.add_bytes("screenshot", f"shots/{tag}_after.png", os.urandom(rng.randint(0, 120000)),
                                   step_id=tag, redact=False),
            run.evidence.add_json("dom_snapshot_partial", f"dom/{tag}_after.json", {"step": step}, step_id=tag),
        ]
    run.trace.emit("evidence_captured", tag, evidence_refs=refs)
    time.sleep(rng.uniform(0, 0.006))  # the rest of a step
"""

KILLS = 5
NOT_FINISHED = "trace.jsonl: last event is "  # a killed run has no run_finished: expected


def start_child(output: Path, seed: int) -> tuple[subprocess.Popen, Path]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(output), str(seed)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout=30):
            proc.kill()
            proc.wait(timeout=10)
            raise AssertionError("the child never opened its run folder")
    line = proc.stdout.readline().decode().strip()
    assert line, proc.stderr.read().decode(errors="replace")[-2000:]
    return proc, Path(line)


def test_sigkill_at_random_moments_leaves_a_trace_that_parses_and_a_manifest_that_verifies(tmp_path: Path) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    listed = 0
    for k in range(KILLS):
        proc, run_dir = start_child(tmp_path / f"out{k}", seed + k)
        try:
            time.sleep(rng.uniform(0.02, 0.5))
            assert proc.poll() is None, proc.stderr.read().decode(errors="replace")[-2000:]
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=10) == -signal.SIGKILL
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
            proc.stdout.close()
            proc.stderr.close()
        result = verify_run(run_dir)
        problems = [p for p in result.problems if not p.startswith(NOT_FINISHED)]
        assert problems == [], f"seed {seed}, kill {k}: {problems}"
        assert result.events >= 1
        listed += result.files
    assert listed > 0  # the kills landed while evidence was being written
