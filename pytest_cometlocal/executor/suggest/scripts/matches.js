// The matches of a target that matched several (TARGET_NOT_UNIQUE): the first 20, each described by
// itself (look.js given the target's match list).
(els, arg) => ($look$)(arg, els)
