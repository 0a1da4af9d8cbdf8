// The frame fence (page/screenshots.py): resolves once the page has rendered the frame that holds
// every change made before it.
new Promise((resolve) => {
  let done = false;
  const end = () => { if (!done) { done = true; resolve(true); } };
  requestAnimationFrame(() => setTimeout(end, 0));
  setTimeout(end, 250);
})
