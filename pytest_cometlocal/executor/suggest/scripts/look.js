// The bounded look at the page's candidates for suggested targets (suggest/suggester.py).
//
// It walks the document once, in document order, and stops after maxScan elements: a page of any
// size costs at most that walk. For each element that could be a step's target (interactive, named,
// with a test id or an id, or with text of its own) and that is shown (a file input counts hidden
// too: upload sets files on hidden inputs), it reads what a target can name: role (explicit, else
// the implicit one of its tag), accessible name, label text, test id, id, its own text, and what an
// action can do with it (click, fill, select, upload). Every text is read from at most a few text
// nodes and clipped to maxChars: a heading or a table cell never costs its whole subtree.
//
// Given only (a target's matches), it describes those instead, shown or not, each by itself (never
// by a look-alike), with its container and the attributes (href, name, value, aria-*) that can tell
// it from the others. One JSON string either way; it never changes the page.
({maxScan, maxCandidates, maxChars, testid}, only) => {
  const fingerprint = $fingerprint$;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  // Text as shown, from at most 48 text nodes: long subtrees are never read whole.
  const unshown = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
  const shownText = (root) => {
    let out = "", nodes = 0;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t && nodes < 48 && out.length <= maxChars; t = walker.nextNode(), nodes++) {
      const p = t.parentElement;
      if (!p || unshown.has(p.tagName)) continue;
      out += " " + t.nodeValue;
    }
    return norm(out);
  };
  const ownText = (el) => {
    let out = "";
    for (const c of el.childNodes) if (c.nodeType === 3) out += " " + c.nodeValue;
    return norm(out);
  };
  const shown = (el) => el.checkVisibility ? el.checkVisibility({visibilityProperty: true})
    : !!(el.offsetParent || el.getClientRects().length);
  const type = (el) => (el.getAttribute("type") || "").toLowerCase();
  const textTypes = new Set(["", "text", "email", "password", "search", "tel", "url", "number", "date",
    "datetime-local", "month", "time", "week"]);
  const buttonTypes = new Set(["button", "submit", "reset", "image"]);
  const implicitRole = (el) => {
    const tag = el.tagName;
    if (tag === "A" || tag === "AREA") return el.hasAttribute("href") ? "link" : "";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "INPUT") {
      const t = type(el);
      if (buttonTypes.has(t)) return "button";
      if (t === "checkbox") return "checkbox";
      if (t === "radio") return "radio";
      if (t === "range") return "slider";
      if (t === "number") return "spinbutton";
      if (t === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
      if (["", "text", "email", "tel", "url"].includes(t)) return el.hasAttribute("list") ? "combobox" : "textbox";
      return "";
    }
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "SELECT") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "OPTION") return "option";
    if (/^H[1-6]$/.test(tag)) return "heading";
    if (tag === "IMG") return el.getAttribute("alt") ? "img" : "";
    if (tag === "NAV") return "navigation";
    // Landmarks and structures (cometlocal targets lists them; a nameless role target is suggested them):
    // banner and contentinfo only outside sectioning content, form and region only when named.
    if (tag === "HEADER" || tag === "FOOTER")
      return el.parentElement && el.parentElement.closest("article,aside,main,nav,section") ? ""
        : tag === "HEADER" ? "banner" : "contentinfo";
    const named = el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") || el.hasAttribute("title");
    if (tag === "FORM") return named ? "form" : "";
    if (tag === "SECTION") return named ? "region" : "";
    if (tag === "ASIDE") return "complementary";
    if (tag === "TABLE") return "table";
    if (tag === "UL" || tag === "OL" || tag === "MENU") return "list";
    if (tag === "FIELDSET") return "group";
    if (tag === "MAIN") return "main";
    if (tag === "DIALOG") return "dialog";
    if (tag === "TD") return "cell";
    if (tag === "TH") return "columnheader";
    if (tag === "LI") return "listitem";
    return "";
  };
  const isField = (el) => ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName);
  const labelsFor = new Map();
  for (const l of document.getElementsByTagName("label")) {
    const id = l.getAttribute("for");
    if (id) (labelsFor.get(id) || labelsFor.set(id, []).get(id)).push(l);
  }
  const labelText = (el) => {
    if (!isField(el)) return "";
    const found = el.id ? [...(labelsFor.get(el.id) || [])] : [];
    const wrapping = el.parentElement && el.parentElement.closest("label");
    if (wrapping && !wrapping.hasAttribute("for")) found.push(wrapping);
    return norm(found.map(l => shownText(l)).join(" "));
  };
  const byIds = (ids) => norm(ids.split(/\s+/).map(id => {
    const e = document.getElementById(id); return e ? shownText(e) : "";
  }).join(" "));
  const fromContent = new Set(["button", "link", "heading", "cell", "columnheader", "option", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "checkbox", "radio", "switch", "treeitem", "listitem", "rowheader",
    "gridcell"]);
  // A name from content, as the accessible name is computed (Playwright's role targets match it): a
  // descendant's aria-label stands for its content, and a descendant whose role gives no name from content
  // (a nested tree's group, a menu, a text field) adds nothing. At most 48 nodes, as shownText.
  const contentRoles = new Set([...fromContent, "cell", "row", "tooltip", "caption", "code", "contentinfo",
    "definition", "deletion", "emphasis", "insertion", "list", "mark", "none", "paragraph", "presentation",
    "region", "rowgroup", "section", "strong", "subscript", "superscript", "table", "term", "time"]);
  const contentName = (root) => {
    let out = "", nodes = 0;
    const visit = (node) => {
      for (const c of node.childNodes) {
        if (nodes++ >= 48 || out.length > maxChars) return;
        if (c.nodeType === 3) { out += " " + c.nodeValue; continue; }
        if (c.nodeType !== 1 || unshown.has(c.tagName) || !shown(c)) continue;
        const role = (c.getAttribute("role") || "").trim().split(/\s+/)[0] || implicitRole(c);
        if (role && !contentRoles.has(role)) continue;
        const aria = norm(c.getAttribute("aria-label"));
        if (aria) { out += " " + aria; continue; }
        visit(c);
      }
    };
    visit(root);
    return norm(out);
  };
  const nameOf = (el, role, label) => {
    const by = el.getAttribute("aria-labelledby");
    if (by) { const n = byIds(by); if (n) return n; }
    const aria = norm(el.getAttribute("aria-label"));
    if (aria) return aria;
    if (isField(el)) {
      if (label) return label;
      const t = type(el);
      if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(t))
        return norm(el.value) || (t === "submit" ? "Submit" : t === "reset" ? "Reset" : "");
      if (t === "image") return norm(el.getAttribute("alt"));
      return norm(el.getAttribute("title") || el.getAttribute("placeholder"));
    }
    if (el.tagName === "IMG") return norm(el.getAttribute("alt") || el.getAttribute("title"));
    if (fromContent.has(role)) return contentName(el) || norm(el.getAttribute("title"));
    if (el.tagName === "FIELDSET") { const lg = el.querySelector("legend"); return lg ? shownText(lg) : ""; }
    if (el.tagName === "TABLE" && el.caption) return shownText(el.caption);
    return norm(el.getAttribute("title"));
  };
  const clickRoles = new Set(["button", "link", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "switch", "treeitem", "combobox", "slider", "spinbutton"]);
  // A custom widget's states, as a role target's filters read them: its ARIA attributes (true or false
  // only: "mixed" is no filter's value), else the native state (a checkbox's checked, a heading's level,
  // an open <details>' summary). Which role takes which filter is for suggest/listing.py to say.
  const ariaBool = (el, attr) => {
    const v = (el.getAttribute(attr) || "").trim();
    return v === "true" ? true : v === "false" ? false : undefined;
  };
  const statesOf = (el, role, disabled) => {
    const out = {};
    const native = el.tagName === "INPUT" && (type(el) === "checkbox" || type(el) === "radio");
    const checked = native ? el.checked : ariaBool(el, "aria-checked");
    if (checked !== undefined) out.checked = checked;
    const pressed = ariaBool(el, "aria-pressed");
    if (pressed !== undefined) out.pressed = pressed;
    const expanded = ariaBool(el, "aria-expanded");
    if (expanded !== undefined) out.expanded = expanded;
    else if (el.tagName === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS")
      out.expanded = el.parentElement.open;
    const selected = ariaBool(el, "aria-selected");
    if (selected !== undefined) out.selected = selected;
    const level = parseInt(el.getAttribute("aria-level") || "", 10);
    if (level >= 1 && level <= 6) out.level = level;
    else if (role === "heading" && /^H[1-6]$/.test(el.tagName)) out.level = Number(el.tagName[1]);
    if (disabled) out.disabled = true;
    return out;
  };
  const containerRoles = {FORM: "form", SECTION: "region", NAV: "navigation", MAIN: "main", ASIDE: "complementary",
    HEADER: "banner", FOOTER: "contentinfo", DIALOG: "dialog", FIELDSET: "group", TABLE: "table"};
  const landmarks = new Set(Object.keys(containerRoles));
  const landmarkRoles = new Set(["form", "region", "navigation", "main", "complementary", "banner", "contentinfo",
    "dialog", "alertdialog", "group", "table", "search"]);
  const containerName = (p) => {
    let name = "";
    const by = p.getAttribute("aria-labelledby");
    if (by) name = byIds(by);
    if (!name) name = norm(p.getAttribute("aria-label"));
    if (!name && p.tagName === "FIELDSET") { const lg = p.querySelector(":scope > legend"); if (lg) name = shownText(lg); }
    if (!name && p.tagName === "TABLE" && p.caption) name = shownText(p.caption);
    return name.slice(0, 60);
  };
  // Named ancestors (a form, a section, a dialog... with a name or an id): the element's place on the page.
  const containers = (el) => {
    const out = [];
    for (let p = el.parentElement, depth = 0; p && depth < 12 && out.length < 3; p = p.parentElement, depth++) {
      const role = p.getAttribute("role") || "";
      if (!landmarks.has(p.tagName) && !landmarkRoles.has(role)) continue;
      const what = role || containerRoles[p.tagName];
      const name = containerName(p);
      if (name) out.push(what + ' "' + name + '"');
      else if (p.id) out.push(what + "#" + p.id);
    }
    return out;
  };
  // The first five ancestors as TARGET_CONTEXT_JS describes them (tag, id, classes): the
  // key that compares a candidate's place with a target's old one.
  const ancestors = (el) => {
    const out = [];
    for (let p = el.parentElement; p && out.length < 5; p = p.parentElement) {
      const cls = typeof p.className === "string" ? norm(p.className).slice(0, 80) : "";
      out.push([p.tagName.toLowerCase(), p.id || "", cls].join("|"));
    }
    return out;
  };
  const interesting = "a[href],button,input,select,textarea,summary,label,img[alt],h1,h2,h3,h4,h5,h6,td,th,li," +
    "table,ul,ol,menu,nav,main,header,footer,aside,form,section,fieldset,dialog," +
    "[role],[tabindex],[contenteditable=true],[aria-label],[title],[id],[" + testid + "]";
  const skip = new Set(["HTML", "HEAD", "BODY", "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "META", "LINK", "TITLE",
    "OPTION", "BR", "IFRAME"]);
  // The nearest ancestor a person can point at (a landmark, or one with an id or a test id): a match's
  // container, named apart from the match itself (tag, role, name, id, test id).
  const containerOf = (el) => {
    for (let p = el.parentElement, depth = 0; p && depth < 12; p = p.parentElement, depth++) {
      if (p.tagName === "BODY" || p.tagName === "HTML") break;
      const role = p.getAttribute("role") || containerRoles[p.tagName] || "";
      const tid = p.getAttribute(testid);
      if (!landmarkRoles.has(role) && !p.id && !tid) continue;
      const name = containerName(p);
      return (role || p.tagName.toLowerCase()) + (name ? ' "' + name + '"' : "") +
        (p.id ? " #" + p.id : "") + (tid ? " [testid=" + tid + "]" : "");
    }
    return null;
  };
  // Attributes that can tell one match from another (a CSS attribute target names them exactly as written).
  const telling = (el) => {
    const out = {};
    for (const a of el.attributes) {
      if ((["href", "name", "value"].includes(a.name) || a.name.startsWith("aria-")) && a.value.length <= 200)
        out[a.name] = a.value;
    }
    return out;
  };
  const record = (el, index, file) => {
    const role = (el.getAttribute("role") || "").trim().split(/\s+/)[0] || implicitRole(el);
    const label = labelText(el);
    const name = nameOf(el, role, label);
    const text = isField(el) ? "" : shownText(el);
    const disabled = el.disabled === true || el.getAttribute("aria-disabled") === "true";
    const t = type(el);
    const fillable = !disabled && !el.readOnly && ((el.tagName === "INPUT" && textTypes.has(t)) ||
      el.tagName === "TEXTAREA" || el.isContentEditable);
    // Focusable by the page's own choice (a grid's cell a keyboard can reach, an editable one).
    const focusable = el.hasAttribute("tabindex") || el.isContentEditable;
    const clickable = el.tagName === "BUTTON" || el.tagName === "SUMMARY" || (el.tagName === "A" && el.hasAttribute("href")) ||
      (el.tagName === "INPUT" && (buttonTypes.has(t) || t === "checkbox" || t === "radio")) ||
      clickRoles.has(role) || (role === "gridcell" && focusable) || el.hasAttribute("onclick");
    const r = el.getBoundingClientRect();
    return {
      index, tag: el.tagName.toLowerCase(), type: t || null, role: role || null,
      name: name.slice(0, maxChars), name_clipped: name.length > maxChars,
      label: label.slice(0, maxChars), label_clipped: label.length > maxChars,
      text: text.slice(0, maxChars), text_clipped: text.length > maxChars,
      testid: el.getAttribute(testid), id: el.id || null, name_attr: el.getAttribute("name"),
      href: el.hasAttribute("href") ? el.getAttribute("href").slice(0, 200) : null,
      clickable, fillable, selectable: el.tagName === "SELECT" && !disabled, file, focusable,
      states: statesOf(el, role, disabled),
      box: [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)],
      containers: containers(el), ancestors: ancestors(el), fp: fingerprint(el),
    };
  };
  if (only) {  // the matches of a target, described by themselves, shown or not
    return JSON.stringify({count: only.length, matches: only.slice(0, 20).map((el, i) => Object.assign(
      record(el, i, el.tagName === "INPUT" && type(el) === "file"),
      {container: containerOf(el), attrs: telling(el), shown: shown(el)}))});
  }
  const out = [];
  let scanned = 0, capped = false;
  const walk = document.documentElement && document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
  for (let el = walk && walk.nextNode(); el; el = walk.nextNode()) {
    if (scanned >= maxScan || out.length >= maxCandidates) { capped = true; break; }
    scanned++;
    if (skip.has(el.tagName)) continue;
    const own = ownText(el);
    if (!el.matches(interesting) && !(own && own.length <= maxChars)) continue;
    const file = el.tagName === "INPUT" && type(el) === "file";
    if (!file && !shown(el)) continue;
    out.push(record(el, out.length, file));
  }
  return JSON.stringify({scanned, capped, candidates: out});
}
