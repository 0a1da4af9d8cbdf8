"""What an extension raises to fail its step with a code of the contract (docs/extensions.md).

``StepFailed(code, message, details)`` fails the step with ``code``, one of ``EXTENSION_CODES``: the
codes that describe the application under test. The executor's own codes (a blocked domain, a halt,
a crash, an unresponsive page) stay the executor's: an extension cannot claim them. Any other
exception from an extension's callable is EXTENSION_FAILED, with its masked traceback as evidence.
"""

from __future__ import annotations

from typing import Any, Mapping

from pytest_cometlocal.contract.model.codes import ErrorCode

EXTENSION_CODES: tuple[ErrorCode, ...] = (
    ErrorCode.PRECONDITION_FAILED, ErrorCode.POSTCONDITION_FAILED, ErrorCode.TARGET_NOT_FOUND,
    ErrorCode.TARGET_NOT_UNIQUE, ErrorCode.NAVIGATION_TIMEOUT, ErrorCode.NAVIGATION_FAILED,
    ErrorCode.UPLOAD_FAILED, ErrorCode.DOWNLOAD_FAILED, ErrorCode.OVERLAY_BLOCKING, ErrorCode.AUTH_FAILED,
)


class StepFailed(Exception):
    """Fail the step with ``code`` (a name of ``EXTENSION_CODES``); ``details`` (JSON values) join the
    error's details, masked like the rest. A code outside that list is a ValueError, raised here."""

    def __init__(self, code: str | ErrorCode, message: str, details: Mapping[str, Any] | None = None) -> None:
        try:
            known = ErrorCode(code)
        except ValueError:
            known = None
        if known not in EXTENSION_CODES:
            raise ValueError(f"StepFailed takes one of {', '.join(c.value for c in EXTENSION_CODES)}, not {code!r}")
        super().__init__(message)
        self.code: ErrorCode = known
        self.message = str(message)
        self.details: dict[str, Any] = dict(details or {})
