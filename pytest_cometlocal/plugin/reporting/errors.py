"""The exceptions a plan item fails with: one class per error code.

A failed verdict carries its code (``plugin.outcome.Verdict``); the item raises
that code's class, e.g. ``TARGET_NOT_FOUND``, a subclass of ``PlanFailed`` and
so of ``pytest.fail.Exception``: pytest and allure-pytest report it as a
failure, not as an error or a broken test. A user's hook can tell the codes
apart by class (``call.excinfo.errisinstance(errors.TARGET_NOT_FOUND)``)::

    CometLocalError                       (contract/errors.py)
    └── PlanFailed                        also pytest.fail.Exception: a test failure; no code (an expectation not met)
        ├── TARGET_NOT_FOUND              one class per ErrorCode, named after it
        ├── ...
        ├── OUTPUT_WRITE_FAILED
        └── EXTENSION_FAILED              an extension's callable raised (docs/extensions.md)

Where reports show the failure, they show the code first:

- the item's failure section and pytest's short summary print the item's
  ``repr_failure``, the whole failure text (``full_text``), so the summary
  line reads ``FAILED plans/a.actions.yaml::a - TARGET_NOT_FOUND at step 'x'
  (click, normal) — plans/a.actions.yaml:9``;
- Allure's message is the exception printed as Python prints it (allure-pytest
  has no other way to set it): ``<class>: <message>``, with the class's module
  in front unless it is ``builtins``. The code classes say they live in
  ``builtins``, as pytest's own ``Failed`` does for the same reason, so a plan
  failure and a failed Allure step read ``TARGET_NOT_FOUND: at step 'x' ...``,
  as Allure's categories (``^CODE\\b``) expect.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.contract.model.codes import ErrorCode

__all__ = ["FAILURE_CLASSES", "PlanFailed", "failure_class", "plan_failure", "step_failure"]


class PlanFailed(pytest.fail.Exception, CometLocalError):
    """A plan item failed. Raised as is only for a verdict without a code (``expected
    TARGET_NOT_FOUND, but the plan passed``); the message is then the whole text."""

    code: ClassVar[ErrorCode | None] = None

    def __init__(self, message: str, full_text: str | None = None) -> None:
        super().__init__(message, pytrace=False)
        self.full_text = message if full_text is None else full_text

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.code is not None:
            # Printed as ``TARGET_NOT_FOUND: ...``, not ``pytest_cometlocal.plugin.reporting.errors.TARGET_NOT_FOUND: ...``.
            cls.__module__ = "builtins"


# One class per error code (tests/unit/test_failures.py checks every ErrorCode has one).

class TARGET_NOT_FOUND(PlanFailed):
    code = ErrorCode.TARGET_NOT_FOUND


class TARGET_NOT_UNIQUE(PlanFailed):
    code = ErrorCode.TARGET_NOT_UNIQUE


class INVALID_ACTIONSPEC(PlanFailed):
    code = ErrorCode.INVALID_ACTIONSPEC


class PRECONDITION_FAILED(PlanFailed):
    code = ErrorCode.PRECONDITION_FAILED


class POSTCONDITION_FAILED(PlanFailed):
    code = ErrorCode.POSTCONDITION_FAILED


class POLICY_HALT(PlanFailed):
    code = ErrorCode.POLICY_HALT


class DOMAIN_BLOCKED(PlanFailed):
    code = ErrorCode.DOMAIN_BLOCKED


class ACTION_CRITICAL_BLOCKED(PlanFailed):
    code = ErrorCode.ACTION_CRITICAL_BLOCKED


class NAVIGATION_TIMEOUT(PlanFailed):
    code = ErrorCode.NAVIGATION_TIMEOUT


class UPLOAD_FAILED(PlanFailed):
    code = ErrorCode.UPLOAD_FAILED


class DOWNLOAD_FAILED(PlanFailed):
    code = ErrorCode.DOWNLOAD_FAILED


class OVERLAY_BLOCKING(PlanFailed):
    code = ErrorCode.OVERLAY_BLOCKING


class AUTH_FAILED(PlanFailed):
    code = ErrorCode.AUTH_FAILED


class NAVIGATION_FAILED(PlanFailed):
    code = ErrorCode.NAVIGATION_FAILED


class BROWSER_CRASHED(PlanFailed):
    code = ErrorCode.BROWSER_CRASHED


class PAGE_UNRESPONSIVE(PlanFailed):
    code = ErrorCode.PAGE_UNRESPONSIVE


class OUTPUT_WRITE_FAILED(PlanFailed):
    code = ErrorCode.OUTPUT_WRITE_FAILED


class EXTENSION_FAILED(PlanFailed):
    code = ErrorCode.EXTENSION_FAILED


FAILURE_CLASSES: dict[ErrorCode, type[PlanFailed]] = {
    cls.code: cls for cls in PlanFailed.__subclasses__() if cls.code is not None
}


def failure_class(code: ErrorCode | None) -> type[PlanFailed]:
    """The class a failure with this code is raised as (``PlanFailed`` for none)."""
    return PlanFailed if code is None else FAILURE_CLASSES[code]


def plan_failure(code: ErrorCode | None, text: str) -> PlanFailed:
    """The exception a plan item fails with, for its verdict's code and failure text.

    The text starts with the code (``TARGET_NOT_FOUND at step 'x' (click, normal) —
    plans/a.actions.yaml:9``): the exception's message is the rest (``at step 'x' ...``),
    as it is printed after the class; ``full_text`` is the whole text. Without a
    code, a ``PlanFailed`` whose message is the whole text.
    """
    if code is None:
        return PlanFailed(text)
    return FAILURE_CLASSES[code](_after_code(code, text), full_text=text)


def step_failure(code: ErrorCode, message: str) -> PlanFailed:
    """A failed Allure step's exception: printed ``CODE: message``, and *failed*, not *broken*."""
    return FAILURE_CLASSES[code](message)


def _after_code(code: ErrorCode, text: str) -> str:
    """``CODE at ...``, ``CODE: ...`` or ``CODE — ...`` without the code and its separator."""
    if not text.startswith(code.value):
        return text
    return text[len(code.value):].lstrip(": ")
