"""Retries made visible: how many attempts a plan took, and which plans passed only after one.

A plan whose step failed, was retried (``policy.retry_on``) or recovered
(``recovery``) and then passed is green, yet it says something about the
application or the suite that a plain pass hides: it is *flaky*. So after each
plan item runs, its trace is read (the run's own record, whoever ran it) by
runs/reader.py, and:

- every item gets the JUnit properties ``cometlocal.attempts`` (attempts over
  the plan's steps, recovery steps not counted), ``cometlocal.retries`` and
  ``cometlocal.recoveries``;
- an item that passed with a step that needed more than one attempt also gets
  ``cometlocal.flaky_steps`` (``open (2 attempts)``), which the terminal
  summary counts, and, with ``--alluredir``, the label ``flaky_steps``, from
  which ``FlakyResults`` sets Allure's ``statusDetails.flaky``.

allure-pytest has no public setter for ``flaky``: the route is allure-commons'
``report_result`` hook (the one ``allure_report.UncodedMessages`` uses),
where the result's ``statusDetails`` is set before the file is written;
tests/plugin/test_retries_visible.py pins it through the result JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import allure_commons
import pytest

from pytest_cometlocal.contract.run_folder import TRACE
from pytest_cometlocal.runs.reader import read_attempts
from pytest_cometlocal.runs.steps import Attempts

FLAKY_LABEL = "flaky_steps"
FLAKY_PROPERTY = "cometlocal.flaky_steps"


def record_attempts(item: pytest.Item, passed: bool, allure_on: bool) -> Attempts | None:
    """JUnit properties (and the Allure label of a flaky pass) of a plan item that ran."""
    run_dir = getattr(item, "cometlocal_run_dir", None)
    if run_dir is None:
        return None
    counted = read_attempts(Path(run_dir) / TRACE)
    if counted is None:
        return None
    item.user_properties.append(("cometlocal.attempts", counted.attempts))
    item.user_properties.append(("cometlocal.retries", counted.retries))
    item.user_properties.append(("cometlocal.recoveries", counted.recoveries))
    if passed and counted.recovered:
        item.user_properties.append((FLAKY_PROPERTY, counted.flaky_text()))
        if allure_on:
            import allure

            allure.dynamic.label(FLAKY_LABEL, counted.flaky_text())
    return counted


def flaky_summary(reports: list[Any]) -> list[str]:
    """``a.actions.yaml::x — open (2 attempts); 1 retry, 0 recoveries`` per plan that passed after retries."""
    lines = []
    for report in reports:
        if getattr(report, "when", "call") != "call":
            continue
        props = dict(getattr(report, "user_properties", []) or [])
        steps = props.get(FLAKY_PROPERTY)
        if steps:
            retries, recoveries = props.get("cometlocal.retries", 0), props.get("cometlocal.recoveries", 0)
            lines.append(f"{report.nodeid} — {steps}; {retries} retr{'y' if retries == 1 else 'ies'}, "
                         f"{recoveries} recover{'y' if recoveries == 1 else 'ies'}")
    return lines


class FlakyResults:
    """An allure-commons plugin: a passed result with the ``flaky_steps`` label is flaky."""

    @allure_commons.hookimpl(tryfirst=True)  # before allure's file logger writes the result
    def report_result(self, result: Any) -> None:
        if getattr(result, "status", None) != "passed":
            return
        steps = next((label.value for label in getattr(result, "labels", None) or () if label.name == FLAKY_LABEL), None)
        if steps is None:
            return
        from allure_commons.model2 import StatusDetails

        details = result.statusDetails or StatusDetails()
        details.flaky = True
        details.message = details.message or f"passed after retries or recovery: {steps}"
        result.statusDetails = details


def register_flaky_results(config: pytest.Config) -> None:
    """Register ``FlakyResults`` with allure-commons for this session (when allure is active)."""
    plugin = FlakyResults()
    allure_commons.plugin_manager.register(plugin)
    config.add_cleanup(lambda: allure_commons.plugin_manager.unregister(plugin))
