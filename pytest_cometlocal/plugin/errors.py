"""The exceptions a plan item fails with: one class per error code.

A plan item that fails raises the class named after its error code, e.g.
``TARGET_NOT_FOUND``, a subclass of ``PlanFailed`` and so of
``pytest.fail.Exception``: pytest and allure-pytest report it as a failure,
not as an error or a broken test. A user's hook can tell the codes apart by
class (``call.excinfo.errisinstance(failures.TARGET_NOT_FOUND)``).

Where reports show the failure, they show the code first:

- the item's failure section and pytest's short summary print the item's
  ``repr_failure``, the whole failure text (``full_text``), so the summary
  line reads ``FAILED plans/a.actions.yaml::a - TARGET_NOT_FOUND at step 'x'
  (click, normal) — plans/a.actions.yaml:9``;
- Allure's message is ``ExceptionInfo.exconly()``, ``<module>.<class>: <message>``,
  which Python shortens to ``<class>: <message>`` only for builtins; the
  allure-commons plugin of ``allure_report`` turns it back into what
  ``report_message`` gives: ``TARGET_NOT_FOUND: at step 'x' ...``, as Allure's
  categories (``^CODE\\b``) expect.
"""

from __future__ import annotations

import re
from typing import ClassVar

import pytest

from pytest_cometlocal.contract.model.codes import ErrorCode


class PlanFailed(pytest.fail.Exception):
    """A plan item failed. Raised as is only when its text does not start with an error code
    (``expected TARGET_NOT_FOUND, but the plan passed``); the message is then the whole text."""

    code: ClassVar[ErrorCode | None] = None

    def __init__(self, message: str, full_text: str | None = None) -> None:
        super().__init__(message, pytrace=False)
        self.full_text = message if full_text is None else full_text


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


FAILURE_CLASSES: dict[str, type[PlanFailed]] = {
    cls.code.value: cls for cls in PlanFailed.__subclasses__() if cls.code is not None
}


class StepFailed(AssertionError):
    """An Allure step that failed (an assertion, so Allure marks it failed, not broken);
    the message starts with the code."""


_CODE_FIRST = re.compile(r"^([A-Z][A-Z_]+)(?::\s*|\s+)")


def plan_failure(text: str) -> PlanFailed:
    """The exception a plan item fails with, for a failure text that starts with its code.

    ``TARGET_NOT_FOUND at step 'x' (click, normal) — plans/a.actions.yaml:9`` gives a
    ``TARGET_NOT_FOUND`` with the message ``at step 'x' (click, normal) — ...`` and
    ``full_text`` the whole text. A text that starts with no known code (or a code
    without a class) gives a ``PlanFailed`` whose message is the whole text.
    """
    match = _CODE_FIRST.match(text)
    if match is None or match.group(1) not in FAILURE_CLASSES:
        return PlanFailed(text)
    return FAILURE_CLASSES[match.group(1)](text[match.end():], full_text=text)


def _exconly_prefix(cls: type[BaseException]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}: "


_PREFIXES: dict[str, str] = {
    _exconly_prefix(PlanFailed): "",
    _exconly_prefix(StepFailed): "",
    **{_exconly_prefix(cls): f"{code}: " for code, cls in FAILURE_CLASSES.items()},
}


def report_message(message: str) -> str:
    """A formatted exception line (``exconly``, ``format_exception_only``) with the
    qualified class name of a class of this module replaced by its code:
    ``pytest_cometlocal.plugin.errors.TARGET_NOT_FOUND: at step ...`` ->
    ``TARGET_NOT_FOUND: at step ...``; any other message is returned as is."""
    if not message.startswith(__name__ + "."):
        return message
    for prefix, replacement in _PREFIXES.items():
        if message.startswith(prefix):
            return replacement + message[len(prefix):]
    return message
