"""Scaling with page size: plan items vs hand-written pytest-playwright tests on content-full pages.

The page (``/scale/N``, served by the inner pytest session, see ``ScaleSite``)
is a table of N rows; each row has a text cell, a link, a labelled text input,
a labelled checkbox, a labelled select and a button, and an output cell. The
same 21-step flow (navigate, then on four rows spread over the table: fill,
select, tick the checkbox, click Apply, assert the status line; every step
with a postcondition that holds) is written twice: as a plan and as a
hand-written pytest-playwright test with ``expect()`` checks, as the overhead
section pairs them (``benchmarks/bench_overhead.py``).

Element targets are test ids (``data-testid``; checks use CSS), for both kinds:
Playwright's own label and role engines do not scale to such pages, for plans
and hand-written tests alike (measured here, 2 shared CPUs: one
``get_by_label(exact=True).count()`` took 0.09 s at 100 rows, 2.5 s at 1,000,
78 s at 5,000; the first ``get_by_role("button", name=...)`` on a 5,000-row page
17.6 s, later ones 0.3 s). With those targets the figures would time
Playwright's selector engines, not the executor.

Per page size N, three kinds of inner pytest sessions on the same generated suite:

1. **Timing** — plans and hand-written tests in one session, one Chromium
   (pytest-playwright's ``browser`` is the plugin's), the plugin's context
   options for both, items alternating plan/hand, hand/plan (ABBA) round by
   round; round 0 of each kind is a warm-up and is not counted. Timed: pytest's
   ``call`` duration (the test body). The ratio is the median over rounds of
   plan/hand of the same round.
2. **CPU, separate sessions** — plans only, hand-written only, and a baseline
   (one empty test with a page: start-up, collection, browser launch), each
   run under ``benchmarks/cputree.py``, which reaps every orphaned Chromium
   process so that ``RUSAGE_CHILDREN`` holds the CPU of the whole tree (around
   a plain ``subprocess.run`` it misses the renderers). CPU per flow =
   (session - baseline) / flows; the raw figure (session / flows) is given too.
3. **xdist** (one size) — the plans-only and hand-only sessions again with
   ``-n 2``; scaling = items span with ``-n 1`` / items span with ``-n 2``
   (1.0 no gain, 2.0 perfect), process wall given too.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from pathlib import Path
from typing import Any

from .common import SHARED_BROWSER_FIXTURES, Report, median, require_ok, run_pytest, table, verdict, write_suite
from .site import BenchSite

STEPS = 21
TIMEOUT_MS = 15_000
GOAL = 1.5

# --------------------------------------------------------------------------- the page


def scale_page_html(rows: int) -> str:
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><link rel='icon' href='data:,'>"
        f"<title>Scale {rows} rows</title><style>body{{font-family:sans-serif;margin:1rem}}"
        " td{padding:2px 6px;border-bottom:1px solid #ddd} label{margin-right:.3rem}</style></head>"
        f"<body><main><h1>Scale {rows} rows</h1><p id='status'>Rows applied: 0</p>"
        "<table><thead><tr><th>Item</th><th>Link</th><th>Name</th><th>Mark</th><th>Size</th><th>Action</th>"
        "<th>Result</th></tr></thead><tbody id='rows'>"
    ]
    for i in range(1, rows + 1):
        parts.append(
            f"<tr id='row-{i}'><td>Item {i} of the catalogue</td>"
            f"<td><a href='#row-{i}'>Details {i}</a></td>"
            f"<td><label for='name-{i}'>Name {i}</label><input id='name-{i}' name='name-{i}' data-testid='name-{i}'></td>"
            f"<td><input type='checkbox' id='mark-{i}' name='mark-{i}' data-testid='mark-{i}'><label for='mark-{i}'>Mark {i}</label></td>"
            f"<td><label for='size-{i}'>Size {i}</label><select id='size-{i}' name='size-{i}' data-testid='size-{i}'>"
            "<option value=''>Choose</option><option value='S'>Small</option><option value='M'>Medium</option>"
            "<option value='L'>Large</option></select></td>"
            f"<td><button type='button' data-row='{i}' data-testid='apply-{i}'>Apply {i}</button></td>"
            f"<td id='out-{i}'>pending</td></tr>"
        )
    parts.append("""</tbody></table><script>
