// What the page shows of a text, for toast_contains and upload_completed (page/texts.py): the
// texts of the shown elements `selector` matches (at most 20), and the page's text, each read as
// Playwright's text assertions read it ($element_text$, scripts/element_text.js). `shown` is
// whether `wanted` (normalized alike) is in the text of a visible element that holds it whole
// while none of its children does: the page shows it, not only a hidden copy of it.
([selector, wanted]) => {
  const text = $element_text$;
  const norm = (s) => s.replace(/[\u200b\u00ad]/g, "").trim().replace(/\s+/g, " ");
  const visible = (e) => {
    const style = getComputedStyle(e);
    if (style.display === "contents") return Array.from(e.children).some(visible);
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && style.visibility !== "hidden" && style.display !== "none";
  };
  const toasts = Array.from(document.querySelectorAll(selector)).filter(visible).map(text).filter(t => t).slice(0, 20);
  const body = document.body;
  const page = body ? text(body) : "";
  const sought = wanted === null ? null : norm(wanted);
  const kids = (e) => Array.from(e.children).concat(e.shadowRoot ? Array.from(e.shadowRoot.children) : []);
  const holders = (e) => {
    const inner = kids(e).filter(c => text(c).includes(sought));
    return inner.length ? inner.flatMap(holders) : [e];
  };
  const shown = sought !== null && body !== null && page.includes(sought) && holders(body).some(visible);
  return {toasts, page, shown};
}
