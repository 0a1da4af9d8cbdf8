"""Shared pieces: inner pytest runs, their timing records, tables, the machine description."""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

# Written into every inner suite: records each test report (durations, start/stop,
# user properties) as one JSON line, in the controller only under xdist.
TIMING_CONFTEST = '''
import json, os
import pytest

_RECORD = os.environ.get("BENCH_TIMINGS")


def pytest_runtest_logreport(report):
    if not _RECORD or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    with open(_RECORD, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({
            "nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
            "duration": report.duration, "start": report.start, "stop": report.stop,
            "props": {k: v for k, v in report.user_properties if isinstance(v, (int, float, str))},
        }) + "\\n")
'''

# The benchmark page (and the demo portal) served by the inner suite; pytest-playwright's
# `browser` is the plugin's Chromium, so plans and hand-written tests share one browser
# process, and its contexts get the plugin's default context options.
# pytest-playwright's browser is the plugin's browser, with the plugin's context options:
# the hand-written tests and the plans run in one Chromium, on equal terms.
SHARED_BROWSER_FIXTURES = '''

@pytest.fixture(scope="session")
def browser(cometlocal_browser_manager):
    return cometlocal_browser_manager.browser()


@pytest.fixture(scope="session")
def browser_context_args():
    from pytest_cometlocal.executor.session import DEFAULT_CONTEXT_ARGS

    return dict(DEFAULT_CONTEXT_ARGS)
'''

SITE_CONFTEST = '''
import pytest
from benchmarks.site import BenchSite


@pytest.fixture(scope="session")
def bench_site():
    with BenchSite() as site:
        yield site


@pytest.fixture(scope="session")
def demo_portal():
    from pytest_cometlocal.demo.portal import DemoPortal
    with DemoPortal(outside_url="http://outside.example/landing") as portal:
        yield portal


@pytest.fixture
def cometlocal_base_url(request):
    if "portal" in request.node.name:
        return request.getfixturevalue("demo_portal").url
    return request.getfixturevalue("bench_site").url


@pytest.fixture
def bench_url(bench_site):
    return bench_site.url

''' + SHARED_BROWSER_FIXTURES


@dataclass
class Report:
    nodeid: str
    setup: float = 0.0
    call: float = 0.0
    teardown: float = 0.0
    start: float = 0.0
    stop: float = 0.0
    outcome: str = "passed"
    props: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return self.setup + self.call + self.teardown

    @property
    def wall(self) -> float:
        return self.stop - self.start


@dataclass
class InnerRun:
    wall_s: float
    returncode: int
    stdout: str
    stderr: str
    reports: dict[str, Report]
    root: Path
    cpu: dict[str, Any] | None = None  # with run_pytest(cpu=True): user_s, sys_s of the whole process tree

    def passed(self) -> int:
        return sum(1 for r in self.reports.values() if r.outcome == "passed")


def write_suite(root: Path, files: dict[str, str], *, conftest_extra: str = SITE_CONFTEST) -> None:
    """A fresh inner suite in ``root`` (emptied first): pytest.ini, conftest.py and ``files``."""
    fresh_dir(root)
    (root / "pytest.ini").write_text("[pytest]\ncometlocal_output = runs\n", encoding="utf-8")
    (root / "conftest.py").write_text(TIMING_CONFTEST + conftest_extra, encoding="utf-8")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def run_pytest(root: Path, args: list[str], *, timeout: float = 3600, cpu: bool = False,
               env: dict[str, str] | None = None) -> InnerRun:
    """``python -m pytest`` in ``root`` (a fresh process), with the timing hook on.

    ``cpu``: run it under ``benchmarks/cputree.py`` and
    return the CPU time of the whole process tree (Chromium's orphaned processes included).
    ``env``: variables added to the process's environment."""
    record = root / "timings.jsonl"
    if record.exists():
        record.unlink()
    env = {**os.environ, **(env or {})}
    env["BENCH_TIMINGS"] = str(record)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args]
    if os.environ.get("COMETLOCAL_BENCH_PROFILE"):  # every section's plans in one execution profile
        cmd += ["--cometlocal-profile", os.environ["COMETLOCAL_BENCH_PROFILE"]]
    cpu_out = root / "cputree.json"
    if cpu:
        if cpu_out.exists():
            cpu_out.unlink()
        cmd = [sys.executable, "-m", "benchmarks.cputree", str(cpu_out), "--", *cmd]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - start
    reports: dict[str, Report] = {}
    if record.exists():
        for line in record.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            r = reports.setdefault(d["nodeid"], Report(d["nodeid"], start=d["start"]))
            setattr(r, d["when"], d["duration"])
            r.start = min(r.start, d["start"])
            r.stop = max(r.stop, d["stop"])
            r.props.update(d["props"])
            if d["outcome"] != "passed" and not (d["when"] != "call" and d["outcome"] == "skipped"):
                r.outcome = d["outcome"]
    cpu_record = json.loads(cpu_out.read_text(encoding="utf-8")) if cpu and cpu_out.exists() else None
    return InnerRun(wall, proc.returncode, proc.stdout, proc.stderr, reports, root, cpu_record)


