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
