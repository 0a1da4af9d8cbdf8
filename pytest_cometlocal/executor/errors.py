"""The executor's exceptions, and how a Playwright exception is recognised.

Inside the executor a failure travels as an exception until the step's error
is built; the run folder and the browser have their own::

    CometLocalError                 (contract/errors.py)
    ├── ExecutorFailure             carries a complete ExecutorError (the step's verdict)
    ├── Crashed                     the page or the browser died under the executor
    ├── PageUnresponsive            the page stopped answering while the executor did ``what``
    ├── PageTampered                the page broke a script of the executor: its answer is unusable
    ├── CallTimedOut                a bounded call into the browser did not answer in time
    ├── Stop                        a permitted ``stop`` step: control flow, the run ends as a pass
    ├── NotCheckable                check/uncheck (v1.1) on no checkbox, radio or switch (or uncheck on a radio)
    ├── CheckedStateNotReached      check/uncheck clicked, but the state did not become the one asked for
    ├── OptionNotFound              a custom dropdown (v1.1) shows no option, or several, named by the value
    ├── StepRefused                 a step that cannot be decided here: its code, message, details and stage
    │   └── ExtensionRaised         an extension call that fails its step (executor/extensions/calls.py)
    ├── OutputWriteFailed           (OSError) the run folder cannot be written
    ├── ChromiumNotFound            (RuntimeError) no Chromium to launch
    ├── RemoteBrowserUnavailable    (RuntimeError) a remote endpoint gave no browser
    │   └── CdpNeedsChromium        a CDP endpoint asked for a browser that is not Chromium
    ├── BrowserLaunchFailed         (RuntimeError) a browser that cannot start here as asked (one line)
    │   ├── FirefoxNotFound         no Firefox to launch: not installed, not where the option says
    │   └── BrowserPairMismatch     this Playwright cannot drive this browser (the pair probe, browser/firefox/)
    ├── ContextRefused              (v1.2) the run's browser context could not be made; carries a Refusal
    └── EventOutOfOrder             (RuntimeError) a step event out of the journal's order: a fault of this plugin

Playwright's public classes say what they can (``playwright.sync_api.Error``
for everything Playwright raises, ``TimeoutError`` for its own timeouts); a
crash or a closed target has no public class of its own, so for those the
message of a Playwright ``Error`` is read. Playwright is imported only when an
exception is recognised, so the run folder's modules, which raise
``OutputWriteFailed``, import no Playwright.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import ExecutorError

__all__ = [
    "BrowserLaunchFailed",
    "BrowserPairMismatch",
    "CdpNeedsChromium",
    "CallTimedOut",
    "CheckedStateNotReached",
    "EventOutOfOrder",
    "ChromiumNotFound",
    "ContextRefused",
    "Crashed",
    "ExecutorFailure",
    "FirefoxNotFound",
    "NotCheckable",
    "OptionNotFound",
    "OutputWriteFailed",
    "PageTampered",
    "PageUnresponsive",
    "Refusal",
    "RemoteBrowserUnavailable",
    "Stop",
    "StepRefused",
    "first_line",
    "is_crash",
    "is_timeout",
]


class ExecutorFailure(CometLocalError):
    """Raised inside the executor with a complete ExecutorError."""

    def __init__(self, error: ExecutorError):
        super().__init__(f"{error.error_code.value}: {error.message}")
        self.error = error


class Crashed(CometLocalError):
    """The page or the browser died under the executor."""


class PageUnresponsive(CometLocalError):
    """The page stopped answering while the executor was doing ``what``."""

    def __init__(self, what: str, waited_ms: int, probe: str):
        super().__init__(f"the page did not answer {what} within {waited_ms} ms")
        self.what = what
        self.waited_ms = waited_ms
        self.probe = probe  # "no answer": its main thread is stuck; "answered": it is alive but never settled


class PageTampered(CometLocalError):
    """A script of the executor ran in the page's world and gave no usable answer: it threw, or its answer
    has not the shape it always has. A page that replaced a built-in the script relies on
    (``JSON.stringify``, ``Array.prototype.map``, a prototype's getter) does this; ``what`` is the call
    (``observation``), ``problem`` what was wrong with the answer (one line)."""

    def __init__(self, what: str, problem: str):
        super().__init__(f"{what}: the page gave an unusable answer: {problem}")
        self.what = what
        self.problem = problem


class CallTimedOut(CometLocalError):
    """A bounded call into the browser did not answer in time."""

    def __init__(self, what: str, waited_ms: int):
        super().__init__(f"{what}: no answer within {waited_ms} ms")
        self.what = what
        self.waited_ms = waited_ms


class Stop(CometLocalError):
    """A permitted ``stop`` step: the run ends as a pass."""


class StepRefused(CometLocalError):
    """A step the executor cannot decide here (a browser without the needed protocol, an extension's
    typed failure): it fails with this code, message and details, never as "does not hold"."""

    def __init__(self, code: ErrorCode, message: str, details: dict[str, Any], stage: str = "execution"):
        super().__init__(message)
        self.code, self.message, self.details, self.stage = code, message, details, stage


class NotCheckable(CometLocalError):
    """``check``/``uncheck`` (v1.1) on an element that is no checkbox, radio or switch, or ``uncheck`` on a radio."""

    def __init__(self, observed: dict[str, Any]):
        super().__init__(f"not checkable: <{observed.get('tag')}>")
        self.observed = observed  # the element as page/controls.py read it: tag, role, type, kind, checked


class CheckedStateNotReached(CometLocalError):
    """The click of a check/uncheck was made, but the checked state did not become the one asked for in time."""

    def __init__(self, observed: dict[str, Any], via: str):
        super().__init__(f"checked is {observed.get('checked')} after a click on the {via}")
        self.observed = observed
        self.via = via  # "control" or "label": where the click went


class OptionNotFound(CometLocalError):
    """A custom dropdown (v1.1) shows ``count`` options named by the value (none, or several).

    ``options_seen``: the names of the options it showed.
    """

    def __init__(self, count: int, options_seen: list[str]):
        super().__init__(f"{count} options match")
        self.count = count
        self.options_seen = options_seen


class OutputWriteFailed(OSError, CometLocalError):
    """A run's artifacts cannot be written: the output folder is not writable, or the disk is full.

    An OSError naming the file (``str()`` reads ``[Errno 28] No space left on
    device: '<path>'``). Whatever raised it left nothing half-written behind: a
    partial trace line is cut off again, a partial evidence file removed, and a
    manifest is either the old or the new one.
    """

    def __init__(self, path: Path | str, exc: OSError):
        super().__init__(exc.errno, exc.strerror or str(exc), str(path))
        self.path = Path(path)


class ChromiumNotFound(RuntimeError, CometLocalError):
    """No Chromium to launch: not installed by Playwright, not on PATH, not where the option says."""


class RemoteBrowserUnavailable(RuntimeError, CometLocalError):
    """A remote endpoint could not be reached or gave no browser; the message is one line."""


class BrowserLaunchFailed(RuntimeError, CometLocalError):
    """The browser cannot start here as asked (a headed one with no display, a channel that is not installed);
    the message is one line with the way out. The plugin's ``cometlocal_browser`` fixture fails each item
    with that line, no traceback."""


class FirefoxNotFound(BrowserLaunchFailed):
    """No Firefox to launch (browser/firefox/ ``find_firefox``): none where ``--cometlocal-firefox``, the ini
    or ``COMETLOCAL_FIREFOX`` says, or none at all (the line says what was tried and how to install one)."""


class BrowserPairMismatch(BrowserLaunchFailed):
    """The installed Playwright cannot drive the launched browser: a trial context failed with a protocol
    error (browser/firefox/ ``probe_pair``; Playwright 1.65 with Firefox ESR 153). One line naming both
    versions and what to do; the manager keeps it and does not launch again in the session."""


class CdpNeedsChromium(RemoteBrowserUnavailable):
    """A CDP endpoint (``connect_over_cdp``) was asked for a browser that is not Chromium: CDP reaches Chromium only."""


@dataclass(frozen=True)
class Refusal:
    """(v1.2) Why the run's context could not be made: the code, the call (``during``), the browser's
    message, and the plan key and rule it is pinned on (None: no key). Made by browser/context_failure.py."""

    code: ErrorCode
    during: str
    cause: str
    key: str | None = None
    rule: str | None = None


class ContextRefused(CometLocalError):
    """(v1.2) The run's browser context could not be made or prepared; ``refusal`` says why and where."""

    def __init__(self, refusal: Refusal):
        where = f" ({refusal.key})" if refusal.key else ""
        super().__init__(f"{refusal.code.value}: {refusal.during}{where}: {refusal.cause}")
        self.refusal = refusal


_CRASH_MARKERS = (
    "Target crashed",
    "Page crashed",
    "Browser has been closed",
    "Target page, context or browser has been closed",
    "Browser closed",
    "Connection closed",
)


def is_timeout(exc: BaseException) -> bool:
    """Playwright's own timeout (an action's ``timeout=``), not the watchdog's bound."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    return isinstance(exc, PlaywrightTimeoutError)


def is_crash(exc: BaseException) -> bool:
    """The page, its context or the browser is gone."""
    if isinstance(exc, Crashed):
        return True
    from playwright.sync_api import Error as PlaywrightError

    return isinstance(exc, PlaywrightError) and any(marker in exc.message for marker in _CRASH_MARKERS)


def first_line(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:limit]


class EventOutOfOrder(CometLocalError, RuntimeError):
    """A step event written out of the journal's order (executor/step/journal.py): a fault of this plugin, never of a page."""
