// How much of an element is in the viewport, for element_in_viewport (page/looks.py): the
// intersection ratio an IntersectionObserver reports first (0 to 1), as Playwright's toBeInViewport reads it.
(el) => new Promise((resolve) => {
  const observer = new IntersectionObserver((entries) => {
    resolve(Number(entries[0].intersectionRatio));
    observer.disconnect();
  });
  observer.observe(el);
  requestAnimationFrame(() => {});
})
