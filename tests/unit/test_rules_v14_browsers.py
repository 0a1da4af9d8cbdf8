"""(v1.4) The browser choice without a browser: ``browser.name`` and the suite config's ``browsers`` (the
models, located problems), a plan's format versions, ``allowed_browsers`` / ``browsers_for`` /
``chromium_only_features`` (contract/browsers), and rule BROWSER_FEATURE located at the feature."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from pytest_cometlocal.contract.browsers import (
    BROWSER_NAMES, CHROMIUM_ONLY, ChromiumOnlyFeature, allowed_browsers, browsers_for, chromium_only_features,
    device_has_touch)
from pytest_cometlocal.contract.model.actionspec import FORMAT_VERSIONS, format_versions
from pytest_cometlocal.contract.model.plan import (
    SUITE_KEYS, SUITE_ONLY_KEYS, V14_PLAN_KEYS, V14_SUITE_KEYS, BrowserSettings, SuiteConfig, plan_format_versions)
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_text
from pytest_cometlocal.executor.browser.context_settings import context_args
from tests.support import mark_at, only, only_problems, only_valid, plan
from tests.unit.test_suite_config import check, write

OPEN = "- {id: open, kind: navigate, target: {type: url, url: /x}}\n"
AUDIT = "- {id: audit, kind: assert, postconditions: [{kind: accessibility_clean}]}\n"
HARD_RELOAD = "- {id: hard, kind: reload, bypass_cache: true}\n"
# A registry for the pure functions: one phone, one desktop (contract/devices.py reads Playwright's).
DEVICES = {"Phone": {"has_touch": True, "is_mobile": True}, "Tablet": {"has_touch": True, "is_mobile": False},
           "Desktop": {"has_touch": False, "is_mobile": False}}


def validate(text: str):
    return validate_text(text, ValidationContext(root=Path("."), env={}), "p.yaml")


def valid_plan(steps: str = OPEN, extra: str = ""):
    return only_valid(validate(plan(steps, extra=extra))).plan


# -- the model ---------------------------------------------------------------------------------------------------


def test_the_browser_names_are_the_three_playwright_has() -> None:
    assert BROWSER_NAMES == ("chromium", "firefox", "webkit")


@pytest.mark.parametrize(("written", "kept", "allowed"), [
    ("firefox", "firefox", {"firefox"}),
    ("[chromium]", ["chromium"], {"chromium"}),
    ("[chromium, firefox]", ["chromium", "firefox"], {"chromium", "firefox"}),
    ("[webkit, firefox, chromium]", ["webkit", "firefox", "chromium"], {"chromium", "firefox", "webkit"}),
])
def test_browser_name_is_one_name_or_a_list(written: str, kept, allowed: set[str]) -> None:
    p = valid_plan(extra=f"browser: {{name: {written}}}\n")
    assert p.browser.name == kept and allowed_browsers(p) == frozenset(allowed)
    # As written, in what a manifest, show and Allure say of the settings; never a context option.
    assert effective_settings(only_valid(validate(plan(OPEN, extra=f"browser: {{name: {written}}}\n")))
                              ).configuration()["effective"]["browser"] == {"name": kept}
    assert context_args(p.browser) == {}


@pytest.mark.parametrize(("written", "says"), [
    ("edge", "unknown browser 'edge'; did you mean 'chromium'?; expected one of: chromium, firefox, webkit"),
    ("Firefox", "unknown browser 'Firefox'; did you mean 'firefox'?"),
    ("firefox-esr", "did you mean 'firefox'?"),
    ("[chromium, safari]", "unknown browser 'safari'; did you mean 'webkit'?"),
    ("[]", "must not be empty: name at least one of chromium, firefox, webkit"),
    ("[firefox, chromium, firefox]", "browser 'firefox' is listed twice"),
    ("3", "must be a browser name or a list of them (chromium, firefox, webkit)"),
    ("{firefox: true}", "must be a browser name or a list of them"),
    ("[[firefox]]", "unknown browser ['firefox']"),
])
def test_a_bad_browser_name_is_one_schema_problem_at_browser_name(written: str, says: str) -> None:
    text = plan(OPEN, extra=f"browser: {{locale: de-DE, name: {written}}}\n")
    invalid = only_problems(validate(text))
    only(invalid, "SCHEMA", "browser.name", *mark_at(text, f"name: ^{written}"))
    assert says in invalid.problems[0].message, invalid.problems[0].format()


def test_browser_name_null_is_no_name() -> None:
    assert allowed_browsers(valid_plan(extra="browser: {name: null, locale: de-DE}\n")) is None
    assert allowed_browsers(valid_plan()) is None  # no browser: at all


def test_the_suite_config_model_takes_a_list_of_browsers() -> None:
    assert SuiteConfig(browsers=["chromium", "firefox"]).browsers == ["chromium", "firefox"]
    assert "browsers" in SUITE_KEYS and "browsers" in SUITE_ONLY_KEYS  # a setting of the runs, never merged
    for bad, says in [("firefox", "must be a list of browser names"), ([], "must not be empty"),
                      (["firefox", "firefox"], "listed twice"), (["opera"], "unknown browser 'opera'")]:
        with pytest.raises(ValueError, match=says):
            SuiteConfig(browsers=bad)
    with pytest.raises(ValueError, match="listed twice"):
        BrowserSettings(name=["webkit", "webkit"])


# -- format versions -----------------------------------------------------------------------------------------------


def test_browser_name_makes_a_plan_v14_and_no_step_is() -> None:
    assert FORMAT_VERSIONS[-1] == "v1.4" and V14_PLAN_KEYS == {"browser.name"} and V14_SUITE_KEYS == {"browsers"}
    pinned = valid_plan(extra="browser: {name: chromium}\n")
    assert format_versions(pinned.all_steps()) == ["v1"]  # the steps' own formats, as the trace records them
    assert plan_format_versions(pinned) == ["v1", "v1.4"]
    # v1.2's plan keys never counted (runs recorded since say what they said); browser.name does.
    assert plan_format_versions(valid_plan(extra="browser: {locale: de-DE}\n")) == ["v1"]
    with_v13 = valid_plan(OPEN + HARD_RELOAD, extra="browser: {name: [chromium, firefox]}\n")
    assert plan_format_versions(with_v13) == ["v1", "v1.3", "v1.4"]


def test_a_suite_config_browser_name_is_merged_into_the_plan_as_its_other_browser_keys(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", "browser: {name: chromium, locale: de-DE}\n")
    bare = write(tmp_path / "a.actions.yaml", plan(OPEN))
    own = write(tmp_path / "b.actions.yaml", plan(OPEN, extra="browser: {name: [chromium, firefox]}\n"))
    assert allowed_browsers(only_valid(check(tmp_path, bare)).plan) == {"chromium"}
    assert plan_format_versions(only_valid(check(tmp_path, bare)).plan) == ["v1", "v1.4"]
    assert allowed_browsers(only_valid(check(tmp_path, own)).plan) == {"chromium", "firefox"}  # the plan's wins


# -- the suite config's browsers ------------------------------------------------------------------------------------


def test_the_suite_configs_browsers_travel_with_the_plan_unmerged(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", "browsers: [firefox, chromium]\n")
    valid = only_valid(check(tmp_path, write(tmp_path / "a.actions.yaml", plan(OPEN))))
    assert valid.suite_browsers == ("firefox", "chromium")
    assert valid.plan.browser is None  # not a plan key
    assert "browsers" not in effective_settings(valid).configuration()["sources"]
    write(tmp_path / "cometlocal.yaml", "base_url: http://127.0.0.1:9/\n")
    assert only_valid(check(tmp_path, tmp_path / "a.actions.yaml")).suite_browsers is None


@pytest.mark.parametrize(("written", "says"), [
    ("firefox", "browsers must be a list of browser names (chromium, firefox, webkit)"),
    ("[]", "browsers must not be empty: name at least one of chromium, firefox, webkit"),
    ("[chromium, chrome]", "unknown browser 'chrome'; did you mean 'chromium'?; expected one of: chromium, firefox, webkit"),
    ("[webkit, webkit]", "browser 'webkit' is listed twice"),
])
def test_bad_suite_browsers_are_located_in_the_config_file(tmp_path: Path, written: str, says: str) -> None:
    config = f"base_url: http://127.0.0.1:9/\nbrowsers: {written}\n"
    write(tmp_path / "cometlocal.yaml", config)
    [problem] = only_problems(check(tmp_path, write(tmp_path / "a.actions.yaml", plan(OPEN)))).problems
    assert (problem.file, problem.key_path, problem.rule) == ("cometlocal.yaml", "browsers", "SUITE_CONFIG")
    assert (problem.mark.line, problem.mark.col) == mark_at(config, f"browsers: ^{written}")
    assert problem.message == says


# -- browsers_for ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "matrix", "run", "skipped"), [
    (None, ["chromium"], ["chromium"], []),
    (None, ["firefox", "chromium"], ["firefox", "chromium"], []),
    ("chromium", ["chromium", "firefox"], ["chromium"], ["firefox"]),
    ("[firefox, webkit]", ["chromium", "firefox", "webkit"], ["firefox", "webkit"], ["chromium"]),
    ("firefox", ["chromium"], [], ["chromium"]),
    ("firefox", [], [], []),
    (None, ["firefox", "chromium", "firefox"], ["firefox", "chromium"], []),  # each name once, matrix order
])
def test_browsers_for_filters_the_matrix_by_browser_name(name, matrix, run, skipped) -> None:
    extra = f"browser: {{name: {name}}}\n" if name else ""
    assert browsers_for(valid_plan(extra=extra), matrix) == (run, skipped)
    assert browsers_for(valid_plan(extra=extra), tuple(matrix)) == (run, skipped)


# -- chromium_only_features ----------------------------------------------------------------------------------------


def test_a_plan_without_chromium_only_features_has_none() -> None:
    p = valid_plan(OPEN + "- {id: soft, kind: reload, bypass_cache: false}\n",
                   extra="browser: {device: Desktop, locale: de-DE}\n".replace("Desktop", "Desktop Chrome"))
    assert chromium_only_features(p, devices={"Desktop Chrome": {"has_touch": False, "is_mobile": False}}) == []


def test_each_chromium_only_feature_is_found_and_located() -> None:
    steps = OPEN + AUDIT + HARD_RELOAD + ("- {id: check, kind: click, target: {type: testid, id: go}, "
                                          "preconditions: [{kind: accessibility_clean}], "
                                          "postconditions: [{kind: host_in_allowlist}, {kind: accessibility_clean}]}\n")
    p = valid_plan(steps, extra="browser: {device: Pixel 7, color_scheme: dark}\n"
                   "recovery: {on_error: [NAVIGATION_TIMEOUT], steps: [{id: again, kind: reload, bypass_cache: true}]}\n")
    found = chromium_only_features(p, devices={"Pixel 7": {"has_touch": True, "is_mobile": True}})
    assert [(f, f.where, f.step) for f in found] == [
        ("touch", "browser.device", None),
        ("color_scheme", "browser.color_scheme", None),
        ("accessibility_clean", "steps[1].postconditions[0]", "audit"),
        ("reload_bypass_cache", "steps[2].bypass_cache", "hard"),
        ("accessibility_clean", "steps[3].preconditions[0]", "check"),
        ("accessibility_clean", "steps[3].postconditions[1]", "check"),
        ("reload_bypass_cache", "recovery.steps[0].bypass_cache", "again"),
    ]
    # Strings: what the plugin compares; each says the condition a run on another browser fails.
    assert "accessibility_clean" in found and all(isinstance(f, str) for f in found)
    assert [f.condition for f in found[:4]] == ["touch_emulation_available", "color_scheme_emulation_available",
                                                "isolated_world_available", "cache_bypass_available"]
    assert set(CHROMIUM_ONLY) == {"accessibility_clean", "reload_bypass_cache", "touch", "color_scheme"}
    assert found[2].loc == ("steps", 1, "postconditions", 0) and found[0].loc == ("browser", "device")
    assert found[2].describe() == "accessibility_clean (step 'audit', steps[1].postconditions[0])"
    assert found[0].describe() == "touch (browser.device)"
    assert "Chromium's isolated world" in found[2].why
    # Kept through pickling (an xdist worker, a cached collection) and its repr names the place.
    again = pickle.loads(pickle.dumps(found[2]))
    assert (again, again.where, again.step, type(again)) == ("accessibility_clean", found[2].where, "audit",
                                                              ChromiumOnlyFeature)
    assert repr(found[0]) == "ChromiumOnlyFeature('touch', 'browser.device')"
    with pytest.raises(ValueError, match="not a Chromium-only feature"):
        ChromiumOnlyFeature("drag", ("steps", 0))


def test_conditions_from_defaults_count_on_every_step_that_gets_them() -> None:
    text = plan(OPEN + "- {id: two, kind: navigate, target: {type: url, url: /y}}\n", extra="browser: {name: firefox}\n",
                postconditions="[{kind: accessibility_clean}]")
    invalid = only_problems(validate(text))
    assert [(p.rule, p.key_path) for p in invalid.problems] == [
        ("BROWSER_FEATURE", "steps[0].postconditions[0]"), ("BROWSER_FEATURE", "steps[1].postconditions[0]")]
    # Located at the defaults block, where the condition is written.
    assert {p.mark.line for p in invalid.problems} == {mark_at(text, "accessibility_clean")[0]}


@pytest.mark.parametrize(("device", "touch"), [("Phone", True), ("Tablet", True), ("Desktop", False),
                                               ("Unknown", False)])
def test_a_device_has_touch_when_its_descriptor_says_so(device: str, touch: bool) -> None:
    assert device_has_touch(device, DEVICES) is touch


def test_the_real_registry_tells_a_phone_from_a_desktop() -> None:
    """Playwright's own registry (read offline, as rule DEVICE reads it)."""
    assert device_has_touch("Pixel 7") is True and device_has_touch("Desktop Chrome") is False


