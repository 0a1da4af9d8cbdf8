"""Typed failures of the executor and the classification of Playwright errors.

A Playwright exception is never shown raw: it is classified into a code
(timeouts, "intercepts pointer events", actionability, net:: errors,
crashes) or kept as the ``cause`` of a typed error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..contract.records import ExecutorError


class ExecutorFailure(Exception):
    """Raised inside the executor with a complete ExecutorError."""

    def __init__(self, error: ExecutorError):
        super().__init__(f"{error.error_code.value}: {error.message}")
        self.error = error


class Crashed(Exception):
    """The page or the browser died under the executor."""


_NET_ERROR = re.compile(r"net::(ERR_[A-Z_]+)")
_INTERCEPT = re.compile(r"<(?P<tag>[a-z0-9-]+)(?P<attrs>[^>]*)>(?P<text>[^<]{0,120})(?:</[a-z0-9-]+>)?[^\n]*intercepts pointer events")
_ID = re.compile(r'\bid="([^"]+)"')
_CLASS = re.compile(r'\bclass="([^"]+)"')

ACTIONABILITY = (
    ("element is not visible", "element_visible"),
    ("element is not enabled", "element_enabled"),
    ("element is disabled", "element_enabled"),
    ("element is not editable", "element_editable"),
    ("element is not stable", "element_stable"),
    ("did not find some options", "option_exists"),
    ("not an <input>, <textarea>, <select>", "element_editable"),
    ("is not a <select> element", "element_is_select"),
    ("Node is not an HTMLInputElement", "element_is_file_input"),
    ("Non-multiple file input can only accept single file", "element_accepts_files"),
    ("element is outside of the viewport", "element_visible"),
)


def is_timeout(exc: BaseException) -> bool:
    return type(exc).__name__ == "TimeoutError"


def is_crash(exc: BaseException) -> bool:
    text = str(exc)
    return isinstance(exc, Crashed) or any(
        marker in text
        for marker in (
            "Target crashed",
            "Page crashed",
            "Browser has been closed",
            "Target page, context or browser has been closed",
            "Browser closed",
            "Connection closed",
        )
    )


def net_error(exc: BaseException) -> str | None:
    match = _NET_ERROR.search(str(exc))
    return match.group(1) if match else None


@dataclass(frozen=True)
class Overlay:
    selector: str | None
    text: str | None


def intercepting_overlay(exc: BaseException) -> Overlay | None:
    """The element Playwright reported as intercepting pointer events, if any."""
    text = str(exc)
    if "intercepts pointer events" not in text:
        return None
    match = None
    for match in _INTERCEPT.finditer(text):
        pass  # the last report is the freshest
    if match is None:
        return Overlay(None, None)
    selector = match.group("tag")
    attrs = match.group("attrs")
    if (m := _ID.search(attrs)) is not None:
        selector += "#" + m.group(1)
    elif (m := _CLASS.search(attrs)) is not None:
        selector += "." + ".".join(m.group(1).split())
    overlay_text = match.group("text").strip() or None
    return Overlay(selector, overlay_text)


def actionability_check(exc: BaseException) -> str | None:
    """The actionability check Playwright was waiting on when it gave up."""
    text = str(exc)
    found = None
    for needle, check in ACTIONABILITY:
        position = text.rfind(needle)
        if position >= 0 and (found is None or position > found[0]):
            found = (position, check)
    return found[1] if found else None


def navigation_pending(exc: BaseException) -> bool:
    """The action was performed and Playwright timed out waiting for the navigation it started.

    Its call log then ends with "waiting for scheduled navigations to finish"
    after "... action done": the element was fine, the server did not answer.
    """
    lines = [line.strip() for line in str(exc).strip().splitlines()]
    return bool(lines) and lines[-1].endswith("waiting for scheduled navigations to finish")


def first_line(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:limit]
