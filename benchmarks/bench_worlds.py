"""What a read of a target's element costs on a new document, by the JavaScript world it runs in (issue 50).

Why: the read between two steps runs a script on the element a target matches
(its context for the "before" DOM snapshot), and Playwright runs such a script
only in the page's main world, where it first builds its selector engine, once
per document. A hand-written test queries only in the isolated world, whose
engine its first action builds anyway. Each variant below runs on a freshly
loaded document of a 150-row page, after ``is_visible`` (the isolated world's
engine, which a hand-written test also pays); its cost is its median less the
``is_visible`` variant's:

* ``isolated``: ``is_visible`` alone (the reference);
* ``evaluate``: ``page.evaluate`` with no selector first (the main world, no engine);
* ``count``: ``locator.count()`` first (the isolated world);
* ``evaluate_all``: ``locator.evaluate_all`` first (the executor's read: the main world's engine);
* ``handles``: ``locator.element_handles()`` (queried in the isolated world, then adopted into the
  main world, where each handle's preview builds the engine) and ``page.evaluate`` on them.

    python -m benchmarks.bench_worlds [--documents 40]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Callable

from .site import BenchSite

ROWS = "".join(f"<tr><td>row {i}</td><td><a href='#'>link {i}</a></td><td><input name=f{i} value=v{i}></td></tr>"
               for i in range(150))
HTML = (f"<html><head><title>t</title></head><body><h1>Page</h1><form><label for=u>User</label><input id=u>"
        f"<button type=submit>Save</button></form><table>{ROWS}</table></body></html>").encode()
READ = "(els) => JSON.stringify({count: els.length, tags: els.map((e) => e.tagName)})"


class WorldsSite(BenchSite):
    """The benchmarks' local server (site.py), with this page at every path."""

    def route(self, path: str) -> bytes | None:
        return HTML


def variants(page: Any) -> dict[str, Callable[[], None]]:
    save = page.get_by_role("button", name="Save")

    def isolated() -> None:
        save.is_visible()

    def evaluate() -> None:
        page.evaluate("0")
        isolated()

    def count() -> None:
        save.count()
        isolated()

    def evaluate_all() -> None:
        save.evaluate_all(READ)
        isolated()

    def handles() -> None:
        found = save.element_handles()
        page.evaluate(READ, found)
        for handle in found:
            handle.dispose()
        isolated()

    return {"isolated": isolated, "evaluate": evaluate, "count": count, "evaluate_all": evaluate_all,
            "handles": handles}


def measure(documents: int) -> dict[str, list[float]]:
    """ms of each variant on each of ``documents`` fresh documents, the variants interleaved."""
    from pytest_cometlocal.executor.browser.manager import BrowserManager

    with WorldsSite() as site:
        manager = BrowserManager({"headless": True}, None)
        try:
            return _measure(manager.browser().new_context().new_page(), f"{site.url}/", documents)
        finally:
            manager.close()


def _measure(page: Any, url: str, documents: int) -> dict[str, list[float]]:
    runs = variants(page)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for i in range(documents):
        for name, run in runs.items():
            page.goto(f"{url}?{name}{i}")
            start = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_worlds", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=40, help="fresh documents a variant (default 40)")
    times = measure(parser.parse_args().documents)
    reference = statistics.median(times["isolated"])
    print(f"{'variant':14s} {'median ms':>10s} {'min ms':>8s} {'- isolated':>11s}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:14s} {med:10.1f} {min(values):8.1f} {med - reference:+11.1f}")


if __name__ == "__main__":
    main()
