// A target's match (match.js) and the observation's look (observe.js) in one round trip: the fast
// profile's "before" look (step/target.py). Both read the page in the same task, so the element was
// found in exactly the state the observation records. One JSON string holding both of theirs.
(els, arg) => JSON.stringify({match: ($match$)(els), look: ($observe$)(arg)})
