"""Issue 46: how to bound a plan regex's match against page data. ``python -m benchmarks.bench_regex``.

Measures, on 100 KB of ``a`` + ``!`` (and a sane text of the same size), Python's ``re`` (no bound:
a child process with a hard timeout shows whether it ends), the ``regex`` module with ``timeout=``
(what contract/patterns.py uses; wall and CPU time, as its bound is CPU time), google-re2 when it is
installed (linear time, but no backreferences or lookarounds), the bounded matcher itself
(``compiled``), the import cost of each engine, and ``regex``'s compile cost of counted repeats
(why MAX_REPEAT_WEIGHT). Timings only: nothing here is asserted.
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any, Callable

# Exponential in re, and one quadratic (re: ~190 s on this text; regex: 0.1 ms, it skips the doomed starts).
CATASTROPHIC = [r"(a+)+$", r"(a|aa)+$", r"^(\w+\s?)*$", r"(\w+)@example\.com"]
SANE = [r"foo\d+bar", r"^a+!$", r"(?i)A{3}!", r"https?://[^/]+/cart"]
TEXT = "a" * 100_000 + "!"
RE_HARD_TIMEOUT_S = 20


def _timed(call: Callable[[], Any]) -> tuple[float, float, str]:
    """(wall s, CPU s, outcome) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        outcome = "match" if call() is not None else "no match"
    except Exception as exc:  # the bound: TimeoutError / PatternTimeout
        outcome = type(exc).__name__
    return time.perf_counter() - wall, time.process_time() - cpu, outcome


def _re_in_child(pattern: str) -> str:
    code = f"import re; re.compile({pattern!r}).search('a' * 100_000 + '!')"
    started = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-c", code], timeout=RE_HARD_TIMEOUT_S, check=True)
    except subprocess.TimeoutExpired:
        return f"did not end in {RE_HARD_TIMEOUT_S} s (killed)"
    return f"{time.perf_counter() - started:.3f} s"


def _import_cost(module: str) -> str:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return f"{float(done.stdout) * 1000:.1f} ms" if done.returncode == 0 else "not installed"


def main() -> None:
    import regex

    from pytest_cometlocal.contract.patterns import compiled

    try:
        import re2  # google-re2, for comparison only
    except ImportError:
        re2 = None
    print(f"text: {len(TEXT):,} characters; regex {regex.__version__}; re2 {'yes' if re2 else 'not installed'}")
    print("\n| pattern | re (child, hard timeout) | regex timeout=1 (wall / CPU) | bounded matcher (wall / CPU) | re2 |")
    print("|---|---|---|---|---|")
    for pattern in CATASTROPHIC:
        engine = regex.compile(pattern, regex.VERSION0)
        w, c, o = _timed(lambda: engine.search(TEXT, timeout=1.0))
        bw, bc, bo = _timed(lambda: compiled(pattern).search(TEXT))
        r2 = "n/a"
        if re2 is not None:
            rw, _, ro = _timed(lambda: re2.compile(pattern).search(TEXT))
            r2 = f"{rw * 1000:.2f} ms ({ro})"
        print(f"| `{pattern}` | {_re_in_child(pattern)} | {w:.2f} / {c:.2f} s ({o}) | {bw:.2f} / {bc:.2f} s ({bo}) | {r2} |")
    print("\n| sane pattern | re | regex | bounded matcher | re2 |")
    print("|---|---|---|---|---|")
    import re
    for pattern in SANE:
        cells = []
        engines: list[Any] = [re.compile(pattern), regex.compile(pattern, regex.VERSION0), compiled(pattern)]
        if re2 is not None:
            engines.append(re2.compile(pattern))
        for engine in engines:
            rounds = 20
            started = time.perf_counter()
            for _ in range(rounds):
                engine.search(TEXT)
            cells.append(f"{(time.perf_counter() - started) / rounds * 1000:.3f} ms")
        print(f"| `{pattern}` | " + " | ".join(cells + ["n/a"] * (4 - len(cells))) + " |")
    print("\nimport cost (fresh interpreter):", ", ".join(f"{m} {_import_cost(m)}" for m in ("re", "regex", "re2")))
    print("\n| regex compile of | seconds |")
    print("|---|---|")
    for pattern in (r"(?:a{100}){100}", r"(?:a{100}){1000}", r"(?:a{1000}){1000}"):
        started = time.perf_counter()
        regex.compile(pattern, regex.VERSION0)
        print(f"| `{pattern}` | {time.perf_counter() - started:.3f} |")


if __name__ == "__main__":
    main()
