// How many elements a locator matches and, when one, its value as Playwright's input_value reads
// it, in one look (page/texts.py): an <input>, <textarea> or <select> reads as its `value`; any
// other element is null here (input_value follows a label to its control, or says why it cannot).
(elements) => {
  const e = elements.length === 1 ? elements[0] : null;
  const control = e !== null && (e.nodeName === "INPUT" || e.nodeName === "TEXTAREA" || e.nodeName === "SELECT");
  return {count: elements.length, value: control ? e.value : null};
}
