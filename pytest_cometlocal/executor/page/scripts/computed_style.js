// One computed style property of an element, for element_css (page/looks.py): the value as
// getComputedStyle's getPropertyValue gives it ("rgb(255, 0, 0)", "16px"), as Playwright's toHaveCSS reads it.
(el, name) => String(el.ownerDocument.defaultView.getComputedStyle(el).getPropertyValue(name))
