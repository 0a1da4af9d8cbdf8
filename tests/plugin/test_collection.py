"""Collection and outcomes of plan items, through a real pytest run (pytester)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support import VALID_PLAN, write

# These tests are about collection and outcomes, not the browser: valid plans
# run through a runner that records the call (the public override point).
NOOP_RUNNER = """
import pytest

@pytest.fixture
def cometlocal_runner():
    def run(plan, item):
        print("RAN", plan.name)
    return run
"""

BROKEN_PLAN = """\
name: broken
steps:
  - id: a
    kind: clik
"""


def test_each_document_is_an_item_with_file_and_plan_name(pytester: pytest.Pytester) -> None:
    write(pytester, "plans/login.actions.yaml", VALID_PLAN + "---\n" + VALID_PLAN.replace("name: minimal", "name: second one"))
    result = pytester.runpytest("--collect-only", "-q", "plans")
    result.stdout.fnmatch_lines([
        "plans/login.actions.yaml::minimal",
        "plans/login.actions.yaml::second one",
    ])
    assert result.ret == 0


def test_valid_plan_runs_through_the_runner_fixture(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(NOOP_RUNNER)
    write(pytester, "a.actions.yaml", VALID_PLAN)
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*RAN minimal*"])


def test_invalid_plan_fails_with_code_and_locations_and_others_still_run(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(NOOP_RUNNER)
    write(pytester, "a.actions.yaml", BROKEN_PLAN)
    write(pytester, "b.actions.yaml", VALID_PLAN)
    write(pytester, "test_plain.py", "def test_ok():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1, passed=2)
    result.stdout.fnmatch_lines([
        "INVALID_ACTIONSPEC: plan 'broken' is not valid (*",
        "  a.actions.yaml:4:11 steps[[]0].kind: 'clik' is not one of the * allowed values; close matches: click*[[]SCHEMA]",
        "  run folder: *cometlocal-runs*broken-*",
    ])
    assert "Traceback" not in result.stdout.str()
    assert "pytest_cometlocal" not in result.stdout.str()


def test_unparsable_file_is_one_failing_item_named_after_the_file(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(NOOP_RUNNER)
    write(pytester, "bad.actions.yaml", "name: x\nsteps: [a, b\n")
    write(pytester, "good.actions.yaml", VALID_PLAN)
    result = pytester.runpytest("-v")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*bad.actions.yaml::bad FAILED*", "*bad.actions.yaml:3:1: YAML syntax error*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # not an internal or collection error


def test_python_tag_is_rejected_not_executed(pytester: pytest.Pytester) -> None:
    marker = pytester.path / "pwned"
    write(pytester, "evil.actions.yaml", f'name: !!python/object/apply:os.system ["touch {marker}"]\n')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*evil.actions.yaml:1:7: tag !!python/object/apply:os.system is not allowed*"])
    assert not marker.exists()


def test_tags_are_markers_and_pass_strict_markers(pytester: pytest.Pytester) -> None:
    write(pytester, "a.actions.yaml", VALID_PLAN.replace("name: minimal", "name: tagged\ntags: [smoke, auth]"))
    write(pytester, "b.actions.yaml", VALID_PLAN)
    result = pytester.runpytest("--strict-markers", "-m", "smoke", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["a.actions.yaml::tagged", "*1/2 tests collected (1 deselected)*"])
    assert result.ret == 0


def test_tags_of_an_invalid_plan_still_select_it(pytester: pytest.Pytester) -> None:
    write(pytester, "a.actions.yaml", "name: broken\ntags: [smoke]\nsteps: []\n")
    result = pytester.runpytest("--strict-markers", "-m", "smoke")
    result.assert_outcomes(failed=1)


def test_glob_is_configurable_by_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ncometlocal_glob = *.plan.yaml\n")
    write(pytester, "x.plan.yaml", VALID_PLAN)
    write(pytester, "y.actions.yaml", VALID_PLAN)
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["x.plan.yaml::minimal"])
    assert "y.actions.yaml" not in result.stdout.str()


def test_location_points_at_the_plan_line(pytester: pytest.Pytester) -> None:
    write(pytester, "a.actions.yaml", "# comment\n" + VALID_PLAN + "---\n" + VALID_PLAN.replace("minimal", "two"))
    items = pytester.getitems(pytester.path / "a.actions.yaml")
    assert [i.name for i in items] == ["minimal", "two"]
    assert items[0].location[1] == 1  # 0-based: line 2 of the file
    second_start = 1 + VALID_PLAN.count("\n") + 1  # comment + first plan + '---'
    assert items[1].location[1] == second_start
    assert items[0].reportinfo()[2] == "plan: minimal"


def test_runner_fixture_can_be_overridden_and_uses_other_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest
        CALLS = []

        @pytest.fixture
        def portal_url():
            return "http://127.0.0.1:1"

        @pytest.fixture
        def cometlocal_runner(portal_url):
            def run(plan, item):
                CALLS.append((plan.name, portal_url, item.nodeid))
            return run

        def pytest_sessionfinish(session):
            print("CALLS", CALLS)
        """
    )
    write(pytester, "a.actions.yaml", VALID_PLAN)
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*CALLS *('minimal', 'http://127.0.0.1:1', 'a.actions.yaml::minimal')*"])


