"""Faults while a plan runs: each gives a typed error, a trace whose every line
parses and ends with run_finished, and the next plan of the session runs normally.

The browser process killed mid-step is covered by
tests/plugin/test_browser_items.py::test_browser_killed_mid_plan_leaves_a_valid_trace_and_next_plan_runs.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from pytest_cometlocal.runs.verify import verify_run
from tests.reliability import procs
from tests.support import DEFAULTS, PORTAL_CONFTEST, Run, plan

NO_RETRY = "policy: {retry_on: []}\n"


def assert_clean_run(r: Run, code: str, step: str) -> dict:
    """Typed error at ``step``, every trace line parses, run_finished closes it, the folder verifies."""
    assert r.code == code, (r.code, r.error and r.error.message, r.error and r.error.cause)
    assert r.error.action_id == step
    lines = (r.run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["event_type"] == "run_finished" and events[-1]["metadata"]["error_code"] == code
    assert events[-2]["event_type"] == "error_raised"
    verification = verify_run(r.run_dir)
    assert verification.ok, verification.problems
    return events[-2]["error"]


def next_plan_runs(run) -> None:
    """The session's next plan, on the same browser, passes."""
    r = run(plan(name="after", steps="  - {id: open, kind: navigate, target: {type: url, url: /login},"
                 " postconditions: [{kind: title_contains, args: {text: Sign in}}]}\n"))
    assert r.error is None, r.error


def on_step_start(runs: Path, step: str, action, delay: float = 0.3, limit: float = 60) -> threading.Thread:
    """Call ``action()`` once the run under ``runs`` has started ``step``'s action."""
    needle = f'"event_type":"action_started","step_id":"{step}"'

    def watch() -> None:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            for trace in runs.glob("*/trace.jsonl"):
                if needle in trace.read_text(encoding="utf-8"):
                    time.sleep(delay)
                    action()
                    return
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


# ---------------------------------------------------------------------------
# The browser side


def test_page_crash_mid_step_is_browser_crashed(run, tmp_path):
    # Killing the renderers crashes the page; the browser process itself lives on.
    on_step_start(tmp_path / "runs", "slow", lambda: procs.kill(procs.chromium_renderers(os.getpid())))
    r = run(plan(name="crash", steps="  - {id: open, kind: navigate, target: {type: url, url: /login}}\n"
                 "  - {id: slow, kind: navigate, timeout_ms: 15000, target: {type: url, url: '/slow?ms=8000'}}\n"))
    error = assert_clean_run(r, "BROWSER_CRASHED", "slow")
    assert error["retryable"] is False and error["stage"] == "execution"
    assert error["details"]["during"] == "navigate"
    next_plan_runs(run)


# ---------------------------------------------------------------------------
# The server side


def test_server_500_is_recorded_and_fails_the_postcondition(run, fault_server):
    r = run(plan(name="five-hundred", steps=f"  - {{id: open, kind: navigate, target: {{type: url, url: '{fault_server.url}/error500'}},"
                 " postconditions: [{kind: title_contains, args: {text: Welcome}}], timeout_ms: 500}\n"))
    error = assert_clean_run(r, "POSTCONDITION_FAILED", "open")
    executed = next(e for e in r.events if e["event_type"] == "action_executed")
    assert executed["metadata"]["status"] == 500
    assert error["failed_conditions"][0]["observed"] == {"title": "Internal Server Error"}
    next_plan_runs(run)


def test_connection_reset_is_navigation_failed(run, fault_server):
    r = run(plan(name="reset", steps=f"  - {{id: open, kind: navigate, target: {{type: url, url: '{fault_server.url}/reset'}}}}\n"))
    error = assert_clean_run(r, "NAVIGATION_FAILED", "open")
    assert error["details"]["net_error"] in ("ERR_CONNECTION_RESET", "ERR_EMPTY_RESPONSE", "ERR_CONNECTION_CLOSED")
    next_plan_runs(run)


def test_hanging_server_is_navigation_timeout(run, fault_server):
    r = run(plan(name="hang", steps=f"  - {{id: open, kind: navigate, timeout_ms: 600, target: {{type: url, url: '{fault_server.url}/hang'}}}}\n",
                 extra=NO_RETRY))
    error = assert_clean_run(r, "NAVIGATION_TIMEOUT", "open")
    assert error["details"]["timeout_ms"] == 600
    next_plan_runs(run)


def test_server_hanging_after_a_click_is_navigation_timeout_not_retried(run, fault_server):
    # The default policy retries NAVIGATION_TIMEOUT; a click that was performed is not repeated.
    r = run(plan(name="hang-click", steps=f"  - {{id: open, kind: navigate, target: {{type: url, url: '{fault_server.url}/page'}}}}\n"
                 "  - {id: go, kind: click, timeout_ms: 800, target: {type: role, role: link, name: Hanging link},"
                 " postconditions: [{kind: url_matches, args: {pattern: /hang$}}]}\n"))
    error = assert_clean_run(r, "NAVIGATION_TIMEOUT", "go")
    assert error["stage"] == "execution" and error["retryable"] is False
    assert error["details"]["action_performed"] is True
    assert "retry_scheduled" not in r.types("go")
    assert fault_server.hits.count("/hang") == 1
    next_plan_runs(run)