def test_an_unreadable_registry_counts_as_no_touch(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_cometlocal.contract import devices

    def broken():
        raise devices.DeviceRegistryUnavailable("Playwright's device registry could not be read: boom")

    monkeypatch.setattr(devices, "device_registry", broken)
    assert device_has_touch("Pixel 7") is False


# -- rule BROWSER_FEATURE ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("steps", "extra", "at", "key_path", "says"), [
    (OPEN + AUDIT, "browser: {name: firefox}\n", "postconditions: [^{kind: accessibility_clean", "steps[1].postconditions[0]",
     "accessibility_clean needs Chromium (the accessibility audit runs axe in Chromium's isolated world (DevTools "
     "protocol), out of the page's reach), and browser.name allows only firefox: add chromium to browser.name, or "
     "remove the accessibility_clean check"),
    (OPEN + HARD_RELOAD, "browser: {name: [webkit, firefox]}\n", "bypass_cache: ^true", "steps[1].bypass_cache",
     "reload_bypass_cache needs Chromium (a reload that bypasses the cache needs Chromium's DevTools protocol), "
     "and browser.name allows only firefox and webkit: add chromium to browser.name, or remove bypass_cache"),
    (OPEN, "browser: {name: firefox, color_scheme: dark}\n", "color_scheme: ^dark", "browser.color_scheme",
     "color_scheme needs Chromium (only Chromium emulates a color scheme), and browser.name allows only firefox: "
     "add chromium to browser.name, or remove browser.color_scheme"),
    (OPEN, "browser: {name: webkit, device: Pixel 7}\n", "device: ^Pixel 7", "browser.device",
     "touch needs Chromium (only Chromium emulates a device's touch screen), and browser.name allows only webkit: "
     "add chromium to browser.name, or remove the touch device (browser.device)"),
])
def test_a_chromium_only_feature_without_chromium_is_refused_at_the_feature(steps, extra, at, key_path, says) -> None:
    text = plan(steps, extra=extra)
    only(only_problems(validate(text)), "BROWSER_FEATURE", key_path, *mark_at(text, at), message=says)


