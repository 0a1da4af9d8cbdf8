"""What a v1.2 ``request`` step costs against the same call made by hand in Playwright (issue 37).

One inner pytest session (a fresh process) serves ``api_site.py`` on 127.0.0.1
and runs, in the same Chromium, three kinds of item with the same number of
steps, alternating round by round (the order rotates: a b c, b c a, c a b, ...;
round 0 of each kind is a warm-up, not counted):

- (a) ``request`` plan: pairs of a ``POST /api/items`` with a JSON body that
  ``save``s the new item's ``/id`` (``response_status`` 201 + ``response_json``
  ``/title``), then a ``GET /api/items/${saved.item_<k>}`` (200 + ``/title``);
- (b) hand-written pytest-playwright test: the same calls through
  ``page.context.request`` (the same client a ``request`` step uses) with the
  same checks by hand (``status``, ``json()``);
- (c) for context, a v1 plan of navigate (title) / assert (``#status`` text)
  steps on the bench page.

Per item: the pytest call phase and the steps alone (the trace's
``run_started`` -> ``run_finished`` for a plan, ``perf_counter`` around the
calls by hand), in ms per step. With ``cprofile``, a separate run of (a) alone
is profiled (the call phase of each counted item) and the time is split into
the HTTP call, the looks before/after, the evidence file, the trace, hashing.
That split is wall clock (bench_profile's timer, run again on (a) alone): cProfile
cannot see through Playwright's greenlet switches (a ``fetch`` shows as ~0 ms), so
its stats only go to the file for digging into the Python side.
"""

from __future__ import annotations

import pstats
from pathlib import Path
from typing import Any

from .bench_overhead import _trace_span_s
from .common import SHARED_BROWSER_FIXTURES, median, require_ok, run_pytest, table, write_suite
from .site import TITLE, Step, plan_yaml

KINDS = ("request", "hand", "navigate")
LABELS = {"request": "(a) plan, request steps", "hand": "(b) hand-written, context.request",
          "navigate": "(c) plan, v1 navigate/assert steps"}

CONFTEST = '''
import os
import re as _re

import pytest
from benchmarks.api_site import ApiSite


@pytest.fixture(scope="session")
def bench_site():
    with ApiSite() as site:
        yield site


@pytest.fixture
def cometlocal_base_url(bench_site):
    return bench_site.url


@pytest.fixture
def bench_url(bench_site):
    return bench_site.url


def _kind(nodeid):
    path = nodeid.split("::")[0]
    return "request" if "/request_" in path else "navigate" if "/navigate_" in path else "hand"


def pytest_collection_modifyitems(items):
    """Round by round (round 0 first), the kinds in a rotating order: a b c, b c a, c a b."""
    kinds = ("request", "hand", "navigate")

    def key(item):
        m = _re.search(r"round-(\\d+)", item.nodeid)
        rnd = int(m.group(1)) if m else -1
        return (rnd, (kinds.index(_kind(item.nodeid)) - rnd) % 3)
    items.sort(key=key)


_TIMER = None


def pytest_configure(config):
    """BENCH_HTTP_PROFILE: the step profile's wall-clock timer (benchmarks/bench_profile.py) on the call phases."""
    global _TIMER
    if os.environ.get("BENCH_HTTP_PROFILE"):
        from benchmarks.bench_http import instrument_http
        from benchmarks.bench_profile import NestedTimer

        _TIMER = NestedTimer()
        instrument_http(_TIMER)


def pytest_sessionfinish(session):
    if _TIMER is not None:
        import json

        with open(os.environ["BENCH_HTTP_PROFILE"], "w", encoding="utf-8") as fh:
            json.dump({name: [[list(p), v] for p, v in getattr(_TIMER, name).items()]
                       for name in ("incl", "excl", "calls")}, fh)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Only the counted items (not round 0) are profiled: BENCH_HTTP_PROFILE (wall clock), BENCH_CPROFILE_DIR."""
    folder = os.environ.get("BENCH_CPROFILE_DIR")
    if "round-00" in item.nodeid or not (folder or _TIMER):
        yield
        return
    import cProfile

    prof = cProfile.Profile() if folder else None
    if prof:
        prof.enable()
    if _TIMER:
        _TIMER.active = True
    yield
    if _TIMER:
        _TIMER.active = False
    if prof:
        prof.disable()
        prof.dump_stats(os.path.join(folder, _re.sub(r"[^A-Za-z0-9_.-]+", "_", item.nodeid) + ".prof"))
''' + SHARED_BROWSER_FIXTURES

