// (v1.2) What the page knows of its session history, for go_back and go_forward (pages/actions.py):
// the Navigation API's directions (null without it; it sees only the entries of this origin),
// and history.length (every entry, but not on which side of the current one).
() => {
  const nav = globalThis.navigation;
  return {back: nav ? nav.canGoBack : null, forward: nav ? nav.canGoForward : null, length: history.length};
}
