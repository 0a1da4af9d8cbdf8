// What kind of dropdown a select step's target is (page/controls.py): "native" for a <select> (or a label of
// one), "custom" for an element with role combobox or listbox, or a button with aria-haspopup; "other" else.
// A native one says whether it is a <select multiple> (v1.3: select with a list of values).
(el) => {
  const control = ($control_of$)(el);
  if (control.tagName === "SELECT") return {kind: "native", role: null, multiple: control.multiple === true};
  const type = (control.getAttribute("type") || "").toLowerCase();
  const implicit = control.tagName === "BUTTON" || (control.tagName === "INPUT" && ["button", "submit", "reset"].includes(type))
    ? "button" : "";
  const role = (control.getAttribute("role") || "").trim().split(/\s+/)[0] || implicit;
  const popup = (control.getAttribute("aria-haspopup") || "false").toLowerCase() !== "false";
  const custom = role === "combobox" || role === "listbox" || (role === "button" && popup);
  return {kind: custom ? "custom" : "other", role: role || null};
}
