"""Helpers for tests that write plan text and check where problems are reported."""

from __future__ import annotations

import textwrap

from pytest_cometlocal.contract.validator import InvalidPlan

# The plan head most validation tests share: defaults give each step a
# criticality, a timeout and (trivially true) pre- and postconditions.
HEAD = """\
name: t
base_url: http://127.0.0.1:8000
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
steps:
"""


def plan(steps: str, head: str = HEAD) -> str:
    """``head`` followed by ``steps`` (dedented, then indented under ``steps:``)."""
    return head + textwrap.indent(textwrap.dedent(steps), "  ")


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th line of ``text`` (dedented) that contains ``needle``."""
    hits = [i for i, line in enumerate(textwrap.dedent(text).splitlines(), 1) if needle in line]
    assert len(hits) >= occurrence, f"{needle!r} occurs {len(hits)} times"
    return hits[occurrence - 1]


def col_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based column where ``needle`` starts on the line ``line_of`` finds."""
    line = textwrap.dedent(text).splitlines()[line_of(text, needle, occurrence) - 1]
    return line.index(needle) + 1


def triples(invalid: InvalidPlan) -> list[tuple[str, str, int]]:
    """(rule, key path, line) of every problem, in reported order."""
    return [(p.rule, p.key_path, p.mark.line) for p in invalid.problems]


def only(invalid: InvalidPlan, rule: str, key_path: str, line: int) -> None:
    """The plan has exactly one problem, and it is this one."""
    assert triples(invalid) == [(rule, key_path, line)], "\n".join(p.format() for p in invalid.problems)
    assert invalid.violated_rules == [rule]