@pytest.mark.parametrize("name", ["chromium", "[chromium, firefox]", "[firefox, chromium]", "null"])
def test_a_plan_that_allows_chromium_may_use_its_features(name: str) -> None:
    """Its items on another browser are refused at setup (the plugin), never at load."""
    extra = f"browser: {{name: {name}, color_scheme: dark, device: Pixel 7}}\n"
    p = valid_plan(OPEN + AUDIT + HARD_RELOAD, extra=extra)
    assert [str(f) for f in chromium_only_features(p)] == [
        "touch", "color_scheme", "accessibility_clean", "reload_bypass_cache"]


def test_a_desktop_device_without_chromium_is_valid() -> None:
    assert valid_plan(extra="browser: {name: firefox, device: Desktop Firefox}\n").browser.device == "Desktop Firefox"


def test_a_suite_pin_without_chromium_refuses_the_plans_feature_at_the_plan(tmp_path: Path) -> None:
    """The pin came from cometlocal.yaml; the feature is the plan's: the problem is located in the plan file."""
    write(tmp_path / "cometlocal.yaml", "browser: {name: firefox}\n")
    text = plan(OPEN + AUDIT)
    [problem] = only_problems(check(tmp_path, write(tmp_path / "a.actions.yaml", text))).problems
    assert (problem.file, problem.key_path, problem.rule) == ("a.actions.yaml", "steps[1].postconditions[0]",
                                                              "BROWSER_FEATURE")
    assert problem.mark.line == mark_at(text, "accessibility_clean")[0]


def test_a_group_steps_feature_is_located_in_the_group_file(tmp_path: Path) -> None:
    write(tmp_path / "groups" / "audit.steps.yaml", "steps:\n" + "  " + AUDIT.replace(
        "kind: assert,", "kind: assert, criticality: normal, timeout_ms: 1000, preconditions: [{kind: host_in_allowlist}],"))
    text = plan(OPEN + "- {use: groups/audit.steps.yaml}\n", extra="browser: {name: firefox}\n")
    [problem] = only_problems(check(tmp_path, write(tmp_path / "a.actions.yaml", text))).problems
    assert (problem.file, problem.key_path, problem.rule) == ("groups/audit.steps.yaml", "steps[0].postconditions[0]",
                                                              "BROWSER_FEATURE")
    assert problem.via == ("a.actions.yaml:" + str(mark_at(text, "- {use")[0]),)