def test_server_gone_mid_plan_is_navigation_failed(run, fault_server):
    r = run(plan(name="gone", steps=f"  - {{id: first, kind: navigate, target: {{type: url, url: '{fault_server.url}/last'}}}}\n"
                 f"  - {{id: second, kind: navigate, target: {{type: url, url: '{fault_server.url}/page'}}}}\n"))
    error = assert_clean_run(r, "NAVIGATION_FAILED", "second")
    # Refused: the listening socket is closed before the last answer is sent (reset, should a kernel
    # still hand a connection to a socket being closed).
    assert error["details"]["net_error"] in ("ERR_CONNECTION_REFUSED", "ERR_CONNECTION_RESET")
    assert [s.ok for s in r.result.steps] == [True, False]
    next_plan_runs(run)


def test_download_that_never_finishes_is_download_failed(run, fault_server):
    r = run(plan(name="stall", steps=f"  - {{id: open, kind: navigate, target: {{type: url, url: '{fault_server.url}/page'}}}}\n"
                 "  - {id: get, kind: click, timeout_ms: 1500, target: {type: role, role: link, name: Stalled download},"
                 " postconditions: [{kind: download_started}]}\n"))
    error = assert_clean_run(r, "DOWNLOAD_FAILED", "get")
    assert error["stage"] == "postcondition"
    assert error["details"]["downloads_seen"] == ["stall.bin"]
    assert "did not finish" in error["details"]["download_problem"]
    next_plan_runs(run)


# ---------------------------------------------------------------------------
# The disk side


UPLOAD = "  - {id: open, kind: navigate, target: {type: url, url: /form}}\n" \
         "  - {id: attach, kind: upload, target: {type: label, text: Attachment, exact: true}, file_ref: a.txt}\n"


def test_file_removed_between_validation_and_upload(run, tmp_path, monkeypatch):
    upload = tmp_path / "plans" / "a.txt"
    upload.parent.mkdir(parents=True, exist_ok=True)
    upload.write_text("hello")
    # Validated while the file exists; it is gone by the time the step runs.
    on_step_start(tmp_path / "runs", "open", upload.unlink, delay=0)
    r = run(plan(name="removed", steps=UPLOAD))
    error = assert_clean_run(r, "UPLOAD_FAILED", "attach")
    assert error["details"]["upload_signal"] == "inspection" and error["details"]["problem"] == "file not found"
    next_plan_runs(run)


def test_file_swapped_for_a_symlink_out_of_the_root_after_validation(run, tmp_path, tmp_path_factory):
    secret = tmp_path_factory.mktemp("elsewhere") / "passwd"
    secret.write_text("root:x:0:0")
    upload = tmp_path / "plans" / "a.txt"
    upload.parent.mkdir(parents=True, exist_ok=True)
    upload.write_text("hello")

    def swap() -> None:
        upload.unlink()
        upload.symlink_to(secret)

    on_step_start(tmp_path / "runs", "open", swap, delay=0)
    r = run(plan(name="swapped", steps=UPLOAD))
    error = assert_clean_run(r, "UPLOAD_FAILED", "attach")
    assert error["details"]["problem"].startswith("file_ref escapes uploads_root")
    for path in r.run_dir.rglob("*"):
        assert not path.is_file() or b"root:x:0:0" not in path.read_bytes(), path


# ---------------------------------------------------------------------------
# The output side: a folder that cannot be written, a disk that fills up


FILLS_THE_DISK = "".join(
    f"  - {{id: look{i}, kind: assert, postconditions: [{{kind: title_contains, args: {{text: Sign}}}}]}}\n" for i in range(40))


