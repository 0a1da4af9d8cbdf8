"""Issue 46 item 5: a plan's ``xdist_group`` puts it on one worker under ``-n 2 --dist loadgroup``.

The plans run through a runner that does nothing (no browser): what is checked is
where xdist sent each item. A conftest of the inner session records each item's
node id and worker as it sets up.
"""

from __future__ import annotations

import json

import pytest

from tests.support import write

RECORDING_CONFTEST = """
import json, os
import pytest

@pytest.fixture
def cometlocal_runner():
    return lambda plan, item: None

def pytest_runtest_setup(item):
    line = {"nodeid": item.nodeid, "worker": os.environ.get("PYTEST_XDIST_WORKER", "main")}
    with open(os.path.join(str(item.config.rootpath), "workers.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\\n")
"""

PLAN = """\
name: {name}
tags: [{tags}]
base_url: http://127.0.0.1:9
defaults: {{criticality: normal, timeout_ms: 1000, preconditions: [{{kind: host_in_allowlist}}], postconditions: [{{kind: host_in_allowlist}}]}}
steps:
  - id: a
    kind: navigate
    target: {{type: url, url: /}}
"""


def _plans(pytester: pytest.Pytester) -> None:
    # The grouped plans first, over two files: without grouping, the first two go to different workers.
    for f, names in (("a", ("a1", "a2")), ("b", ("b1", "b2"))):
        write(pytester, f"{f}.actions.yaml", "---\n".join(PLAN.format(name=n, tags="smoke, xdist_group_login")
                                                          for n in names))
    write(pytester, "free.actions.yaml", "---\n".join(PLAN.format(name=f"f{i}", tags="smoke") for i in range(4)))


def test_grouped_plans_run_on_one_worker_and_the_others_are_free(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makeconftest(RECORDING_CONFTEST)
    _plans(pytester)
    result = pytester.runpytest_subprocess("-n", "2", "-p", "xdist", "--dist", "loadgroup", "-v")
    result.assert_outcomes(passed=8)
    seen = [json.loads(line) for line in (pytester.path / "workers.jsonl").read_text().splitlines()]
    grouped = {r["nodeid"]: r["worker"] for r in seen if "::a" in r["nodeid"] or "::b" in r["nodeid"]}
    free = {r["nodeid"]: r["worker"] for r in seen if "::f" in r["nodeid"]}
    assert len(grouped) == 4 and len(set(grouped.values())) == 1, grouped
    # xdist's own form of a grouped id, as in its reports: the group after '@'.
    assert sorted(grouped) == ["a.actions.yaml::a1@login", "a.actions.yaml::a2@login",
                               "b.actions.yaml::b1@login", "b.actions.yaml::b2@login"]
    assert sorted(free) == [f"free.actions.yaml::f{i}" for i in range(4)]
    # The group is one unit of work, sent first; the other worker starts on a free plan.
    assert set(free.values()) - set(grouped.values()), (grouped, free)
    result.stdout.fnmatch_lines(["*PASSED a.actions.yaml::a1@login*"])


def test_a_conftest_mark_groups_plans_too(pytester: pytest.Pytester) -> None:
    """The mark, however it is given (here by a conftest, without any tag), is what groups."""
    pytest.importorskip("xdist")
    pytester.makeconftest(RECORDING_CONFTEST + """
def pytest_collection_modifyitems(items):
    for item in items:
        if item.get_closest_marker("smoke") and not item.name.startswith("f"):
            item.add_marker(pytest.mark.xdist_group(name="db"))
""")
    for f in ("a", "b", "c"):
        write(pytester, f"{f}.actions.yaml", PLAN.format(name=f, tags="smoke"))
    result = pytester.runpytest_subprocess("-n", "2", "-p", "xdist", "--dist", "loadgroup")
    result.assert_outcomes(passed=3)
    seen = [json.loads(line) for line in (pytester.path / "workers.jsonl").read_text().splitlines()]
    assert len({r["worker"] for r in seen}) == 1, seen
    assert sorted(r["nodeid"] for r in seen) == ["a.actions.yaml::a@db", "b.actions.yaml::b@db", "c.actions.yaml::c@db"]


def test_without_loadgroup_ids_are_unchanged(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RECORDING_CONFTEST)
    write(pytester, "a.actions.yaml", PLAN.format(name="a1", tags="xdist_group_login"))
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["a.actions.yaml::a1"])
    items = pytester.getitems(pytester.path / "a.actions.yaml")
    assert [m.args for m in items[0].iter_markers("xdist_group")] == [("login",)]


def test_set_node_id_reaches_pytest(pytester: pytest.Pytester) -> None:
    """Pins what the fix relies on: where the running pytest keeps a node id (``_id`` or ``_nodeid``)."""
    from pytest_cometlocal.plugin.xdist_groups import set_node_id

    write(pytester, "a.actions.yaml", PLAN.format(name="a1", tags="smoke"))
    item = pytester.getitems(pytester.path / "a.actions.yaml")[0]
    set_node_id(item, "a.actions.yaml::a1@g")
    assert item.nodeid == "a.actions.yaml::a1@g"
