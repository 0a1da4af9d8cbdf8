// (v1.3) scroll's `to`: a place in the element that scrolls (page/scrolling.py, scroll_to_place). Called on the
// step's target, or on the root element when the step has none (the page). Returns a mover the
// caller keeps a handle to:
//   check() -> {ok, axes: {x: {range, overflow, scrolls}, y: {...}}, moves}: whether every axis `to`
//              moves off its start (bottom, right, a coordinate other than 0 or "0%") can scroll (room of
//              at least 1 px, and for an element, overflow auto/scroll/overlay); top, left, 0 and "0%"
//              are where any element is on an axis it cannot scroll;
//   go()    -> scrolls there at once (behavior "instant", whatever the page's scroll-behavior says);
//              returns the pixels asked for on each axis named, from the left and top edges;
//   read()  -> where it is now: scroll_left/scroll_top as the browser reports them, and the ranges.
// The target itself must be the element that scrolls: html, and body when it does not scroll by itself,
// stand for the page. Coordinates count from the left edge also in a right-to-left container, whose
// scrollLeft runs from -range to 0.
(el, args) => {
  const root = document.scrollingElement || document.documentElement;
  const body = document.body;
  const own = (node, axis) => {
    const range = axis === "y" ? node.scrollHeight - node.clientHeight : node.scrollWidth - node.clientWidth;
    const style = getComputedStyle(node);
    const overflow = axis === "y" ? style.overflowY : style.overflowX;
    return {range: Math.max(0, range), overflow: overflow, scrolls: range >= 1 && /auto|scroll|overlay/.test(overflow)};
  };
  const page = args.page || el === root || el === document.documentElement
    || (el === body && !own(body, "y").scrolls && !own(body, "x").scrolls);
  const node = page ? root : el;
  const axisOf = (node, axis) => {
    if (!page) return own(node, axis);
    const range = axis === "y" ? root.scrollHeight - root.clientHeight : root.scrollWidth - root.clientWidth;
    const style = getComputedStyle(root);
    return {range: Math.max(0, range), overflow: axis === "y" ? style.overflowY : style.overflowX, scrolls: range >= 1};
  };
  const to = args.to;
  const named = typeof to === "string"
    ? (to === "top" || to === "bottom" ? ["y"] : ["x"])
    : ["x", "y"].filter((axis) => to[axis] !== null && to[axis] !== undefined);
  const start = (axis) => typeof to === "string" ? (to === "top" || to === "left") : parseFloat(to[axis]) === 0;
  const moves = named.filter((axis) => !start(axis));
  const rtl = () => getComputedStyle(page ? (body || root) : node).direction === "rtl";
  const want = (axis, range) => {
    if (typeof to === "string") return (to === "bottom" || to === "right") ? range : 0;
    const value = to[axis];
    if (typeof value === "number") return value;
    return Math.round(range * parseFloat(value) / 100);
  };
  const describe = () => {
    if (page) return window === window.top ? "page" : "frame document";
    let name = node.tagName.toLowerCase();
    if (node.id) name += "#" + node.id;
    for (const attr of ["data-testid", "role", "aria-label"]) {
      const value = node.getAttribute(attr);
      if (value) name += `[${attr}=${JSON.stringify(value.slice(0, 60))}]`;
    }
    return name;
  };
  const mover = {node: node, element: describe(), page: page, named: named};
  mover.check = () => {
    const axes = {x: axisOf(node, "x"), y: axisOf(node, "y")};
    return {ok: moves.every((axis) => axes[axis].scrolls), axes: axes, named: named, moves: moves};
  };
  mover.read = () => {
    const left = page ? window.scrollX : node.scrollLeft;
    const top = page ? window.scrollY : node.scrollTop;
    return {scroll_left: Math.round(left), scroll_top: Math.round(top),
            scroll_range: {x: axisOf(node, "x").range, y: axisOf(node, "y").range}};
  };
  mover.go = () => {
    const asked = {};
    const options = {behavior: "instant"};
    for (const axis of named) {
      const range = axisOf(node, axis).range;
      const px = want(axis, range);
      asked[axis] = px;
      const clamped = Math.min(px, range);
      if (axis === "y") options.top = clamped;
      else options.left = rtl() ? clamped - range : clamped;
    }
    (page ? window : node).scrollTo(options);
    return asked;
  };
  return mover;
}
