"""Located validation problems: what went wrong, where, and under which rule."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

# A key path into a YAML tree: keys and list indexes, as pydantic reports them.
Loc = tuple[Any, ...]


class Mark(NamedTuple):
    """1-based line and column in a plan file."""

    line: int
    col: int


class SourceMark(NamedTuple):
    """A position in another file than the plan: a step group or the suite config.

    Nodes merged into a plan from such a file keep these marks, so a problem in
    them names that file; ``via`` is the chain of ``file:line`` places that
    brought the node into the plan (the ``use`` steps), outermost first.
    """

    line: int
    col: int
    file: str
    via: tuple[str, ...] = ()


# (v1.2) Long enough for "unknown kind ...; expected one of:" to list every condition kind whole (v1.3's too).
MAX_MESSAGE = 1000
# Characters that would break a problem's one line: C0/C1 controls, DEL, line and paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with every control character escaped as Python writes it (``\\n``, ``\\x00``)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text) if _CONTROL.search(text) else text


@dataclass(frozen=True)
class Problem:
    """One reason a plan is not valid.

    ``rule`` is a stable identifier (``U1``..``U5``, ``SCHEMA``, ``YAML``, ...)
    listed in ``details.violated_rules`` of the INVALID_ACTIONSPEC error; the
    catalogue is in docs/validation-rules.md.
    """

    file: str
    mark: Mark
    key_path: str
    message: str
    rule: str = "SCHEMA"
    via: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Messages quote the offending value; a value of a megabyte must not make a
        # message of a megabyte (reports show 25 problems, terminals wrap), and a
        # value with a newline must not make a second line without a location.
        object.__setattr__(self, "message", one_line(self.message))
        object.__setattr__(self, "key_path", one_line(self.key_path))
        if len(self.message) > MAX_MESSAGE:
            half = (MAX_MESSAGE - 5) // 2
            object.__setattr__(self, "message", f"{self.message[:half]} […] {self.message[-half:]}")

    def format(self) -> str:
        """``file:line:col key.path: message`` — the one format used everywhere.

        A problem inside a step group ends with the places that used it:
        ``(via plans/a.actions.yaml:12)``.
        """
        where = f"{one_line(self.file)}:{self.mark.line}:{self.mark.col}"
        tail = f" (via {' -> '.join(self.via)})" if self.via else ""
        if self.key_path:
            return f"{where} {self.key_path}: {self.message}{tail}"
        return f"{where}: {self.message}{tail}"

    def as_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.mark.line,
            "col": self.mark.col,
            "key_path": self.key_path,
            "message": self.message,
            "rule": self.rule,
            **({"via": list(self.via)} if self.via else {}),
        }


def format_key_path(loc: tuple) -> str:
    """``("steps", 2, "target")`` -> ``steps[2].target``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out
