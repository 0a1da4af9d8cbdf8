// Which element this is, by its place in the tree: its tag and the child index at each level from the
// document's root, through shadow roots. A suggested target is kept only when it matches exactly the
// candidate's element (verify.js), not some other single one: tag, box and text are not enough, as a
// grid and its container of the same size, or a hidden grid and an empty overlay (both 0x0 at 0,0),
// look alike. Shared by look.js and verify.js.
(() => {
  const places = new Map(), indexes = new Map();  // a look's paths and sibling indexes, each computed once
  const place = (n) => {
    if (places.has(n)) return places.get(n);
    const parent = n.parentNode;
    let out = "0";
    if (parent && parent.nodeType !== 9) {
      if (!indexes.has(n)) { let i = 0; for (const c of parent.children) indexes.set(c, i++); }
      const shadow = parent.nodeType === 11;
      out = place(shadow ? parent.host : parent) + "." + (shadow ? "s" : "") + indexes.get(n);
    }
    places.set(n, out);
    return out;
  };
  return (e) => e.tagName.toLowerCase() + "@" + place(e);
})()
