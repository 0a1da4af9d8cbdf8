"""The real flow in one process, plan and hand-written side by side, step by step; optionally every
Playwright call of one flow.

    .venv/bin/python -m benchmarks.flow_calls                      # hand, fast, balanced; 4 flows each
    .venv/bin/python -m benchmarks.flow_calls --flows 8 --variants hand,hand+read,hand+empty-read,hand+look
    .venv/bin/python -m benchmarks.flow_calls --variants fast,fast-no-critical --calls calls.txt

Why: bench_real.py runs each variant in a pytest process of its own, where the processes' start-up and
the machine's drift between them are most of the spread. Here every variant shares one browser and one
Django admin (tests/django_admin.py), alternating flow by flow after one warm-up round, and each flow's
time is split by step (the plan's trace events; the hand-written flow's own marks). ``--calls`` logs
each Playwright protocol call of the last plan flow with its duration, between the trace's events: where
a step's time goes. It wraps ``Channel._inner_send``, a private part of Playwright's client: this is a
measuring tool, never the plugin, and it stops with one line when that part is gone.

Variants: ``hand`` (benchmarks/real_flow.py's flow with the same ``expect()`` checks); ``hand+read``
(plus the plan's one read a step: the next target matched with the look, as the executor reads),
``hand+empty-read`` (the same calls, scripts that read nothing), ``hand+look`` (the look alone, no
selector); a profile (``fast``, ``balanced``, ``forensic``), and a profile with ``-no-critical`` (the
plan without its two critical steps).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from .real_flow import PLAN

KINDS = ["navigate", "fill", "fill", "click", "click", "click", "fill", "upload", "click", "assert", "click",
         "assert", "click", "assert"]
PROFILES = ("fast", "balanced", "forensic")


def _reader(variant: str, arg: Any) -> Callable[..., None]:
    """The read the hand-written flow makes before each step (none for ``hand``)."""
    from pytest_cometlocal.executor.page.locators import _MATCH_OBSERVE_JS
    from pytest_cometlocal.executor.page.observation import OBSERVE_JS

    reads = {
        "hand+read": (lambda page: page.evaluate(OBSERVE_JS, arg), lambda loc: loc.evaluate_all(_MATCH_OBSERVE_JS, arg)),
        "hand+empty-read": (lambda page: page.evaluate("(a) => 0", arg), lambda loc: loc.evaluate_all("(els, a) => 0", arg)),
        "hand+look": (lambda page: page.evaluate(OBSERVE_JS, arg), None),
    }
    if variant not in reads:
        return lambda page, locator=None: None
    look, matched = reads[variant]
    return lambda page, locator=None: look(page) if locator is None or matched is None else matched(locator)


def hand_flow(page: Any, url: str, title: str, note: Path, password: str, read: Callable[..., None],
              mark: Callable[[], None]) -> None:
    """real_flow.py's flow by hand; ``read`` before each step, ``mark`` after each."""
    from playwright.sync_api import expect

    def step(locator: Any = None) -> Any:
        read(page, locator)
        return locator

    def url_is(pattern: str) -> None:
        expect(page).to_have_url(re.compile(pattern))
        mark()

    step()
    page.goto(url + "/admin/login/")
    expect(page).to_have_title(re.compile("Log in"))
    mark()
    field = step(page.get_by_label("Username:", exact=True))
    field.fill("admin")
    expect(field).to_have_value("admin")
    mark()
    step(page.get_by_label("Password:", exact=True)).fill(password)
    mark()
    step(page.get_by_role("button", name="Log in", exact=True)).click()
    url_is("/admin/$")
    step(page.get_by_role("link", name="Documents", exact=True)).click()
    url_is("/admin/library/document/$")
    step(page.get_by_role("link", name="Add document", exact=True)).click()
    url_is("/admin/library/document/add/$")
    field = step(page.get_by_label("Title:", exact=True))
    field.fill(title)
    expect(field).to_have_value(title)
    mark()
    field = step(page.get_by_label("File:", exact=True))
    field.set_input_files(note)
    expect(field).to_have_value(re.compile(r"note\.txt$"))
    mark()
    step(page.get_by_role("button", name="Save", exact=True)).click()
    url_is("/admin/library/document/$")
    step()
    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    mark()
    step(page.locator("#result_list").get_by_role("link", name=title, exact=True)).click()
    url_is(r"/admin/library/document/\d+/change/$")
    step()
    expect(page.locator("#content h2")).to_contain_text(title)
    expect(page.get_by_label("Title:", exact=True)).to_have_value(title)
    mark()
    step(page.get_by_role("button", name="Log out", exact=True)).click()
    url_is("/admin/logout/$")
    step()
    expect(page).to_have_title(re.compile("Logged out"))
    mark()
    step()


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
    start = time.perf_counter()
    result = run_plan(browser, valid, root / "runs", settings)
    total = time.perf_counter() - start
    if result.status != "passed":
        raise SystemExit(f"{variant}: the plan {result.status}")
    run_dir = Path(result.run_dir)
    stamps = [(datetime.fromisoformat(e["ts_utc"]).timestamp(), e["event_type"])
              for e in map(json.loads, (run_dir / "trace.jsonl").read_text().splitlines()) if e.get("ts_utc")]
    ends = [t for t, kind in stamps if kind in ("run_started", "evidence_captured")]
    return total, [(b - a) * 1000 for a, b in zip(ends, ends[1:])], run_dir


def _hand(browser: Any, url: str, variant: str, title: str, note: Path, password: str, arg: Any) -> tuple[float, list[float]]:
    from pytest_cometlocal.executor.session import DEFAULT_CONTEXT_ARGS

    marks: list[float] = []
    start = time.perf_counter()
    context = browser.new_context(**DEFAULT_CONTEXT_ARGS)
    try:
        page = context.new_page()
        marks.append(time.perf_counter())
        hand_flow(page, url, title, note, password, _reader(variant, arg), lambda: marks.append(time.perf_counter()))
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
    known = {"hand", "hand+read", "hand+empty-read", "hand+look"} | set(PROFILES) | {f + "-no-critical" for f in PROFILES}
    if unknown := [v for v in variants if v not in known]:
        p.error(f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(sorted(known))}")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.django_admin import django_admin

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
    from pytest_cometlocal.executor.page.observation import look_arg
    from tests.django_admin import PASSWORD

    (root / "plans" / "files").mkdir(parents=True)
    note = root / "plans" / "files" / "note.txt"
    note.write_text("A short note to upload.\n")
    manager = BrowserManager({"headless": True}, None)
    try:
        browser, arg = manager.browser(), look_arg((PASSWORD,), True)
        for flow in range(flows + 1):
            for variant in variants:
                title = f"Doc {variant} {flow} {time.time_ns()}"
                if variant.startswith("hand"):
                    total, per_step = _hand(browser, url, variant, title, note, PASSWORD, arg)
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
