// An element's checked state, for element_checked (page/conditions.py): a native checkbox's or
// radio's own; else its aria-checked ("true" is checked, "false" and "mixed" are not); null when
// it has neither. A label stands for the control it labels.
(el) => {
  const control = el.tagName === "LABEL" && el.control ? el.control : el;
  if (control.tagName === "INPUT" && (control.type === "checkbox" || control.type === "radio")) return control.checked;
  const aria = control.getAttribute("aria-checked");
  return aria === null ? null : aria === "true";
}
