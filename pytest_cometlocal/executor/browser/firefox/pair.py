"""The pair probe: can this Playwright drive this Firefox? (the package's docstring says why).

Right after a launch, one trial context is opened and closed; a protocol error
there (Playwright 1.65 sends ``emulation.setMediaFeaturesOverride``, which
Firefox ESR 153 does not know) becomes ``BrowserPairMismatch`` with one line
naming both versions and the way out. No pytest here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pytest_cometlocal.executor.errors import BrowserPairMismatch

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# "Browser.new_context: Protocol error (emulation.setMediaFeaturesOverride): unknown command\nMessage: ..."
_PROTOCOL_ERROR = re.compile(r"Protocol error \(([\w.:-]+)\):\s*([^\n]*)")


def playwright_version() -> str:
    """The installed Playwright's version (``importlib.metadata``), ``"unknown"`` when it cannot tell."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("playwright")
    except PackageNotFoundError:  # pragma: no cover - Playwright imported from a source tree
        return "unknown"


def pair_mismatch_message(error_text: str, playwright_version: str, browser_version: str,
                          browser: str = "Firefox", protocol: str = "webdriver-bidi") -> str | None:
    """The one line for a trial context that failed with a protocol error (None: not a protocol error).

    ``error_text`` is the Playwright error's text (``str(exc)`` or ``exc.message``). An
    ``unknown command`` names the command the browser does not know; any other protocol
    error on a context with no options is quoted. Either way the two versions and the way
    out are said, on one line.
    """
    match = _PROTOCOL_ERROR.search(error_text or "")
    if match is None:
        return None
    command, reason = match.group(1), match.group(2).strip().rstrip(".")
    via = " through WebDriver BiDi" if protocol == "webdriver-bidi" else ""
    head = f"Playwright {playwright_version} cannot drive {browser} {browser_version}{via}"
    if reason.lower() in ("unknown command", "unsupported operation"):
        return (f"{head}: {browser} does not know {command}, which this Playwright sends for every context; "
                f'use `pip install "playwright<1.65"` (1.64.1 is tested with Firefox ESR 153) '
                f"or a {browser} that answers {command}")
    return (f"{head}: a new context fails with \"Protocol error ({command}): {reason[:200]}\"; "
            f'use `pip install "playwright<1.65"` (1.64.1 is tested with Firefox ESR 153) '
            f"or a {browser} that this Playwright supports")


def probe_pair(browser: Browser, protocol: str = "webdriver-bidi") -> None:
    """Open one context in the just-launched ``browser`` and close it (0.04–0.13 s measured).

    A protocol error there means this Playwright and this browser cannot work
    together: raises :class:`BrowserPairMismatch` with the one line of
    :func:`pair_mismatch_message`. Any other error is raised as it is.
    """
    from playwright.sync_api import Error as PlaywrightError

    try:
        context = browser.new_context()
    except PlaywrightError as exc:
        name = (browser.browser_type.name or "firefox").capitalize()
        problem = pair_mismatch_message(str(exc.message or exc), playwright_version(), browser.version, name, protocol)
        if problem is None:
            raise
        raise BrowserPairMismatch(problem) from None
    context.close()
