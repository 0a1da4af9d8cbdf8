"""The last line of defence: an unexpected exception while one plan is loaded or validated (rule INTERNAL).

Every known way a plan can be wrong is a located problem with its own rule.
Should validation still raise on some input no one foresaw, the exception is
turned into a problem of *that* plan (its file, and its line where known):
the rest of the file, the folder and the pytest session go on, and no
traceback reaches the user. An INTERNAL plan never passes as an expected
INVALID_ACTIONSPEC: it is a bug to report, not a negative plan.
"""

from __future__ import annotations

from typing import Any

from pytest_cometlocal.contract.model.problems import Mark, Problem
from pytest_cometlocal.contract.validate.validated import InvalidPlan, PlanSource, Row, raw_name


def _described(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # an exception whose str() fails too
        text = ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def internal_problem(file: str, mark: Mark, exc: BaseException, what: str = "validating this plan") -> Problem:
    """The located INTERNAL problem for ``exc``, in one line."""
    return Problem(file, mark, "", f"internal error while {what} ({_described(exc)}); the plan is reported "
                   "invalid: please report this as a bug of pytest-cometlocal", "INTERNAL")


def internal_plan(raw: Any, file: str, doc_index: int, mark: Mark, fallback: str, exc: BaseException,
                  row: Row | None = None) -> InvalidPlan:
    """The InvalidPlan of a plan whose validation raised ``exc``: named as its document names it when it can."""
    mark = getattr(raw, "mark", None) or mark
    try:
        name = raw_name(raw, fallback)
    except Exception:
        name = fallback
    return InvalidPlan(name, PlanSource(file, doc_index, Mark(mark[0], mark[1])),
                       (internal_problem(file, Mark(mark[0], mark[1]), exc),), None, (), (), row)


def unreadable_file(file: str, exc: BaseException) -> InvalidPlan:
    """The one invalid plan a file becomes when reading it raised ``exc`` (INTERNAL, at its start)."""
    return InvalidPlan.unparsable(file, internal_problem(file, Mark(1, 1), exc, "reading this file"))
