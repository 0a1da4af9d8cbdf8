// A suggested target's check: how many elements it matches and, for one, which (fingerprint.js).
(els) => { const fingerprint = $fingerprint$;
return JSON.stringify({count: els.length, fp: els.length === 1 ? fingerprint(els[0]) : null}); }