class _BudgetedOs:
    """``os`` for trace_writer.py, with a write budget: then a short write, then ENOSPC (a disk filling up)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget

    def __getattr__(self, name: str):
        return getattr(os, name)

    def write(self, fd: int, data) -> int:
        import errno

        if self.budget <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = os.write(fd, bytes(data[: self.budget]))
        self.budget -= n
        return n


@pytest.mark.parametrize("how", ["tmpfs", "injected"])
def test_disk_full_mid_run_is_output_write_failed_with_a_valid_trace(run, tmp_path, mount_tmpfs, monkeypatch, how):
    if how == "tmpfs":
        # Room for the start of the run and its reserve, then a few steps.
        mount_tmpfs(tmp_path / "runs", size="128k")
    else:
        import pytest_cometlocal.executor.runfolder.trace_writer as trace_module
        from pytest_cometlocal.executor.runfolder.folder import RESERVE_BYTES, RunFolder

        disk = _BudgetedOs(12_000)
        monkeypatch.setattr(trace_module, "os", disk)
        release = RunFolder.release_reserve

        def release_and_free(self) -> bool:  # the reserve's bytes are free space again
            freed = release(self)
            disk.budget += RESERVE_BYTES if freed else 0
            return freed

        monkeypatch.setattr(RunFolder, "release_reserve", release_and_free)
    r = run(plan(name="fills", steps="  - {id: open, kind: navigate, target: {type: url, url: /login}}\n" + FILLS_THE_DISK))
    error = assert_clean_run(r, "OUTPUT_WRITE_FAILED", r.error.action_id)
    assert error["stage"] == "evidence" and error["retryable"] is False
    assert error["details"]["strerror"] == os.strerror(28) and error["details"]["errno"] == 28
    assert error["details"]["path"].startswith(str(r.run_dir))
    assert r.manifest["status"] == "failed" and r.manifest["error_code"] == "OUTPUT_WRITE_FAILED"
    assert not (r.run_dir / ".reserve").exists()
    assert 0 < len(r.result.steps) < 41 and not r.result.steps[-1].ok
    if how == "tmpfs":
        mount_tmpfs.unmount(tmp_path / "runs")  # room again: the next plan's folder goes to the real disk
    else:
        monkeypatch.undo()
    next_plan_runs(run)


SESSION = {
    "good.actions.yaml": "name: good\n" + DEFAULTS + "steps:\n"
                         "  - {id: open, kind: navigate, target: {type: url, url: /login}}\n",
    "bad.actions.yaml": "name: bad\n" + DEFAULTS + "steps:\n  - {id: open, kind: navigate}\n",
    "test_after.py": "def test_the_session_goes_on():\n    assert True\n",
}


def run_session(pytester: pytest.Pytester, output: Path, files: dict[str, str] = SESSION) -> pytest.RunResult:
    pytester.makeconftest(PORTAL_CONFTEST)
    for name, text in files.items():
        (pytester.path / name).write_text(text, encoding="utf-8")
    return pytester.runpytest_subprocess("-p", "no:randomly", "-rA", "--junitxml=junit.xml",
                                         f"--cometlocal-output={output}", timeout=240)


def assert_output_failures(result: pytest.RunResult, output: Path, names: list[str]) -> None:
    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, text[-3000:]
    result.assert_outcomes(passed=len(SESSION) - 2 + (2 - len(names)), failed=len(names))
    assert "Traceback" not in text and "INTERNALERROR" not in text, text[-3000:]
    for name in names:
        result.stdout.fnmatch_lines([f"*OUTPUT_WRITE_FAILED: cannot write the run folder of plan '{name}' under {output}*"])
    result.stdout.fnmatch_lines(["*cometlocal failures by error code*", f"OUTPUT_WRITE_FAILED: {len(names)} — *"])


@pytest.mark.browser  # the session's browser starts before the item finds it cannot write
@pytest.mark.usefixtures("lean_inner_runs")
@pytest.mark.parametrize("how", ["a-file-in-the-way", "read-only"])
def test_output_folder_not_writable_fails_each_item_typed_and_the_session_goes_on(pytester, mount_tmpfs, how):
    if how == "a-file-in-the-way":
        output = pytester.path / "runs"
        output.write_text("not a folder")
    else:
        output = mount_tmpfs(pytester.path / "runs", readonly=True)
    result = run_session(pytester, output)
    assert_output_failures(result, output, ["good", "bad"])
    result.stdout.fnmatch_lines(["*INVALID_ACTIONSPEC: plan 'bad' is not valid*"])  # its problems are still shown
    junit = (pytester.path / "junit.xml").read_text()
    assert junit.count('name="cometlocal.error_code" value="OUTPUT_WRITE_FAILED"') == 2


@pytest.mark.browser
@pytest.mark.usefixtures("lean_inner_runs")
def test_disk_full_under_pytest_is_a_typed_failure_with_a_verified_run(pytester, mount_tmpfs):
    output = mount_tmpfs(pytester.path / "runs", size="128k")
    files = {"fills.actions.yaml": "name: fills\n" + DEFAULTS + "steps:\n"
             "  - {id: open, kind: navigate, target: {type: url, url: /login}}\n" + FILLS_THE_DISK,
             "test_after.py": SESSION["test_after.py"]}
    result = run_session(pytester, output, files)
    text = result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1, failed=1)
    assert "Traceback" not in text and "INTERNALERROR" not in text, text[-3000:]
    result.stdout.fnmatch_lines(["OUTPUT_WRITE_FAILED at step 'look*' (assert, normal) — fills.actions.yaml:*",
                                 "*cannot write the run's artifacts: No space left on device*"])
    (run_dir,) = output.iterdir()
    verification = verify_run(run_dir)
    assert verification.ok, verification.problems
