// An element's text as Playwright's text assertions read it (toHaveText / toContainText, its
// injected elementText + normalizeWhiteSpace), for every text condition (page/texts.py): the
// text nodes of the element and its descendants in document order (hidden ones too, as
// textContent has them), skipping <script>, <noscript>, <style>, the <head> and comments; a
// submit, button or reset <input> reads as its value; an open shadow root's text follows its
// host's children. Then zero-width spaces and soft hyphens are dropped, the ends trimmed and
// each run of whitespace made one space. No layout: `po-1234` and `.txt` in two spans, flex
// children or blocks read `po-1234.txt`.
(root) => {
  const skip = (e) => e.nodeName === "SCRIPT" || e.nodeName === "NOSCRIPT" || e.nodeName === "STYLE" ||
    (e.ownerDocument && e.ownerDocument.head && e.ownerDocument.head.contains(e));
  const full = (node) => {
    if (node.nodeType === Node.ELEMENT_NODE && skip(node)) return "";
    if (node instanceof HTMLInputElement && ["submit", "button", "reset"].includes(node.type)) return node.value;
    let text = "";
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE) text += child.nodeValue || "";
      else if (child.nodeType === Node.ELEMENT_NODE) text += full(child);
    }
    if (node.shadowRoot) text += full(node.shadowRoot);
    return text;
  };
  return full(root).replace(/[\u200b\u00ad]/g, "").trim().replace(/\s+/g, " ");
}
