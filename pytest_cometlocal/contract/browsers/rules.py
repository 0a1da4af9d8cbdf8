"""(v1.4) The browser choice's rules: BROWSER_FEATURE for a plan, SUITE_CONFIG for the suite's ``browsers``.

``browser.name``'s own shape (a known name, a non-empty list, no name twice) is the model's: SCHEMA,
located at ``browser.name`` (plan.py ``browser_names_problem``).

BROWSER_FEATURE: a plan whose ``browser.name`` allows no Chromium (``firefox``, ``[firefox, webkit]``)
and that uses a feature only Chromium has (contract/browsers.py ``CHROMIUM_ONLY``) could never pass:
it is refused at load, one problem per use, located at the feature (the condition, ``bypass_cache``,
``browser.device``, ``browser.color_scheme``), naming the feature and the browsers. A plan that allows
Chromium and another browser is valid: its items on the other browsers are refused at setup, one by
one (the plugin's PRECONDITION_FAILED, ``ChromiumOnlyFeature.condition``), never a load error.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from pytest_cometlocal.contract.browsers import allowed_browsers, chromium_only_features
from pytest_cometlocal.contract.load.suite_config import SuiteConfigFile
from pytest_cometlocal.contract.model.plan import Plan, browser_names_problem
from pytest_cometlocal.contract.model.problems import Loc, Mark, Problem

Report = Callable[[Loc, str, str], None]


def check_browser_features(plan: Plan, add: Report, *, devices: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """Rule BROWSER_FEATURE (nothing to do for a plan without ``browser.name``, or one that allows Chromium)."""
    allowed = allowed_browsers(plan)
    if allowed is None or "chromium" in allowed:
        return
    names = " and ".join(sorted(allowed))
    for use in chromium_only_features(plan, devices=devices):
        add(use.loc, f"{use} needs Chromium ({use.why}), and browser.name allows only {names}: add chromium to "
            f"browser.name, or remove {_what(str(use))}", "BROWSER_FEATURE")


def _what(feature: str) -> str:
    return {"accessibility_clean": "the accessibility_clean check", "reload_bypass_cache": "bypass_cache",
            "touch": "the touch device (browser.device)", "color_scheme": "browser.color_scheme"}[feature]


def suite_browsers(config: SuiteConfigFile | None) -> tuple[tuple[str, ...] | None, Problem | None]:
    """(v1.4) The suite config's ``browsers`` (the matrix its plans run on), or the problem with it, located in
    the config file (rule SUITE_CONFIG, as its ``profile``). (None, None) without a config or the key."""
    if config is None or config.tree is None or "browsers" not in config.tree:
        return None, None
    value = config.tree["browsers"]
    problem = browser_names_problem(value, scalar=False)
    if problem is None:
        return tuple(value), None
    mark = config.tree.value_marks["browsers"]
    message = f"browsers {problem}" if problem.startswith("must") else problem
    return None, Problem(config.shown, Mark(mark.line, mark.col), "browsers", message, "SUITE_CONFIG")
