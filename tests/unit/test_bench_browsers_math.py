"""The two-build benchmark's arithmetic (benchmarks/bench_browsers.py), without a browser: which builds it
runs, and the ratios it reports, each taken within one round and one build (or one variant across builds)."""

from __future__ import annotations

from benchmarks.bench_browsers import browsers, report
from benchmarks.bench_real import HAND


def session(variant: str, build: str, rnd: int, items: list[float]) -> dict:
    return {"variant": variant, "build": build, "round": rnd, "item_s": items, "load1": 1.0}


def test_the_builds_come_from_the_environment_or_the_debian_pair(monkeypatch):
    monkeypatch.delenv("BENCH_BROWSERS", raising=False)
    assert browsers() == {"chromium": "/usr/bin/chromium", "shell": "/usr/bin/chromium-headless-shell"}
    monkeypatch.setenv("BENCH_BROWSERS", "a=/x/a,b=/y/b=c")
    assert browsers() == {"a": "/x/a", "b": "/y/b=c"}


def test_ratios_pair_the_same_round_and_build():
    sessions = [session("balanced", "chromium", 0, [2.0, 2.2]), session(HAND, "chromium", 0, [1.0, 1.2]),
                session("balanced", "chromium", 1, [3.0]), session(HAND, "chromium", 1, [2.0]),
                session("balanced", "shell", 0, [1.0]), session(HAND, "shell", 0, [0.5]),
                session("balanced", "shell", 1, [6.0]), session(HAND, "shell", 1, [2.0])]
    text = report({"sessions": sessions, "builds": ["chromium", "shell"]})
    rows = {tuple(c.strip() for c in line.strip("|").split("|")[:2]): line for line in text.splitlines()}
    # chromium: 2.1/1.1 in round 0, 3/2 in round 1; the shell: 2 and 3
    assert "1.91, 1.50" in rows[("balanced / hand-written", "chromium")]
    assert "2.00, 3.00" in rows[("balanced / hand-written", "shell")]
    # one variant across builds, round by round: 1/2.1 and 6/3
    assert "0.48, 2.00" in rows[("balanced: shell / chromium", "-")]
    assert "load (1 min) during the run: min 1.00" in text
