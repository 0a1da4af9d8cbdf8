"""Load: many plans with ``-n 2`` against one demo portal (30 in CI, 100 under ``COMETLOCAL_SOAK=1``).

No run folder collides, every run verifies with ``cometlocal verify``, and no
Chromium of the session outlives it. The session's Chromiums are told apart
from any other process on the machine by an environment tag they inherit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.reliability import procs
from tests.support import DEFAULTS, soak

pytestmark = pytest.mark.browser  # the inner session runs its plans in Chromium

# Thirty plans put each worker through about fifteen back to back, three of the thirty negative; the full
# hundred is the soak run's.
PLANS = soak(30, 100)


def plan_text(i: int) -> str:
    if i % 10 == 9:  # a tenth fail on purpose, as negative plans, so failures are under load too
        return (f"name: load {i:03d}\nexpect: {{error_code: TARGET_NOT_FOUND, step: missing}}\n" + DEFAULTS + "steps:\n"
                "  - {id: open, kind: navigate, target: {type: url, url: /login}}\n"
                "  - {id: missing, kind: click, timeout_ms: 200, target: {type: testid, id: nowhere}}\n")
    page = ("login", "reports", "form", "duplicates")[i % 4]
    return (f"name: load {i:03d}\n" + DEFAULTS + "steps:\n"
            f"  - {{id: open, kind: navigate, target: {{type: url, url: /{page}}},"
            f" postconditions: [{{kind: url_matches, args: {{pattern: /{page}$}}}}]}}\n")


def test_many_plans_on_two_workers(tmp_path: Path, portal) -> None:
    for i in range(PLANS):
        (tmp_path / f"p{i:03d}.actions.yaml").write_text(plan_text(i), encoding="utf-8")
    (tmp_path / "pytest.ini").write_text(f"[pytest]\nbase_url = {portal.url}\n", encoding="utf-8")
    tag = uuid.uuid4().hex
    assert procs.tagged_chromium(tag) == []
    hits_before = len(portal.hits)

    seen: list[int] = []
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            seen.append(len(procs.tagged_chromium(tag)))
            done.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    env = dict(os.environ, COMETLOCAL_TEST_TAG=tag,
               PYTEST_ADDOPTS="-p no:playwright -p no:randomly -p no:cacheprovider -p no:hypothesispytest")
    try:
        done_proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-q", str(tmp_path)],
                                   cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    finally:
        done.set()
        sampler.join(timeout=10)
    out = done_proc.stdout + done_proc.stderr
    assert done_proc.returncode == 0, out[-3000:]
    assert f"{PLANS} passed" in out, out[-2000:]
    assert max(seen) > 0, "the sampler never saw the session's Chromium: the leak check would prove nothing"

    # No leaked Chromium: give the OS a moment to reap, then none may be left.
    deadline = time.monotonic() + 10
    while procs.tagged_chromium(tag) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert procs.tagged_chromium(tag) == []

    runs = sorted((tmp_path / "cometlocal-runs").iterdir())
    assert len(runs) == PLANS and len({r.name for r in runs}) == PLANS
    manifests = [json.loads((r / "run_manifest.json").read_text()) for r in runs]
    assert sorted(m["plan"]["name"] for m in manifests) == [f"load {i:03d}" for i in range(PLANS)]
    assert {m["platform"]["worker"] for m in manifests} == {"gw0", "gw1"}
    assert len({m["platform"]["pid"] for m in manifests}) == 2
    verify = subprocess.run([str(Path(sys.executable).parent / "cometlocal"), "verify", str(tmp_path / "cometlocal-runs")],
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, (verify.stdout + verify.stderr)[-3000:]
    assert sum(1 for m, p in portal.hits[hits_before:] if m == "GET") >= PLANS  # one portal served them all
