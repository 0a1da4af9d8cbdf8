// Takes away the style sheet caret_off.js added (page/screenshots.py).
(() => {
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !s.__cometlocalCaret);
})()
