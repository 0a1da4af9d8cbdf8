"""One measurement of the goals section (bench_goals.py) for one side, in a process of its own.

    PYTHONPATH=HARNESS:CHECKOUT python -m benchmarks.goals_child '{"task": "real", ...}'

Why a process per measurement: each side of the comparison must import its own
``pytest_cometlocal`` (the checkout's), and so must every pytest process the
measurement starts. The controller copies the ``benchmarks`` package alone into
HARNESS (so both sides run the same flows, and no other copy of the package is
on the path) and puts the side's checkout after it; the runners reused here
(``bench_real``, ``bench_overhead``, ``run_pytest``) pass that path on.

The protocol: the task is one JSON object in argv[1]; the answer is the last
line of stdout that starts with ``RESULT_MARK``, a JSON object, which always
names the package that was imported (the controller checks it). Anything else
on stdout or stderr is the runners' own printing, kept for the error message.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

RESULT_MARK = "@@goals-result@@ "

# The Playwright protocol methods that run a script in the page; the others (actions, waits, title, screenshots)
# are counted among all the calls only.
SCRIPT_METHODS = ("evaluateExpression", "evaluateExpressionHandle", "evalOnSelector", "evalOnSelectorAll",
                  "waitForFunction")

# Counts the Playwright client's messages to the driver during each item's call phase, into its user properties.
# Left out of "all": __waitInfo__ (the client's own log, no reply), waitForTimeout (the picture fence's 2 ms polls)
# and a CDP session's messages (the picture's): their number follows the timing, not the plan.
COUNT_CONFTEST = '''

try:
    from playwright._impl._connection import Connection as _Connection
except ImportError:  # the module's name in some Playwright releases
    from playwright._impl.connection import Connection as _Connection

SCRIPT_METHODS = frozenset(%r)
_IGNORED = frozenset({"__waitInfo__", "waitForTimeout"})
_COUNTS = {"all": 0, "script": 0}
# Playwright 1.65 names it send_message_to_server, 1.64 _send_message_to_server
_SEND_NAME = "send_message_to_server" if hasattr(_Connection, "send_message_to_server") else "_send_message_to_server"
_send = getattr(_Connection, _SEND_NAME)


def _counting_send(self, object, method, *args, **kwargs):
    if method not in _IGNORED and getattr(object, "_type", "") != "CDPSession":
        _COUNTS["all"] += 1
        _COUNTS["script"] += method in SCRIPT_METHODS
    return _send(self, object, method, *args, **kwargs)


setattr(_Connection, _SEND_NAME, _counting_send)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    import pytest_cometlocal

    seen = dict(_COUNTS)
    yield
    for key, value in _COUNTS.items():
        item.user_properties.append(("calls_" + key, value - seen[key]))
    item.user_properties.append(("package", pytest_cometlocal.__file__))
''' % (SCRIPT_METHODS,)

# Plans of the bench page's flow: a warm-up, then SHORT and LONG steps; what LONG adds to SHORT are plain steps
# (fill, select, click, assert on rows 6-10, each postcondition holding at once).
CALL_PLANS = (("calls_0_warm", 8), ("calls_1_short", 20), ("calls_2_long", 40))


def per_plain_step(items: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Calls per plain step: (LONG item's - SHORT item's) / the steps between them, each count apart."""
    (_, _), (short, n_short), (long_, n_long) = CALL_PLANS
    a, b = items[short], items[long_]
    return {key: (b[key] - a[key]) / (n_long - n_short) for key in ("all", "script")}


def _calls(task: dict[str, Any]) -> dict[str, Any]:
    from .common import SITE_CONFTEST, require_ok, run_pytest, write_suite
    from .site import flow, plan_yaml

    root = Path(task["work"]) / f"calls-{task['profile']}"
    write_suite(root, {f"plans/{name}.actions.yaml": plan_yaml(name, flow(steps)) for name, steps in CALL_PLANS},
                conftest_extra=SITE_CONFTEST + COUNT_CONFTEST)
    run = run_pytest(root, [f"--cometlocal-profile={task['profile']}"], timeout=task.get("timeout", 900))
    require_ok(run, f"calls, {task['profile']}", expected_passed=len(CALL_PLANS))
    items = {}
    for nodeid, report in run.reports.items():
        name = next((n for n, _ in CALL_PLANS if n in nodeid), None)
        if name and report.outcome == "passed":
            items[name] = {"all": report.props["calls_all"], "script": report.props["calls_script"],
                           "package": report.props["package"]}
    if len(items) != len(CALL_PLANS):
        raise SystemExit(f"calls, {task['profile']}: not every plan passed: {sorted(items)}")
    return {"items": items, "per_step": per_plain_step(items), "inner_package": items[CALL_PLANS[-1][0]]["package"]}


def _real(task: dict[str, Any]) -> dict[str, Any]:
    from .bench_real import _session

    s = _session(Path(task["work"]), task["variant"], task["round"], task["flows"], {}, True, tag=task.get("tag", ""))
    if "broken" in s:
        raise SystemExit(s["broken"])
    return {k: s[k] for k in ("variant", "round", "item_s", "cpu_s", "failed_items")}


def _bench(task: dict[str, Any]) -> dict[str, Any]:
    from .bench_overhead import bench_overhead

    os.environ["COMETLOCAL_BENCH_PROFILE"] = task["profile"]
    r = bench_overhead(Path(task["work"]) / f"bench-{task['profile']}", steps=task["steps"], rounds=task["rounds"],
                       floors=task.get("floors", False))
    return {k: v for k, v in r.items() if k in ("ratio_call", "plan_call_ms_per_step", "hand_call_ms_per_step",
                                                 "failed_items") or k.startswith(("floor_", "ratio_floor_", "ratio_plan_"))}


def _package(task: dict[str, Any]) -> dict[str, Any]:
    """Nothing measured: which package the side imports (main() adds it), checked before the long run."""
    return {}


TASKS = {"calls": _calls, "real": _real, "bench": _bench, "package": _package}


def result_line(result: dict[str, Any]) -> str:
    return RESULT_MARK + json.dumps(result, default=str)


def parse_result(stdout: str) -> dict[str, Any] | None:
    """The child's answer: the last RESULT_MARK line of its stdout, or None when it gave none."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            return json.loads(line[len(RESULT_MARK):])
    return None


def main(argv: list[str]) -> int:
    task = json.loads(argv[0])
    import pytest_cometlocal

    Path(task["work"]).mkdir(parents=True, exist_ok=True)
    result = TASKS[task["task"]](task)
    result["package"] = str(Path(pytest_cometlocal.__file__).resolve().parent)
    print(result_line(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
