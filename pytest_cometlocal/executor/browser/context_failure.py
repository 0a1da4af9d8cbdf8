"""(v1.2) A browser context that could not be made or prepared, as a typed refusal.

Making a plan's context has four calls the browser may refuse after the plan
passed validation: reading the saved storage state, ``browser.new_context``
(device, viewport, geolocation, permissions, the state), the first
``new_page`` (Chromium applies the locale and the time zone there) and
``clock.install``. Each runs inside :func:`making`, which turns what it raises
into :class:`ContextRefused`: the code, and the plan key it can be pinned on.

- A browser that is gone (a crash, a closed connection to a Playwright
  server) is ``BROWSER_CRASHED``, whatever the call.
- A refusal whose message (or whose call, for the clock and the state file)
  names one of the plan's own settings is ``INVALID_ACTIONSPEC`` with that
  setting's rule (TIMEZONE, LOCALE, PERMISSION, DEVICE, CLOCK, STORAGE_STATE,
  SCHEMA), located at the key by the caller (``executor.session``).
- Anything else (a refusal no plan setting explains, such as a
  ``cometlocal_context_args`` fixture's keyword) is ``BROWSER_CRASHED`` with
  the browser's message as the cause: the context, not the plan, failed.

The rows are a table, read in order; the first that matches wins.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import ContextRefused, Refusal, first_line, is_crash

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from pytest_cometlocal.contract.model.plan import Plan

__all__ = ["CLOCK", "NEW_CONTEXT", "NEW_PAGE", "STATE_FILE", "ContextRefused", "Refusal", "classify", "making"]

# The calls, as ``details.during`` names them.
STATE_FILE, NEW_CONTEXT, NEW_PAGE, CLOCK = "storage_state", "new_context", "new_page", "clock.install"


# (message pattern, the plan key it names, its rule): a Playwright or Chromium message -> the setting.
_ROWS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"timezone", re.I), "browser.timezone", "TIMEZONE"),
    (re.compile(r"locale", re.I), "browser.locale", "LOCALE"),
    (re.compile(r"permission", re.I), "browser.permissions", "PERMISSION"),  # before: "Unknown permission: geolocation"
    (re.compile(r"geolocation", re.I), "browser.geolocation", "SCHEMA"),
    (re.compile(r"storage.?state|cookies|origins", re.I), "storage_state", "STORAGE_STATE"),
    (re.compile(r"userAgent|deviceScaleFactor|isMobile|hasTouch", re.I), "browser.device", "DEVICE"),
    (re.compile(r"viewport|screen", re.I), "browser.viewport", "SCHEMA"),
    (re.compile(r"colorScheme", re.I), "browser.color_scheme", "SCHEMA"),
)
# The calls whose every refusal is one key's, whatever the message says.
_BY_CALL: dict[str, tuple[str, str]] = {CLOCK: ("clock.at", "CLOCK"), STATE_FILE: ("storage_state", "STORAGE_STATE")}


def _set(plan: Plan | None, key: str, has_state: bool) -> bool:
    """Whether the plan (or the run, for the state) sets ``key``: a refusal is pinned only on a key that is set."""
    if key == "storage_state":
        return has_state
    if plan is None:
        return False
    group, _, name = key.partition(".")
    value = getattr(plan, group, None)
    if group == "browser" and value is not None and key == "browser.viewport" and value.device is not None:
        return True  # a device sets the viewport too
    return value is not None and getattr(value, name, None) is not None


def classify(exc: BaseException, during: str, plan: Plan | None, *, connected: bool = True,
             has_state: bool = False) -> Refusal:
    """The refusal ``exc`` is, raised by the call ``during`` for ``plan`` (pure: a unit test feeds it messages)."""
    cause = first_line(exc)
    if not connected or is_crash(exc):
        return Refusal(ErrorCode.BROWSER_CRASHED, during, cause)
    pinned = _BY_CALL.get(during)
    if pinned is None:
        pinned = next(((key, rule) for pattern, key, rule in _ROWS if pattern.search(cause)), None)
    if pinned is not None and _set(plan, pinned[0], has_state or during == STATE_FILE):
        return Refusal(ErrorCode.INVALID_ACTIONSPEC, during, cause, *pinned)
    return Refusal(ErrorCode.BROWSER_CRASHED, during, cause)


@contextmanager
def making(during: str, plan: Plan | None, browser: Browser | None = None, *, has_state: bool = False) -> Iterator[None]:
    """Run one call of making the context; what Playwright raises becomes :class:`ContextRefused`."""
    from playwright.sync_api import Error as PlaywrightError

    # Playwright's client converts clock.install's time itself: a time it cannot convert raises there.
    refused = (PlaywrightError, ValueError, OverflowError) if during == CLOCK else (PlaywrightError,)
    try:
        yield
    except refused as exc:
        connected = browser.is_connected() if browser is not None else True
        raise ContextRefused(classify(exc, during, plan, connected=connected, has_state=has_state)) from None
