// The element a scroll step scrolls (page/scrolling.py): the start element itself when it can
// scroll further in the direction, else its nearest ancestor that can (across shadow roots),
// else the page (the document's scrolling element). Called on the step's target, or on the
// root element when the step has none.
(el, direction) => {
  const vertical = direction === "down" || direction === "up";
  const forward = direction === "down" || direction === "right";
  const page = document.scrollingElement || document.documentElement;
  const room = (node) => {
    if (vertical) return forward ? node.scrollHeight - node.clientHeight - node.scrollTop : node.scrollTop;
    return forward ? node.scrollWidth - node.clientWidth - node.scrollLeft : Math.abs(node.scrollLeft);
  };
  const scrolls = (node) => {
    if (room(node) < 1) return false;
    if (node === page) return true;
    const style = getComputedStyle(node);
    return /auto|scroll|overlay/.test(vertical ? style.overflowY : style.overflowX);
  };
  const up = (node) => {
    if (node.parentElement) return node.parentElement;
    const root = node.getRootNode();
    return root instanceof ShadowRoot ? root.host : null;
  };
  for (let node = el; node; node = up(node)) {
    if (scrolls(node)) return node;
  }
  return page;
}
