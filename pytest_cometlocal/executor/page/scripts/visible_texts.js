// The texts of the shown elements a selector matches, at most 20 (page/conditions.py).
([selector]) => Array.from(document.querySelectorAll(selector))
  .filter(e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
                 return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"; })
  .map(e => (e.innerText || "").replace(/\s+/g, " ").trim()).filter(t => t).slice(0, 20)