def test_invalid_plan_requests_no_runner(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def cometlocal_runner():
            raise RuntimeError("a browser would start here")
        """
    )
    write(pytester, "a.actions.yaml", BROKEN_PLAN)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    assert "a browser would start here" not in result.stdout.str()


def test_conftest_autouse_fixtures_apply_to_plan_items(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        NOOP_RUNNER
        + """
@pytest.fixture(autouse=True)
def seeded(request):
    print("SEEDED", request.node.name)
"""
    )
    write(pytester, "a.actions.yaml", VALID_PLAN)
    result = pytester.runpytest("-s")
    result.stdout.fnmatch_lines(["*SEEDED minimal*"])


def test_junit_properties_and_marker_on_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_runtest_makereport(item, call):
            if call.when == "call":
                m = item.get_closest_marker("cometlocal_error_code")
                print("MARK", m.args if m else None)
        """
    )
    write(pytester, "a.actions.yaml", BROKEN_PLAN)
    result = pytester.runpytest("--junitxml=out.xml", "-s")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*MARK ('INVALID_ACTIONSPEC',)"])
    tree = ET.parse(pytester.path / "out.xml")
    props = {p.get("name"): p.get("value") for p in tree.iter("property")}
    assert props["cometlocal.error_code"] == "INVALID_ACTIONSPEC"
    assert props["cometlocal.step_id"] == ""
    run_dir = Path(props["cometlocal.run_dir"])
    assert (run_dir / "trace.jsonl").is_file()


def test_invalid_plan_run_folder_has_trace_and_hashed_report(pytester: pytest.Pytester) -> None:
    write(pytester, "a.actions.yaml", BROKEN_PLAN)
    result = pytester.runpytest("--cometlocal-output", "out")
    result.assert_outcomes(failed=1)
    (run_dir,) = (pytester.path / "out").iterdir()
    events = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    assert [e["event_type"] for e in events] == [
        "run_started", "proposal_rejected", "evidence_captured", "error_raised", "run_finished",
    ]
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5]
    error = events[3]["error"]
    assert error["error_code"] == "INVALID_ACTIONSPEC" and error["stage"] == "proposal_validation"
    assert "SCHEMA" in error["details"]["violated_rules"]
    manifest = json.loads((run_dir / "evidence_manifest.json").read_text())
    import hashlib

    for entry in manifest["files"]:
        assert hashlib.sha256((run_dir / entry["uri"]).read_bytes()).hexdigest() == entry["sha256"]
    assert json.loads((run_dir / "run_manifest.json").read_text())["status"] == "failed"


def test_expect_invalid_actionspec_passes_and_records_properties(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "a.actions.yaml",
        """\
        name: negative
        expect: {error_code: INVALID_ACTIONSPEC, step: a}
        steps:
          - id: a
            kind: clik
        """,
    )
    result = pytester.runpytest("--junitxml=out.xml")
    result.assert_outcomes(passed=1)
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "out.xml").iter("property")}
    assert props["cometlocal.error_code"] == "INVALID_ACTIONSPEC"
    assert props["cometlocal.expected_error_code"] == "INVALID_ACTIONSPEC"


def test_expect_other_code_on_invalid_plan_fails_naming_both(pytester: pytest.Pytester) -> None:
    write(pytester, "a.actions.yaml", "name: n\nexpect: {error_code: TARGET_NOT_FOUND}\nsteps: []\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*expected TARGET_NOT_FOUND, got INVALID_ACTIONSPEC*"])


