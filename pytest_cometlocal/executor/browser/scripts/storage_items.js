// Every item of the page's localStorage or sessionStorage as [key, value] pairs, in the area's order,
// for storage_items / storage_equals and clear_storage (browser/storage.py); null for an area the
// document may not read (no origin).
([area]) => {
  const store = area === "local" ? window.localStorage : window.sessionStorage;
  const items = [];
  for (let i = 0; i < store.length; i++) {
    const key = store.key(i);
    items.push([key, store.getItem(key)]);
  }
  return items;
}
