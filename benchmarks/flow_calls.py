"""The real flow in one process, plan and hand-written side by side, step by step; optionally every
Playwright call of one flow.

    .venv/bin/python -m benchmarks.flow_calls                      # hand, fast, balanced; 4 flows each
    .venv/bin/python -m benchmarks.flow_calls --flows 8 --variants hand,hand+read,hand+empty-reads,hand+look
    .venv/bin/python -m benchmarks.flow_calls --variants fast,fast-no-critical --calls calls.txt

Why: bench_real.py runs each variant in a pytest process of its own, where the processes' start-up and
the machine's drift between them are most of the spread. Here every variant shares one browser and one
Django admin (tests/django_admin.py), alternating flow by flow after one warm-up round, and each flow's
time is split by step (the plan's trace events; the hand-written flow's own marks). ``--calls`` logs
each Playwright protocol call of the last plan flow with its duration, between the trace's events: where
a step's time goes. It wraps ``Channel._inner_send``, a private part of Playwright's client: this is a
measuring tool, never the plugin, and it stops with one line when that part is gone.

Variants: the hand-written flow is real_flow.HAND_TEST's own (``hand``), in its reads modes
(``hand+read``: the plan's one read a step; ``hand+reads``: a look before and after; ``hand+empty-reads``:
those calls reading nothing; ``hand+picture``: one read and balanced's picture), and ``hand+look``: the
look alone before each step, no selector; a profile (``fast``, ``balanced``, ``forensic``), and a profile
with ``-no-critical`` (the plan without its two critical steps); ``balanced`` and ``balanced-no-critical`` with
``-unfenced``: every fresh picture replaced by the newest frame of a screencast kept running (``unfenced.py``:
the price of a contract decision, not the plugin).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .real_flow import HAND_TEST, PLAN
from .unfenced import unfenced_pictures

KINDS = ["navigate", "fill", "fill", "click", "click", "click", "fill", "upload", "click", "assert", "click",
         "assert", "click", "assert"]
PROFILES = ("fast", "balanced", "forensic")


# The hand-written variants: real_flow.HAND_TEST's own flow, in each of its ``reads`` modes ("one": the plan's
# one read a step, "plan": a look before and after, "empty": the same calls reading nothing, "picture": one
# read and balanced's picture), and "look": the look alone before each step, no selector.
HAND = {"hand": "", "hand+read": "one", "hand+reads": "plan", "hand+empty-reads": "empty",
        "hand+picture": "picture", "hand+look": ""}


def hand_module(variant: str, root: Path) -> dict[str, Any]:
    """HAND_TEST in ``variant``'s reads mode, run as a module whose file is in ``root`` (its note to upload
    is ``root``/plans/files/note.txt): its ``flow(page, url, title)``, ``before``, ``after``."""
    text = HAND_TEST.format(timeout=10_000, titles=[], traced=False, reads=HAND[variant])
    module: dict[str, Any] = {"__file__": str(root / "test_hand.py"), "__name__": "flow_calls_hand"}
    exec(compile(text, "benchmarks/real_flow.py:HAND_TEST", "exec"), module)  # noqa: S102 - our own template
    if variant == "hand+look":
        from pytest_cometlocal.executor.page.observation import OBSERVE_JS, look_arg

        arg = look_arg((os.environ["BENCH_ADMIN_PASSWORD"],), True)
        module["before"] = lambda page, locator=None: (page.evaluate(OBSERVE_JS, arg), locator)[1]
    return module


class CallLog:
    """Every Playwright call while installed: (start, ms, object type, method, parameters cut)."""

    def __init__(self) -> None:
        try:
            from playwright._impl._connection import Channel
        except ImportError:
            raise SystemExit("flow_calls --calls: this Playwright has no _impl._connection.Channel") from None
        original = getattr(Channel, "_inner_send", None)
        if original is None:
            raise SystemExit("flow_calls --calls: this Playwright's Channel has no _inner_send")
        self.rows: list[tuple[float, float, str, str, str]] = []
        rows = self.rows

        async def timed(channel: Any, method: str, *args: Any) -> Any:
            start = time.time()
            try:
                return await original(channel, method, *args)
            finally:
                params = args[1] if len(args) > 1 else None
                rows.append((start, (time.time() - start) * 1000, type(channel._object).__name__, method,
                             str(params)[:90]))

        Channel._inner_send = timed  # type: ignore[method-assign]


def _plan_flow(browser: Any, root: Path, url: str, variant: str, title: str, env: dict[str, str]) -> tuple[float, list[float], Path]:
    from pytest_cometlocal.contract.settings import effective_settings
    from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text
    from pytest_cometlocal.executor.session import run_plan

    text = PLAN.format(tag=title.lower(), title=title, timeout=10_000)
    name, unfenced = variant, variant.endswith("-unfenced")
    variant = variant.removesuffix("-unfenced")
    if variant.endswith("-no-critical"):
        text, critical = text.replace("criticality: critical, ", ""), text
        if text == critical:
            raise SystemExit("flow_calls: real_flow.PLAN has no 'criticality: critical, ' left to take out")
    path = root / "plans" / (re.sub(r"\W+", "-", title) + ".actions.yaml")
    path.write_text(text)
    (valid,) = validate_text(path.read_bytes(), ValidationContext(root=root, plan_path=path, env=env),
                             file=str(path.relative_to(root)))
    if isinstance(valid, InvalidPlan):
        raise SystemExit("\n".join(p.format() for p in valid.problems))
    settings = effective_settings(valid, default_base_url=url, env=env, cli_profile=variant.removesuffix("-no-critical"))
    with unfenced_pictures() if unfenced else contextlib.nullcontext():
        start = time.perf_counter()
        result = run_plan(browser, valid, root / "runs", settings)
        total = time.perf_counter() - start
    if result.status != "passed":
        raise SystemExit(f"{name}: the plan {result.status}")
    run_dir = Path(result.run_dir)
    stamps = [(datetime.fromisoformat(e["ts_utc"]).timestamp(), e["event_type"])
              for e in map(json.loads, (run_dir / "trace.jsonl").read_text().splitlines()) if e.get("ts_utc")]
    ends = [t for t, kind in stamps if kind in ("run_started", "evidence_captured")]
    return total, [(b - a) * 1000 for a, b in zip(ends, ends[1:])], run_dir


def _hand(browser: Any, url: str, variant: str, title: str, root: Path) -> tuple[float, list[float]]:
    """One hand-written flow in a context of its own; each step's ms, from one ``before`` call to the next
    (the flow calls it at the start of each of its 14 steps; "one" and "picture" once more at its end)."""
    from pytest_cometlocal.executor.session import DEFAULT_CONTEXT_ARGS

    module = hand_module(variant, root)
    marks: list[float] = []
    before = module["before"]

    def marked(page: Any, locator: Any = None) -> Any:
        marks.append(time.perf_counter())
        return before(page, locator)

    module["before"] = marked
    start = time.perf_counter()
    context = browser.new_context(**DEFAULT_CONTEXT_ARGS)
    try:
        module["flow"](context.new_page(), url, title)
        marks = marks[:len(KINDS)] + [time.perf_counter()]
    finally:
        context.close()
    return time.perf_counter() - start, [(b - a) * 1000 for a, b in zip(marks, marks[1:])]


@dataclass
class Tally:
    """What the flows gave: seconds a flow and ms a step by variant, the calls logged."""

    totals: dict[str, list[float]] = field(default_factory=dict)
    steps: dict[str, list[list[float]]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.flow_calls", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--flows", type=int, default=4, help="counted flows a variant, after one warm-up (default 4)")
    p.add_argument("--variants", default="hand,fast,balanced", help="comma-separated (default hand,fast,balanced)")
    p.add_argument("--calls", metavar="FILE", help="log every Playwright call of each plan variant's last flow there")
    args = p.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    known = set(HAND) | set(PROFILES) | {f + "-no-critical" for f in PROFILES}
    known |= {f + "-unfenced" for f in known if f.startswith("balanced")}
    if unknown := [v for v in variants if v not in known]:
        p.error(f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(sorted(known))}")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.django_admin import PASSWORD, django_admin

    os.environ["BENCH_ADMIN_PASSWORD"] = PASSWORD  # HAND_TEST reads it, as in bench_real's processes

    tally = Tally({v: [] for v in variants}, {v: [] for v in variants})
    log = CallLog() if args.calls else None
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "django").mkdir()
        with django_admin(Path(tmp) / "django") as url:
            _flows(variants, args.flows, url, Path(tmp) / "suite", log, tally)
    _report(variants, tally)
    if args.calls:
        Path(args.calls).write_text("\n".join(tally.calls) + "\n")
        print(f"calls written to {args.calls}")
    return 0


def _flows(variants: list[str], flows: int, url: str, root: Path, log: CallLog | None, tally: Tally) -> None:
    """Every variant's flows, alternating, in one browser; the first round warms every variant up."""
    from pytest_cometlocal.executor.browser.manager import BrowserManager
    from tests.django_admin import PASSWORD

    (root / "plans" / "files").mkdir(parents=True)
    note = root / "plans" / "files" / "note.txt"
    note.write_text("A short note to upload.\n")
    manager = BrowserManager({"headless": True}, None)
    try:
        browser = manager.browser()
        for flow in range(flows + 1):
            for variant in variants:
                title = f"Doc {variant} {flow} {time.time_ns()}"
                if variant in HAND:
                    total, per_step = _hand(browser, url, variant, title, root)
                else:
                    first = len(log.rows) if log else 0
                    total, per_step, run_dir = _plan_flow(browser, root, url, variant, title,
                                                          {"BENCH_ADMIN_PASSWORD": PASSWORD})
                    if log and flow == flows:
                        tally.calls += [f"== {variant}", *_calls_between(log.rows[first:], run_dir)]
                if flow:
                    tally.totals[variant].append(total)
                    tally.steps[variant].append(per_step)
    finally:
        manager.close()


