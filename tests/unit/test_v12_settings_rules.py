"""(v1.2) browser: and clock: without a browser: each bad key is INVALID_ACTIONSPEC located at it,
the suite config's keys are merged key by key, the manifest records them, the context gets them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cometlocal.contract.model.actionspec import format_version
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_text
from pytest_cometlocal.executor.browser.context_settings import context_args
from pytest_cometlocal.executor.browser.storage_states import StorageStates, state_key
from tests.support import mark_at, only, only_problems, only_valid, plan
from tests.unit.test_suite_config import check, write

OPEN = "- {id: open, kind: navigate, target: {type: url, url: /x}}\n"


def validate(text: str):
    return validate_text(text, ValidationContext(root=Path("."), env={}), "p.yaml")


@pytest.mark.parametrize(("extra", "rule", "key_path", "at", "says"), [
    ("browser: {device: Pixle 7}\n", "DEVICE", "browser.device", "^Pixle 7", "did you mean 'Pixel 7'"),
    ("browser: {device: pixel 7}\n", "DEVICE", "browser.device", "^pixel 7", "did you mean 'Pixel 7'"),
    ("browser: {timezone: Europe/Madird}\n", "TIMEZONE", "browser.timezone", "^Europe/Madird", "'Europe/Madrid'"),
    ("browser: {timezone: CET+1}\n", "TIMEZONE", "browser.timezone", "^CET+1", "unknown time zone"),
    # A file of the system's zoneinfo folder Python lists, which is no zone: Chromium refuses it.
    ("browser: {timezone: localtime}\n", "TIMEZONE", "browser.timezone", "^localtime", "unknown time zone"),
    # Locales the plan's pattern lets through and Chromium refuses (Invalid locale name), seen in Chromium 156.
    ("browser: {locale: en-12}\n", "LOCALE", "browser.locale", "^en-12", "region (2 letters or 3 digits)"),
    ("browser: {locale: zh-yue}\n", "LOCALE", "browser.locale", "^zh-yue", "not a locale Chromium takes"),
    ("browser: {locale: en-GB-oed}\n", "LOCALE", "browser.locale", "^en-GB-oed", "variants (5-8"),
    ("browser: {locale: de-DE-1901-1901}\n", "LOCALE", "browser.locale", "^de-DE", "a variant is repeated"),
    ("browser: {geolocation: {latitude: 1, longitude: 2}}\n", "PERMISSION", "browser.geolocation",
     "^{latitude", "needs the `geolocation` permission"),
    ("browser: {permissions: [camera, camera]}\n", "PERMISSION", "browser.permissions", "^[camera", "twice"),
    ("clock: {at: '2024-03-01T09:30:00'}\n", "CLOCK", "clock.at", "^'2024", "needs its UTC offset"),
    ("clock: {at: yesterday}\n", "CLOCK", "clock.at", "^yesterday", "ISO 8601"),
])
def test_each_bad_setting_is_located_at_its_key(extra: str, rule: str, key_path: str, at: str, says: str) -> None:
    text = plan(OPEN, extra=extra)
    invalid = only_problems(validate(text))
    line, col = mark_at(text, at)
    only(invalid, rule, key_path, line, col)
    assert says in invalid.problems[0].message


@pytest.mark.parametrize(("extra", "key_path", "says"), [
    ("browser: {permissions: [clipboard-reed]}\n", "browser.permissions[0]", "clipboard-read"),
    ("browser: {color_scheme: black}\n", "browser.color_scheme", "dark"),
    ("browser: {locale: 'de DE'}\n", "browser.locale", "pattern"),
    ("browser: {viewport: {width: 0, height: 700}}\n", "browser.viewport.width", "greater than or equal to 1"),
    ("browser: {geolocation: {latitude: 91, longitude: 0}, permissions: [geolocation]}\n",
     "browser.geolocation.latitude", "90"),
    ("browser: {offline: 'yes'}\n", "browser.offline", "bool"),
    # YAML's .inf passes ge=0, and Playwright cannot send it to the browser (not JSON).
    ("browser: {geolocation: {latitude: 1, longitude: 2, accuracy: .inf}, permissions: [geolocation]}\n",
     "browser.geolocation.accuracy", "finite"),
    ("browser: {size: 3}\n", "browser.size", "unknown key"),
])
def test_the_closed_sets_are_the_models(extra: str, key_path: str, says: str) -> None:
    invalid = only_problems(validate(plan(OPEN, extra=extra)))
    [problem] = invalid.problems
    assert (problem.rule, problem.key_path) == ("SCHEMA", key_path) and says in problem.message, problem.format()


def test_advance_clock_needs_clock_at_ms_and_no_target() -> None:
    step = "- {id: later, kind: advance_clock, ms: 5000}\n"
    text = plan(OPEN + step)
    only(only_problems(validate(text)), "CLOCK", "steps[1].kind", *mark_at(text, "kind: ^advance_clock"))
    clocked = "clock: {at: '2024-03-01T09:30:00Z'}\n"
    valid = only_valid(validate(plan(OPEN + step, extra=clocked)))
    assert valid.plan.steps[1].ms == 5000 and format_version(valid.plan.steps[1]) == "v1.2"
    assert format_version(valid.plan.steps[0]) == "v1"
    missing = plan(OPEN + "- {id: later, kind: advance_clock}\n", extra=clocked)
    only(only_problems(validate(missing)), "INPUTS", "steps[1].ms", *mark_at(missing, "- ^{id: later"))
    targeted = plan(OPEN + "- {id: later, kind: advance_clock, ms: 1, target: {type: testid, id: x}}\n", extra=clocked)
    assert [p.key_path for p in only_problems(validate(targeted)).problems] == ["steps[1].target"]
    other = plan(OPEN.replace("}\n", ", ms: 3}\n"), extra=clocked)
    assert [(p.rule, p.key_path) for p in only_problems(validate(other)).problems] == [("INPUTS", "steps[0].ms")]


def test_suite_settings_merge_key_by_key_and_the_manifest_records_them(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", """\
        browser: {locale: en-GB, timezone: Europe/London, color_scheme: dark}
        clock: {at: "2024-01-01T00:00:00Z"}
        """)
    own = write(tmp_path / "a.actions.yaml", plan(OPEN, extra="browser: {locale: de-DE}\n"))
    bare = write(tmp_path / "b.actions.yaml", plan(OPEN))
    conf = effective_settings(only_valid(check(tmp_path, own))).configuration()
    assert conf["effective"]["browser"] == {"locale": "de-DE", "timezone": "Europe/London", "color_scheme": "dark"}
    assert conf["effective"]["clock"] == {"at": "2024-01-01T00:00:00Z"}
    assert conf["sources"]["browser"] == "plan+suite" and conf["sources"]["clock"] == "suite"
    assert effective_settings(only_valid(check(tmp_path, bare))).configuration()["sources"]["browser"] == "suite"
    # A suite config's bad key is located in the config file.
    write(tmp_path / "cometlocal.yaml", "browser: {timezone: Mars/Olympus}\n")
    [problem] = only_problems(check(tmp_path, bare)).problems
    assert (problem.file, problem.key_path, problem.rule) == ("cometlocal.yaml", "browser.timezone", "TIMEZONE")


def test_a_v1_plan_records_no_settings_and_gets_no_context_args() -> None:
    valid = only_valid(validate(plan(OPEN)))
    conf = effective_settings(valid).configuration()
    assert "browser" not in conf["effective"] and "browser" not in conf["sources"] and "clock" not in conf["sources"]
    assert context_args(valid.plan.browser) == {}


def test_context_args_take_the_device_then_each_key() -> None:
    text = plan(OPEN, extra=("browser: {device: Pixel 7, viewport: {width: 400, height: 800}, locale: de-DE, "
                             "timezone: Europe/Berlin, geolocation: {latitude: 52.5, longitude: 13.4}, "
                             "permissions: [geolocation], color_scheme: dark, offline: false}\n"))
    args = context_args(only_valid(validate(text)).plan.browser)
    assert "Pixel 7" in args["user_agent"] and args["is_mobile"] is True and args["has_touch"] is True
    assert args["viewport"] == {"width": 400, "height": 800}  # the plan's own viewport resizes the phone
    assert (args["locale"], args["timezone_id"], args["color_scheme"], args["offline"]) == (
        "de-DE", "Europe/Berlin", "dark", False)
    assert args["geolocation"] == {"latitude": 52.5, "longitude": 13.4} and args["permissions"] == ["geolocation"]
    assert "default_browser_type" not in args


def test_a_state_made_under_settings_is_another_file(tmp_path: Path) -> None:
    files = StorageStates(tmp_path)
    plain = files.save("login", {"cookies": []})
    german = files.save("login", {"cookies": [{"name": "s", "value": "x" * 9}]}, {"locale": "de-DE"})
    assert state_key("login") == "login" and state_key("login", {"locale": "de-DE"}).startswith("login@")
    assert files.exists("login") and files.exists(state_key("login", {"locale": "de-DE"}))
    assert "made_under" not in plain and german["made_under"] == {"locale": "de-DE"}
    assert files.in_use("login", {"locale": "de-DE"}).info["cookies"] == 1
    assert files.in_use("login").info["cookies"] == 0


@pytest.mark.parametrize("locale", ["de", "de-DE", "zh-Hant-TW", "sr-Latn-RS", "de-CH-1901", "sl-rozaj", "en-419",
                                    "ca-valencia", "ja-Jpan-JP-hepburn-heploc", "en-US-posix"])
def test_locales_chromium_takes_pass(locale: str) -> None:
    only_valid(validate(plan(OPEN, extra=f"browser: {{locale: {locale}}}\n")))
