// The kind of the one element a select step's target matches (dropdown_kind.js), in one round trip: [kind], or [] when
// it matches none or several now (page/controls.py then waits for it as Playwright does).
(els) => els.length === 1 ? [($dropdown_kind$)(els[0])] : []
