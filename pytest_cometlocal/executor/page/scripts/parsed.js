// The wait of a look that found its document still being parsed (page/settle.py, until_parsed):
// resolves once the parser is done (DOMContentLoaded: readyState past "loading", deferred scripts
// run), or after `ms`, with whether it is done. Nothing is read or changed.
(ms) => new Promise((resolve) => {
  const done = () => resolve(document.readyState !== "loading");
  if (document.readyState !== "loading") return done();
  document.addEventListener("DOMContentLoaded", done, {once: true});
  setTimeout(done, ms);
})
