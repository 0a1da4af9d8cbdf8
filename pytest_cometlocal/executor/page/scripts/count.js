(els) => JSON.stringify({count: els.length, context: null, sample: []})
