"""A step's one side effect: navigate, click, fill, select, upload (and v1.1's press, hover, check,
uncheck, drag; v1.2's page actions, in pages/actions.py); and the downloads it caused.

One row of ``ACTIONS`` per action kind of the contract: its side effect, and
what the step's flow does for it (resolve its element, make its URL
absolute, check its postconditions as asserts, end the run). A kind is added
as a row, never as a branch. Each action is one Playwright call with the
step's ``timeout_ms``, made on the target resolved for this attempt. When it
raises, the facts are gathered (did Playwright time out, did the page crash,
does the page still answer) and ``action_failure.classify_action`` names the
code. Files to upload are inspected first (confined to uploads_root,
hashed); downloads are saved into the evidence, each given ``timeout_ms`` to
finish, named and masked (or withheld) as runfolder/downloads.py decides.
What ``check``/``uncheck`` and ``select`` on a custom dropdown do in the
page is in page/controls.py; here their outcomes
become the step's typed errors.
"""

from __future__ import annotations

import mimetypes
import tempfile
from pathlib import Path
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.contract.model.actionspec import CLICK_KEYS, KINDS, KindRow
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.load.interpolation import resolve_secrets
from pytest_cometlocal.contract.errors import ConfinementError
from pytest_cometlocal.contract.load.paths import confine
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.contract.allowlist import url_allowed
from pytest_cometlocal.executor.step.action_failure import ActionFacts, classify_action
from pytest_cometlocal.executor.errors import (
    CallTimedOut, CheckedStateNotReached, ExecutorFailure, NotCheckable, OptionNotFound, PageUnresponsive, StepRefused,
    first_line, is_crash, is_timeout,
)
from pytest_cometlocal.executor.runfolder.downloads import WITHHELD_REASON, download_evidence
from pytest_cometlocal.contract.run_folder import sha256_bytes
from pytest_cometlocal.executor.step.failures import Failures
from pytest_cometlocal.executor.step.gaps import browser_gaps
from pytest_cometlocal.executor.pages import actions as page_actions
from pytest_cometlocal.executor.pages import view as page_view
from pytest_cometlocal.executor.http import client as http_client
from pytest_cometlocal.executor.input import element_actions as v13
from pytest_cometlocal.executor.browser import cookies, storage
from pytest_cometlocal.executor.page.controls import set_checked
from pytest_cometlocal.executor.page.controls import choose_option, dropdown_kind
from pytest_cometlocal.executor.page.scrolling import scroll_to_place, scroll_until
from pytest_cometlocal.executor.page.settle import stop_loading
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.executor.step.context import StepContext
from pytest_cometlocal.executor.step.safety import Safety
from pytest_cometlocal.executor.page.watchdog import bound
from pytest_cometlocal.contract.extensions.registry import active
from pytest_cometlocal.executor.extensions import calls as extension_calls

if TYPE_CHECKING:
    from playwright.sync_api import Locator

# How long telling a native <select> from a custom dropdown may take (the element was just resolved).
DROPDOWN_PROBE_MS = 1_000