HAND_TEST = '''"""Hand-written pytest-playwright test: the plan's calls through context.request, checked by hand."""
import time

import pytest


@pytest.mark.parametrize("round_", range({rounds}), ids=[f"round-{{i:02d}}" for i in range({rounds})])
def test_hand(page, bench_url, record_property, round_):
    api = page.context.request
    start = time.perf_counter()
{body}    record_property("steps_s", time.perf_counter() - start)
'''


# Every step of both plans starts from the same page state (a blank page; the bench page): the
# anti-loop rule would halt the third side-effecting one (same_state_revisits, default 2).
POLICY = "policy: {same_state_revisits: 1000, hard_cap_steps: 1000}"


def request_plan(name: str, steps: int) -> str:
    """``steps`` request steps: POST (JSON body, save /id) then GET ${saved...}, each checked by status and JSON."""
    lines = [f"name: {name}", "tags: [bench, http]", POLICY, "defaults:", "  criticality: normal", "  timeout_ms: 5000",
             "  preconditions: [{kind: host_in_allowlist}]", "steps:"]
    for i in range(steps):
        k = i // 2 + 1
        if i % 2 == 0:
            lines += [f"  - id: s{i:02d}_create", "    kind: request", "    method: POST", "    url: /api/items",
                      f"    json: {{title: t-{k}}}", f"    save: {{item_{k}: /id}}", "    postconditions:",
                      "      - {kind: response_status, args: {status: 201}}",
                      f"      - {{kind: response_json, args: {{pointer: /title, equals: t-{k}}}}}"]
        else:
            lines += [f"  - id: s{i:02d}_read", "    kind: request", "    method: GET",
                      f"    url: /api/items/${{saved.item_{k}}}", "    postconditions:",
                      "      - {kind: response_status, args: {status: 200}}",
                      f"      - {{kind: response_json, args: {{pointer: /title, equals: t-{k}}}}}"]
    return "\n".join(lines) + "\n"


def hand_body(steps: int, indent: str = "    ") -> str:
    """The same calls as ``request_plan(steps)``, by hand: ``data=dict`` is sent as JSON."""
    out = []
    for i in range(steps):
        k = i // 2 + 1
        if i % 2 == 0:
            out += [f"r = api.post(bench_url + '/api/items', data={{'title': 't-{k}'}})", "assert r.status == 201",
                    "body = r.json()", f"assert body['title'] == 't-{k}'", f"item_{k} = body['id']"]
        else:
            out += [f"r = api.get(bench_url + '/api/items/' + item_{k})", "assert r.status == 200",
                    f"assert r.json()['title'] == 't-{k}'"]
    return "".join(indent + line + "\n" for line in out)


def navigate_plan(name: str, steps: int) -> str:
    """``steps`` v1 steps on the bench page: navigate (title check) and assert (#status), alternating."""
    pair = [Step("navigate", "/bench", check_text=TITLE), Step("assert", check_selector="#status",
                                                               check_text="Rows applied: 0")]
    return plan_yaml(name, [pair[i % 2] for i in range(steps)]).replace("tags: [bench]\n", f"tags: [bench]\n{POLICY}\n", 1)


def suite_files(steps: int, rounds: int) -> dict[str, str]:
    """Plans (a) and (c) and test (b), ``rounds`` counted rounds plus round 0 (the warm-up)."""
    files = {}
    for i in range(rounds + 1):
        files[f"plans/request_{i:02d}.actions.yaml"] = request_plan(f"request round-{i:02d}", steps)
        files[f"plans/navigate_{i:02d}.actions.yaml"] = navigate_plan(f"navigate round-{i:02d}", steps)
    files["test_hand.py"] = HAND_TEST.format(rounds=rounds + 1, body=hand_body(steps))
    return files


def _kind(nodeid: str) -> str:
    path = nodeid.split("::")[0]
    return "request" if "/request_" in path else "navigate" if "/navigate_" in path else "hand"


def _plan_spans(root: Path) -> dict[str, list[float]]:
    """Counted, passed plan runs: kind -> trace spans (s)."""
    import json

    spans: dict[str, list[float]] = {"request": [], "navigate": []}
    for run_dir in sorted((root / "runs").iterdir()):
        manifest = json.loads((run_dir / "run_manifest.json").read_text(encoding="utf-8"))
        name = manifest["plan"]["name"]
        if "round-00" not in name and manifest["status"] == "passed":
            spans[name.split()[0]].append(_trace_span_s(run_dir))
    return spans


def instrument_http(timer: Any) -> None:
    """The step profile's points (bench_profile.instrument) and a request step's own: the HTTP call,
    reading the body, the exchange's evidence document."""
    from playwright.sync_api._generated import APIRequestContext, APIResponse

    from pytest_cometlocal.executor.http import client

    from .bench_profile import instrument

    instrument(timer)
    timer.patch(APIRequestContext, "fetch", "pw.request.fetch")
    timer.patch(APIResponse, "body", "pw.response.body")
    timer.patch(APIResponse, "dispose", "pw.response.dispose")
    timer.patch(client, "evidence_document", "http evidence document (mask, cut)")