def test_expect_on_the_wrong_step_fails(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "a.actions.yaml",
        """\
        name: negative
        expect: {error_code: INVALID_ACTIONSPEC, step: other}
        defaults: {criticality: normal, timeout_ms: 100, preconditions: [{kind: network_idle}], postconditions: [{kind: network_idle}]}
        steps:
          - id: a
            kind: clik
          - {id: other, kind: click, target: {type: css, selector: b}}
        """,
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*expected INVALID_ACTIONSPEC at step 'other'*"])


def test_secret_values_never_reach_output_or_files(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORTAL_PW", "s3cr3t-value-42")
    write(
        pytester,
        "a.actions.yaml",
        """\
        name: uses secret
        secrets: {pw: {env: PORTAL_PW}}
        steps:
          - id: a
            kind: fill
            value: ${secrets.pw}
        """,
    )
    result = pytester.runpytest("-v", "--junitxml=out.xml")
    result.assert_outcomes(failed=1)
    assert "s3cr3t-value-42" not in result.stdout.str() + result.stderr.str()
    for path in pytester.path.rglob("*"):
        if path.is_file():
            assert b"s3cr3t-value-42" not in path.read_bytes(), path


def test_base_url_precedence_cli_over_plan_over_ini(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def cometlocal_runner(cometlocal_plan_settings):
            def run(plan, item):
                eff = cometlocal_plan_settings
                print("BASE", item.name, eff.base_url, eff.allowlist)
            return run
        """
    )
    pytester.makeini("[pytest]\nbase_url = http://ini.example:1\n")
    write(pytester, "a.actions.yaml", VALID_PLAN.replace("base_url: http://127.0.0.1:8000\n", ""))
    write(pytester, "b.actions.yaml", VALID_PLAN.replace("name: minimal", "name: own"))
    result = pytester.runpytest("-s", "-p", "no:randomly")
    result.stdout.fnmatch_lines([
        "*BASE minimal http://ini.example:1 ('ini.example',)*",
        "*BASE own http://127.0.0.1:8000 ('127.0.0.1',)*",
    ])
    result = pytester.runpytest("-s", "--base-url", "http://cli.example:2")
    result.stdout.fnmatch_lines([
        "*BASE minimal http://cli.example:2 ('cli.example',)*",
        "*BASE own http://cli.example:2 ('cli.example',)*",
    ])


def test_xdist_gives_same_outcomes(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makeconftest(NOOP_RUNNER)
    for i in range(4):
        write(pytester, f"ok{i}.actions.yaml", VALID_PLAN)
        write(pytester, f"bad{i}.actions.yaml", BROKEN_PLAN)
    result = pytester.runpytest("-n", "2", "-p", "xdist")
    result.assert_outcomes(failed=4, passed=4)
    runs = list((pytester.path / "cometlocal-runs").iterdir())
    assert len(runs) == 4 and len({r.name for r in runs}) == 4


FAILING_RUNNER = """
from types import SimpleNamespace

import pytest

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.plugin.reporting import errors


@pytest.fixture
def cometlocal_runner():
    def run(plan, item):
        error = SimpleNamespace(error_code=ErrorCode.TARGET_NOT_FOUND, action_id="go", details={})
        text = "TARGET_NOT_FOUND at step 'go' (click, normal) — a.actions.yaml:14\\n  no element matched"
        return SimpleNamespace(error=error, run_dir=None, failure_text=text)
    return run


def pytest_runtest_makereport(item, call):
    if call.when == "call" and call.excinfo is not None:
        cls = call.excinfo.type
        print("CLASS", cls.__qualname__, cls is getattr(errors, cls.__qualname__),
              call.excinfo.errisinstance(errors.TARGET_NOT_FOUND), call.excinfo.errisinstance(pytest.fail.Exception))
"""


def test_short_summary_line_leads_with_the_error_code(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact short summary lines of a failed plan, an invalid plan and an unmet expectation.

    The failures are real classes of ``pytest_cometlocal.plugin.reporting.errors`` (one per code), and
    the summary prints the item's failure text, so no module name shows.
    """
    monkeypatch.setenv("COLUMNS", "200")  # the summary line is cut to the terminal's width
    pytester.makeconftest(FAILING_RUNNER)
    write(pytester, "a.actions.yaml", VALID_PLAN)
    write(pytester, "b.actions.yaml", BROKEN_PLAN)
    write(pytester, "c.actions.yaml", VALID_PLAN.replace("name: minimal", "name: negative\nexpect: {error_code: TARGET_NOT_FOUND, step: go}"))
    result = pytester.runpytest("-rf", "-s", "-p", "no:randomly")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines([
        "*CLASS TARGET_NOT_FOUND True True True",
        "*CLASS INVALID_ACTIONSPEC True False True",
    ])
    lines = result.stdout.lines
    assert "FAILED a.actions.yaml::minimal - TARGET_NOT_FOUND at step 'go' (click, normal) — a.actions.yaml:14" in lines
    assert "FAILED b.actions.yaml::broken - INVALID_ACTIONSPEC: plan 'broken' is not valid (5 problems)" in lines
    assert "pytest_cometlocal.plugin" not in "\n".join(line for line in lines if "CLASS" not in line)


def test_short_summary_line_of_a_plan_that_passed_against_its_expect(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    pytester.makeconftest(NOOP_RUNNER)
    write(pytester, "a.actions.yaml", VALID_PLAN.replace("name: minimal", "name: negative\nexpect: {error_code: TARGET_NOT_FOUND}"))
    result = pytester.runpytest("-rf")
    result.assert_outcomes(failed=1)
    assert "FAILED a.actions.yaml::negative - expected TARGET_NOT_FOUND, but the plan passed with no error" in result.stdout.lines


# Items keep an outline of their plan, and validate it again from the bytes they collected when they run.
EDIT_AFTER_COLLECTION = """
import pathlib
import pytest

@pytest.fixture
def cometlocal_runner():
    def run(plan, item):
        print("RAN", plan.name, [s.id for s in plan.plan.steps])
    return run

def pytest_collection_finish(session):
    import gc
    from pytest_cometlocal.contract.validate.validated import ValidPlan
    gc.collect()
    print("PLANS KEPT", sum(isinstance(o, ValidPlan) for o in gc.get_objects()))
    for path, (old, new) in EDITS.items():
        p = pathlib.Path(str(session.config.rootpath), path)
        p.write_text(p.read_text().replace(old, new))
"""


def test_collected_items_keep_no_validated_plan(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(EDIT_AFTER_COLLECTION.replace("EDITS.items()", "{}.items()"))
    for i in range(3):
        write(pytester, f"p{i}.actions.yaml", VALID_PLAN.replace("name: minimal", f"name: plan {i}"))
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["PLANS KEPT 0", "*RAN plan 0 [[]'open', 'go']*"])


def test_a_plan_edited_after_collection_runs_as_collected(pytester: pytest.Pytester) -> None:
    edits = {"a.actions.yaml": ("id: go", "id: gone\n    kind: clik")}
    pytester.makeconftest(EDIT_AFTER_COLLECTION.replace("EDITS", repr(edits)))
    write(pytester, "a.actions.yaml", VALID_PLAN)
    result = pytester.runpytest("-s", "-p", "no:cacheprovider")
    assert "kind: clik" in (pytester.path / "a.actions.yaml").read_text()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*RAN minimal [[]'open', 'go']*"])


def test_a_step_group_is_read_when_the_plan_runs(pytester: pytest.Pytester) -> None:
    # Plans are validated when their item sets up: a group edited after collection is used as it is then.
    edits = {"groups/g.steps.yaml": ("kind: click", "kind: clik")}
    pytester.makeconftest(EDIT_AFTER_COLLECTION.replace("EDITS", repr(edits)))
    write(pytester, "groups/g.steps.yaml", "steps:\n  - id: go\n    kind: click\n    target: {type: testid, id: go}\n")
    plan = VALID_PLAN.split("  - id: go")[0] + "  - use: groups/g.steps.yaml\n"
    write(pytester, "a.actions.yaml", plan)
    result = pytester.runpytest("-rA", "-p", "no:cacheprovider", "--junitxml=junit.xml")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "INVALID_ACTIONSPEC: plan 'minimal' is not valid (1 problem)",
        "*groups/g.steps.yaml:3:11 steps[[]0].kind: 'clik' is not one of the * allowed values; close matches: click (via a.actions.yaml:12)*[[]SCHEMA]",
    ])
    assert "RAN" not in result.stdout.str()
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "junit.xml").iter("property")}
    assert props["cometlocal.error_code"] == "INVALID_ACTIONSPEC"


def test_a_row_whose_csv_changed_after_collection_errors_with_changed(pytester: pytest.Pytester) -> None:
    edits = {"users.csv": ("bob", "carol")}
    pytester.makeconftest(EDIT_AFTER_COLLECTION.replace("EDITS", repr(edits)))
    write(pytester, "users.csv", "user\nalice\nbob\n")
    write(pytester, "a.actions.yaml", "parametrize: users.csv\n" + VALID_PLAN.replace("  - id: go\n", "  - id: go-${vars.user}\n"))
    result = pytester.runpytest("-rA", "-p", "no:cacheprovider", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([
        "*ERROR at setup of plan: minimal[[]bob[]]*",
        "INVALID_ACTIONSPEC: plan 'minimal' is not valid (1 problem)",
        "*a.actions.yaml:*plan 'minimal[[]bob[]]' was collected, but validating its file again to run does not give it*[[]CHANGED]",
        "*RAN minimal [[]'open', 'go-alice'[]]*",
        "ERROR a.actions.yaml::minimal[[]bob[]] - *INVALID_ACTIONSPEC: plan 'minima*",
    ])
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "junit.xml").iter("property")}
    assert props["cometlocal.error_code"] == "INVALID_ACTIONSPEC"
