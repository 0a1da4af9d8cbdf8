// A checkable control's state (page/controls.py; element_checked in page/conditions.py): whether it is a checkbox, radio or switch, and its checked state.
//
// Native inputs read .checked (a role="switch" on one keeps the native state); an element with role checkbox,
// radio, switch or menuitemcheckbox reads aria-checked ("mixed" is not checked). A label stands for its control (control_of.js).
(el) => {
  const control = ($control_of$)(el);
  const tag = control.tagName.toLowerCase();
  const type = (control.getAttribute("type") || "").toLowerCase();
  const role = (control.getAttribute("role") || "").trim().split(/\s+/)[0];
  const native = tag === "input" && (type === "checkbox" || type === "radio");
  const aria = ["checkbox", "radio", "switch", "menuitemcheckbox"].includes(role);
  const kind = native ? (role === "switch" ? "switch" : type) : (aria ? role : null);
  return {
    checkable: native || aria,
    kind,
    // Any element with aria-checked has a checked state (element_checked reads it too), checkable by role or not.
    checked: native ? control.checked : (control.hasAttribute("aria-checked") ? control.getAttribute("aria-checked") === "true" : null),
    tag, role: role || null, type: type || null,
  };
}