def _profile(root: Path, steps: int, rounds: int, out: str) -> dict[str, Any]:
    """(a) alone, twice: under the wall-clock step profile (printed), then under cProfile (stats to ``out``)."""
    import json

    from .bench_profile import NestedTimer, _report

    record = root / "http_profile.json"
    run = run_pytest(root, ["plans", "-k", "request"], env={"BENCH_HTTP_PROFILE": str(record)})
    require_ok(run, "http (step profile)", expected_passed=rounds + 1)
    timer = NestedTimer()
    for name, rows in json.loads(record.read_text(encoding="utf-8")).items():
        getattr(timer, name).update({tuple(p): v for p, v in rows})
    report = _report(timer, steps * rounds, f"Where a request step's time goes — (a) alone, {rounds} items, wall clock")
    folder = root / "cprofile"
    folder.mkdir(exist_ok=True)
    run = run_pytest(root, ["plans", "-k", "request"], env={"BENCH_CPROFILE_DIR": str(folder)})
    require_ok(run, "http (cProfile)", expected_passed=rounds + 1)
    files = sorted(folder.glob("*.prof"))
    if files:
        pstats.Stats(*(str(f) for f in files)).dump_stats(out)
        print(f"cProfile stats of the same items (a separate run) in {out}")
    return report


def bench_http(work: Path, *, steps: int = 20, rounds: int = 5, cprofile: str | None = None) -> dict[str, Any]:
    if steps < 2 or steps % 2:
        raise ValueError("steps: an even number >= 2 (POST/GET pairs)")
    root = work / "http"
    write_suite(root, suite_files(steps, rounds), conftest_extra=CONFTEST)
    run = run_pytest(root, [])
    failed = require_ok(run, "http", expected_passed=3 * (rounds + 1))
    calls: dict[str, list[float]] = {k: [] for k in KINDS}
    hand_steps: list[float] = []
    for nodeid, r in run.reports.items():
        if "round-00" in nodeid or r.outcome != "passed":
            continue
        calls[_kind(nodeid)].append(r.call * 1000 / steps)
        if _kind(nodeid) == "hand":
            hand_steps.append(r.props["steps_s"] * 1000 / steps)
    missing = [k for k in KINDS if not calls[k]]
    if missing:
        raise SystemExit(f"http: no counted item of {', '.join(missing)} passed; see the warning above")
    spans = {k: [v * 1000 / steps for v in vs] for k, vs in _plan_spans(root).items()}
    spans["hand"] = hand_steps
    res: dict[str, Any] = {"steps": steps, "rounds": rounds, "run_root": str(root), "failed_items": failed,
                           "call_ms_per_step": calls, "steps_ms_per_step": spans}
    med = {k: median(calls[k]) for k in KINDS}
    med_steps = {k: median(spans[k]) for k in KINDS}
    res["median_call_ms_per_step"], res["median_steps_ms_per_step"] = med, med_steps
    res["ratio_call"] = med["request"] / med["hand"]
    res["ratio_steps"] = med_steps["request"] / med_steps["hand"]
    rows = [[LABELS[k], med[k], min(calls[k], default=float("nan")), max(calls[k], default=float("nan")),
             med_steps[k], f"{med[k] / med['hand']:.1f}x"] for k in KINDS]
    print(f"\n## HTTP steps — {steps} steps per item ({steps // 2} POST + {steps // 2} GET with save/${{saved}}; "
          f"(c) navigate/assert), {rounds} rounds alternating a/b/c, one pytest session, one Chromium")
    print("goal: none set (issue 37 asks for the figure); (a)/(b) is reported next to a v1 step's (c)/(b)")
    print(table(["item", "call ms/step (median)", "min", "max", "steps only ms/step", "vs (b), call"], rows))
    print(f"(a)/(b): {res['ratio_call']:.1f}x per step in the call phase ({med['request']:.1f} vs {med['hand']:.1f} ms), "
          f"{res['ratio_steps']:.1f}x steps only; a request step costs {med['request'] - med['hand']:.1f} ms more than the call by hand")
    for k in KINDS:
        print(f"per-round call ms/step — {k}: {', '.join(f'{v:.1f}' for v in calls[k])}")
    if cprofile:
        res["step_profile"] = _profile(root, steps, rounds, cprofile)
        res["cprofile_file"] = cprofile
    return res


__all__ = ["bench_http", "request_plan", "navigate_plan", "hand_body", "suite_files", "instrument_http"]
