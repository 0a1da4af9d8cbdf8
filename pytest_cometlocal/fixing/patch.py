"""One unified diff, ``git apply``-compatible, with a header for the reviewer.

Paths are relative to the suite root (``a/plans/x.actions.yaml``), so the
patch applies with ``git apply`` run there. The header is ``#`` lines before
the first ``diff --git``, which ``git apply`` skips: per fix, where it is,
the runs it came from, the suggestion's score and why, and how it was
verified; then the plans that got no fix. Lines keep their endings (a CRLF
file's lines end in CRLF in the patch too), and a file without a final
newline is marked as git marks it.
"""

from __future__ import annotations

import difflib
from typing import Iterable, Sequence

__all__ = ["file_diff", "unified_patch"]

CONTEXT = 3
NO_NEWLINE = "\\ No newline at end of file\n"


def _range(start: int, count: int) -> str:
    """A hunk range as diff writes it: ``l,n``; an empty range starts before its line."""
    if count == 0:
        return f"{start},0"
    return f"{start + 1}" if count == 1 else f"{start + 1},{count}"


def _line(prefix: str, line: str) -> str:
    return prefix + line if line.endswith("\n") else prefix + line + "\n" + NO_NEWLINE


def file_diff(path: str, old: str, new: str) -> str:
    """The diff of one file (empty when nothing changed), one hunk per group of nearby changes."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out = [f"diff --git a/{path} b/{path}\n", f"--- a/{path}\n", f"+++ b/{path}\n"]
    hunks = 0
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        hunks += 1
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out.extend(_line(" ", line) for line in a[x1:x2])
                continue
            out.extend(_line("-", line) for line in a[x1:x2])
            out.extend(_line("+", line) for line in b[y1:y2])
    return "".join(out) if hunks else ""


def unified_patch(header: Iterable[str], files: Sequence[tuple[str, str, str]]) -> str:
    """The header (each line prefixed ``# ``) then each file's diff, files in the order given."""
    lines = "".join(f"# {line}".rstrip() + "\n" for line in header)
    return lines + "".join(file_diff(path, old, new) for path, old, new in files)
