// Runs the vendored axe-core in the page's isolated world (executor/audits/accessibility.py calls
// it there through CDP's Runtime.callFunctionOn): the page's own globals, prototypes and
// JSON are not this world's, so the page can neither see axe nor change its result.
// marker: the name of the attribute the target carries for this one look ("" for the whole
// page); it is removed here at once. Returns {error} or {violations: [{id, impact, help,
// helpUrl, count, targets}]}, each target one selector (a shadow or frame path joined by " >> ").
async (marker, tags, disabled) => {
  if (typeof axe === "undefined") return {error: "axe-core is not loaded in the isolated world"};
  let context = document;
  if (marker) {
    const marked = Array.from(document.querySelectorAll("[" + marker + "]"));
    marked.forEach((el) => el.removeAttribute(marker));
    if (marked.length !== 1) return {error: "the target could not be handed to the audit", marked: marked.length};
    context = marked[0];
  }
  const rules = {};
  for (const id of disabled) rules[id] = {enabled: false};
  const result = await axe.run(context, {
    runOnly: {type: "tag", values: tags}, rules, resultTypes: ["violations"], iframes: false, elementRef: false,
  });
  const selector = (t) => (Array.isArray(t) ? t.map(selector).join(" >> ") : String(t));
  return {violations: result.violations.map((v) => ({
    id: v.id, impact: v.impact || "minor", help: v.help, helpUrl: v.helpUrl, count: v.nodes.length,
    targets: v.nodes.map((n) => n.target.map(selector).join(" >> ")),
  }))};
}
