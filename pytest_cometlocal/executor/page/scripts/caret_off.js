(() => {
  const sheet = new CSSStyleSheet();
  const where = document.designMode === "on" ? "*" : ":focus";
  sheet.replaceSync(where + " { caret-color: transparent !important; }");
  sheet.__cometlocalCaret = true;
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
})()
