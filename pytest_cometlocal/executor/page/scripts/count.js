// What a condition's target matches: the number only (page/locators.py).
(els) => JSON.stringify({count: els.length, context: null, sample: []})