let applied = 0;
const rows = document.getElementById('rows');
rows.addEventListener('click', (ev) => {
  const b = ev.target.closest('button[data-row]');
  if (!b) return;
  const i = b.dataset.row;
  const name = document.getElementById('name-' + i).value;
  const size = document.getElementById('size-' + i).value;
  const mark = document.getElementById('mark-' + i).checked ? 'marked' : 'unmarked';
  document.getElementById('out-' + i).textContent = 'Applied ' + name + ' (' + size + ', ' + mark + ')';
  applied += 1;
  document.getElementById('status').textContent = 'Rows applied: ' + applied;
});
rows.addEventListener('change', (ev) => {
  const t = ev.target;
  if (t.type !== 'checkbox') return;
  document.getElementById('out-' + t.id.slice(5)).textContent = t.checked ? 'Marked' : 'Unmarked';
});
</script></main></body></html>""")
    return "".join(parts)


class ScaleSite(BenchSite):
    """``with ScaleSite() as site: site.url + "/scale/1000"``: the N-row page, built once per N."""

    def __init__(self) -> None:
        super().__init__()
        self._pages: dict[int, bytes] = {}
        self._lock = threading.Lock()

    def route(self, path: str) -> bytes | None:
        if not (path.startswith("/scale/") and path[7:].isdigit() and 0 < int(path[7:]) <= 100_000):
            return None
        rows = int(path[7:])
        with self._lock:
            if rows not in self._pages:
                self._pages[rows] = scale_page_html(rows).encode()
            return self._pages[rows]


# --------------------------------------------------------------------------- the flow


@dataclass(frozen=True)
class Step:
    kind: str  # navigate | fill | select | click | assert
    target: tuple[str, str] = ("", "")  # (how, what): url / testid / button (role + name) / none
    value: str = ""
    check: tuple[str, str] = ("", "")  # (what, expected): title / value / css selector


def chosen_rows(rows: int) -> list[int]:
    """Four rows spread over the table: the first, a third, two thirds, the last."""
    out: list[int] = []
    for r in (1, max(1, rows // 3), max(1, 2 * rows // 3), rows):
        if r not in out:
            out.append(r)
    return out


def scale_flow(rows: int) -> list[Step]:
    """navigate, then per chosen row: fill, select, tick, apply (its output checked), assert the status."""
    out = [Step("navigate", ("url", f"/scale/{rows}"), check=("title", f"Scale {rows} rows"))]
    for k, r in enumerate(chosen_rows(rows), 1):
        name = f"user-{r}"
        out += [
            Step("fill", ("testid", f"name-{r}"), name, check=("value", name)),
            Step("select", ("testid", f"size-{r}"), "M", check=("value", "M")),
            Step("click", ("testid", f"mark-{r}"), check=(f"#out-{r}", "Marked")),
            Step("click", ("testid", f"apply-{r}"), check=(f"#out-{r}", f"Applied {name} (M, marked)")),
            Step("assert", check=("#status", f"Rows applied: {k}")),
        ]
    return out


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def plan_yaml(name: str, steps: list[Step]) -> str:
    lines = [f"name: {name}", "tags: [bench, scaling]", "defaults:", "  criticality: normal",
             f"  timeout_ms: {TIMEOUT_MS}", "  preconditions: [{kind: host_in_allowlist}]",
             "  postconditions: [{kind: host_in_allowlist}]", "steps:"]
    for i, s in enumerate(steps):
        lines += [f"  - id: s{i:02d}_{s.kind}", f"    kind: {s.kind}"]
        how, what = s.target
        if how == "url":
            lines.append(f"    target: {{type: url, url: {what}}}")
        elif how == "testid":
            lines.append(f"    target: {{type: testid, id: {_q(what)}}}")
        elif how == "button":
            lines.append(f"    target: {{type: role, role: button, name: {_q(what)}, exact: true}}")
        if s.kind in ("fill", "select"):
            lines.append(f"    value: {_q(s.value)}")
        on, expected = s.check
        if on == "title":
            cond = f"{{kind: title_contains, args: {{text: {_q(expected)}}}}}"
        elif on == "value":
            cond = f"{{kind: element_value_equals, args: {{value: {_q(expected)}}}}}"
        else:
            cond = ("{kind: element_text_contains, args: "
                    f"{{target: {{type: css, selector: {_q(on)}}}, text: {_q(expected)}}}}}")
        lines.append(f"    postconditions: [{cond}]")
    return "\n".join(lines) + "\n"


def hand_body(steps: list[Step], indent: str = "    ") -> str:
    """The same actions and the same checks, unrolled, with pytest-playwright and ``expect``."""
    out = []
    for s in steps:
        how, what = s.target
        on, expected = s.check
        if s.kind == "navigate":
            out.append(f"page.goto(bench_url + {what!r})")
            out.append(f"expect(page).to_have_title(re.compile(re.escape({expected!r})))")
            continue
        if how == "testid":
            out.append(f"loc = page.get_by_test_id({what!r})")
        elif how == "button":
            out.append(f"loc = page.get_by_role('button', name={what!r}, exact=True)")
        if s.kind == "fill":
            out.append(f"loc.fill({s.value!r})")
        elif s.kind == "select":
            out.append(f"loc.select_option({s.value!r})")
        elif s.kind == "click":
            out.append("loc.click()")
        if on == "value":
            out.append(f"expect(loc).to_have_value({expected!r})")
        else:
            out.append(f"expect(page.locator({on!r})).to_contain_text({expected!r})")
    return "".join(indent + line + "\n" for line in out)


# --------------------------------------------------------------------------- the inner suite

SCALE_CONFTEST = '''
import pytest
from benchmarks.bench_scaling import ScaleSite


@pytest.fixture(scope="session")
def scale_site():
    with ScaleSite() as site:
        yield site


@pytest.fixture
def cometlocal_base_url(scale_site):
    return scale_site.url


@pytest.fixture
def bench_url(scale_site):
    return scale_site.url

''' + SHARED_BROWSER_FIXTURES

ORDER_CONFTEST = '''

import re as _re


def pytest_collection_modifyitems(items):
    """Alternate plan and hand-written items round by round (ABBA); round 0 first; others last."""
    def key(item):
        m = _re.search(r"round-(\\d+)", item.nodeid)
        rnd = int(m.group(1)) if m else 10**6
        plan = item.nodeid.split("::")[0].endswith((".actions.yaml", ".actions.yml"))
        first_plan = rnd % 2 == 0
        return (rnd, 0 if plan == first_plan else 1)
    items.sort(key=key)
'''

HAND_TEST = '''"""Hand-written pytest-playwright test: the same flow as the plan, checked with expect()."""
import re

import pytest
from playwright.sync_api import expect

expect.set_options(timeout={timeout})


@pytest.mark.parametrize("round_", range({flows}), ids=[f"round-{{i:02d}}" for i in range({flows})])
def test_scale_{rows}(page, bench_url, round_):
{body}'''

BASELINE_TEST = '''"""Start-up only: the session, the browser, the site and one page, no flow."""


def test_baseline(page, bench_url):
    assert bench_url
'''


def _suite(root: Path, rows: int, flows: int) -> None:
    f = scale_flow(rows)
    assert len(f) == STEPS or rows < 4, len(f)
    files = {f"plans/scale_{i:02d}.actions.yaml": plan_yaml(f"scale {rows} round-{i:02d}", f) for i in range(flows)}
    files["test_scale_hand.py"] = HAND_TEST.format(timeout=TIMEOUT_MS, flows=flows, rows=rows, body=hand_body(f))
    files["test_baseline.py"] = BASELINE_TEST
    write_suite(root, files, conftest_extra=SCALE_CONFTEST + ORDER_CONFTEST)


def _is_plan(nodeid: str) -> bool:
    return ".actions.y" in nodeid.split("::")[0]


def _round(nodeid: str) -> int:
    import re

    m = re.search(r"round-(\d+)", nodeid)
    return int(m.group(1)) if m else -1


def _timing(root: Path, rows: int, rounds: int) -> dict[str, Any]:
    run = run_pytest(root, ["plans", "test_scale_hand.py"])
    failed = require_ok(run, f"scaling {rows} rows (timing)", expected_passed=2 * (rounds + 1))
    plan: dict[int, Report] = {}
    hand: dict[int, Report] = {}
    for nodeid, r in run.reports.items():
        rnd = _round(nodeid)
        if rnd <= 0 or r.outcome != "passed":
            continue
        (plan if _is_plan(nodeid) else hand)[rnd] = r
    both = sorted(set(plan) & set(hand))
    plan_call = [plan[i].call for i in both]
    hand_call = [hand[i].call for i in both]
    ratios = [plan[i].call / hand[i].call for i in both]
    return {
        "rounds_counted": len(both), "failed_items": failed, "wall_s": run.wall_s,
        "plan_call_s": plan_call, "hand_call_s": hand_call, "ratio_by_round": ratios,
        "plan_call_s_median": median(plan_call), "hand_call_s_median": median(hand_call),
        "ratio": median(ratios), "ratio_of_medians": median(plan_call) / median(hand_call) if both else float("nan"),
        "overhead_ms_per_step": (median(plan_call) - median(hand_call)) * 1000 / STEPS,
    }


def _session(root: Path, what: str, args: list[str], expected: int, workers: int = 1) -> dict[str, Any]:
    xdist = ["-n", str(workers)] if workers > 1 else []
    run = run_pytest(root, [*xdist, *args], cpu=True)
    failed = require_ok(run, what, expected_passed=expected)
    reports = list(run.reports.values())
    span = max(r.stop for r in reports) - min(r.start for r in reports) if reports else float("nan")
    assert run.cpu is not None
    return {"wall_s": run.cpu["wall_s"], "items_span_s": span, "cpu_s": run.cpu["user_s"] + run.cpu["sys_s"],
            "user_s": run.cpu["user_s"], "sys_s": run.cpu["sys_s"], "stragglers_killed": run.cpu["stragglers_killed"],
            "passed": run.passed(), "failed_items": failed}


def _cpu(root: Path, rows: int, flows: int) -> dict[str, Any]:
    """Baseline, plans only, hand-written only, baseline again (each a fresh session under cputree)."""
    base1 = _session(root, f"scaling {rows} rows (baseline)", ["test_baseline.py"], 1)
    plans = _session(root, f"scaling {rows} rows (plans only)", ["plans"], flows)
    hand = _session(root, f"scaling {rows} rows (hand-written only)", ["test_scale_hand.py"], flows)
    base2 = _session(root, f"scaling {rows} rows (baseline)", ["test_baseline.py"], 1)
    base = (base1["cpu_s"] + base2["cpu_s"]) / 2
    plan_net = (plans["cpu_s"] - base) / flows
    hand_net = (hand["cpu_s"] - base) / flows
    return {
        "flows": flows, "baseline_cpu_s": [base1["cpu_s"], base2["cpu_s"]], "plans": plans, "hand": hand,
        "plan_cpu_s_per_flow": plan_net, "hand_cpu_s_per_flow": hand_net,
        "ratio": plan_net / hand_net if hand_net > 0 else float("nan"),
        "plan_cpu_s_per_flow_raw": plans["cpu_s"] / flows, "hand_cpu_s_per_flow_raw": hand["cpu_s"] / flows,
        "ratio_raw": plans["cpu_s"] / hand["cpu_s"],
    }


def _xdist(root: Path, rows: int, flows: int, cpu: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"rows": rows, "flows": flows}
    for kind, args in (("plans", ["plans"]), ("hand", ["test_scale_hand.py"])):
        n1 = cpu[kind]
        n2 = _session(root, f"scaling {rows} rows ({kind}, -n 2)", args, flows, workers=2)
        out[kind] = {"n1": n1, "n2": n2, "scaling_span": n1["items_span_s"] / n2["items_span_s"],
                     "scaling_wall": n1["wall_s"] / n2["wall_s"]}
    return out


def bench_scaling(work: Path, *, sizes: tuple[int, ...] = (10, 100, 1000, 5000), rounds: int = 3,
                  big_rounds: int | None = None, xdist_rows: int | None = 1000) -> dict[str, Any]:
    """``rounds`` counted rounds per size (plus a warm-up), ``big_rounds`` for sizes >= 5,000;
    ``xdist_rows``: the size also run with ``-n 2`` (None: not run)."""
    result: dict[str, Any] = {"steps": STEPS, "goal_ratio": GOAL, "sizes": {}, "load_avg_start": os.getloadavg()}
    for rows in sizes:
        n = big_rounds if (big_rounds and rows >= 5000) else rounds
        flows = n + 1
        root = work / f"scaling-{rows}"
        _suite(root, rows, flows)
        load = os.getloadavg()[0]
        timing = _timing(root, rows, n)
        cpu = _cpu(root, rows, flows)
        entry: dict[str, Any] = {"rows": rows, "rounds": n, "load1_before": load, "timing": timing, "cpu": cpu,
                                 "html_bytes": len(scale_page_html(rows).encode())}
        if xdist_rows == rows:
            entry["xdist"] = _xdist(root, rows, flows, cpu)
        entry["load1_after"] = os.getloadavg()[0]
        result["sizes"][rows] = entry
        print(f"[scaling {rows} rows: ratio {timing['ratio']:.2f}x, CPU ratio {cpu['ratio']:.2f}x; "
              f"load {entry['load1_after']:.2f}]", flush=True)
    _print(result)
    return result


def _print(result: dict[str, Any]) -> None:
    sizes = result["sizes"]
    rows_out = []
    for rows, e in sizes.items():
        t, c = e["timing"], e["cpu"]
        rows_out.append([f"{rows:,}", e["rounds"], t["plan_call_s_median"], t["hand_call_s_median"],
                         f"{t['ratio']:.2f}x", t["overhead_ms_per_step"], verdict(t["ratio"] <= GOAL),
                         f"{e['load1_before']:.1f}"])
    print(f"\n## Scaling with page size — one {STEPS}-step flow (navigate; fill, select, tick, apply, assert on 4 rows) "
          "on an N-row table (text, link, input, checkbox, select, button per row); plans and hand-written "
          "alternating (ABBA) in one session, one Chromium; medians over counted rounds")
    print(table(["rows", "rounds", "plan s/flow", "hand s/flow", "ratio", "overhead ms/step", "goal <= 1.5x",
                 "load1"], rows_out))
    for rows, e in sizes.items():
        t = e["timing"]
        print(f"  {rows:,} rows, per-round call s — plan: {', '.join(f'{v:.2f}' for v in t['plan_call_s'])}; "
              f"hand: {', '.join(f'{v:.2f}' for v in t['hand_call_s'])}")

    cpu_rows = []
    for rows, e in sizes.items():
        c = e["cpu"]
        cpu_rows.append([f"{rows:,}", c["flows"], c["plan_cpu_s_per_flow"], c["hand_cpu_s_per_flow"], f"{c['ratio']:.2f}x",
                         verdict(c["ratio"] <= GOAL), f"{c['ratio_raw']:.2f}x",
                         f"{median(c['baseline_cpu_s']):.1f}"])
    print("\n### CPU time (user+sys, the pytest process and every child: driver, Chromium, renderers) — "
          "separate sessions (plans only / hand-written only), minus a baseline session, per flow")
    print(table(["rows", "flows/session", "plan CPU s/flow", "hand CPU s/flow", "ratio", "goal <= 1.5x",
                 "ratio incl. start-up", "baseline CPU s"], cpu_rows))

    for rows, e in sizes.items():
        x = e.get("xdist")
        if not x:
            continue
        print(f"\n### pytest-xdist, {rows:,} rows, {x['flows']} flows of each kind: -n 1 vs -n 2 (1.0 = no gain, 2.0 = perfect)")
        print(table(["kind", "-n 1 items span s", "-n 2 items span s", "scaling (items span)", "-n 1 wall s",
                     "-n 2 wall s", "scaling (process wall)"],
                    [[k, x[k]["n1"]["items_span_s"], x[k]["n2"]["items_span_s"], f"{x[k]['scaling_span']:.2f}x",
                      x[k]["n1"]["wall_s"], x[k]["n2"]["wall_s"], f"{x[k]['scaling_wall']:.2f}x"] for k in ("plans", "hand")]))


__all__ = ["bench_scaling", "scale_page_html", "scale_flow", "plan_yaml", "hand_body", "ScaleSite"]
