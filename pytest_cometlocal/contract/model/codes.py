"""Error codes, stages and severities: the stable vocabulary of failures."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class ErrorCode(StrEnum):
    """The 13 canonical codes of the errors contract, plus documented extensions."""

    TARGET_NOT_FOUND = "TARGET_NOT_FOUND"
    TARGET_NOT_UNIQUE = "TARGET_NOT_UNIQUE"
    INVALID_ACTIONSPEC = "INVALID_ACTIONSPEC"
    PRECONDITION_FAILED = "PRECONDITION_FAILED"
    POSTCONDITION_FAILED = "POSTCONDITION_FAILED"
    POLICY_HALT = "POLICY_HALT"
    DOMAIN_BLOCKED = "DOMAIN_BLOCKED"
    ACTION_CRITICAL_BLOCKED = "ACTION_CRITICAL_BLOCKED"
    NAVIGATION_TIMEOUT = "NAVIGATION_TIMEOUT"
    UPLOAD_FAILED = "UPLOAD_FAILED"
    DOWNLOAD_FAILED = "DOWNLOAD_FAILED"
    OVERLAY_BLOCKING = "OVERLAY_BLOCKING"
    AUTH_FAILED = "AUTH_FAILED"
    # Extension codes (plan-format v1, "Extension codes").
    NAVIGATION_FAILED = "NAVIGATION_FAILED"
    BROWSER_CRASHED = "BROWSER_CRASHED"
    # The page under test stopped answering (its main thread is stuck: a script
    # that never returns); the executor's watchdog gave up on it (issue 10).
    PAGE_UNRESPONSIVE = "PAGE_UNRESPONSIVE"
    # The run's own artifacts cannot be written (output folder not writable, disk
    # full). It describes the machine, not the application under test, so plan
    # fields (expect, retry_on, recovery.on_error) do not accept it.
    OUTPUT_WRITE_FAILED = "OUTPUT_WRITE_FAILED"
    # An extension's callable raised something other than its documented StepFailed (docs/extensions.md).
    EXTENSION_FAILED = "EXTENSION_FAILED"


CANONICAL_CODES: tuple[ErrorCode, ...] = tuple(list(ErrorCode)[:13])
EXTENSION_CODES: tuple[ErrorCode, ...] = (ErrorCode.NAVIGATION_FAILED, ErrorCode.BROWSER_CRASHED,
                                          ErrorCode.PAGE_UNRESPONSIVE, ErrorCode.OUTPUT_WRITE_FAILED,
                                          ErrorCode.EXTENSION_FAILED)

PLAN_CODES: tuple[str, ...] = tuple(code.value for code in ErrorCode if code is not ErrorCode.OUTPUT_WRITE_FAILED)
"""The codes a plan may name (``retry_on``, ``expect``, ``recovery.on_error``): all but OUTPUT_WRITE_FAILED."""

# Derived from ErrorCode, so a new code cannot be forgotten here. A Literal, not
# the enum: the schema keeps its inline ``enum`` and the messages stay plain strings.
ErrorCodeName = Literal[PLAN_CODES]  # type: ignore[valid-type]

Stage = Literal["proposal_validation", "precondition", "execution", "postcondition", "policy", "evidence"]
Severity = Literal["warning", "error", "critical"]
Criticality = Literal["normal", "critical"]
