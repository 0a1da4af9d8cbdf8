// The candidates of one of the page's iframes: candidates.js, evaluated on the iframe's root element.
(el, arg) => ($candidates$)(arg)
