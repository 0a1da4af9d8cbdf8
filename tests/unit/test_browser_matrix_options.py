"""(v1.4) The browser matrix without a browser: precedence, item ids, the ``browser.name`` filter, the
summary line, and the setup refusal of a Chromium-only feature on another browser (its record)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validated import ValidPlan
from pytest_cometlocal.executor.errors import Refusal
from pytest_cometlocal.executor.session import RunRecord, browser_profile, create_run_folder
from pytest_cometlocal.executor.setup_failure import BrowserFeatureRefusal, browser_feature_refusal, record_refusal
from pytest_cometlocal.plugin.browsers.matrix import (DEFAULT_MATRIX, Matrix, browser_names_of, chosen_browsers,
                                                       item_name, matrix_for, not_run_lines, raw_browser_name,
                                                       split_matrix)
from tests.support import DEFAULTS


@pytest.mark.parametrize("cli, theirs, ini, expected", [
    (["firefox"], ["webkit"], ["chromium"], ("firefox",)),  # --cometlocal-browser wins
    ([], ["webkit", "firefox"], ["chromium"], ("webkit", "firefox")),  # then pytest-playwright's --browser
    (None, None, ["chromium", "firefox"], ("chromium", "firefox")),  # then the ini key
    ([], [], [], None),  # none chosen: the suite config or the default decides
    (["firefox", "chromium", "firefox"], None, None, ("firefox", "chromium")),  # each name once, in order
    (None, "firefox", None, ("firefox",)),  # a plugin that stores one name, not a list
    (None, None, ["  ", "firefox "], ("firefox",)),  # blank ini lines are not browsers
])
def test_the_session_choice_is_the_first_layer_that_names_a_browser(cli, theirs, ini, expected) -> None:
    assert chosen_browsers(cli, theirs, ini) == expected


def test_the_suite_config_decides_only_when_the_session_chose_nothing() -> None:
    assert matrix_for(("firefox",), ("chromium", "webkit")) == Matrix(("firefox",), True)
    assert matrix_for(None, ("chromium", "firefox", "chromium")) == Matrix(("chromium", "firefox"), True)
    assert matrix_for(None, None) == Matrix(DEFAULT_MATRIX, False)
    assert matrix_for(None, ()) == Matrix(("chromium",), False)


@pytest.mark.parametrize("row, browser, explicit, expected", [
    (None, "chromium", False, "login"),
    ("r1", "chromium", False, "login[r1]"),
    (None, "chromium", True, "login[chromium]"),
    (None, "firefox", True, "login[firefox]"),
    ("r1", "firefox", True, "login[r1-firefox]"),
])
def test_ids_are_unchanged_by_default_and_name_the_browser_once_chosen(row, browser, explicit, expected) -> None:
    assert item_name("login", row, browser, explicit) == expected


def test_browser_name_filters_the_matrix_in_its_order() -> None:
    both = Matrix(("chromium", "firefox"), True)
    assert split_matrix(both, None) == (["chromium", "firefox"], [])
    assert split_matrix(both, "chromium") == (["chromium"], ["firefox"])
    assert split_matrix(both, ["firefox", "webkit"]) == (["firefox"], ["chromium"])
    assert split_matrix(Matrix(), "firefox") == ([], ["chromium"])  # pinned away from the default: no item


def test_raw_browser_name_is_the_plans_own_else_the_suites_and_malformed_is_none() -> None:
    assert raw_browser_name({"browser": {"name": "firefox"}}, {"browser": {"name": "chromium"}}) == "firefox"
    assert raw_browser_name({"browser": {"viewport": {}}}, {"browser": {"name": ["chromium", "webkit"]}}) == \
        ["chromium", "webkit"]
    assert raw_browser_name({}, None) is None
    assert raw_browser_name({"browser": {"name": "opera"}}, None) is None  # invalid: every browser, then INVALID
    assert raw_browser_name({"browser": {"name": []}}, None) is None


def test_browser_names_of_reads_each_document_and_skips_files_without_browser() -> None:
    data = b"name: a\nsteps: []\n---\nname: b\nbrowser: {name: chromium}\nsteps: []\n"
    assert browser_names_of(data, "f.actions.yaml") == {0: None, 1: "chromium"}
    assert browser_names_of(b"name: a\nsteps: []\n", "f.actions.yaml") == {}
    assert browser_names_of(b"browser: [unclosed\n", "f.actions.yaml") == {}


def test_the_summary_says_how_many_plans_each_browser_did_not_run() -> None:
    assert not_run_lines({"firefox": 3, "webkit": 1, "chromium": 0}) == [
        "3 plans not run on firefox (browser.name)", "1 plan not run on webkit (browser.name)"]
    assert not_run_lines({}) == []


A11Y = "name: audit\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: "http://127.0.0.1:9/"}}
  - id: check
    kind: navigate
    target: {type: url, url: "http://127.0.0.1:9/"}
    postconditions: [{kind: accessibility_clean}]
"""


def _valid(validate, text: str) -> ValidPlan:
    (plan,) = validate(text)
    assert isinstance(plan, ValidPlan), getattr(plan, "problems", plan)
    return plan


