"""Issue 46 item 7: ``--cometlocal-var`` and ini ``cometlocal_vars`` in a pytest session.

A runner of the inner session's conftest (no browser) writes down the URL each
plan item was validated with and where each of its vars came from.
"""

from __future__ import annotations

import json

import pytest

from tests.support import write

RECORDING_RUNNER = """
import json, os
import pytest

@pytest.fixture
def cometlocal_runner():
    def run(plan, item):
        line = {"item": item.name, "url": plan.plan.steps[0].target.url, "sources": dict(plan.var_sources)}
        with open(os.path.join(str(item.config.rootpath), "seen.jsonl"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\\n")
    return run
"""

PLAN = """\
name: shop on ${vars.impl}
base_url: http://127.0.0.1:8000
vars: {c: plan-c, d: plan-d}
parametrize: [{id: r, d: row-d}]
defaults: {criticality: normal, timeout_ms: 1000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
steps:
  - id: open
    kind: navigate
    target: {type: url, url: "/${vars.a}/${vars.b}/${vars.c}/${vars.d}"}
"""
INI = """\
[pytest]
cometlocal_vars =
    a=ini-a
    b=ini-b
    impl=vue
"""


def _seen(pytester: pytest.Pytester) -> list[dict]:
    return [json.loads(line) for line in (pytester.path / "seen.jsonl").read_text().splitlines()]


def test_option_and_ini_vars_reach_every_plan_below_its_own_vars_and_rows(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RECORDING_RUNNER)
    pytester.makefile(".ini", pytest=INI)
    write(pytester, "p.actions.yaml", PLAN)
    result = pytester.runpytest("--cometlocal-var", "b=cli-b", "--cometlocal-var", "c=cli-c",
                                "--cometlocal-var", "d=cli-d", "--cometlocal-var", "impl=react", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*p.actions.yaml::shop on react[[]r[]] PASSED*"])  # a run var names the item too
    (seen,) = _seen(pytester)
    assert seen["url"] == "/ini-a/cli-b/plan-c/row-d"
    assert seen["sources"] == {"a": "ini", "b": "cli", "c": "plan", "d": "row", "impl": "cli"}


def test_the_ini_vars_alone(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RECORDING_RUNNER)
    pytester.makefile(".ini", pytest=INI)
    write(pytester, "p.actions.yaml", PLAN)
    pytester.runpytest().assert_outcomes(passed=1)
    assert _seen(pytester)[0]["url"] == "/ini-a/ini-b/plan-c/row-d"


@pytest.mark.parametrize("args, ini, says", [
    (["--cometlocal-var", "impl"], None, "ERROR: cometlocal: --cometlocal-var: 'impl' is not NAME=VALUE"),
    (["--cometlocal-var", "bad-name=x"], None, "ERROR: cometlocal: --cometlocal-var: 'bad-name' is not a var name*"),
    ([], "[pytest]\ncometlocal_vars =\n    impl vue\n", "ERROR: cometlocal: ini cometlocal_vars: 'impl vue' is not NAME=VALUE"),
])
def test_a_bad_var_is_one_usage_line_naming_the_option(pytester: pytest.Pytester, args: list[str], ini: str | None,
                                                       says: str) -> None:
    pytester.makeconftest(RECORDING_RUNNER)
    if ini:
        pytester.makefile(".ini", pytest=ini)
    write(pytester, "p.actions.yaml", PLAN)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([says])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
