// Where a click that toggles a checkable control goes (page/controls.py): the control, or its own label.
//
// UI kits hide the native input and let its own <label> take the pointer. A hit on a label that labels the
// control (or one around it) is a hit on the control, and the click goes to that label; a control that takes
// no space is clicked through its first own label that does. Anything else taking the pointer is left to
// Playwright's click, which names it (OVERLAY_BLOCKING); so is a disabled control (it waits for it to be enabled).
(el) => {
  const control = ($control_of$)(el);
  const own = new Set(control.labels || []);
  const around = control.parentElement && control.parentElement.closest("label");
  if (around) own.add(around);
  for (const id of (control.getAttribute("aria-labelledby") || "").split(/\s+/)) {
    const label = id && document.getElementById(id);
    if (label && label.tagName === "LABEL") own.add(label);
  }
  const ownLabel = (node) => [...own].find((l) => l === node || l.contains(node)) || null;
  const takesSpace = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  if (control.disabled === true || control.getAttribute("aria-disabled") === "true") return {element: control, via: "control"};
  if (takesSpace(control) && getComputedStyle(control).visibility !== "hidden") {
    let r = control.getBoundingClientRect();
    if (r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) {
      control.scrollIntoView({block: "center", inline: "center"});  // as the click itself would
      r = control.getBoundingClientRect();
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const label = hit && hit !== control && !control.contains(hit) ? ownLabel(hit) : null;
    return label ? {element: label, via: "label"} : {element: control, via: "control"};
  }
  const shown = [...own].find(takesSpace);
  return shown ? {element: shown, via: "label"} : {element: control, via: "control"};
}
