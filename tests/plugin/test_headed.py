"""``--cometlocal-headed`` where no display can show the browser: one line, never Playwright's launch log.

Issue 35 (2.8): on a Linux machine without DISPLAY or WAYLAND_DISPLAY the
session used to end with a 40-line traceback per item. Now it stops before
collecting, with one usage line; and with a display set that Chromium cannot
open, each item ends in one line. Every inner session has a hard timeout.
"""

from __future__ import annotations

import sys

import pytest

from tests.support import DEFAULTS, write

PLAN = "name: one\nbase_url: http://127.0.0.1:9\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /}}
"""
HINT = "a headed Chromium needs a display"

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="only Linux needs DISPLAY")


@linux_only
def test_headed_without_a_display_is_one_usage_line(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    write(pytester, "one.actions.yaml", PLAN)
    result = pytester.runpytest_subprocess("--cometlocal-headed", timeout=120)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1, errors
    assert errors[0].startswith("ERROR: cometlocal: --cometlocal-headed: " + HINT) and "xvfb-run" in errors[0]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@linux_only
@pytest.mark.browser
def test_headed_with_a_display_chromium_cannot_open_is_one_line_per_item(pytester: pytest.Pytester,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPLAY", ":7359")  # no X server answers there
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    write(pytester, "one.actions.yaml", PLAN)
    write(pytester, "two.actions.yaml", PLAN.replace("name: one", "name: two"))
    result = pytester.runpytest_subprocess("--cometlocal-headed", "-rE", timeout=180)
    result.assert_outcomes(errors=2)
    output = result.stdout.str() + result.stderr.str()
    assert output.count(f"{HINT}: set DISPLAY") >= 2 and "(Chromium found no display: :7359)" in output
    assert "Traceback" not in output and "Call log" not in output and "XServer" not in output
