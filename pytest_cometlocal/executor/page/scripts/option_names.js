// The names of the options a custom dropdown shows (page/controls.py), for details.options_seen: at most
// `limit`, each its aria-label, else the text of its aria-labelledby, else its text, whitespace normalized.
(els, limit) => {
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const byIds = (ids) => ids.split(/\s+/).map((id) => { const e = id && document.getElementById(id); return e ? e.textContent : ""; }).join(" ");
  return els.slice(0, limit).map((e) => norm(e.getAttribute("aria-label")) ||
    norm(byIds(e.getAttribute("aria-labelledby") || "")) || norm(e.innerText || e.textContent));
}
