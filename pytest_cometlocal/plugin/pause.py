"""Stopping in a headed browser: at a failure (``--cometlocal-pause-on-failure``) or before every step
(``--cometlocal-step``), until the user presses Enter in the terminal (or closes the window).

pytest captures stdin and stdout, so the terminal is taken back for the pause the way pytest's
own pdb support does it (the capture manager's ``suspend(in_=True)`` / ``resume()``). Where no
one can look or answer, nothing pauses and one line says why: a headless browser, no display,
pytest-xdist workers (they have no terminal). A closed stdin (EOF, as in CI) ends a pause and
every later one, so a pause can never hang a run. The pause on a failure happens while the
report is made, before the item's fixtures close its context: the browser is still at the
failed step.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

import pytest

from pytest_cometlocal.contract.model.actionspec import describe_step
from pytest_cometlocal.executor.browser.chromium import display_problem
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.plugin.options import settings

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

    from pytest_cometlocal.contract.model.records import TraceEvent
    from pytest_cometlocal.contract.validate.validated import ValidPlan

PAUSE_OPTION = "--cometlocal-pause-on-failure"
STEP_OPTION = "--cometlocal-step"
POLL_MS = 200  # how often a pause looks at the terminal and at the window between its waits

ENTER, EOF, CLOSED = "enter", "eof", "closed"


def refusal(*, worker: bool, xdist: bool, headed: bool, display: str | None) -> str | None:
    """Why nobody can be asked here (None: pausing works). Pure, so each reason is unit tested.

    ``display`` is why a window cannot be shown (``display_problem``), None when it can.
    """
    if worker or xdist:
        return "no terminal under pytest-xdist workers (-n): run with -n 0 to pause"
    if not headed:
        return "the browser is headless: add --cometlocal-headed to pause"
    if display:
        return f"no display to show the browser on ({display})"
    return None


def wait_for_line(fd: int, window_open: Callable[[], bool] | None, wait: Callable[[int], None] | None = None) -> str:
    """Read ``fd`` until a line ends (ENTER) or it is closed (EOF); stop as soon as ``window_open`` says
    the window is gone (CLOSED). ``wait(ms)`` lets the browser's events flow between two looks at the
    terminal (Playwright's sync API only hears a closed window while it is called); without it, select waits."""
    while True:
        if window_open is not None and not window_open():
            return CLOSED
        ready, _, _ = select.select([fd], [], [], 0 if wait is not None else POLL_MS / 1000)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                return EOF
            if b"\n" in chunk or b"\r" in chunk:
                return ENTER
            continue
        if wait is not None:
            wait(POLL_MS)


class Terminal:
    """The user's terminal, taken back from pytest's capture for the time of one question."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.closed = False  # stdin reached EOF once: nothing is asked any more

    @contextmanager
    def taken(self) -> Iterator[TextIO]:
        capman = self.config.pluginmanager.getplugin("capturemanager")
        if capman is not None:
            capman.suspend(in_=True)  # as pytest's pdb does: stdout and stdin are the terminal's again
        try:
            yield sys.stdout
        finally:
            if capman is not None:
                capman.resume()

    def ask(self, lines: list[str], context: BrowserContext | None = None) -> str:
        """Print ``lines``, then wait for Enter (or the window to close); EOF once means never again."""
        if self.closed:
            return EOF
        with self.taken() as out:
            out.write("\n" + "\n".join(lines) + "\n")
            out.flush()
            try:
                fd = sys.stdin.fileno()
            except (AttributeError, OSError, ValueError):
                fd = -1
            if fd < 0:
                answer = EOF
            elif sys.platform == "win32":  # select() takes only sockets there: Enter alone ends the pause
                answer = ENTER if sys.stdin.readline() else EOF
            else:
                answer = wait_for_line(fd, *_window(context))
            if answer == EOF:
                self.closed = True
                out.write("cometlocal: the terminal's input is closed (EOF): not pausing any more\n")
            elif answer == CLOSED:
                out.write("cometlocal: the browser window was closed: going on\n")
            out.flush()
        return answer


def _window(context: BrowserContext | None) -> tuple[Callable[[], bool] | None, Callable[[int], None] | None]:
    """Whether the context still shows a page, and a wait that lets its events flow."""
    if context is None:
        return None, None

    def pages() -> list[Any]:
        try:
            return [p for p in context.pages if not p.is_closed()]
        except Exception:  # the browser is gone
            return []

    def wait(ms: int) -> None:
        open_pages = pages()
        if open_pages:
            try:
                open_pages[0].wait_for_timeout(ms)
            except Exception:  # closed meanwhile: the next look sees it
                pass

    return (lambda: bool(pages())), wait


class Pauses:
    """The session's pauses, registered as a plugin when either option is given."""

    def __init__(self, config: pytest.Config, on_failure: bool, each_step: bool):
        self.config = config
        self.on_failure = on_failure
        self.each_step = each_step
        self.terminal = Terminal(config)
        opts = settings(config)
        numprocesses = config.getoption("numprocesses", None)
        self.why_not = refusal(
            worker=hasattr(config, "workerinput"),
            xdist=bool(numprocesses) or config.getoption("dist", "no") not in ("no", None),
            headed=opts.headed,
            display=None if opts.remote is not None else display_problem(False),
        )

    @property
    def options(self) -> str:
        return ", ".join(name for name, on in ((PAUSE_OPTION, self.on_failure), (STEP_OPTION, self.each_step)) if on)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """The one line that says nothing will pause here, and why (workers stay silent: the controller says it)."""
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        if self.why_not and reporter is not None and not hasattr(self.config, "workerinput"):
            reporter.write_line(f"cometlocal: {self.options}: not pausing: {self.why_not}")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        if self.on_failure and not self.why_not and report.when == "call" and report.failed:
            context = _plan_context(item)
            if context is not None:
                self.terminal.ask([
                    f"cometlocal: paused at the failure of {item.nodeid}; the browser stays at the failed step",
                    report.longreprtext,
                    "cometlocal: press Enter here, or close the browser window, to go on",
                ], context)
        return report

    def step_listener(self, plan: ValidPlan, secrets: dict[str, str],
                      context: BrowserContext) -> Callable[[TraceEvent], None] | None:
        """A trace listener that asks before each step's action (after its first look at the page)."""
        if not self.each_step or self.why_not:
            return None
        steps = {s.id: s for s in plan.plan.all_steps()}
        order = [s.id for s in plan.plan.steps]
        mask = Redactor(secrets.values())

        def before_step(event: TraceEvent) -> None:
            spec = steps.get(event.step_id or "")
            if event.event_type != "observation_captured" or spec is None:
                return
            meta = event.metadata or {}
            where = (f"{order.index(spec.id) + 1} of {len(order)}" if spec.id in order and not meta.get("recovery")
                     else "recovery")
            again = f", attempt {meta['attempt']}" if meta.get("attempt", 1) > 1 else ""
            self.terminal.ask([f"cometlocal: next step '{spec.id}' ({where}{again}): {mask.text(describe_step(spec))}",
                               "cometlocal: press Enter to run it"], context)

        return before_step


def _plan_context(item: pytest.Item) -> BrowserContext | None:
    """The failed plan item's browser context, still open (None: not a plan item, or it has none)."""
    if getattr(item, "refused", None) is not None or getattr(item, "cometlocal_run_dir", None) is None:
        return None
    funcargs = getattr(item, "funcargs", {})
    request = funcargs.get("request") if isinstance(funcargs, dict) else None
    if request is None:
        return None
    try:
        return request.getfixturevalue("cometlocal_context")  # the one the item ran in (cached)
    except Exception:
        return None


_PAUSES = pytest.StashKey["Pauses | None"]()


def register_pauses(config: pytest.Config) -> None:
    """At configure: the Pauses plugin, when ``--cometlocal-pause-on-failure`` or ``--cometlocal-step`` is given."""
    on_failure = bool(config.getoption("cometlocal_pause_on_failure", False))
    each_step = bool(config.getoption("cometlocal_step", False))
    pauses = Pauses(config, on_failure, each_step) if on_failure or each_step else None
    config.stash[_PAUSES] = pauses
    if pauses is not None:
        config.pluginmanager.register(pauses, "cometlocal-pauses")


def step_listeners(config: pytest.Config, plan: ValidPlan, secrets: dict[str, str],
                   context: BrowserContext) -> list[Callable[[TraceEvent], None]]:
    """The runner's extra trace listeners: the step-by-step question, when asked for and possible."""
    pauses = config.stash.get(_PAUSES, None)
    listener = pauses.step_listener(plan, secrets, context) if pauses is not None else None
    return [listener] if listener is not None else []
