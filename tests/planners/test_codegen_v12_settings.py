"""``cometlocal import`` of the v1.2 browser settings and clock (no browser): ``new_context``'s keywords and
``**playwright.devices[...]`` are the plan's ``browser:`` keys, ``page.clock.install(time=...)`` its ``clock.at``
(only a plain time with its UTC offset), ``page.clock.run_for(ms)`` an ``advance_clock`` step.

Every plan here comes out of the command, so it also passed the plan validator."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_cometlocal.cli import main
from tests.planners.test_codegen_import import GOTO, imported

AT = "2026-03-01T09:00:00+01:00"


def with_context(tmp_path: Path, context: str, body: str, *args: str) -> tuple[int, dict | None]:
    """A recording whose context is ``context`` (codegen's ``browser.new_context()`` line replaced)."""
    code, plan = imported(tmp_path, body)  # writes rec.py; rewrite its context line and import again
    script = tmp_path / "rec.py"
    script.write_text(script.read_text().replace("context = browser.new_context()", f"context = {context}"))
    out = tmp_path / "out2.actions.yaml"
    code = main(["import", str(script), "-o", str(out), *args])
    return code, (yaml.safe_load(out.read_text()) if out.exists() else None)


def test_new_context_settings_and_a_device_are_the_plans_browser_keys(tmp_path):
    context = ('browser.new_context(**playwright.devices["Pixel 7"], locale="de-DE", timezone_id="Europe/Madrid", '
               'color_scheme="dark", permissions=["geolocation"], geolocation={"latitude": 40.4, "longitude": -3.7}, '
               'offline=False)')
    code, plan = with_context(tmp_path, context, GOTO)
    assert code == 0
    assert plan["browser"] == {"device": "Pixel 7", "locale": "de-DE", "timezone": "Europe/Madrid",
                               "color_scheme": "dark", "permissions": ["geolocation"],
                               "geolocation": {"latitude": 40.4, "longitude": -3.7}, "offline": False}
    assert "clock" not in plan


def test_a_viewport_maps_and_a_context_option_without_a_key_is_reported(tmp_path, capsys):
    context = 'browser.new_context(viewport={"width": 390, "height": 844}, user_agent="bot/1")'
    code, plan = with_context(tmp_path, context, GOTO)
    assert code == 1 and plan is None  # a statement left out: nothing written without --partial
    assert "new_context(user_agent=...) has no browser: key in a plan" in capsys.readouterr().err
    code, plan = with_context(tmp_path, context, GOTO, "--partial")
    assert code == 0 and plan["browser"] == {"viewport": {"width": 390, "height": 844}}


def test_a_plain_context_adds_no_browser_key(tmp_path):
    code, plan = imported(tmp_path, GOTO)
    assert code == 0 and "browser" not in plan and "clock" not in plan


@pytest.mark.parametrize("install, at", [
    (f'page.clock.install(time="{AT}")', AT),
    ('page.clock.install(time="2026-03-01T08:00:00Z")', "2026-03-01T08:00:00Z"),
    ("page.clock.install(time=datetime.datetime(2026, 3, 1, 8, 0, tzinfo=datetime.timezone.utc))",
     "2026-03-01T08:00:00+00:00"),
    ("page.clock.install(time=datetime(2026, 3, 1, 9, tzinfo=timezone(timedelta(hours=1))))", AT),
])
def test_clock_install_is_clock_at_and_run_for_an_advance_clock_step(tmp_path, install, at):
    code, plan = imported(tmp_path, f"{install}\n{GOTO}page.clock.run_for(10000)\npage.clock.run_for(\"01:30\")")
    assert code == 0
    assert plan["clock"] == {"at": at}
    assert [(s["kind"], s.get("ms")) for s in plan["steps"]] == [("navigate", None), ("advance_clock", 10000),
                                                                   ("advance_clock", 90000)]


@pytest.mark.parametrize("install, why", [
    ('page.clock.install(time="2026-03-01T09:00:00")', "has none (it would be read in the zone of the machine)"),
    ("page.clock.install(time=datetime.datetime(2026, 3, 1, 9))", "this datetime has no tzinfo"),
    ("page.clock.install(time=when)", "clock.install(time=...) maps to clock.at only from an ISO 8601 string"),
    ("page.clock.install(time=1767000000000)", "clock.install(time=...) maps to clock.at only from an ISO 8601"),
    ("page.clock.install()", "without one time does not pin the clock"),
    ('page.clock.set_fixed_time("2026-03-01T09:00:00Z")', "page.clock.set_fixed_time() has no plan equivalent"),
])
def test_a_clock_that_cannot_be_pinned_is_reported_with_its_reason(tmp_path, capsys, install, why):
    code, plan = imported(tmp_path, f"{install}\n{GOTO}", "--partial")
    err = capsys.readouterr().err
    assert code == 0 and "clock" not in plan
    assert "not imported: " in err and why in err


def test_run_for_without_an_installed_clock_is_reported_not_an_invalid_plan(tmp_path, capsys):
    code, plan = imported(tmp_path, f"{GOTO}page.clock.run_for(5000)", "--partial")
    assert code == 0 and [s["kind"] for s in plan["steps"]] == ["navigate"]
    assert "advance_clock needs the plan's clock.at (rule CLOCK)" in capsys.readouterr().err


def test_an_install_after_steps_is_noted(tmp_path, capsys):
    code, plan = imported(tmp_path, f'{GOTO}page.clock.install(time="{AT}")\npage.clock.run_for(1000)')
    assert code == 0 and plan["clock"] == {"at": AT}
    assert "came after 1 step(s); the plan's clock.at installs the clock before its first step" in \
        capsys.readouterr().err
