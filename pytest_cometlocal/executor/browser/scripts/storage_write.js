// set_storage_item and clear_storage (browser/storage.py): with a value, setItem; with keys, remove
// each; with neither, clear the whole area. Returns true once done.
([area, keys, value]) => {
  const store = area === "local" ? window.localStorage : window.sessionStorage;
  if (value !== null) {
    store.setItem(keys[0], value);
  } else if (keys === null) {
    store.clear();
  } else {
    for (let i = 0; i < keys.length; i++) store.removeItem(keys[i]);
  }
  return true;
}