def require_ok(run: InnerRun, what: str, expected_passed: int | None = None) -> list[str]:
    """Stop on a broken inner run (usage error, nothing passed); on some failed items, warn and go on.

    Returns the node ids that did not pass; sections leave them out of their figures and say so.
    """
    failed = [nodeid for nodeid, r in run.reports.items() if r.outcome != "passed"]
    tail = "\n".join(run.stdout.splitlines()[-25:])
    if run.returncode not in (0, 1) or run.passed() == 0:
        raise SystemExit(f"{what}: inner pytest run failed (exit {run.returncode}, {run.passed()} passed)\n"
                         f"{tail}\n{run.stderr[-2000:]}")
    if failed or (expected_passed is not None and run.passed() != expected_passed):
        summary = [line for line in run.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        print(f"WARNING {what}: {len(failed)} item(s) did not pass and are left out of the figures "
              f"({run.passed()} passed):\n  " + "\n  ".join(summary[:10] or failed[:10]), flush=True)
    return failed


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for r in cells:
        out.append("| " + " | ".join(c.rjust(w) if _numeric(c) else c.ljust(w) for c, w in zip(r, widths)) + " |")
    return "\n".join(out)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:
            return "n/a"
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    return str(value)


def _numeric(text: str) -> bool:
    return bool(text) and text.replace(",", "").replace(".", "").replace("-", "").replace("x", "").replace("%", "").strip().isdigit()


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "NOT met")


def machine() -> dict[str, Any]:
    """nproc, memory, Python, Playwright, Chromium, load: what the figures were taken on."""
    from importlib.metadata import version

    info: dict[str, Any] = {
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    try:
        with open("/proc/meminfo") as fh:
            info["memory_gib"] = round(int(fh.readline().split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as fh:
            names = [l.split(":", 1)[1].strip() for l in fh if l.startswith("model name")]
            info["cpu"] = names[0] if names else None
    except OSError:
        pass
    for pkg in ("playwright", "pytest", "pytest-xdist", "pytest-playwright", "pydantic"):
        try:
            info[pkg] = version(pkg)
        except Exception:
            info[pkg] = None
    info["chromium"] = chromium_version()
    info["load_avg"] = os.getloadavg()
    return info


def chromium_binary() -> str | None:
    """The Chromium the plugin launches (find_chromium: Playwright's build or a system one)."""
    from playwright.sync_api import sync_playwright

    from pytest_cometlocal.executor.browser.chromium import find_chromium

    with sync_playwright() as pw:
        path = find_chromium(pw)
        return path or pw.chromium.executable_path


def chromium_version() -> str | None:
    try:
        from playwright.sync_api import sync_playwright

        from pytest_cometlocal.executor.browser.chromium import LAUNCH_ARGS, find_chromium

        with sync_playwright() as pw:
            path = find_chromium(pw)
            kwargs = {"headless": True, "args": LAUNCH_ARGS}
            if path:
                kwargs["executable_path"] = path
            browser = pw.chromium.launch(**kwargs)
            try:
                return f"{browser.version} ({path or pw.chromium.executable_path})"
            finally:
                browser.close()
    except Exception as exc:  # pragma: no cover - reported, not fatal
        return f"unknown ({type(exc).__name__})"


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def fresh_dir(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path
