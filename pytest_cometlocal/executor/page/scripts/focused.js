// Whether an element has keyboard focus, for element_focused (page/conditions.py): it is the
// active element of its document, looking into open shadow roots, and that document (a frame's,
// for an element inside an iframe) has the focus.
(el) => {
  const doc = el.ownerDocument;
  let active = doc.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  return active === el && doc.hasFocus();
}
