(els) => { const targetContext = $target_context$;
const sample = $sample$;
return JSON.stringify({count: els.length, context: els.length === 1 ? targetContext(els[0]) : null,
        sample: els.length > 1 ? els.slice(0, 5).map(sample) : []}); }
