"""SIGINT and SIGTERM during a run: every started item leaves a trace that verifies, and
pytest exits with its usual code for an interrupted session (2).

A single item under SIGINT is also covered by
tests/plugin/test_browser_items.py::test_sigint_during_a_run_leaves_valid_traces.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.support import DEFAULTS, PORTAL_CONFTEST, playwright_ffmpeg_in, sigint_as_default

pytestmark = pytest.mark.browser  # the inner sessions run plans in Chromium

PLANS = {
    "a_quick.actions.yaml": "name: quick\n" + DEFAULTS + "steps:\n"
                            "  - {id: open, kind: navigate, target: {type: url, url: /login}}\n",
    "b_slow.actions.yaml": "name: slow\n" + DEFAULTS + "steps:\n"
                           "  - {id: open, kind: navigate, target: {type: url, url: /login}}\n"
                           "  - {id: slow, kind: navigate, timeout_ms: 25000, target: {type: url, url: '/slow?ms=20000'}}\n",
    "c_never.actions.yaml": "name: never\n" + DEFAULTS + "steps:\n"
                            "  - {id: open, kind: navigate, target: {type: url, url: /login}}\n",
}


def wait_for_step(runs: Path, step: str, proc: subprocess.Popen, limit: float = 60) -> Path:
    needle = f'"event_type":"action_started","step_id":"{step}"'
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        for trace in runs.glob("*-slow-*/trace.jsonl"):
            if needle in trace.read_text(encoding="utf-8"):
                return trace
        time.sleep(0.05)
    proc.kill()
    out = proc.communicate(timeout=30)[0].decode(errors="replace")
    raise AssertionError(f"the run never reached step {step!r}:\n{out[-3000:]}")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_mid_run_leaves_a_verified_trace_for_every_started_item(tmp_path: Path, signum: int) -> None:
    (tmp_path / "conftest.py").write_text(PORTAL_CONFTEST, encoding="utf-8")
    for name, text in PLANS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    runs = tmp_path / "cometlocal-runs"
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTEST_ADDOPTS="-p no:playwright -p no:randomly -p no:cacheprovider")
    # Under SIGINT the plans are filmed (issue 39): the cut run stores no video and still verifies.
    ffmpeg = playwright_ffmpeg_in(tmp_path / "pw") if signum == signal.SIGINT else None
    video = ["--cometlocal-video", "on"] if ffmpeg is not None else []
    if ffmpeg is not None:
        env["PLAYWRIGHT_BROWSERS_PATH"] = str(ffmpeg)
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-v", str(tmp_path), "--rootdir", str(tmp_path), *video],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=sigint_as_default)
    trace = wait_for_step(runs, "slow", proc)
    time.sleep(0.3)
    proc.send_signal(signum)
    out = proc.communicate(timeout=60)[0].decode(errors="replace")
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out[-3000:]
    assert "Traceback" not in out.split("KeyboardInterrupt")[0], out[-3000:]

    folders = sorted(runs.iterdir())
    names = sorted(json.loads((f / "run_manifest.json").read_text())["plan"]["name"] for f in folders)
    assert names == ["quick", "slow"]  # "never" was not started
    for folder in folders:
        verification = verify_run(folder)
        assert verification.ok, (folder.name, verification.problems)
        assert not (folder / ".reserve").exists()
        videos = [e for e in json.loads((folder / "evidence_manifest.json").read_text())["files"] if e["kind"] == "video"]
        assert len(videos) == (1 if video and "-quick-" in folder.name else 0), folder.name
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert events[-1]["event_type"] == "run_finished" and events[-1]["metadata"]["status"] == "interrupted"
    assert json.loads((trace.parent / "run_manifest.json").read_text())["status"] == "interrupted"
