// A watch on the element a scroll step scrolls (page/scrolling.py): counts the changes inside
// it (a MutationObserver) and reads its scroll position, so the loop can tell when the content
// has settled after a scroll, how far it went and how much room is left. Returned as an object
// the loop keeps a handle to; stop() disconnects it.
(el, direction) => {
  const vertical = direction === "down" || direction === "up";
  const forward = direction === "down" || direction === "right";
  const page = el === (document.scrollingElement || document.documentElement);
  const watch = {changes: 0};
  const observer = new MutationObserver((records) => { watch.changes += records.length; });
  observer.observe(page ? document.documentElement : el,
                   {subtree: true, childList: true, attributes: true, characterData: true});
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
  watch.stop = () => observer.disconnect();
  return watch;
}
