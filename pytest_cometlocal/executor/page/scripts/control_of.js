// The control an element stands for (page/controls.py, page/controls.py): a <label>, or an element inside one
// that is no field and has no role of its own, stands for the label's control (as Playwright's check and
// select_option retarget); any other element stands for itself.
(el) => {
  if (el.matches("input, textarea, select, [role]")) return el;
  const label = el.tagName === "LABEL" ? el : el.closest("label");
  return label && label.control ? label.control : el;
}
