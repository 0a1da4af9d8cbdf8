"""The garbage-collector pause (plugin/hooks.py) lasts exactly as long as collection.

Inner sessions run in a subprocess: the collector's state is per process, and
a conftest that turns it off must not turn off the outer session's.
"""

from __future__ import annotations

import json

import pytest

from tests.support import VALID_PLAN, write

# Records the collector's state during collection (pytest_collection_modifyitems
# runs inside pytest_collection) and at the end of the session, in a file.
RECORDER = """
import gc, json, pathlib
import pytest
{prelude}
STATE = {{"frozen_before": gc.get_freeze_count()}}

def pytest_collection_modifyitems(items):
    STATE["enabled_during_collection"] = gc.isenabled()
    {raise_line}

def pytest_unconfigure(config):
    STATE["enabled_at_the_end"] = gc.isenabled()
    STATE["frozen_at_the_end"] = gc.get_freeze_count()
    pathlib.Path("state.json").write_text(json.dumps(STATE))

@pytest.fixture
def cometlocal_runner():  # plan items run without a browser: this is about collection
    return lambda plan, item: None
"""

TEST_FILE = """
import gc

def test_sees_the_collector_as_before_collection():
    assert gc.isenabled() is {enabled}
    assert ({frozen_count})
"""


def _run(pytester: pytest.Pytester, *, prelude: str = "", raise_line: str = "", enabled: bool = True,
         frozen_count: str = "gc.get_freeze_count() == 0") -> tuple[pytest.RunResult, dict]:
    pytester.makeconftest(RECORDER.format(prelude=prelude, raise_line=raise_line))
    pytester.makepyfile(test_gc=TEST_FILE.format(enabled=enabled, frozen_count=frozen_count))
    write(pytester, "plans/a.actions.yaml", VALID_PLAN)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "test_gc.py", "plans")
    return result, json.loads((pytester.path / "state.json").read_text())


def test_collector_is_paused_during_collection_and_back_on_for_the_tests(pytester: pytest.Pytester) -> None:
    result, state = _run(pytester)
    result.assert_outcomes(passed=2)
    assert state["enabled_during_collection"] is False
    assert state["enabled_at_the_end"] is True
    assert state["frozen_at_the_end"] == 0  # nothing left frozen after collection


def test_a_conftest_that_turns_the_collector_off_keeps_it_off(pytester: pytest.Pytester) -> None:
    result, state = _run(pytester, prelude="gc.disable()", enabled=False)
    result.assert_outcomes(passed=2)
    assert state["enabled_during_collection"] is False and state["enabled_at_the_end"] is False


def test_a_users_freeze_is_left_alone(pytester: pytest.Pytester) -> None:
    """A conftest's ``gc.freeze()`` is not undone (frozen objects that die leave the count, so it only shrinks)."""
    result, state = _run(pytester, prelude="gc.freeze()", frozen_count="gc.get_freeze_count() > 0")
    result.assert_outcomes(passed=2)
    assert state["frozen_before"] > 0 and state["frozen_at_the_end"] > 0


def test_collector_is_back_on_when_collection_raises(pytester: pytest.Pytester) -> None:
    result, state = _run(pytester, raise_line='raise RuntimeError("collection breaks")')
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    assert "collection breaks" in result.stdout.str() + result.stderr.str()
    assert state["enabled_during_collection"] is False and state["enabled_at_the_end"] is True
