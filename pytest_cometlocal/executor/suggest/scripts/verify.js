(els) => { const fingerprint = $fingerprint$;
return JSON.stringify({count: els.length, fp: els.length === 1 ? fingerprint(els[0]) : null}); }
