// What a target matches now (page/locators.py): the number of matches; for exactly one, the element
// as it is before the action (target_context.js); for several, five of them (sample.js). One JSON string.
(els) => { const targetContext = $target_context$;
const sample = $sample$;
return JSON.stringify({count: els.length, context: els.length === 1 ? targetContext(els[0]) : null,
        sample: els.length > 1 ? els.slice(0, 5).map(sample) : []}); }
