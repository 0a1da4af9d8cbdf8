(el, arg) => ($candidates$)(arg)
