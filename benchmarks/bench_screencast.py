"""A screencast kept running per page, against today's fenced picture (issue 50, candidate 1): a prototype.

Why: ``balanced`` waits for a fresh picture of every state: the fence (two
frame callbacks and a task) and then a screencast started for one frame
(page/screenshots.py, PendingFrame). A screencast kept running delivers a frame
after each draw that changed something; if a state could be bound to the first
frame that follows its fence, the step would not pay the start of a screencast.
This measures, on one page, for states that change and states that do not:

* ``today``: PendingFrame.request right after the change, result at once (the whole wait);
* ``kept``: the screencast runs from the start (each frame acked as it comes); the fence runs
  and reports the page's wall clock at its second frame callback (t2); the state takes the
  first frame whose ``metadata.timestamp`` is at or after t2, waiting at most ``--grace`` ms;
  without one, the frame is taken as today (counted: ``fallback``).

Freshness is checked as the fence tests do: two states (Red, Blue) alternate on a
page; each picture's hash is compared with that state's settled reference.
``--heavy`` uses the fence tests' slow-to-paint page on a renderer throttled 8x.

    python -m benchmarks.bench_screencast [--states 40] [--heavy] [--grace 100]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import statistics
import time
from typing import Any

FENCE_T = """new Promise((resolve) => {
  const wall = () => performance.timeOrigin + performance.now();
  let t1 = 0;
  requestAnimationFrame(() => { t1 = wall(); requestAnimationFrame(() => { const t2 = wall();
    setTimeout(() => resolve([t1, t2, wall()]), 0); }); });
})"""
LIGHT = ("<title>Light</title><h1 id='head'>Red</h1>"
         + "".join(f"<p>Row {i}: <input value='v{i}'> <button>Apply {i}</button></p>" for i in range(12)))
HEAVY = "<title>Heavy</title><h1 id='head'>Red</h1>" + "".join(
    f"<div style='filter: blur({i % 5 + 1}px) drop-shadow(0 0 8px red); box-shadow: 0 0 30px {i % 7}px blue;"
    f" display: inline-block; width: 120px; height: 40px; background: linear-gradient({i}deg, red, yellow)'>cell {i}</div>"
    for i in range(300))
SET = "(t) => document.getElementById('head').textContent = t"


class Kept:
    """A screencast kept running on its own CDP session; every frame acked at once and kept."""

    def __init__(self, page, params: dict[str, Any]):
        self.page = page
        self.session = page.context.new_cdp_session(page)
        self.frames: list[tuple[float, float, bytes]] = []  # (arrival perf s, metadata.timestamp ms, jpeg)

        def on_frame(event: dict[str, Any]) -> None:
            self.frames.append((time.perf_counter(), event["metadata"]["timestamp"] * 1000,
                                base64.b64decode(event["data"])))
            self.session.send("Page.screencastFrameAck", {"sessionId": event["sessionId"]})

        self.session.on("Page.screencastFrame", on_frame)
        self.session.send("Page.startScreencast", params)

    def first_after(self, t2_ms: float, grace_ms: float) -> tuple[bytes | None, int]:
        """The first frame stamped at or after t2 (page wall clock, ms), waiting up to grace_ms; frames seen after t2."""
        deadline = time.perf_counter() + grace_ms / 1000
        while True:
            later = [f for f in self.frames if f[1] >= t2_ms]
            if later:
                return later[0][2], len(later)
            if time.perf_counter() > deadline:
                return None, 0
            self.page.wait_for_timeout(2)


def sha(b: bytes | None) -> str | None:
    return hashlib.sha256(b).hexdigest() if b else None


def settled_reference(page, take) -> str:
    pictures: list[str | None] = [None]
    for _ in range(12):
        page.wait_for_timeout(300)
        pictures.append(take())
        if pictures[-1] == pictures[-2]:
            return pictures[-1]  # type: ignore[return-value]
    raise SystemExit("the state never settled")


def run(states: int, heavy: bool, grace_ms: float) -> dict[str, Any]:
    from pytest_cometlocal.executor.browser.manager import BrowserManager
    from pytest_cometlocal.executor.page.screenshots import FRAME_PARAMS, PendingFrame, grab_frame

    manager = BrowserManager({"headless": True}, None)
    try:
        context = manager.browser().new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.set_content(HEAVY if heavy else LIGHT)
        if heavy:
            page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 8})
        today_ref = {}
        for text in ("Red", "Blue"):
            page.evaluate(SET, text)
            today_ref[text] = settled_reference(page, lambda: sha(grab_frame(page, caret=False)))
        kept = Kept(page, FRAME_PARAMS)
        kept_ref = {}
        for text in ("Red", "Blue"):
            page.evaluate(SET, text)
            kept_ref[text] = settled_reference(page, lambda: sha(kept.frames[-1][2]) if kept.frames else None)
        out: dict[str, Any] = {"bytes_equal_refs": today_ref == kept_ref}
        for changing in (True, False):
            rows: dict[str, list[float]] = {"today": [], "kept": [], "kept_fence": []}
            stale = {"today": 0, "kept": 0}
            fallback, after_t2, rules, lag = 0, [], {}, []
            for i in range(states):
                text = ("Red", "Blue")[i % 2] if changing else "Blue"
                # today
                page.evaluate(SET, text)
                t0 = time.perf_counter()
                jpeg = PendingFrame.request(page, caret=False).result()
                rows["today"].append((time.perf_counter() - t0) * 1000)
                stale["today"] += sha(jpeg) != today_ref[text]
                page.evaluate(SET, ("Blue", "Red")[i % 2] if changing else "Blue")  # the other state, drawn
                page.wait_for_timeout(60)
                # kept
                page.evaluate(SET, text)
                t0 = time.perf_counter()
                seen = len(kept.frames)
                t1, t2, _ = kept.session.send("Runtime.evaluate", {"expression": FENCE_T, "awaitPromise": True,
                                                                   "returnByValue": True})["result"]["value"]
                rows["kept_fence"].append((time.perf_counter() - t0) * 1000)
                fresh_frames = kept.frames[seen:]  # arrived during the fence
                for rule, pick in (("newest at fence end", kept.frames[-1] if kept.frames else None),
                                   ("first stamped >= t1", next((f for f in fresh_frames if f[1] >= t1), None))):
                    r = rules.setdefault(rule, {"none": 0, "stale": 0})
                    if pick is None:
                        r["none"] += 1
                    else:
                        r["stale"] += sha(pick[2]) != kept_ref[text]
                lag.extend(f[1] - t2 for f in fresh_frames)
                frame, n = kept.first_after(t2, grace_ms)
                if frame is None:
                    fallback += 1
                    frame = grab_frame(page, caret=False)
                rows["kept"].append((time.perf_counter() - t0) * 1000)
                after_t2.append(n)
                stale["kept"] += sha(frame) != kept_ref[text] and sha(frame) != today_ref[text]
                if changing:
                    page.evaluate(SET, ("Blue", "Red")[i % 2])
                page.wait_for_timeout(60)
            out["changing" if changing else "unchanged"] = {
                "wait_ms": {k: (min(v), statistics.median(v), max(v)) for k, v in rows.items()},
                "stale": stale, "fallback": fallback, "states": states,
                "rules": rules, "frames_during_fence": len(lag),
                "stamp_minus_t2_ms": (min(lag), statistics.median(lag), max(lag)) if lag else None}
        out["frames_seen"] = len(kept.frames)
        context.close()
        return out
    finally:
        manager.close()


def main() -> None:
    import os

    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_screencast", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--states", type=int, default=40)
    p.add_argument("--heavy", action="store_true")
    p.add_argument("--grace", type=float, default=100.0, help="ms to wait for a frame stamped after the fence")
    args = p.parse_args()
    result = run(args.states, args.heavy, args.grace)
    print(f"chromium {os.environ.get('COMETLOCAL_CHROMIUM', '(default)')}; heavy={args.heavy}; grace {args.grace} ms; "
          f"load {os.getloadavg()[0]:.2f}; frames seen {result['frames_seen']}; "
          f"kept and today's references byte-equal: {result['bytes_equal_refs']}")
    for case in ("changing", "unchanged"):
        r = result[case]
        waits = "; ".join(f"{k} {a:.1f}/{b:.1f}/{c:.1f}" for k, (a, b, c) in r["wait_ms"].items())
        print(f"{case}: {r['states']} states; wait ms min/median/max: {waits}; stale {r['stale']}; "
              f"kept fell back {r['fallback']}")
        print(f"   frames arrived during the fence: {r['frames_during_fence']}, stamp - t2 ms min/med/max "
              f"{r['stamp_minus_t2_ms']}; rules (none = no frame, stale): {r['rules']}")


if __name__ == "__main__":
    main()
