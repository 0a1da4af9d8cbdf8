// What covers an element's centre, if anything but the element itself (page/conditions.py).
(el) => {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  if (!hit) return {clear: false, reason: "outside viewport"};
  if (hit === el || el.contains(hit)) return {clear: true};
  let sel = hit.tagName.toLowerCase();
  if (hit.id) sel += "#" + hit.id;
  else if (typeof hit.className === "string" && hit.className.trim()) sel += "." + hit.className.trim().split(/\s+/).join(".");
  let top = hit;
  while (top.parentElement && top.parentElement !== document.body) top = top.parentElement;
  return {clear: false, overlay_selector: sel, overlay_text: (top.innerText || "").replace(/\s+/g, " ").trim().slice(0, 120)};
}
