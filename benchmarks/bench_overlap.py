"""The picture's wait merged with the next click's actionability (issue 50, candidate 2): a prototype.

Why: ``draw_after`` already overlaps the picture with the next step's target and
preconditions; what is left after the picture is the next action's own checks
(Playwright's click waits for the target to be visible, enabled, stable over two
animation frames and to receive events). Here a step is a visible change then a
click, three ways, alternating: the click alone (hand-written); today's picture
then the click; and one page script doing the fence and those checks in the
fence's own two frames, then the frame, then ``click(force=True)`` (the checks
already made). The merged way falls back to a plain click when its checks fail.

    python -m benchmarks.bench_overlap [STATES]      (COMETLOCAL_CHROMIUM picks the build)
"""
import os
import statistics
import sys
import time
from benchmarks.site import page_html
from pytest_cometlocal.executor.browser.manager import BrowserManager
from pytest_cometlocal.executor.page.screenshots import PendingFrame, _first_frame
from pytest_cometlocal.executor.page.watchdog import cdp_session

FENCE_AND_CHECKS = """(el) => new Promise((resolve) => {
  const box = () => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(); };
  let first = null;
  requestAnimationFrame(() => { first = box(); requestAnimationFrame(() => {
    const r = el.getBoundingClientRect(), st = getComputedStyle(el);
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    const ok = r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && !el.disabled && box() === first
      && (hit === el || el.contains(hit));
    setTimeout(() => resolve(ok), 0); }); });
})"""


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    m = BrowserManager({"headless": True}, None)
    try:
        page = m.browser().new_context(viewport={"width": 1280, "height": 720}).new_page()
        page.set_content(page_html())
        session = cdp_session(page)
        res = {"hand: click": [], "today: picture + click": [], "merged: fence+checks, frame, click(force)": []}
        bad = 0
        for i in range(n):
            for k in res:
                btn = page.get_by_role("button", name=f"Apply {i % 12 + 1}", exact=True)
                page.get_by_label(f"Name {i % 12 + 1}", exact=True).fill(f"{k[:4]}{i}")  # a visible change before
                t = time.perf_counter()
                if k.startswith("hand"):
                    btn.click()
                elif k.startswith("today"):
                    PendingFrame.request(page, caret=False).result()
                    btn.click()
                else:
                    ok = btn.evaluate(FENCE_AND_CHECKS)
                    _first_frame(page, session, False)
                    if ok:
                        btn.click(force=True)
                    else:
                        bad += 1
                        btn.click()
                res[k].append((time.perf_counter() - t) * 1000)
        print(os.environ.get("COMETLOCAL_CHROMIUM", "chromium"), f"load {os.getloadavg()[0]:.1f};",
              "; ".join(f"{k} {statistics.median(v):.1f}" for k, v in res.items()), f"(median ms of {n}); checks failed {bad}")
    finally:
        m.close()


if __name__ == "__main__":
    main()
