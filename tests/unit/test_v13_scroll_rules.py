"""(v1.3) scroll's place ``to``, ``set_viewport``, reload's ``bypass_cache``, without a browser: the model,
rule INPUTS located at its key, ``format_version``, the step descriptions, and the hard reload's typed
refusal where the browser has no DevTools protocol.

As in test_rules_v12_pages.py, each case is a plan and the one problem it must have, located in its text.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_cometlocal.contract.model.actionspec import (
    NO_TARGET_KINDS, SIDE_EFFECT_KINDS, V13_KINDS, V13_STEP_KEYS, V13_STEP_USES, ActionSpec, describe_step,
    format_version)
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.targets import ScrollPoint
from tests.support import mark_at, only, only_problems, only_valid, plan

GRID = "{type: css, selector: .grid}"
ALL = f"""\
- {{id: open, kind: navigate, target: {{type: url, url: "http://127.0.0.1:1/x"}}}}
- {{id: bottom, kind: scroll, to: bottom}}
- {{id: grid_top, kind: scroll, target: {GRID}, to: top}}
- {{id: half, kind: scroll, to: {{y: "50%"}}}}
- {{id: point, kind: scroll, target: {GRID}, to: {{x: 120, y: "12.5%"}}}}
- {{id: down, kind: scroll, target: {GRID}, direction: down, postconditions: [{{kind: url_matches, args: {{pattern: x}}}}]}}
- {{id: phone, kind: set_viewport, viewport: {{width: 390, height: 844}}}}
- {{id: hard, kind: reload, bypass_cache: true}}
- {{id: soft, kind: reload, bypass_cache: false}}
- {{id: drop, kind: drag, target: {GRID}, to: {{type: testid, id: bin}}}}
"""


def test_every_addition_validates_is_described_and_versioned(validate):
    steps = only_valid(validate(plan(ALL))).plan.steps
    assert [describe_step(s) for s in steps] == [
        "navigate url=http://127.0.0.1:1/x", "scroll to bottom", "scroll to top in css=.grid", "scroll to y=50%",
        "scroll to x=120, y=12.5% in css=.grid", "scroll down in css=.grid", "set viewport 390x844",
        "reload (bypass cache)", "reload", "drag css=.grid to testid=bin"]
    assert [format_version(s) for s in steps] == [
        "v1", "v1.3", "v1.3", "v1.3", "v1.3", "v1.1", "v1.3", "v1.3", "v1.3", "v1.1"]
    assert steps[4].to == ScrollPoint(x=120, y="12.5%") and steps[4].drop_target is None
    assert steps[9].scroll_place is None and steps[9].to_alternatives[0].id == "bin"
    assert steps[6].viewport.width == 390 and steps[7].bypass_cache is True


def test_the_v13_rows_name_the_additions():
    assert "set_viewport" in V13_KINDS and "set_viewport" in NO_TARGET_KINDS and "set_viewport" in SIDE_EFFECT_KINDS
    assert {"viewport", "bypass_cache"} <= V13_STEP_KEYS and "scroll_to_place" in V13_STEP_USES


@pytest.mark.parametrize("step, key_path, at, message", [
    ("- {id: s, kind: scroll, to: bottom, direction: up}", "steps[0].direction", "direction: ^up",
     "scroll takes `to` (one move to a place) or `direction` (scrolls until the postconditions hold), not both"),
    (f"- {{id: s, kind: scroll, to: {GRID}}}", "steps[0].to", "to: ^{",
     "scroll's `to` is a place: top, bottom, left, right or {x, y} (pixels or \"0%\"-\"100%\"); a target `to` is "
     "drag's (scroll's container is its `target`)"),
    (f"- {{id: s, kind: drag, target: {GRID}, to: top}}", "steps[0].to", "to: ^top",
     "drag's `to` is the element to drop on (a target); a place to scroll to (top, bottom, left, right, {x, y}) "
     "is scroll's"),
    (f"- {{id: s, kind: click, target: {GRID}, to: top}}", "steps[0].to", "to: ^top",
     "'to' is not used by 'click' (only drag and scroll)"),
    ("- {id: s, kind: scroll, to: {x: null}}", "steps[0].to", "to: ^{", "scroll's `to: {x, y}` needs x or y"),
    ("- {id: s, kind: set_viewport}", "steps[0].viewport", "{id: s", "'set_viewport' needs 'viewport'"),
    ("- {id: s, kind: set_viewport, viewport: {width: 3, height: 4}, target: {type: css, selector: a}}",
     "steps[0].target", "target: ^{", "'set_viewport' takes no target"),
    ("- {id: s, kind: go_back, bypass_cache: true}", "steps[0].bypass_cache", "bypass_cache: ^true",
     "'bypass_cache' is not used by 'go_back' (only reload)"),
    (f"- {{id: s, kind: click, target: {GRID}, viewport: {{width: 3, height: 4}}}}", "steps[0].viewport",
     "viewport: ^{", "'viewport' is not used by 'click' (only set_viewport)"),
])
def test_inputs_are_located(validate, step, key_path, at, message):
    text = plan(step + "\n")
    only(only_problems(validate(text)), "INPUTS", key_path, *mark_at(text, at), message)


@pytest.mark.parametrize("written, key_path, at", [
    ("to: middle", "steps[0].to", "to: ^middle"),
    ("to: {y: \"101%\"}", "steps[0].to.y", "y: ^\"101%\""),
    ("to: {y: \"50\"}", "steps[0].to.y", "y: ^\"50\""),
    ("to: {x: -1}", "steps[0].to.x", "x: ^-1"),
    ("to: {x: 1.5}", "steps[0].to.x", "x: ^1.5"),
    ("to: {x: 1, z: 2}", "steps[0].to.z", "z: ^2"),
])
def test_a_bad_place_is_one_schema_problem_at_its_key(validate, written, key_path, at):
    text = plan(f"- {{id: s, kind: scroll, {written}}}\n")
    invalid = only_problems(validate(text))
    line, _col = mark_at(text, at)
    assert [(p.rule, p.key_path, p.mark.line) for p in invalid.problems] == [("SCHEMA", key_path, line)]


@pytest.mark.parametrize("viewport, key_path", [
    ("{width: 0, height: 10}", "steps[0].viewport.width"), ("{width: 10, height: 10001}", "steps[0].viewport.height"),
    ("{width: 10}", "steps[0].viewport.height"),
])
def test_set_viewports_size_is_browser_viewports_model(validate, viewport, key_path):
    invalid = only_problems(validate(plan(f"- {{id: s, kind: set_viewport, viewport: {viewport}}}\n")))
    assert [(p.rule, p.key_path) for p in invalid.problems] == [("SCHEMA", key_path)]


def test_a_drags_broken_target_keeps_its_target_error(validate):
    invalid = only_problems(validate(plan(f"- {{id: s, kind: drag, target: {GRID}, to: {{tpye: css}}}}\n")))
    assert [(p.rule, p.key_path) for p in invalid.problems] == [("SCHEMA", "steps[0].to")]
    assert "'type' is required" in invalid.problems[0].message


def _spec(**fields: Any) -> ActionSpec:
    return ActionSpec.model_validate({"id": "s", "criticality": "normal", "timeout_ms": 100,
                                      "preconditions": [{"kind": "host_in_allowlist"}],
                                      "postconditions": [{"kind": "host_in_allowlist"}], **fields})


def test_hard_reload_without_devtools_is_refused_typed_before_reloading():
    from pytest_cometlocal.executor.pages import view

    calls: list[str] = []

    class NoCdp:  # a Firefox page: no CDP session, and a reload would be a plain one
        context = SimpleNamespace(new_cdp_session=lambda page: (_ for _ in ()).throw(RuntimeError("no CDP")),
                                  browser=SimpleNamespace(browser_type=SimpleNamespace(name="firefox")))

        def reload(self, **kwargs: Any) -> None:
            calls.append("reload")

    class Failures:
        def fail(self, attempt, code, stage, message, **facts):
            return RuntimeError((code, stage, message, facts))

    actions = SimpleNamespace(ctx=SimpleNamespace(page=NoCdp()), failures=Failures())
    with pytest.raises(RuntimeError) as raised:
        view.reload(actions, SimpleNamespace(spec=_spec(kind="reload", bypass_cache=True)))
    code, stage, message, facts = raised.value.args[0]
    assert (code, stage) == (ErrorCode.PRECONDITION_FAILED, "execution") and "firefox" in message
    (failed,) = facts["failed_conditions"]
    assert (failed.kind, failed.observed) == ("cache_bypass_available", {"browser": "firefox"})
    assert facts["retryable"] is False and calls == []
