// The element a target resolved to, before the action: itself, its first five ancestors and its
// siblings, for the "before" DOM snapshot (inside match.js).
(el) => {
  const clip = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);
  // The first characters of an element's text, read from its first text nodes: an
  // ancestor can be the whole page (a table of thousands of rows), whose innerText
  // would cost as much as the page. Script and style text is left out.
  const head = (e, n) => {
    let out = "";
    const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT, {acceptNode: (t) =>
      t.parentElement && ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"].includes(t.parentElement.tagName)
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
    for (let t = walk.nextNode(); t && out.length < 4 * n; t = walk.nextNode()) out += " " + t.nodeValue;
    return clip(out, n);
  };
  const describe = (e, text) => e && e.nodeType === 1 ? {
    tag: e.tagName.toLowerCase(), id: e.id || null, classes: clip(e.className && e.className.baseVal === undefined ? e.className : "", 80),
    role: e.getAttribute("role"), testid: e.getAttribute("data-testid"), name: e.getAttribute("name"),
    text: text(e),
  } : null;
  const visibleText = (e) => clip(e.innerText, 80);  // the target itself: its text as shown
  const firstText = (e) => head(e, 80);
  const ancestors = [];
  for (let p = el.parentElement; p && ancestors.length < 5; p = p.parentElement) ancestors.push(describe(p, firstText));
  const siblings = [];
  for (let c = el.parentElement ? el.parentElement.firstElementChild : null; c && siblings.length < 10; c = c.nextElementSibling) {
    if (c !== el) siblings.push(describe(c, firstText));
  }
  return {target: describe(el, visibleText), ancestors, siblings};
}
