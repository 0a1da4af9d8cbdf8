// upload_completed without text (page/upload_check.py): how many elements the file input's locator
// matches and, when one, the names of its files. One round trip that also counts.
(els) => ({count: els.length, files: els.length === 1 ? Array.from(els[0].files || []).map((f) => f.name) : []})
