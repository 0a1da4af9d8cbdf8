// One item of the page's localStorage or sessionStorage, for storage_item (page/checks.py):
// its string, or null when the origin has no such item.
([area, key]) => (area === "local" ? window.localStorage : window.sessionStorage).getItem(key)
