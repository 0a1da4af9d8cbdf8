// A watch on the element a scroll step scrolls (page/scrolling.py): notes when anything inside it
// last changed (a MutationObserver, scroll events) and reads its scroll position, so the loop can
// tell when the content has settled after a scroll, how far it went and how much room is left.
// Returned as an object the loop keeps a handle to; stop() disconnects it.
//
// Quiet is measured on the page's own clock, from inside a page timer (probe): timers run in the
// order they are due, so when the probe's timer runs, every page timer due before it (a list that
// renders 120 ms after scrolling stops) has run, however starved of CPU the browser is. Under a plan's
// clock.at the page's clock is Playwright's, paused: its timers run only when advance_clock moves it, so
// the probe would never answer; the browser's own clock is used then (Playwright's __pwClock.builtins).
(el, direction) => {
  const clock = (globalThis.__pwClock && globalThis.__pwClock.builtins) || globalThis;
  const performance = clock.performance;
  const vertical = direction === "down" || direction === "up";
  const forward = direction === "down" || direction === "right";
  const page = el === (document.scrollingElement || document.documentElement);
  const watch = {changes: 0, lastChange: performance.now(), settleFrom: performance.now()};
  const changed = () => { watch.lastChange = performance.now(); };
  const observer = new MutationObserver((records) => { watch.changes += records.length; changed(); });
  observer.observe(page ? document.documentElement : el,
                   {subtree: true, childList: true, attributes: true, characterData: true});
  const scrolls = page ? window : el;
  scrolls.addEventListener("scroll", changed, {passive: true});
  // A settle starts (after a scroll); probe(ms) answers after a page timer of ms: how long nothing
  // has changed, and how long this settle has lasted, both on the page's clock.
  watch.settle = () => { watch.settleFrom = performance.now(); };
  watch.probe = (ms) => new Promise((resolve) => clock.setTimeout(() => {
    const now = performance.now();
    resolve({quiet_ms: now - watch.lastChange, settling_ms: now - watch.settleFrom});
  }, ms));
  const described = () => {
    if (page) return window === window.top ? "page" : "frame document";
    let name = el.tagName.toLowerCase();
    if (el.id) name += "#" + el.id;
    for (const attr of ["data-testid", "role", "aria-label"]) {
      const value = el.getAttribute(attr);
      if (value) name += `[${attr}=${JSON.stringify(value.slice(0, 60))}]`;
    }
    return name;
  };
  watch.element = described();
  watch.read = () => {
    const position = vertical ? el.scrollTop : el.scrollLeft;
    const room = vertical
      ? (forward ? el.scrollHeight - el.clientHeight - el.scrollTop : el.scrollTop)
      : (forward ? el.scrollWidth - el.clientWidth - el.scrollLeft : Math.abs(el.scrollLeft));
    return {changes: watch.changes, position: position, room: room, element_is_page: page,
            size: [el.scrollWidth, el.scrollHeight], view: page ? [innerWidth, innerHeight] : [el.clientWidth, el.clientHeight]};
  };
  watch.scrollBy = (px) => {
    const sign = forward ? 1 : -1;
    el.scrollBy(vertical ? 0 : sign * px, vertical ? sign * px : 0);
  };
  watch.stop = () => { observer.disconnect(); scrolls.removeEventListener("scroll", changed); };
  return watch;
}
