(arg) => ($look$)(arg, null)
