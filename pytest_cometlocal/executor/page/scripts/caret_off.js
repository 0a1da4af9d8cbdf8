// Hides a caret that may be on screen while a picture is taken (page/screenshots.py); caret_on.js undoes it.
(() => {
  const sheet = new CSSStyleSheet();
  const where = document.designMode === "on" ? "*" : ":focus";
  sheet.replaceSync(where + " { caret-color: transparent !important; }");
  sheet.__cometlocalCaret = true;
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
})()
