(() => {
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !s.__cometlocalCaret);
})()
