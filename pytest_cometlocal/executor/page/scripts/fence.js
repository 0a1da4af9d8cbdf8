// The frame fence (page/screenshots.py): resolves once the frame that holds every change made before it
// has been drawn, not only committed. One frame callback, then the next frame's callback, then a task:
// the compositor does not start the next frame's main-thread work before the previous frame is
// activated (and, compositing straight to the active tree, drawn). A single frame callback and a task
// gave a stale picture now and then on a loaded machine (~0.5 %, benchmarks/RESULTS.md). A page whose
// rendering is paused (hidden) runs no frame callbacks: the timer ends the wait. A visible one gets 2 s
// (within CAPTURE_MS): a renderer throttled and loaded can take longer than 250 ms for two frames, and
// a timer that ended the wait before them would give the frame before the change.
new Promise((resolve) => {
  let done = false;
  const end = () => { if (!done) { done = true; resolve(true); } };
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(end, 0)));
  setTimeout(end, document.visibilityState === "hidden" ? 250 : 2000);
})
