"""Issue 39 (1, 2): pytest-playwright's option names and this plugin's own drive plan items, with their effect.

Two inner sessions against one page that shows what it sees (its width and whether the user agent is a
phone's) in its title: one without pytest-playwright (``--cometlocal-*``), one with it (``--video``,
``--device``, ``--screenshot``, ``--tracing``, ``--slowmo``, ``--headed`` under Xvfb). Each checks the page
saw the device, that videos are hashed evidence (none for a plan with a secret), the last screenshot,
what the failure text points at, the launch options in the run manifest, and that every run folder verifies.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.support import DEFAULTS, one_page_conftest, playwright_ffmpeg_in, write

pytestmark = pytest.mark.browser

SEEN_CONFTEST = one_page_conftest(b"""<!doctype html><meta name=viewport content="width=device-width"><title>loading</title><button data-testid=go>Go</button><input aria-label=Name>
<script>document.title = innerWidth + (/Mobile|iPhone|Android/.test(navigator.userAgent) ? " phone" : " desktop")
</script>""")

OPEN = "  - {id: open, kind: navigate, target: {type: url, url: /}, postconditions: [{kind: title_contains, args: {text: %s}}]}\n"
PLANS = (
    "name: cli device\n" + DEFAULTS + "steps:\n" + OPEN % "'412 phone'"
    + "---\nname: plan device wins\nbrowser: {device: Desktop Chrome}\n" + DEFAULTS + "steps:\n" + OPEN % "'1280 desktop'"
    + "---\nname: fails\n" + DEFAULTS + "steps:\n" + OPEN % "phone"
    + "  - {id: gone, kind: click, timeout_ms: 300, target: {type: testid, id: gone}}\n"
    + "---\nname: secret\nsecrets: {pw: {env: FLAGS_PW}}\n" + DEFAULTS + "steps:\n" + OPEN % "phone"
    + "  - {id: type, kind: fill, target: {type: label, text: Name, exact: true}, value: '${secrets.pw}'}\n"
    + "  - {id: gone, kind: click, timeout_ms: 300, target: {type: testid, id: gone}}\n"
)


@pytest.fixture
def ffmpeg_for_playwright(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Playwright's ffmpeg where the inner sessions' Playwright looks for it (tests/support.py)."""
    root = playwright_ffmpeg_in(tmp_path)
    if root is None:
        pytest.skip("imageio-ffmpeg (the test extra) is not installed")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(root))
    return root


def _runs(root: Path) -> dict[str, tuple[Path, dict, list[dict]]]:
    """plan name -> (run folder, run manifest, evidence entries)."""
    found = {}
    for run_dir in (root / "cometlocal-runs").iterdir():
        manifest = json.loads((run_dir / "run_manifest.json").read_text())
        found[manifest["plan"]["name"]] = (run_dir, manifest, json.loads((run_dir / "evidence_manifest.json").read_text())["files"])
    return found


def _kinds(entries: list[dict], kind: str) -> list[dict]:
    return [e for e in entries if e["kind"] == kind]


