// The texts of the elements a locator matches, in document order, for element_texts_equal
// (page/checks.py): each read as Playwright's toHaveText([...]) reads it ($element_text$,
// scripts/element_text.js). Only the first `limit` texts are read; `count` is all of them.
(elements, limit) => {
  const text = $element_text$;
  return {count: elements.length, texts: elements.slice(0, limit).map(text)};
}
