// The elements showing a secret now, for screenshot_matches (audits/screenshot_check.py): a field
// whose value holds one, an element whose own text holds one. Each is marked with the attribute
// observe.js marks secrets with (the marks are made anew each time), and their boxes (CSS px, in
// the viewport) are returned, to be painted over in the baseline too.
(secrets) => {
  const attr = "data-cometlocal-secret";
  const has = (v) => typeof v === "string" && v !== "" && secrets.some((s) => s && v.includes(s));
  document.querySelectorAll("[" + attr + "]").forEach((e) => e.removeAttribute(attr));
  for (const el of document.querySelectorAll("input, textarea, select")) if (has(el.value)) el.setAttribute(attr, "");
  const root = document.body || document.documentElement;
  if (root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode())
      if (has(n.nodeValue) && n.parentElement) n.parentElement.setAttribute(attr, "");
  }
  return Array.from(document.querySelectorAll("[" + attr + "]"), (e) => {
    const r = e.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height];
  });
}
