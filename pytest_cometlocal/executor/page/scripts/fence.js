// The frame fence (page/screenshots.py): resolves once the frame that holds every change made before it
// has been drawn, not only committed. One frame callback, then the next frame's callback, then a task:
// the compositor does not start the next frame's main-thread work before the previous frame is
// activated (and, compositing straight to the active tree, drawn). A single frame callback and a task
// gave a stale picture now and then on a loaded machine (~0.5 %, benchmarks/RESULTS.md). A page whose
// rendering is paused (hidden) runs no frame callbacks: the timer ends the wait. A visible one gets 2 s
// (within CAPTURE_MS): a renderer throttled and loaded can take longer than 250 ms for two frames, and
// a timer that ended the wait before them would give the frame before the change.
// The browser's own frame callbacks and timers: under a plan's clock.at, Playwright's clock fakes the
// page's, and a paused clock runs none; it keeps the originals for injected code (__pwClock.builtins).
new Promise((resolve) => {
  const real = (globalThis.__pwClock && globalThis.__pwClock.builtins) || globalThis;
  let done = false;
  const end = () => { if (!done) { done = true; resolve(true); } };
  real.requestAnimationFrame(() => real.requestAnimationFrame(() => real.setTimeout(end, 0)));
  real.setTimeout(end, document.visibilityState === "hidden" ? 250 : 2000);
})
