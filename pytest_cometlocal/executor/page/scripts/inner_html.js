// An element's inner HTML, for element_html_contains (page/looks.py).
(el) => String(el.innerHTML)
