"""The step rule families that look at a key or a condition kind run only for a step that has one
(contract/validate/step/index.py): counted here, never timed. And the gates change no verdict: every
plan file of the repository gets the same problems with every family run on every step."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cometlocal.contract.validate import rules
from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_path, validate_text

REPO = Path(__file__).resolve().parents[2]
GATED = ("check_scroll_to", "check_request", "check_v13_actions", "check_state_step", "check_seen",
         "check_extension_step", "check_v12_conditions", "check_state_conditions")

PLAIN = """
name: plain
base_url: http://127.0.0.1:8000
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /form}
    criticality: normal
    timeout_ms: 1000
    preconditions: [{kind: host_in_allowlist}]
    postconditions: [{kind: url_matches, args: {pattern: /form}}]
  - id: go
    kind: click
    target: [{type: text, text: Go, exact: true}, {type: role, role: button, name: Go}]
    criticality: normal
    timeout_ms: 1000
    preconditions: [{kind: element_enabled}]
    postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: '#out'}, text: done}}]
"""
SEEN = PLAIN + """
  - id: check
    kind: assert
    criticality: normal
    timeout_ms: 1000
    preconditions: [{kind: host_in_allowlist}]
    postconditions: [{kind: request_seen, args: {url: '**/api/x'}}]
"""


def _calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = dict.fromkeys(GATED, 0)
    for name in GATED:
        rule = getattr(rules, name)

        def counted(*args, _rule=rule, _name=name, **kwargs):
            calls[_name] += 1
            return _rule(*args, **kwargs)
        monkeypatch.setattr(rules, name, counted)
    return calls


def _valid(text: str, tmp_path: Path) -> None:
    (result,) = validate_text(text, ValidationContext(root=tmp_path, plan_path=tmp_path / "p.actions.yaml", env={}))
    assert not getattr(result, "problems", ()), [p.format() for p in result.problems]


def test_a_step_without_what_a_family_looks_at_does_not_run_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    calls = _calls(monkeypatch)
    _valid(PLAIN, tmp_path)
    assert calls == dict.fromkeys(GATED, 0)


def test_a_step_with_it_runs_it_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    calls = _calls(monkeypatch)
    _valid(SEEN, tmp_path)
    assert calls == {**dict.fromkeys(GATED, 0), "check_seen": 1}


def _every_plan_file() -> list[Path]:
    return sorted(p for p in REPO.rglob("*.actions.yaml") if ".venv" not in p.parts)


def _problems(path: Path) -> list[str]:
    ctx = ValidationContext(root=REPO, plan_path=path, env={})
    return [p.format() for result in validate_path(path, ctx) for p in getattr(result, "problems", ())]


def test_the_gates_change_no_problem_of_any_plan_file_in_the_repository(monkeypatch: pytest.MonkeyPatch):
    files = _every_plan_file()
    assert len(files) > 50
    gated = {path: _problems(path) for path in files}
    assert sum(map(len, gated.values())) > 50  # the negative plans: problems of most families

    class Every(rules.StepIndex):  # every family wanted by every step
        def __init__(self, step, condition_kinds):
            super().__init__(step, condition_kinds)
            self.extension = True
    everything = frozenset(rules.ActionSpec.model_fields)
    monkeypatch.setattr(rules, "StepIndex", Every)
    monkeypatch.setattr(rules, "_GATED", tuple((rule, everything, kinds, conditions)
                                               for rule, _keys, kinds, conditions in rules._GATED))
    monkeypatch.setattr(rules, "_ANY_GATED", (everything, frozenset(), frozenset()))  # no step skips the table
    monkeypatch.setattr(rules, "V12_CONDITION_KINDS", frozenset(rules.C.CONDITION_KINDS) | {"x_any"})
    monkeypatch.setattr(rules, "STATE_CONDITION_KINDS", frozenset(rules.C.CONDITION_KINDS))
    assert {path: _problems(path) for path in files} == gated