@dataclass
class Actions:
    ctx: StepContext
    failures: Failures
    safety: Safety

    def perform(self, attempt: StepAttempt) -> dict[str, Any]:
        """Do the step's one side effect; returns what the action_executed event records."""
        acting = self.ctx.page
        try:
            browser_gaps.check_before(self, attempt)  # (issue 49) a kind this browser cannot do: refused first
            perform = action_row(attempt.spec.kind).perform
            if attempt.spec.opens == "page":  # v1.2: click or press must open a page, which becomes active
                return page_actions.opening_page(self, attempt, perform)
            return perform(self, attempt)
        except (ExecutorFailure, CallTimedOut, PageUnresponsive, StepRefused):
            raise  # typed by the engine: a refusal, StepFailed's code, or EXTENSION_FAILED
        except Exception as exc:
            if is_crash(exc) and not self.ctx.events.crashed and self.ctx.pages.closed_itself(acting):
                # v1.2: the action made its page close itself (a popup's submit runs window.close()):
                # done, not a crash; the page that opened it is active now.
                return {"page_closed": True, "page": self.ctx.pages.index()}
            raise self.classify(attempt, exc) from None

    def _navigate(self, attempt: StepAttempt) -> dict[str, Any]:
        url = attempt.requested_url
        if not url_allowed(url, self.ctx.settings.allowlist):
            self.safety.domain_blocked(attempt, url, before_request=True)
        response = self.ctx.page.goto(url, timeout=attempt.spec.timeout_ms, wait_until="load")
        return {"status": response.status, "url": response.url} if response is not None else {}

    def _click(self, attempt: StepAttempt) -> dict[str, Any]:
        spec = attempt.spec
        options = {key: getattr(spec, key) for key in CLICK_KEYS if getattr(spec, key) is not None}  # v1.1's keys
        v13_options = v13.pointer(self, attempt)  # v1.3: position, force
        self._locator(attempt).click(timeout=spec.timeout_ms, **options, **v13_options)
        return v13_options

    def _fill(self, attempt: StepAttempt) -> dict[str, Any]:
        spec = attempt.spec
        text = resolve_secrets(spec.value, self.ctx.settings.secrets)
        if spec.delay_ms is not None:  # v1.3: key by key
            return v13.type_slowly(self, attempt, text)
        browser_gaps.empty_first(self, attempt, v13.forced(spec))  # (issue 49) Firefox appends otherwise
        self._locator(attempt).fill(text, timeout=spec.timeout_ms, **v13.forced(spec))
        return v13.forced(spec)

    def _select(self, attempt: StepAttempt) -> dict[str, Any]:
        """A native <select> as in v1; a custom dropdown (v1.1) is opened and its one option clicked."""
        spec = attempt.spec
        dropdown = self._dropdown(attempt)
        if isinstance(spec.value, list):  # v1.3: the options of a <select multiple>
            return v13.select_list(self, attempt, dropdown,
                                   [resolve_secrets(v, self.ctx.settings.secrets) for v in spec.value])
        if dropdown.get("kind") != "custom":
            self._locator(attempt).select_option(resolve_secrets(spec.value, self.ctx.settings.secrets),
                                                 timeout=spec.timeout_ms)
            return {}
        try:
            choose_option(self.ctx.page, self._locator(attempt), resolve_secrets(spec.value, self.ctx.settings.secrets),
                          spec.timeout_ms)
        except OptionNotFound as found:
            code = ErrorCode.TARGET_NOT_UNIQUE if found.count > 1 else ErrorCode.TARGET_NOT_FOUND
            raise self.failures.fail(
                attempt, code, "execution",
                f"select opened the {dropdown['role']}: {found.count} options named {spec.value!r}; requires exactly 1",
                details={"which": "option", "value": spec.value, "count_observed": found.count,
                         "options_seen": found.options_seen}) from None
        return {"dropdown": dropdown["role"]}

    def _dropdown(self, attempt: StepAttempt) -> dict[str, Any]:
        """What kind of dropdown the target is; one that cannot be told is left to v1's select_option."""
        try:
            return dropdown_kind(self._locator(attempt), min(attempt.spec.timeout_ms, DROPDOWN_PROBE_MS))
        except Exception as exc:
            if is_crash(exc):
                raise
            return {"kind": "unknown", "role": None}

    def _press(self, attempt: StepAttempt) -> dict[str, Any]:
        """The key on the target (focused first), or without a target on whatever has focus."""
        spec = attempt.spec
        if attempt.target is None:
            self.ctx.page.keyboard.press(spec.key)
        else:
            attempt.target.locator.press(spec.key, timeout=spec.timeout_ms)
        return {}

    def _hover(self, attempt: StepAttempt) -> dict[str, Any]:
        v13_options = v13.pointer(self, attempt)  # v1.3: position
        self._locator(attempt).hover(timeout=attempt.spec.timeout_ms, **v13_options)
        return v13_options

    def _drag(self, attempt: StepAttempt) -> dict[str, Any]:
        assert attempt.to_target is not None, "a drag has its `to` resolved with its target"
        self._locator(attempt).drag_to(attempt.to_target.locator, timeout=attempt.spec.timeout_ms)
        return {}

    def _check(self, attempt: StepAttempt) -> dict[str, Any]:
        return self._set_checked(attempt, True)

    def _uncheck(self, attempt: StepAttempt) -> dict[str, Any]:
        return self._set_checked(attempt, False)

    def _set_checked(self, attempt: StepAttempt, checked: bool) -> dict[str, Any]:
        """Idempotent: a control already so is left alone; after a click the state must be the one asked for."""
        spec = attempt.spec
        args = {"target": self._described(attempt)}
        try:
            return {**set_checked(self.ctx.page, self._locator(attempt), checked, spec.timeout_ms, bool(spec.force)),
                    **v13.forced(spec)}
        except NotCheckable as refused:
            seen = refused.observed
            message = ("uncheck cannot uncheck a radio: check another radio of its group" if seen["kind"] == "radio"
                       else f"{spec.kind} needs a checkbox, radio or switch; the target is <{seen['tag']}>"
                       + (f" with role {seen['role']}" if seen["role"] else ""))
            failed = FailedCondition(kind="element_checkable", args=args, phase="pre", observed=seen)
        except CheckedStateNotReached as unchanged:
            message = (f"{spec.kind} clicked the {unchanged.via}, but the element is "
                       f"{'checked' if unchanged.observed['checked'] else 'not checked'} after {spec.timeout_ms} ms")
            failed = FailedCondition(kind="element_checked", args={**args, "checked": checked}, phase="pre",
                                     observed=unchanged.observed)
        raise self.failures.fail(attempt, ErrorCode.PRECONDITION_FAILED, "execution", message,
                                 failed_conditions=[failed])

    def _upload(self, attempt: StepAttempt) -> dict[str, Any]:
        paths = self.inspect_uploads(attempt)
        sent_before = len(self.ctx.events.sent)  # the requests the page starts for the files follow
        self._locator(attempt).set_input_files(paths, timeout=attempt.spec.timeout_ms)
        self.ctx.events.note_upload(sent_before)
        return {}

    def _scroll(self, attempt: StepAttempt) -> dict[str, Any]:
        """(v1.1) Scroll until the postconditions hold (page/scrolling.py); the step's check reads the outcome.
        (v1.3) With a place ``to``: one move there (page/scrolling.py); the postconditions are checked as usual."""
        spec = attempt.spec
        if spec.scroll_place is not None:
            return scroll_to_place(self, attempt)
        attempt.scrolled = scroll_until(self.ctx.page, attempt.target.locator if attempt.target else None,
                                        spec.direction or "down", spec.postconditions,
                                        self.ctx.check_context(attempt), spec.timeout_ms)
        return attempt.scrolled.metadata()

    def _advance_clock(self, attempt: StepAttempt) -> dict[str, Any]:
        """(v1.2) Move the installed clock forward, firing the timers due on the way."""
        self.ctx.page.clock.run_for(attempt.spec.ms)
        return {"ms": attempt.spec.ms}

    def _none(self, attempt: StepAttempt) -> dict[str, Any]:
        """wait_for and assert act through their postconditions only; stop ends the run."""
        return {}

    @staticmethod
    def _locator(attempt: StepAttempt) -> Locator:
        assert attempt.target is not None, "a kind that acts on an element has its target resolved"
        return attempt.target.locator

    @staticmethod
    def _described(attempt: StepAttempt) -> str:
        assert attempt.target is not None, "a kind that acts on an element has its target resolved"
        return attempt.target.description

    def classify(self, attempt: StepAttempt, exc: Exception) -> ExecutorFailure:
        """The typed failure of an action that raised (see action_failure.py for the rules)."""
        spec = attempt.spec
        crashed = is_crash(exc) or self.ctx.events.crashed
        timed_out = is_timeout(exc)
        if not crashed:
            # A renderer that dies during goto makes it fail with net::ERR_ABORTED
            # before the crash event arrives; a timeout may be a page that stopped
            # answering (then a dying renderer gets a moment to say so).
            crashed = self.ctx.watch.wait_for_crash(50)
            if not crashed and not timed_out and not self.ctx.watch.answers():
                # On a busy machine the crash event can take longer than that: an
                # action that failed at once on a page that does not answer either
                # gets the full grace to report it (timeouts are probed below).
                crashed = self.ctx.watch.wait_for_crash()
        facts = ActionFacts(kind=spec.kind, text=str(exc), timed_out=timed_out, crashed=crashed,
                            timeout_ms=spec.timeout_ms, url=attempt.requested_url)
        verdict = classify_action(facts)
        if verdict.code == ErrorCode.PRECONDITION_FAILED and timed_out:
            browser_gaps.after_timeout(self, attempt)  # (issue 49) Firefox's submit to another origin
        if verdict.code == ErrorCode.PRECONDITION_FAILED and timed_out and not self.ctx.watch.answers():
            # Not an element that never became actionable: a page that stopped answering
            # (a navigation still pending is told apart by the rules before this one).
            crashed = self.ctx.watch.wait_for_crash()
            unresponsive = None if crashed else {"during": spec.kind, "waited_ms": spec.timeout_ms, "probe": "no answer"}
            verdict = classify_action(replace(facts, crashed=crashed, unresponsive=unresponsive))
        if verdict.stop_loading:
            # The navigation is given up: stop it, or the page cannot be observed
            # while the server keeps the request open.
            stop_loading(self.ctx.page)
        if verdict.check_auth:
            self.ctx.events.note_status(attempt.requested_url or "", 401)
            self.safety.check_auth(attempt)
        if verdict.check_navigation:
            self.safety.check_navigation(attempt)
        details = dict(verdict.details)
        failed = []
        if verdict.failed_check is not None:
            observed = {"error": first_line(exc)} if (timed_out or verdict.failed_check != "element_actionable") else None
            args = {"target": attempt.target.description} if attempt.target and observed else {}
            failed = [FailedCondition(kind=verdict.failed_check, args=args, phase="pre", observed=observed)]
        if verdict.code == ErrorCode.UPLOAD_FAILED:
            details["file_ref"] = spec.file_refs
        cause = self.ctx.run.redactor.text(first_line(exc, 2000))
        return self.failures.fail(attempt, verdict.code, "execution", verdict.message, details=details,
                                  failed_conditions=failed, cause=cause, retryable=verdict.retryable,
                                  observe_after=verdict.observe_after)

    def inspect_uploads(self, attempt: StepAttempt) -> list[str]:
        spec = attempt.spec
        root = self.ctx.settings.uploads_root
        journal, evidence = self.ctx.journal, self.ctx.run.evidence
        paths = []
        for ref in spec.file_refs:
            journal.inspection_started(ref)
            report: dict[str, Any] = {"schema_version": "v1", "file_ref": ref, "criteria_profile": "basic_v1"}
            problem = None
            try:
                if root is None:
                    raise ConfinementError("no uploads_root")
                path = confine(ref, root)
                if not path.is_file():
                    raise FileNotFoundError(ref)
                data = path.read_bytes()
                doc_hash = sha256_bytes(data)
                mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                report.update({"status": "ok", "size_bytes": len(data), "sha256": doc_hash, "mime_type": mime})
            except ConfinementError as exc:
                problem, doc_hash = f"file_ref escapes uploads_root: {exc}", None
            except FileNotFoundError:
                problem, doc_hash = "file not found", None
            except OSError as exc:
                problem, doc_hash = f"file cannot be read: {exc.strerror}", None
            if problem:
                report.update({"status": "failed", "problem": problem})
            ref_ev = evidence.add_json("inspection_report", f"inspections/{attempt.tag}_{len(paths)}.json", report,
                                       step_id=spec.id)
            attempt.evidence.append(ref_ev)
            journal.inspection_finished(ref_ev, {
                "status": "failed" if problem else "ok", "file_ref": ref, "doc_hash": doc_hash,
                "criteria_profile": "basic_v1", "report_ref": ref_ev.uri,
            })
            if problem:
                raise self.failures.fail(attempt, ErrorCode.UPLOAD_FAILED, "execution", f"{ref}: {problem}",
                                         details={"file_ref": ref, "upload_signal": "inspection", "problem": problem})
            paths.append(str(path))
        return paths

    def capture_downloads(self, attempt: StepAttempt) -> None:
        """Store the step's downloads, each given ``timeout_ms`` to finish.

        A download that does not finish in time (a server that stops sending)
        is cancelled rather than waited for forever; like one that failed, it
        is DOWNLOAD_FAILED when the step expects a download (a required
        ``download_started``), otherwise it is noted in the trace.
        """
        spec = attempt.spec
        expects = any(c.kind == "download_started" and c.severity != "warning" for c in spec.postconditions)
        downloads = self.ctx.events.downloads_since(attempt.marks)
        for i, download in enumerate(downloads):
            try:
                # save_as, not path(): path() is not available over a remote connection.
                with tempfile.TemporaryDirectory(prefix="cometlocal-download-") as tmp:
                    target = Path(tmp) / "download"
                    with bound("download", spec.timeout_ms):
                        download.save_as(target)
                    data = target.read_bytes()
            except Exception as exc:
                if isinstance(exc, CallTimedOut):
                    problem = f"did not finish within {spec.timeout_ms} ms"
                    try:
                        with bound("download.cancel", 2_000):
                            download.cancel()
                    except Exception:
                        pass
                else:
                    problem = first_line(exc)
                if is_crash(exc):
                    raise
                if expects:
                    shown = self.ctx.run.redactor.file_name  # a name as the browser made it may still show a secret
                    raise self.failures.fail(attempt, ErrorCode.DOWNLOAD_FAILED, "postcondition",
                                             f"download {shown(download.suggested_filename)!r} {problem}",
                                             details={"expected_download": True,
                                                      "downloads_seen": [shown(d.suggested_filename) for d in downloads],
                                                      "download_problem": problem})
                self.ctx.journal.download_failed(problem)
                continue
            # Conditions saw the real name; what is written holds no secret (downloads.py).
            kept = download_evidence(data, suggested=download.suggested_filename or "", url=download.url,
                                     content_type=self.ctx.events.content_type(download.url), index=i + 1,
                                     redactor=self.ctx.run.redactor)
            if kept.withheld:
                self.ctx.run.evidence.withhold("download", kept.data, WITHHELD_REASON, step_id=spec.id,
                                           metadata=kept.metadata)
                continue
            ref = self.ctx.run.evidence.add_bytes("download", f"downloads/{attempt.tag}_{kept.name}", kept.data,
                                              step_id=spec.id, metadata=kept.metadata, redact=False,
                                              masked_from=kept.masked_from)
            attempt.evidence.append(ref)