def test_a_chromium_only_feature_is_refused_on_firefox_only(validate) -> None:
    plan = _valid(validate, A11Y)
    assert browser_feature_refusal(plan.plan, "chromium") is None
    refusal = browser_feature_refusal(plan.plan, "firefox")
    assert isinstance(refusal, BrowserFeatureRefusal)
    assert (refusal.code, refusal.condition, refusal.where, refusal.step, refusal.step_index, refusal.kind) == \
        (ErrorCode.PRECONDITION_FAILED, "isolated_world_available", "steps[1].postconditions[0]", "check", 1,
         "navigate")
    plain = _valid(validate, A11Y.replace("    postconditions: [{kind: accessibility_clean}]\n", ""))
    assert browser_feature_refusal(plain.plan, "firefox") is None


def test_the_refusal_record_is_precondition_failed_located_with_the_browser_observed(validate, tmp_path: Path) -> None:
    plan = _valid(validate, A11Y)
    eff = effective_settings(plan)
    record = RunRecord.of_plan(eff, {"runner": "pytest", "browser": "firefox"})
    run = create_run_folder(eff, tmp_path, record)
    error = record_refusal(eff, run, browser_feature_refusal(plan.plan, "firefox"))
    assert error.error_code == ErrorCode.PRECONDITION_FAILED and error.action_id == "check"
    (failed,) = error.failed_conditions
    assert (failed.kind, failed.observed) == ("isolated_world_available", {"browser": "firefox"})
    assert error.details["where"] == "steps[1].postconditions[0]" and error.details["browser"] == "firefox"
    manifest = json.loads((run.path / "run_manifest.json").read_text())
    assert manifest["execution_profile"]["browser"] == "firefox"
    events = [json.loads(line)["event_type"] for line in (run.path / "trace.jsonl").read_text().splitlines()]
    assert events[0] == "run_started" and "error_raised" in events and events[-1] == "run_finished"


def test_a_plain_refusal_keeps_its_old_shape(validate, tmp_path: Path) -> None:
    plan = _valid(validate, A11Y)
    eff = effective_settings(plan)
    run = create_run_folder(eff, tmp_path, RunRecord.of_plan(eff, {}))
    error = record_refusal(eff, run, Refusal(ErrorCode.BROWSER_CRASHED, "browser.new_context", "gone"))
    assert error.failed_conditions == [] and error.action_id is None


def test_browser_profile_names_a_stand_in_browser_as_chromium() -> None:
    assert browser_profile(None) == {"browser": "chromium"}

    class Type:
        name = "firefox"

    class Fake:
        browser_type = Type()
        version = "153.8.0"

    assert browser_profile(Fake()) == {"browser": "firefox", "browser_version": "153.8.0"}


@pytest.mark.usefixtures("lean_inner_runs")
def test_options_ini_and_remote_firefox_reach_the_settings(pytester: pytest.Pytester,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_cometlocal.plugin.options import settings

    monkeypatch.delenv("COMETLOCAL_REMOTE_FIREFOX", raising=False)
    pytester.makeini("[pytest]\ncometlocal_browsers =\n    firefox\n    chromium\ncometlocal_firefox = /opt/ff\n")
    config = pytester.parseconfigure("-p", "no:playwright")
    assert settings(config).browsers == ("firefox", "chromium") and settings(config).firefox == "/opt/ff"
    config = pytester.parseconfigure("-p", "no:playwright", "--cometlocal-browser", "webkit",
                                     "--cometlocal-firefox", "/usr/bin/ff",
                                     "--cometlocal-connect", "ws://127.0.0.1:9/", "--cometlocal-remote-firefox", "/x/ff")
    opts = settings(config)
    assert opts.browsers == ("webkit",) and opts.firefox == "/usr/bin/ff"
    assert opts.remote is not None and opts.remote.executable_for("firefox") == "/x/ff"


@pytest.mark.usefixtures("lean_inner_runs")
def test_an_unknown_browser_in_the_ini_is_a_one_line_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ncometlocal_browsers = opera\n")
    with pytest.raises(pytest.UsageError, match="ini cometlocal_browsers: unknown browser 'opera'"):
        pytester.parseconfigure("-p", "no:playwright")


def test_run_plan_on_another_browser_gets_the_same_refusal_before_any_browser_call(validate, tmp_path: Path) -> None:
    """``guarded_context`` refuses first: the stand-in browser fails the test if anything is asked of it."""
    from pytest_cometlocal.executor.session import run_plan

    class Type:
        name = "firefox"

    class NoCalls:
        browser_type = Type()
        version = "153.8.0"

        def new_context(self, **kwargs):
            raise AssertionError("a context was asked of the browser")

    plan = _valid(validate, A11Y)
    result = run_plan(NoCalls(), plan, tmp_path / "runs", effective_settings(plan))  # type: ignore[arg-type]
    assert result.status == "failed" and result.error.error_code == ErrorCode.PRECONDITION_FAILED
    assert result.error.failed_conditions[0].kind == "isolated_world_available"
    profile = json.loads((result.run_dir / "run_manifest.json").read_text())["execution_profile"]
    assert (profile["browser"], profile["browser_version"]) == ("firefox", "153.8.0")


def test_a_touch_device_from_the_command_line_is_refused_on_firefox_only() -> None:
    from pytest_cometlocal.executor.setup_failure import device_refusal

    refusal = device_refusal("Pixel 7", "firefox")
    assert refusal is not None and (refusal.condition, refusal.where) == ("touch_emulation_available",
                                                                          "--cometlocal-device")
    assert device_refusal("Pixel 7", "chromium") is None
    assert device_refusal("Desktop Chrome", "firefox") is None  # no touch screen: nothing to refuse
    assert device_refusal(None, "firefox") is None
