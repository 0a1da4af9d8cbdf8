"""A plan regex read once, as Python's ``re`` reads it: its nesting, its repeat weight, its text for the matcher.

The plan's dialect is Python's ``re``; the run-time matcher is the ``regex``
module in VERSION0 mode (contract/patterns.py says why), which reads every
pattern ``re`` accepts the same way but two: a ``[`` inside a character class
(``[[:alpha:]]`` is a POSIX class to it, a ``[`` and letters to ``re``) and a
``{`` that starts no repeat (``a{e<=1}`` is a fuzzy match to it, the literal text
to ``re``). Both are literal to ``re``, so the matcher is given them escaped
(``\\[``, ``\\{``): the same pattern to ``re``, and now to ``regex`` too.

``regex`` also expands counted repeats when it compiles (``(?:a{1000}){1000}``:
about 1 s, ``\\w{4294967294}``: no end), so the repeat counts, multiplied through
the groups that nest them, are added up (``weight``) and held to a limit.

One scan, no recursion, over the pattern as ``re`` tokenizes it: escapes
(``\\N{NAME}`` whole), character classes (a ``]`` first is literal), groups,
``(?#...)`` comments and, with ``(?x)``, ``#`` comments to the end of the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A counted repeat as re reads one: {m}, {m,}, {,n}, {m,n}, {,} (``{}`` is a literal ``{`` and ``}``).
_REPEAT = re.compile(r"\{([0-9]*)(,([0-9]*))?\}")
# Inline flags scoped to a group, ``(?x:...)`` / ``(?-x:...)``: where verbose mode starts and ends.
_SCOPED_FLAGS = re.compile(r"\(\?[aiLmsux]*(?:-[imsx]*)?:")
# What follows a group's "(" before its first atom: ?:  ?P<name>  ?<=  ?!  ?>  ?P=name  ?(1)  ?aiLmsux-imsx:
_GROUP_HEAD = re.compile(r"\?(?:P?<\w+>|P=\w+|<?[=!]|>|\(\w+\)|[aiLmsux-]*:?)")


@dataclass(frozen=True)
class Scanned:
    nesting: int  # the deepest group nesting
    weight: int  # the atoms a match may have to expand: counted repeats multiplied through their groups
    engine_text: str  # the pattern for the matcher: re's own meaning, [ in classes and lone { escaped
    scoped_verbose: bool  # a (?x:...) or (?-x:...) group: where comments end cannot be told in one scan


class _Weights:
    """Per open group: the weight so far and the weight of its last atom (what a repeat multiplies)."""

    def __init__(self) -> None:
        self.stack = [[0, 0]]

    def atom(self, weight: int) -> None:
        top = self.stack[-1]
        top[0] += weight
        top[1] = weight

    def repeat(self, times: int) -> None:
        top = self.stack[-1]
        top[0] += top[1] * (times - 1)
        top[1] *= times

    def open(self) -> None:
        self.stack.append([0, 0])

    def close(self) -> None:
        if len(self.stack) > 1:
            total = self.stack.pop()[0]
            self.atom(max(total, 1))

    def total(self) -> int:
        return sum(group[0] for group in self.stack)


def _escape_end(pattern: str, i: int) -> int:
    """Where the escape at ``i`` ends: two characters, or ``\\N{...}`` whole."""
    if pattern.startswith("N{", i + 1):
        close = pattern.find("}", i + 3)
        return len(pattern) if close < 0 else close + 1
    return i + 2


def scan(pattern: str, verbose: bool) -> Scanned:
    """``pattern`` read once; ``verbose``: compiled with ``re.VERBOSE`` (``(?x)`` at its start)."""
    out: list[str] = []
    weights = _Weights()
    depth = deepest = 0
    i, n = 0, len(pattern)
    in_class = scoped = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            end = _escape_end(pattern, i)
            out.append(pattern[i:end])
            i = end
            if not in_class:
                weights.atom(1)
            continue
        if in_class:
            if c == "]":
                in_class = False
                weights.atom(1)
            out.append("\\[" if c == "[" else c)
            i += 1
            continue
        if verbose and c == "#":
            end = pattern.find("\n", i)
            end = n if end < 0 else end
            out.append(pattern[i:end])
            i = end
            continue
        if c == "[":
            in_class = True
            start = i + 1
            start += pattern.startswith("^", start)
            start += pattern.startswith("]", start)  # a ']' first in a class is literal
            out.append(pattern[i:start])
            i = start
            continue
        if c == "(" and pattern.startswith("?#", i + 1):
            end = pattern.find(")", i)
            end = n if end < 0 else end + 1
            out.append(pattern[i:end])
            i = end
            continue
        if c == "{":
            m = _REPEAT.match(pattern, i)
            if m and m.group() != "{}":
                low = int(m[1] or 0)
                high = (int(m[3]) if m[3] else None) if m[2] else low
                weights.repeat(max(high if high is not None else low, 1))
                out.append(m.group())
                i = m.end()
                continue
            out.append("\\{")
            weights.atom(1)
            i += 1
            continue
        if c == "(":
            scoped = scoped or bool((m := _SCOPED_FLAGS.match(pattern, i)) and "x" in m.group())
            depth += 1
            deepest = max(deepest, depth)
            weights.open()
            head = _GROUP_HEAD.match(pattern, i + 1)  # (?:, (?P<name>, (?<=, (?i) ...: no atom of the group
            if head:
                out.append(c + head.group())
                i = head.end()
                continue
        elif c == ")":
            depth = max(depth - 1, 0)
            weights.close()
        elif c not in "*+?|^$" and not (verbose and c.isspace()):
            weights.atom(1)
        out.append(c)
        i += 1
    return Scanned(deepest, weights.total(), "".join(out), scoped)
