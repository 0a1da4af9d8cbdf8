// The one look of an observation (page/observation.py): the data of the state signature and of the
// partial DOM snapshot, the elements showing a secret marked for the screenshot's mask, and the
// caret made steady. One JSON string.
({maxElements, maxTextChars, secrets, controls}) => {
  const clip = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const st = getComputedStyle(el);
    return st.visibility !== "hidden" && st.display !== "none";
  };
  // The labels of a control, as el.labels gives them (labels whose control it is, in
  // document order): el.labels walks the whole document on every call, and reading
  // label.control for every label of a large page costs as much. So: the for= labels
  // by the id they name, one pass reading an attribute; the wrapping label by
  // closest(); label.control only for those few candidates.
  const labelsFor = new Map();
  for (const l of document.getElementsByTagName("label")) {
    const id = l.getAttribute("for");
    if (id) (labelsFor.get(id) || labelsFor.set(id, []).get(id)).push(l);
  }
  const labelsOf = (el) => {
    const found = [];
    if (el.id && document.getElementById(el.id) === el) found.push(...(labelsFor.get(el.id) || []));
    const wrapping = el.parentElement && el.parentElement.closest("label");
    if (wrapping && !wrapping.hasAttribute("for") && wrapping.control === el) found.push(wrapping);
    return found.length > 1
      ? found.sort((a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1) : found;
  };
  // Text as shown, read from text nodes in document order until a cap: an element's
  // innerText (and the body's) costs as much as its whole subtree, and a [role=main] or
  // the body can be the whole page. A text node counts when its element is rendered and
  // not visibility:hidden (checkVisibility); script and style text never does.
  const unshownTags = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
  let lastParent = null, lastShown = false;
  const shown = (p) => {
    if (p !== lastParent) {
      lastParent = p;
      lastShown = p.checkVisibility ? p.checkVisibility({visibilityProperty: true}) : !!(p.offsetParent || p.getClientRects().length);
    }
    return lastShown;
  };
  const shownText = (root, maxChars, maxNodes, sep) => {
    const out = [];
    let chars = 0, nodes = 0;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let t = walker.nextNode();
    for (; t && chars < maxChars && nodes < maxNodes; t = walker.nextNode(), nodes++) {
      const s = t.nodeValue, p = t.parentElement;
      if (!p || unshownTags.has(p.tagName) || !s.trim() || !shown(p)) continue;
      out.push(s);
      chars += s.length;
    }
    return {text: out.join(sep).slice(0, maxChars), capped: !!t};
  };
  const shortText = (el) => shownText(el, 320, 64, " ").text;
  const labelOf = (el) => {
    if (el.getAttribute("aria-label")) return el.getAttribute("aria-label");
    const by = el.getAttribute("aria-labelledby");
    if (by) return by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent || "").join(" ");
    const labels = labelsOf(el);
    if (labels.length) return labels.map(l => l.textContent).join(" ");
    if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) return el.getAttribute("placeholder") || el.getAttribute("title") || "";
    return shortText(el) || el.getAttribute("title") || el.getAttribute("alt") || "";
  };
  const sel = "a[href],button,input,select,textarea,[role],[tabindex],[data-testid],[contenteditable=true]";
  // The first maxElements matches in document order, found by a walk that stops there:
  // the cost does not grow with the page beyond them (querySelectorAll would match all).
  // (A document being replaced can have no root element yet: then nothing to read.)
  const all = [];
  const walk = document.documentElement && document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
  for (let n = walk && walk.nextNode(); n && all.length < maxElements; n = walk.nextNode()) {
    if (n.matches(sel)) all.push(n);
  }
  const key = all.map(el => [
    el.tagName.toLowerCase(),
    el.getAttribute("role") || "",
    clip(labelOf(el), 80),
    el.getAttribute("data-testid") || "",
    (el.getAttribute("type") || "").toLowerCase(),
    el.disabled === true || el.getAttribute("aria-disabled") === "true",
  ]);
  const maskValue = (el) => {
    const t = (el.getAttribute("type") || "").toLowerCase();
    if (t === "password") return el.value ? "***" : "";
    if (t === "hidden") return null;
    if (t === "file") return Array.from(el.files || []).map(f => f.name).join(", ");
    if (el.tagName === "SELECT") return el.value;
    return clip(el.value, 200);
  };
  const anchors = [], inputs = [];
  for (const el of all) {
    if (!visible(el) && (el.getAttribute("type") || "").toLowerCase() !== "hidden") continue;
    if (el.tagName === "A" && anchors.length < 100) {
      anchors.push({text: clip(shortText(el), 80), href: el.getAttribute("href"), testid: el.getAttribute("data-testid")});
    } else if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) && inputs.length < 100) {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (t === "hidden") { inputs.push({tag: "input", type: "hidden", name: el.getAttribute("name")}); continue; }
      inputs.push({
        tag: el.tagName.toLowerCase(), type: t || null, name: el.getAttribute("name"), id: el.id || null,
        label: clip(labelOf(el), 80), testid: el.getAttribute("data-testid"),
        value: maskValue(el), disabled: !!el.disabled, readonly: !!el.readOnly,
      });
    }
  }
  // The fast profile's control state (page/observation.py `look`): for each visible key element that
  // holds a value or a state, its index and a hash of the state, hashed here so no value leaves the page; a
  // password or a field holding a secret only as "set"; then which key element has focus.
  let controlState = null;
  if (controls) {
    const hash = (str) => {  // cyrb53: 53 bits, enough to tell states of one run apart
      let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
      for (let i = 0; i < str.length; i++) {
        const c = str.charCodeAt(i);
        h1 = Math.imul(h1 ^ c, 2654435761); h2 = Math.imul(h2 ^ c, 1597334677);
      }
      h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
      h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
      return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
    };
    const secretIn = (v) => !!v && secrets.some((x) => v.includes(x));
    const aria = ["aria-checked", "aria-selected", "aria-pressed", "aria-expanded", "aria-valuenow"];
    const state = [];
    all.forEach((el, i) => {
      const parts = [];
      const t = (el.getAttribute("type") || "").toLowerCase();
      // Visible controls only: a hidden input (a CSRF token new at every load) is no state a person sees.
      if (t === "hidden" || !visible(el)) return;
      if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) {
        const v = t === "file" ? Array.from(el.files || []).map((f) => f.name).join("\n") : String(el.value ?? "");
        parts.push(t === "password" || secretIn(v) ? (v ? "set" : "") : hash(v));
        if (t === "checkbox" || t === "radio") parts.push(el.checked ? 1 : 0, el.indeterminate ? 1 : 0);
        if (el.tagName === "SELECT") parts.push(Array.from(el.selectedOptions || []).map((o) => o.index).join(","));
      } else if (el.isContentEditable) {
        const v = el.textContent || "";
        parts.push(secretIn(v) ? "set" : hash(v));
      }
      for (const name of aria) if (el.hasAttribute(name)) parts.push(name.slice(5) + "=" + el.getAttribute(name));
      if (parts.length) state.push([i, ...parts]);
    });
    const active = document.activeElement;
    // (No active element at all while a document is being replaced.)
    const focused = !active || active === document.body ? -1 : all.indexOf(active);
    controlState = {state, focus: focused >= 0 ? focused : active && active !== document.body ? active.tagName.toLowerCase() : null};
  }
  // Elements showing a secret get an attribute, for the screenshot's mask.
  const attr = "data-cometlocal-secret";
  document.querySelectorAll("[" + attr + "]").forEach(e => e.removeAttribute(attr));
  let marked = 0;
  if (secrets.length && (document.body || document.documentElement)) {
    const has = (s) => !!s && secrets.some(v => s.includes(v));
    // A password field draws a dot for each character: its value is not on screen. The browser's
    // own style says so, and a page cannot override it on a password field (Chromium: "disc"
    // !important); a field whose style says otherwise, or no style at all, is masked.
    const dotted = (el) => el.type === "password" && ["disc", "circle", "square"].includes(getComputedStyle(el).webkitTextSecurity);
    for (const el of document.querySelectorAll("input, textarea, select")) {
      if (has(el.value) && !dotted(el)) { el.setAttribute(attr, ""); marked++; }
    }
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (has(n.nodeValue) && n.parentElement) { n.parentElement.setAttribute(attr, ""); marked++; }
    }
  }
  // A text caret that does not blink: a blinking one would give two pictures of the
  // same page two hashes. A constructed style sheet (not a node in the DOM, not subject
  // to a Content-Security-Policy on inline styles), added once per document and kept:
  // hiding the caret for each picture instead made the browser restyle and repaint
  // the page twice per picture, which on large pages cost more than the rest of a step.
  const steadyCaret = typeof CSS !== "undefined" && CSS.supports("caret-animation", "manual");
  if (steadyCaret && !document.adoptedStyleSheets.some((s) => s.__cometlocalSteadyCaret)) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(":focus, :focus * { caret-animation: manual !important; }");
    sheet.__cometlocalSteadyCaret = true;
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }
  // Without it (an older browser): whether a caret can be on screen, to hide it for the
  // picture. Only in a focused editable element.
  const noCaret = ["button", "submit", "reset", "checkbox", "radio", "range", "color", "file", "image", "hidden"];
  const active = document.activeElement;
  const caret = !steadyCaret && (document.designMode === "on" || (!!active && (active.isContentEditable || active.tagName === "TEXTAREA" ||
    (active.tagName === "INPUT" && !noCaret.includes((active.getAttribute("type") || "").toLowerCase())))));
  // One JSON string: Playwright's serialisation of a nested object costs several
  // times what building it does (hundreds of small objects at 400 elements).
  // A fresh page's empty document (about:blank, as a new page starts): its picture
  // depends only on the viewport, which is given with it.
  const root = document.documentElement;
  const blank = location.href === "about:blank" && !!root && root.innerHTML === "<head></head><body></body>"
    ? [innerWidth, innerHeight, devicePixelRatio, matchMedia("(prefers-color-scheme: dark)").matches] : null;
  // A document whose parser has not reached <body> (a page still arriving, or one whose
  // arrival was stopped before it) is never painted: no frame can come, so the executor
  // does not wait for one (a body removed by a script later is a page that was painted).
  const unpainted = document.contentType === "text/html" && !document.body
    && (document.readyState === "loading" || !performance.getEntriesByType("paint").length);
  const pageText = document.body ? shownText(document.body, maxTextChars, 4 * maxTextChars, " ") : {text: "", capped: false};
  return JSON.stringify({
    blank,
    url: location.href,
    title: document.title,
    text: pageText.text,
    textCapped: pageText.capped,
    key,
    controls: controlState,
    anchors,
    inputs,
    marked,
    caret,
    unpainted,
    // Still being parsed (page/settle.py, until_parsed): not yet a state; read again once parsed.
    loading: document.readyState === "loading",
  });
}
