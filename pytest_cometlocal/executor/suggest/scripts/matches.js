(els, arg) => ($look$)(arg, els)
