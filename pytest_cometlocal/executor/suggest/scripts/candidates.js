// The page's candidates (look.js over the whole document).
(arg) => ($look$)(arg, null)