def _calls_between(rows: list[tuple[float, float, str, str, str]], run_dir: Path) -> list[str]:
    """The calls and the trace's events of one run, in time order, ms from the run's start."""
    events = [(datetime.fromisoformat(e["ts_utc"]).timestamp(), f"-- {e['step_id'] or ''} {e['event_type']}")
              for e in map(json.loads, (run_dir / "trace.jsonl").read_text().splitlines()) if e.get("ts_utc")]
    start = events[0][0]
    lines = sorted(events + [(t, f"{ms:7.1f} ms {kind}.{method} {params}") for t, ms, kind, method, params in rows
                             if t >= start])
    return [f"{(t - start) * 1000:8.1f} {text}" for t, text in lines]


def _report(variants: list[str], tally: Tally) -> None:
    totals, steps = tally.totals, tally.steps
    hand = statistics.median(totals["hand"]) if totals.get("hand") else None
    print(f"{'variant':22s} {'median s/flow':>13s} {'min':>7s} {'max':>7s} {'/ hand':>7s}")
    for variant in variants:
        med = statistics.median(totals[variant])
        ratio = f"{med / hand:6.2f}x" if hand else "      -"
        print(f"{variant:22s} {med:13.3f} {min(totals[variant]):7.3f} {max(totals[variant]):7.3f} {ratio}")
    print("\nmedian ms a step:")
    for variant in variants:
        per = [statistics.median(column) for column in zip(*steps[variant])]
        print(f"  {variant:20s} " + " ".join(f"{kind}:{ms:.0f}" for kind, ms in zip(KINDS, per)))


if __name__ == "__main__":
    raise SystemExit(main())
