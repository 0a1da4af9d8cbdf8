"""The root of every exception pytest-cometlocal raises, and the contract layer's own.

Each layer keeps its exceptions in one ``errors`` module whose docstring draws its
branch; all of them derive from :class:`CometLocalError`, so a caller that embeds
the library catches everything it raises with one ``except``. Where a class was a
``ValueError``, ``OSError`` or ``RuntimeError`` before, it still is (callers catch
those). The whole tree::

    CometLocalError
    │   contract/errors.py: reading and validating plans
    ├── YamlError                   text that is not a usable plan document; carries a located Problem
    ├── InterpolationError          (ValueError) a reference that cannot be resolved
    ├── ConfinementError            (ValueError) a path that would leave its root
    ├── RootdirError                (ValueError) a config file on the rootdir search pytest would refuse
    ├── PatternError                (ValueError) a plan's regex that cannot be compiled within the limits
    ├── RunVarError                 (ValueError) a run's NAME=VALUE var that cannot be a var (contract/load/run_vars.py)
    ├── PatternTimeout              a plan's regex gave up matching a text within its time bound
    ├── DeviceRegistryUnavailable   (contract/devices.py) the installed Playwright could not tell its devices
    │   executor/errors.py: running a plan
    ├── ExecutorFailure             carries a complete ExecutorError
    ├── Crashed                     the page or the browser died
    ├── PageUnresponsive            the page stopped answering
    ├── PageTampered                the page broke one of the executor's scripts (its answer is unusable)
    ├── CallTimedOut                a bounded call into the browser did not answer
    ├── Stop                        a permitted ``stop`` step (control flow: the run passes)
    ├── NotCheckable                check/uncheck on no checkbox, radio or switch
    ├── CheckedStateNotReached      check/uncheck clicked, the state did not follow
    ├── OptionNotFound              a custom dropdown with no option, or several, of that name
    ├── StepRefused                 a step that cannot be decided here: its code, message, details
    │   ├── ExtensionRaised         (executor/extensions/calls.py) an extension call that fails its step
    │   ├── AuditUnavailable        (executor/audits/accessibility.py) no accessibility audit in this browser
    │   └── BodyUnavailable         (executor/http/seen.py) a body check the browser gives no body for
    ├── OutputWriteFailed           (OSError) the run folder cannot be written
    ├── ChromiumNotFound            (RuntimeError) no Chromium to launch
    ├── RemoteBrowserUnavailable    (RuntimeError) a remote endpoint gave no browser
    │   └── CdpNeedsChromium        a CDP endpoint asked for Firefox or WebKit
    ├── BrowserLaunchFailed         (RuntimeError) a browser that cannot start here as asked (one line)
    │   ├── FirefoxNotFound         no Firefox to launch
    │   └── BrowserPairMismatch     this Playwright cannot drive this browser (the pair probe)
    ├── ContextRefused              (v1.2) the run's browser context could not be made (a setting, the clock, a state)
    ├── EventOutOfOrder             (RuntimeError) a step event out of the journal's order (a fault of this plugin)
    ├── IsolatedWorldUnavailable    (executor/audits/accessibility.py) no isolated world with axe-core in it
    │   runs/errors.py: reading finished run folders
    ├── RunFolderError              a path that cannot be read as a run folder
    │   └── RunFileError            one of its files is missing or is not JSON
    ├── DiffError                   two runs that cannot be compared
    │   plugin/reporting/errors.py: pytest items
    ├── PlanFailed                  (pytest.fail.Exception) a plan item failed; no code
    │   └── TARGET_NOT_FOUND, ...   one class per ErrorCode
    │   planners/errors.py: importing recordings
    ├── NotAScript                  (ValueError) not Python, or not a Playwright script
    ├── CannotMap                   (ValueError) a call with no equivalent in the plan format
    ├── ImportFailed                (ValueError) a script that cannot be imported at all
    │   agent/errors.py: the MCP session
    ├── AgentError                  a tool call that cannot be taken; carries a code
    ├── PlanRefused                 (ValueError) a plan the agent may not write; carries a code
    │   fixing/: cometlocal fix
    ├── NotFixable                  a failed run that gets no fix; one line saying why
    │   └── NothingToFix            a run that did not fail (passed, stopped, blocked): counted only
    │       └── EndedAsExpected     a negative plan's run that failed as its ``expect`` asks: counted only
    ├── NodeError                   (ValueError) a plan or group file that cannot be read as YAML nodes
    │   targets_cli/errors.py: cometlocal targets
    ├── TargetsRefused              the page could not be opened; carries a code (DOMAIN_BLOCKED, the failed step's)
    ├── TargetsUsage                bad arguments: a plan file missing or invalid, a step it does not have
    │   cli.py
    └── UsageError                  bad arguments or nothing to do: exit code 2

Not in the tree: ``plugin.interrupts.Terminated``, SIGTERM turned into a
``KeyboardInterrupt``, which must stay out of every ``except Exception``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.problems import Problem

__all__ = ["CometLocalError", "ConfinementError", "InterpolationError", "PatternError", "PatternTimeout", "RootdirError",
           "RunVarError", "YamlError"]


class CometLocalError(Exception):
    """Anything pytest-cometlocal raises on purpose (never a bare Exception)."""


class YamlError(CometLocalError):
    """The text is not a usable plan document; carries a located Problem."""

    def __init__(self, problem: Problem):
        super().__init__(problem.message)
        self.problem = problem


class InterpolationError(ValueError, CometLocalError):
    """A reference that cannot be resolved; the message names it, never a value."""


class ConfinementError(ValueError, CometLocalError):
    """The path would leave its root; the message says how."""


class RootdirError(ValueError, CometLocalError):
    """A configuration file on the rootdir search that pytest would refuse too; the message names it."""


class RunVarError(ValueError, CometLocalError):
    """A ``NAME=VALUE`` given for every plan of a run that cannot be a var; the message names the option."""


class PatternError(ValueError, CometLocalError):
    """A plan's regular expression cannot be compiled within the limits (contract/patterns.py)."""


class PatternTimeout(CometLocalError):
    """A plan's regex gave up on a text: it backtracked past its time bound (contract/patterns.py).

    Whoever matched it says which field the pattern came from; this says what happened."""

    def __init__(self, pattern: str, length: int, seconds: float):
        self.pattern, self.length, self.seconds = pattern, length, seconds
        super().__init__(f"the regex gave up after {seconds:.2f} s on a text of {length:,} characters: it "
                         "backtracks too much (a repeat inside a repeat, such as (a+)+, on a text it does not match)")
