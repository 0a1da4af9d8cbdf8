"""Issue 39: which of pytest-playwright's options and this plugin's own drives a plan item (no browser)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_cometlocal.plugin.options import XDIST_HINT
from pytest_cometlocal.plugin.pwflags import Flags, read_flags

ROOT = Path(__file__).resolve().parents[2]


class FakeConfig:
    """getoption() and option as pytest's Config has them; pytest-playwright's dests only when ``theirs``."""

    def __init__(self, ours: dict[str, Any], theirs: dict[str, Any] | None = None):
        self.ours = ours
        self.option = SimpleNamespace(**(theirs or {}))

    def getoption(self, name: str, default: Any = None) -> Any:
        return self.ours.get(name, default)


def test_without_pytest_playwright_ours_alone() -> None:
    flags = read_flags(FakeConfig({"cometlocal_slowmo": 5, "cometlocal_tracing": "on"}))  # type: ignore[arg-type]
    assert flags == Flags(slowmo=5, tracing="on")


def test_pytest_playwright_names_drive_plans_when_ours_are_not_given() -> None:
    theirs = {"headed": True, "slowmo": 40, "browser_channel": "chrome", "tracing": "retain-on-failure",
              "video": "off", "screenshot": "only-on-failure", "device": None}
    flags = read_flags(FakeConfig({}, theirs))  # type: ignore[arg-type]
    assert (flags.headed, flags.headed_by, flags.slowmo, flags.channel) == (True, "--headed", 40, "chrome")
    assert (flags.tracing, flags.video, flags.screenshot, flags.device) == ("retain-on-failure", "off", "only-on-failure", None)
    assert flags.launch_record() == {"slow_mo": 40, "channel": "chrome", "screenshot": "only-on-failure"}


def test_ours_win_when_both_are_given() -> None:
    ours = {"cometlocal_headed": True, "cometlocal_slowmo": 7, "cometlocal_tracing": "on",
            "cometlocal_screenshot": "off", "cometlocal_video": None}
    theirs = {"headed": True, "slowmo": 40, "tracing": "retain-on-failure", "screenshot": "on"}
    flags = read_flags(FakeConfig(ours, theirs))  # type: ignore[arg-type]
    assert (flags.headed_by, flags.slowmo, flags.tracing) == ("--cometlocal-headed", 7, "on")
    assert flags.screenshot == "off"  # given as off: ours still wins over their "on"


@pytest.mark.parametrize("name", ["Nokia 3310", "pixel 7"])
def test_unknown_device_is_a_usage_error(name: str) -> None:
    with pytest.raises(pytest.UsageError, match=f"--cometlocal-device {name!r} is not one of Playwright's devices"):
        read_flags(FakeConfig({"cometlocal_device": name}))  # type: ignore[arg-type]


def test_the_xdist_extra_the_readme_names_exists() -> None:
    """Item 7: pytest-xdist comes with the extra the README's install command and the -n hint name."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(req.startswith("pytest-xdist") for req in extras["xdist"])
    assert "pip install 'pytest-cometlocal[xdist]'" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pytest-cometlocal[xdist]" in XDIST_HINT


def test_a_channel_not_installed_is_one_line() -> None:
    from pytest_cometlocal.executor.browser.chromium import launch_problem

    message = ("BrowserType.launch: Chromium distribution 'msedge' is not found at /opt/microsoft/msedge/msedge\n"
               'Run "playwright install msedge"')
    assert launch_problem(True, message) == ("Chromium distribution 'msedge' is not found at /opt/microsoft/msedge/msedge "
                                             '(the launch\'s channel, from --browser-channel); Run "playwright install msedge"')
    assert launch_problem(True, "BrowserType.launch: something else") is None
    missing = ("BrowserType.launch: Executable doesn't exist at /root/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome\n"
               "╔═══╗\n║ Looks like Playwright was just installed or updated. ║")
    assert launch_problem(True, missing) == (
        "Playwright's own browser build is not installed (/root/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome): "
        "run `playwright install chromium`, or leave out --browser-channel so the plugin uses the Chromium it finds")
