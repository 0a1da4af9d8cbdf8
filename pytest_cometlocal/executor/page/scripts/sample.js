// One match of a target that matched several, described for TARGET_NOT_UNIQUE (inside match.js).
(e) => ({
  tag: e.tagName.toLowerCase(), id: e.id || null, role: e.getAttribute("role"),
  testid: e.getAttribute("data-testid"), name: e.getAttribute("name"),
  aria_label: e.getAttribute("aria-label"),
  text: (e.innerText || "").replace(/\s+/g, " ").trim().slice(0, 60),
})