@dataclass(frozen=True)
class ActionRow:
    """How the executor does one action kind; what the step's flow does for it (engine.py) is the
    contract's row of the kind (``KINDS``: resolved target, waits, checks, ends the run)."""

    perform: Callable[[Actions, StepAttempt], dict[str, Any]]  # the side effect; returns action_executed's metadata
    kind: KindRow
    # The URL the step requests (a navigate's target, a request's url), made absolute before it is accepted.
    url_of: Callable[[Any], str] | None = None


# How each action kind of the contract (contract/model/actionspec.py ActionKind) is performed.
_PERFORM: dict[str, Callable[[Actions, StepAttempt], dict[str, Any]]] = {
    "navigate": Actions._navigate, "click": Actions._click, "fill": Actions._fill, "select": Actions._select,
    "upload": Actions._upload,
    # v1.1: press's target is optional (without one, the key goes to whatever has focus); so is scroll's.
    "press": Actions._press, "hover": Actions._hover, "check": Actions._check, "uncheck": Actions._uncheck,
    "drag": Actions._drag, "scroll": Actions._scroll,
    "wait_for": Actions._none, "assert": Actions._none, "stop": Actions._none,
    "advance_clock": Actions._advance_clock,  # v1.2
    # v1.2: the run's pages (pages/actions.py); no target, the active page.
    "go_back": page_actions.go_back, "go_forward": page_actions.go_forward, "reload": page_view.reload,
    "switch_page": page_actions.switch_page, "close_page": page_actions.close_page,
    "request": http_client.perform,  # v1.2 (executor/http/client.py)
    "set_viewport": page_view.set_viewport,  # v1.3 (pages/view.py; reload's bypass_cache too)
    "focus": v13.focus, "blur": v13.blur, "dispatch_event": v13.dispatch_event,  # v1.3 (executor/input/)
    # v1.3: cookies and storage (executor/browser/cookies.py, storage.py); no target.
    "set_cookie": cookies.set_cookie, "clear_cookies": cookies.clear_cookies,
    "set_storage_item": storage.set_storage_item, "clear_storage": storage.clear_storage,
}
_URL_OF: dict[str, Callable[[Any], str]] = {"navigate": lambda spec: spec.target.url, "request": lambda spec: spec.url}
ACTIONS: dict[str, ActionRow] = {kind: ActionRow(perform, KINDS[kind], _URL_OF.get(kind))
                                 for kind, perform in _PERFORM.items()}


def _extension(actions: Actions, attempt: StepAttempt) -> dict[str, Any]:
    """(extensions) An extension action: its registered ``perform`` (executor/extensions/calls.py)."""
    spec, ctx = attempt.spec, actions.ctx
    target = attempt.target.locator if attempt.target is not None else None
    return extension_calls.perform(extension_calls.action_kind(spec.kind), page=ctx.page, target=target,
                                   given=spec.args.given() if spec.args is not None else {},
                                   io=ctx.extension_io(attempt), resolve=lambda s: resolve_secrets(s, ctx.settings.secrets))


def action_row(kind: str) -> ActionRow:
    """The row of a built-in kind, or (extensions) of a kind the run's registry holds: every part of a
    step asks here, never ``ACTIONS`` directly."""
    row = ACTIONS.get(kind)
    if row is None:
        found = active().action_row(kind)
        if found is None:
            raise KeyError(f"no action kind {kind!r} (built in or registered)")
        row = ActionRow(_extension, found)
    return row
