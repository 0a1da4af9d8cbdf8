new Promise((resolve) => {
  let done = false;
  const end = () => { if (!done) { done = true; resolve(true); } };
  requestAnimationFrame(() => setTimeout(end, 0));
  setTimeout(end, 250);
})
