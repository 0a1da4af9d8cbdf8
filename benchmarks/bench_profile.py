"""Executor step profile: where the time of a step goes, and the per-item phases.

Runs plans through the executor API in this process (no pytest), on the
plugin's Chromium (``find_chromium`` + ``LAUNCH_ARGS``), with the functions of
interest wrapped by a nesting timer (monkeypatched here only, undone after):
observation (its ``evaluate`` and its screenshot), target resolution, condition
polling (and its sleeps), the action, DOM-snapshot evidence,
evidence writes (hashing, manifest rewrite, fsync), trace writes and every
Playwright round trip (``pw.*``). Each function's *exclusive* time is its time
minus that of the wrapped functions it called. The first run of each plan is a
warm-up and is not counted.

The per-item table times, one by one, what a plan item does around its steps:
network guard start/stop, new context/page, run folder, executor set-up,
run start/finish, context close.

A finished run's steps split into phases by their trace events (no
instrumentation, any run folder) are in ``trace_phases.py``.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from .common import table

PW_PAGE = ("evaluate", "screenshot", "title", "content", "goto", "wait_for_timeout", "wait_for_load_state")
PW_LOCATOR = ("count", "evaluate", "evaluate_all", "input_value", "inner_text", "text_content", "click", "fill", "select_option",
              "is_visible", "is_enabled", "is_checked", "get_attribute", "element_handle", "bounding_box")


class NestedTimer:
    """Wraps callables; keeps inclusive and exclusive time per call path."""

    def __init__(self) -> None:
        self.incl: dict[tuple[str, ...], float] = defaultdict(float)
        self.excl: dict[tuple[str, ...], float] = defaultdict(float)
        self.calls: dict[tuple[str, ...], int] = defaultdict(int)
        self._stack: list[list[Any]] = []  # [name, child_time]
        self._undo: list[tuple[Any, str, Any]] = []
        self.active = False

    def wrap(self, name: str, fn: Callable) -> Callable:
        timer = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not timer.active:
                return fn(*args, **kwargs)
            frame = [name, 0.0]
            timer._stack.append(frame)
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                path = tuple(f[0] for f in timer._stack)
                timer._stack.pop()
                timer.incl[path] += elapsed
                timer.excl[path] += elapsed - frame[1]
                timer.calls[path] += 1
                if timer._stack:
                    timer._stack[-1][1] += elapsed

        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper

    def patch(self, owner: Any, attr: str, name: str) -> None:
        """Wrap ``owner.attr``; a name this checkout does not have is left out (another version's)."""
        original = getattr(owner, attr, None)
        if original is None:
            return
        self._undo.append((owner, attr, original))
        setattr(owner, attr, self.wrap(name, original))

    def undo(self) -> None:
        for owner, attr, original in reversed(self._undo):
            setattr(owner, attr, original)
        self._undo.clear()

    def reset(self) -> None:
        self.incl.clear()
        self.excl.clear()
        self.calls.clear()


def instrument(timer: NestedTimer) -> None:
    from playwright.sync_api._generated import Locator, Page

    from pytest_cometlocal.executor import engine
    from pytest_cometlocal.executor.page import conditions as checks
    from pytest_cometlocal.executor.page import observation as observe
    from pytest_cometlocal.executor.page import screenshots
    from pytest_cometlocal.executor.runfolder import evidence_store as evidence
    from pytest_cometlocal.executor.runfolder import trace_writer as trace
    from pytest_cometlocal.executor.step import actions, observer, safety
    from pytest_cometlocal.executor.step import checkpoints as step_conditions
    from pytest_cometlocal.executor.step import evidence as step_evidence
    from pytest_cometlocal.executor.step import target as step_target

    E = engine.Executor
    # (owner, attribute, the name it is timed under)
    patches = (
        (E, "_attempt", "step"),
        (E, "start", "run start"),
        (E, "finish", "run finish"),
        (observer, "observe", "observe"),
        (observer, "take_look", "dom look"),
        (observer, "take_pictures", "pictures"),
        (observer, "observe_pending", "observe (pending picture)"),
        (observe, "grab_frame", "screenshot frame"),
        (observe, "capture_png", "full screenshot"),
        (step_target, "resolve", "resolve target"),
        # Issue 38's one read between two steps, the "before" it prepares, and the picture's wait.
        (engine, "prepare", "prepare (before look, target source)"),
        (step_target.Prepared, "settle", "settle (target, preconditions)"),
        (engine, "read_between", "read between"),
        (step_target, "held_between", "held between"),
        (engine, "draw_after", "draw after (picture, first look)"),
        (engine, "look_ahead", "look ahead"),
        (observer.Observer, "after", "after"),
        (screenshots.PendingFrame, "result", "picture wait (pending frame)"),
        (engine.Executor, "_accept", "accept (proposal, compile)"),
        (engine.Executor, "_decide", "decide (anti-loop)"),
        (engine.Executor, "_reported", "reported (late events)"),
        (engine.Executor, "_passed", "passed (step evidence)"),
        (step_conditions, "poll", "conditions"),
        (checks, "pause", "poll sleep"),
        (actions.Actions, "perform", "action"),
        (safety.Safety, "check_navigation", "check navigations"),
        (safety.Safety, "check_auth", "check auth"),
        (engine, "step_evidence", "step evidence"),
        (step_evidence, "write_dom", "dom snapshot"),
        (step_evidence, "write_extended", "extended evidence"),
        (evidence.EvidenceStore, "add_json", "evidence.add_json"),
        (evidence.EvidenceStore, "add_bytes", "evidence.add_bytes"),
        (evidence.EvidenceStore, "_write_manifest", "manifest rewrite"),
        (evidence, "sha256_bytes", "sha256"),
        (trace.TraceWriter, "emit", "trace.emit"),
        (os, "fsync", "fsync"),
    )
    for owner, attr, name in patches:
        timer.patch(owner, attr, name)
    for m in PW_PAGE:
        timer.patch(Page, m, f"pw.page.{m}")
    for m in PW_LOCATOR:
        timer.patch(Locator, m, f"pw.locator.{m}")


@contextmanager
def _phase(times: dict[str, list[float]], name: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        times[name].append(time.perf_counter() - start)


def _validated(text: str, root: Path, name: str):
    from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text

    path = root / name
    path.write_text(text, encoding="utf-8")
    (result,) = validate_text(text.encode(), ValidationContext(root=root, plan_path=path, env={}), file=name)
    if isinstance(result, InvalidPlan):
        raise SystemExit("profile plan is invalid:\n" + "\n".join(p.format() for p in result.problems))
    return result


def _run_item(browser: Any, plan: Any, base_url: str, output: Path, timer: NestedTimer,
              phases: dict[str, list[float]]) -> Any:
    """What the plugin's fixtures do for one item, each phase timed."""
    from contextlib import ExitStack

    from pytest_cometlocal.contract.settings import effective_settings
    from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
    from pytest_cometlocal.executor.session import RunRecord, guarded_context, open_run

    eff = effective_settings(plan, default_base_url=base_url, env={},
                             cli_profile=os.environ.get("COMETLOCAL_BENCH_PROFILE") or None)
    closing = ExitStack()
    with _phase(phases, "network guard start"):
        guard = NetworkGuard(eff.allowlist).start()
    with _phase(phases, "browser.new_context"):
        context = closing.enter_context(guarded_context(browser, guard))
    with _phase(phases, "context.new_page"):
        page = context.new_page()
    with _phase(phases, "run folder create and executor set-up"):
        executor = closing.enter_context(open_run(None, eff, output, RunRecord.of_plan(eff), guard=guard, page=page))
    timer.active = True
    try:
        with _phase(phases, "run_plan (steps + run start/finish)"):
            result = executor.run_plan(plan.plan)
    finally:
        timer.active = False
    with _phase(phases, "context.close"):
        closing.close()
    with _phase(phases, "network guard stop"):
        guard.stop()
    if result.error is not None:
        raise SystemExit(f"profile plan failed: {result.error.error_code.value}: {result.error.message}")
    return result


def _report(timer: NestedTimer, steps: int, title: str, depth: int = 7, min_share: float = 0.005) -> dict[str, Any]:
    step_total = sum(v for p, v in timer.incl.items() if p == ("step",))
    per_step = lambda s: s * 1000 / steps  # noqa: E731
    rows = []
    tree = sorted((p for p in timer.incl if p[0] == "step" and len(p) <= depth + 1))

    def children(prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
        return sorted((p for p in tree if len(p) == len(prefix) + 1 and p[:len(prefix)] == prefix),
                      key=lambda p: -timer.incl[p])

    def walk(path: tuple[str, ...]) -> None:
        share = timer.incl[path] / step_total if step_total else 0
        if share < min_share and len(path) > 1:
            return
        name = "  " * (len(path) - 1) + path[-1]
        rows.append([name, per_step(timer.incl[path]), per_step(timer.excl[path]), f"{100 * share:.1f}%",
                     f"{timer.calls[path] / steps:.1f}"])
        for child in children(path):
            walk(child)

    if ("step",) in timer.incl:
        walk(("step",))
    print(f"\n### {title}: per step, mean over {steps} steps (inclusive / exclusive ms; calls per step)")
    print(table(["function (call path)", "incl ms/step", "excl ms/step", "% of step", "calls/step"], rows))

    # Flat: exclusive time by function name, wherever it was called from.
    flat: dict[str, float] = defaultdict(float)
    flat_calls: dict[str, int] = defaultdict(int)
    for path, v in timer.excl.items():
        if path[0] == "step":
            flat[path[-1]] += v
            flat_calls[path[-1]] += timer.calls[path]
    top = sorted(flat.items(), key=lambda kv: -kv[1])[:14]
    print(f"\n### {title}: top exclusive costs per step")
    print(table(["function", "excl ms/step", "% of step", "calls/step"],
                [[n, per_step(v), f"{100 * v / step_total:.1f}%", f"{flat_calls[n] / steps:.1f}"] for n, v in top]))
    return {
        "step_ms": per_step(step_total),
        "tree": {" > ".join(p): {"incl_ms_per_step": per_step(timer.incl[p]), "excl_ms_per_step": per_step(timer.excl[p]),
                                 "calls_per_step": timer.calls[p] / steps} for p in timer.incl},
        "top_exclusive": [{"function": n, "excl_ms_per_step": per_step(v), "share": v / step_total if step_total else None,
                           "calls_per_step": flat_calls[n] / steps} for n, v in top],
    }


def screenshot_variants(browser: Any, url: str, shots: int) -> dict[str, float]:
    """Median ms of one viewport picture, by way of taking it, on the benchmark page (1280x720)."""
    import base64

    from pytest_cometlocal.executor.page import screenshots
    from pytest_cometlocal.executor.page.observation import MAX_ELEMENTS, OBSERVE_JS, observe
    from pytest_cometlocal.executor.session import DEFAULT_CONTEXT_ARGS

    context = browser.new_context(**DEFAULT_CONTEXT_ARGS)
    page = context.new_page()
    page.goto(url + "/bench")
    page.get_by_label("Name 1", exact=True).fill("user-1")
    cdp = context.new_cdp_session(page)

    def cdp_shot(**extra: Any) -> bytes:
        return base64.b64decode(cdp.send("Page.captureScreenshot", {"format": "png", **extra})["data"])

    previous = observe(page)
    variants: dict[str, Callable[[], Any]] = {
        "page.screenshot png, animations=disabled, caret=hide (executor before the fast capture)":
            lambda: page.screenshot(type="png", animations="disabled", caret="hide", timeout=10_000),
        "page.screenshot png, caret=hide (executor when a secret is masked)":
            lambda: page.screenshot(type="png", caret="hide"),
        "page.screenshot png, Playwright defaults": lambda: page.screenshot(type="png"),
        "page.screenshot jpeg quality 70": lambda: page.screenshot(type="jpeg", quality=70),
        "CDP Page.captureScreenshot png": cdp_shot,
        "CDP Page.captureScreenshot png, optimizeForSpeed": lambda: cdp_shot(optimizeForSpeed=True),
        "executor full screenshot, no focused field (CDP png optimizeForSpeed)":
            lambda: screenshots.capture_png(page, False, caret=False),
        "executor full screenshot, a focused field (the same, caret hidden)":
            lambda: screenshots.capture_png(page, False, caret=True),
        "executor frame for the hash, no focused field (fence + screencast frame)":
            lambda: screenshots.grab_frame(page, caret=False),
        "executor frame for the hash, a focused field (the same, caret hidden)":
            lambda: screenshots.grab_frame(page, caret=True),
        "observe() without screenshot (evaluate + hashing)": lambda: observe(page, screenshot=False),
        "page.evaluate(OBSERVE_JS) alone":
            lambda: json.loads(page.evaluate(OBSERVE_JS, {"maxElements": MAX_ELEMENTS, "secrets": []})),
        "observe() with a fresh screenshot": lambda: observe(page),
        "observe() carrying the previous screenshot over": lambda: observe(page, previous=previous),
    }
    out: dict[str, float] = {}
    try:
        for name, fn in variants.items():
            fn()  # warm
            times = []
            for _ in range(shots):
                start = time.perf_counter()
                fn()
                times.append(time.perf_counter() - start)
            out[name] = statistics.median(times) * 1000
    finally:
        context.close()
    print(f"\n### Observation micro-benchmark: one capture on the benchmark page, median of {shots} (ms)")
    print(table(["way", "ms"], [[k, v] for k, v in out.items()]))
    return out


def bench_profile(work: Path, *, runs: int = 3, bench_steps: int = 40, cprofile: str | None = None) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from pytest_cometlocal.demo.portal import DemoPortal
    from pytest_cometlocal.executor.browser.chromium import LAUNCH_ARGS, find_chromium

    from .bench_throughput import portal_plan
    from .site import BenchSite, flow, plan_yaml

    root = work / "profile"
    root.mkdir(parents=True, exist_ok=True)
    output = root / "runs"
    plans = {
        "bench page": (_validated(plan_yaml("profile bench", flow(bench_steps)), root, "bench.actions.yaml"), bench_steps),
        "demo portal": (_validated(portal_plan(0), root, "portal.actions.yaml"), 10),
    }
    profiler = None
    if cprofile:
        import cProfile

        profiler = cProfile.Profile()
    timer = NestedTimer()
    results: dict[str, Any] = {"runs_counted": runs - 1}
    instrument(timer)
    try:
        with BenchSite() as site, DemoPortal(outside_url="http://outside.example/landing") as portal, \
                sync_playwright() as pw:
            path = find_chromium(pw)
            kwargs: dict[str, Any] = {"headless": True, "args": list(LAUNCH_ARGS)}
            if path:
                kwargs["executable_path"] = path
            browser = pw.chromium.launch(**kwargs)
            urls = {"bench page": site.url, "demo portal": portal.url}
            for label, (plan, steps) in plans.items():
                phases: dict[str, list[float]] = defaultdict(list)
                timer.reset()
                for i in range(runs):
                    if i == 1:  # run 0 warmed up the page, the browser and the code paths
                        timer.reset()
                        phases.clear()
                    if profiler and i > 0:
                        profiler.enable()
                    _run_item(browser, plan, urls[label], output, timer, phases)
                    if profiler:
                        profiler.disable()
                counted = max(1, runs - 1)
                res = _report(timer, steps * counted, f"Step profile, {label} ({steps}-step plan, {counted} run(s))")
                item_rows = [[name, statistics.median(v) * 1000] for name, v in phases.items()]
                outside = sum(statistics.median(v) for n, v in phases.items() if not n.startswith("run_plan")) * 1000
                start_finish = sum(timer.incl.get((n,), 0.0) for n in ("run start", "run finish")) * 1000 / counted
                item_rows.append(["  of run_plan: run start + run finish", start_finish])
                item_rows.append(["per-item total outside the steps", outside + start_finish])
                print(f"\n### Per-item phases, {label} (median ms per item)")
                print(table(["phase", "ms"], item_rows))
                res["item_phases_ms"] = {name: statistics.median(v) * 1000 for name, v in phases.items()}
                res["item_outside_steps_ms"] = outside + start_finish
                results[label] = res
            results["observation_variants_ms"] = screenshot_variants(browser, site.url, 5 if runs < 3 else 15)
            browser.close()
    finally:
        timer.undo()
    if profiler and cprofile:
        profiler.dump_stats(cprofile)
        print(f"\ncProfile stats of the counted runs written to {cprofile} (python -m pstats {cprofile})")
    return results