def _check_common(pytester: pytest.Pytester, result: pytest.RunResult, video_for_passing: bool,
                  all_plans: bool = True) -> dict:
    import hashlib

    from pytest_cometlocal.runs.verify import verify_run

    # the page saw the option's phone (and the plan's own desktop)
    result.assert_outcomes(passed=2, failed=2) if all_plans else result.assert_outcomes(passed=1, failed=1)
    runs = _runs(pytester.path)
    for run_dir, _, entries in runs.values():
        assert verify_run(run_dir).ok, run_dir
        for video in _kinds(entries, "video"):  # hashed as written, a finished WebM file
            data = (run_dir / video["uri"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == video["sha256"] and data[:4] == b"\x1a\x45\xdf\xa3"
    assert bool(_kinds(runs["cli device"][2], "video")) is video_for_passing
    assert len(_kinds(runs["fails"][2], "video")) == 1
    if all_plans:
        _, secret_manifest, secret_entries = runs["secret"]
        assert not _kinds(secret_entries, "video") and "secrets" in secret_manifest["video"]
    # The failure text points at the video and the screenshots, relative to the working folder.
    output = result.stdout.str()
    fails_dir = runs["fails"][0].relative_to(pytester.path).as_posix()
    assert f"  video:      {fails_dir}/evidence/video/page-1.webm" in output
    shots = [line for line in result.stdout.lines if line.strip().startswith("screenshots:")]
    assert shots and all(f"{fails_dir}/evidence/" in line or "secret" in line for line in shots[:1])
    assert "FLAGS-secret-value" not in output
    return runs


def test_video_without_playwrights_ffmpeg_is_one_usage_line(pytester: pytest.Pytester, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "empty"))
    write(pytester, "seen.actions.yaml", PLANS)
    result = pytester.runpytest_subprocess("--cometlocal-video", "on", timeout=120)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [f"ERROR: cometlocal: --cometlocal-video needs Playwright's ffmpeg, which is not at "
                      f"{tmp_path / 'empty'}/ffmpeg-1013/ffmpeg-linux: run `playwright install ffmpeg` "
                      "(or set PLAYWRIGHT_BROWSERS_PATH to the folder that has it)"] or \
        errors[0].startswith("ERROR: cometlocal: --cometlocal-video needs Playwright's ffmpeg"), errors


@pytest.mark.usefixtures("ffmpeg_for_playwright")
def test_own_options_without_pytest_playwright(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLAGS_PW", "FLAGS-secret-value")
    pytester.makeconftest(SEEN_CONFTEST)
    write(pytester, "seen.actions.yaml", PLANS)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--cometlocal-video", "on", "--cometlocal-device", "Pixel 7",
                                           "--cometlocal-screenshot", "only-on-failure", "--cometlocal-slowmo", "1",
                                           "--alluredir=allure-results", timeout=300)
    runs = _check_common(pytester, result, video_for_passing=True)
    profile = runs["cli device"][1]["execution_profile"]
    assert profile["device"] == "Pixel 7" and profile["video"] == "on" and profile["slow_mo"] == 1
    assert profile["headless"] is True
    # only-on-failure: the page as the failed plan left it, none for a passing plan
    assert [e["uri"] for e in _kinds(runs["fails"][2], "screenshot") if e["metadata"].get("final")] == \
        ["evidence/final/last_page.png"]
    assert not _kinds(runs["cli device"][2], "screenshot")
    # Allure attaches each video as it is in the evidence (the two passing and the failing plan's; not the secret's)
    webms = sorted(p.read_bytes() for p in (pytester.path / "allure-results").glob("*-attachment.webm"))
    kept = sorted((d / e["uri"]).read_bytes() for d, _, entries in runs.values() for e in _kinds(entries, "video"))
    assert len(kept) == 3 and webms == kept


@pytest.fixture
def xvfb_display() -> str:
    """A private X server for the headed run (Debian's xvfb); stopped after the test."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed")
    number = 90 + os.getpid() % 400
    proc = subprocess.Popen([xvfb, f":{number}", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    socket = Path(f"/tmp/.X11-unix/X{number}")
    for _ in range(200):  # until the server listens (a hang is the outer timeout's)
        if socket.exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    if proc.poll() is not None:
        pytest.skip("Xvfb did not start")
    yield f":{number}"
    proc.terminate()
    proc.wait(timeout=30)


@pytest.mark.usefixtures("ffmpeg_for_playwright")
def test_pytest_playwright_names_drive_plans(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                             xvfb_display: str) -> None:
    pytest.importorskip("pytest_playwright")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:cacheprovider")  # pytest-playwright on
    monkeypatch.setenv("DISPLAY", xvfb_display)
    monkeypatch.setenv("FLAGS_PW", "FLAGS-secret-value")
    pytester.makeconftest(SEEN_CONFTEST)
    first, _, fails = PLANS.split("---\n")[:3]
    write(pytester, "seen.actions.yaml", first + "---\n" + fails)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--video", "retain-on-failure", "--device", "Pixel 7",
                                           "--screenshot", "on", "--tracing", "retain-on-failure", "--slowmo", "1",
                                           "--headed", timeout=300)
    runs = _check_common(pytester, result, video_for_passing=False, all_plans=False)
    profile = runs["cli device"][1]["execution_profile"]
    assert profile["headless"] is False and profile["slow_mo"] == 1 and profile["device"] == "Pixel 7"
    # --screenshot on: every plan keeps the page as it left it; --tracing: the failure names its trace.zip
    assert _kinds(runs["cli device"][2], "screenshot")
    fails_dir = runs["fails"][0].relative_to(pytester.path).as_posix()
    zip_path = f"{fails_dir}/evidence/playwright/trace.zip"
    assert f"  trace:      {zip_path}   (open it: playwright show-trace {zip_path})" in result.stdout.str()
    assert not _kinds(runs["cli device"][2], "playwright_trace")


def test_browser_channel_reaches_the_launch(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-playwright's --browser-channel is the launch's channel: one not installed here is one line."""
    pytest.importorskip("pytest_playwright")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:cacheprovider")
    pytester.makeconftest(SEEN_CONFTEST)
    write(pytester, "seen.actions.yaml", PLANS.split("---\n")[0])
    result = pytester.runpytest_subprocess("--browser-channel", "msedge", "-rE", timeout=180)
    result.assert_outcomes(errors=1)
    output = result.stdout.str() + result.stderr.str()
    assert "Chromium distribution 'msedge' is not found" in output and "--browser-channel" in output
    assert "Traceback" not in output and "Call log" not in output
