"""PyYAML's errors as located problems of the plan file (rule YAML)."""

from __future__ import annotations

import re

import yaml

from pytest_cometlocal.contract.model.problems import Mark, Problem

# What YAML does not allow in a stream (YAML 1.1 "printable"), as PyYAML's reader checks it.
_NON_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")


def _where_unprintable(text: str) -> Mark | None:
    """Where the first character YAML refuses is: a ReaderError carries no line, only an offset
    that libyaml counts in bytes and PyYAML in characters."""
    found = _NON_PRINTABLE.search(text)
    if found is None:
        return None
    at = found.start()
    return Mark(text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1)


def problem_from_yaml_error(path: str, exc: yaml.YAMLError, text: str, max_depth: int) -> Problem:
    """PyYAML's error as a located YAML problem (a ReaderError located by the character it refused)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = Mark(mark.line + 1, mark.column + 1) if mark is not None else Mark(1, 1)
    if mark is None and isinstance(exc, yaml.reader.ReaderError):
        where = _where_unprintable(text) or where
    parts = [p for p in (getattr(exc, "context", None), getattr(exc, "problem", None)) if p]
    if any("nesting depth" in p for p in parts):
        # libyaml's own depth limit (PyYAML 6.0.3+) can stop the parse before this
        # loader's: the same problem, said the same way whichever limit came first.
        return Problem(path, where, "", f"nesting deeper than {max_depth} levels", rule="YAML")
    message = "YAML syntax error: " + ("; ".join(parts) if parts else str(exc).splitlines()[0])
    return Problem(path, where, "", message, rule="YAML")
