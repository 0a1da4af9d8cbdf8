"""The executor: runs validated ActionSpecs on a Playwright page, step by step.

Usable without pytest: give it a page, a run folder and settings, then call
:meth:`Executor.run_plan` with a validated Plan, or :meth:`Executor.propose`
with one raw step at a time (a planner's proposal, validated here first).

This module is the façade and the step's flow; each part of a step has a module of its own under
``step/``, all handed one ``StepContext``: ``observer`` (the looks before and after), ``target`` (its
element; ``prepare``), ``checkpoints`` (conditions), ``actions`` (the side effect, one row per kind),
``action_failure`` (which code a failed action is), ``safety`` (allowlist, auth), ``failures`` (the
typed error and its evidence), ``evidence``, ``budget`` (the policy's counters, the retry rule) and
``journal`` (the trace events in docs/executor.md's order; ``journal.attempt(...)`` brackets each attempt).

Every phase of a step runs under the watchdog's bound (the step's ``timeout_ms`` plus
``watchdog.CALL_MARGIN_MS``). A page that stops answering ends the step with PAGE_UNRESPONSIVE, a dead
one with BROWSER_CRASHED; neither is retried or recovered, and the page is closed for the next item.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Iterable

from pytest_cometlocal.contract.model.actionspec import KINDS, ActionSpec, effect_kind, format_version
from pytest_cometlocal.contract.extensions.registry import active, using
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.load.interpolation import SECRET_REFERENCE
from pytest_cometlocal.contract.model.plan import Plan
from pytest_cometlocal.contract.model.problems import Mark, Problem
from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError
from pytest_cometlocal.contract.validate.validator import validate_action_spec
from pytest_cometlocal.executor.step.actions import Actions, action_row
from pytest_cometlocal.executor.errors import (
    CallTimedOut, ExecutorFailure, OutputWriteFailed, PageTampered, PageUnresponsive, Stop, StepRefused, first_line,
    is_crash,
)
from pytest_cometlocal.executor.step.failures import PAGE_GONE, Failures
from pytest_cometlocal.executor.step.budget import Halt
from pytest_cometlocal.executor.results import (
    ExecutorSettings, RunResult, RunStatus, StepAttempt, StepResult, elapsed_ms, status_for)
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.step.context import StepContext
from pytest_cometlocal.executor.step.safety import Safety
from pytest_cometlocal.executor.step.checkpoints import StepConditions
from pytest_cometlocal.executor.step.evidence import step_evidence
from pytest_cometlocal.executor.step.target import Ahead, draw_after, look_ahead, prepare, read_between
from pytest_cometlocal.executor.step.save_point import save_state
from pytest_cometlocal.executor.http.client import request_key
from pytest_cometlocal.executor.http.urls import absolute_url
from pytest_cometlocal.executor.page.watchdog import CALL_MARGIN_MS, backoff, bound

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
    from pytest_cometlocal.executor.browser.storage_states import StorageStates
    from pytest_cometlocal.executor.page.observation import BlankFrames

__all__ = ["Executor", "ExecutorSettings", "RunResult", "StepResult"]


# Calls outside a step (saving a storage state, stopping a Playwright trace) get this long.
HOUSEKEEPING_MS = 15_000


class Executor:
    """Runs ActionSpecs on one page and records everything in one run folder."""

    def __init__(self, page: Page, run: RunFolder, settings: ExecutorSettings, guard: NetworkGuard | None = None,
                 on_step: Callable[[StepResult], None] | None = None, *,
                 finishers: Iterable[Callable[[ExecutorError | None], list[EvidenceRef]]] = (),
                 storage: StorageStates | None = None, blank_frames: BlankFrames | None = None):
        self.on_step = on_step  # told about every finished step (a reporter's hook)
        # Called with the final error (or None) before run_finished; each returns EvidenceRefs.
        self.finishers = tuple(finishers)
        self.run = run
        self.settings = settings
        self.guard = guard
        self.results: list[StepResult] = []
        self.proposals = 0
        self.storage = storage  # where save points write (executor/step/save_point.py)
        self.released: str | None = None  # how a stuck or crashed page was let go of
        self._next: ActionSpec | None = None  # the plan's next step: what the look-ahead prepares
        self._ahead: Ahead | None = None  # its read-only work, done while the last picture was drawn
        # One context for every part of a step; each part gets it, and the parts it calls.
        self.ctx = ctx = StepContext.open(page, run, settings, guard, blank_frames)
        self.journal = ctx.journal
        self.failures = Failures(ctx)
        self.safety = Safety(ctx, self.failures)
        self.conditions = StepConditions(ctx, self.failures, self.safety)
        self.actions = Actions(ctx, self.failures, self.safety)

    @property
    def page(self) -> Page:
        """The active page (v1.2: steps may open, switch to and close pages; ``ctx.pages`` holds them)."""
        return self.ctx.page

    # -- the run -------------------------------------------------------------

    def start(self, metadata: dict[str, Any] | None = None) -> None:
        self.journal.run_started({
            "execution_mode": self.settings.mode,
            "execution_profile": self.run.manifest.get("execution_profile"),
            "policy": self.settings.policy.model_dump(mode="json"),
            "domain_allowlist": list(self.settings.allowlist),
            **(metadata or {}),
        })
        if self.ctx.stubs is not None:  # (v1.2) before the first step: every page of the context is answered
            self.ctx.stubs.install(self.page.context)

    def finish(self, status: RunStatus, error: ExecutorError | None) -> None:
        last = self.ctx.observer.last
        extra: list[EvidenceRef] = []
        for finisher in self.finishers:  # e.g. the Playwright trace, stopped and stored
            try:
                with bound("finisher", HOUSEKEEPING_MS):
                    extra.extend(finisher(error) or [])
            except OutputWriteFailed:
                raise
            except Exception as exc:
                self.journal.finisher_failed(first_line(exc))
        if extra:
            self.journal.run_evidence(extra)
        stubs = self.journal.stubs_finished(self.ctx.stubs) if self.ctx.stubs is not None else {}  # (v1.2)
        self.journal.run_finished({
            "status": status,
            "error_code": error.error_code.value if error else None,
            "steps_executed": self.ctx.policy.steps_taken,
            **({"blocked_requests": late} if (late := self.ctx.events.take_blocked()) else {}),
            **({"page_released": self.released} if self.released else {}),
            **stubs,
        }, after=last.signature if last else None)
        self.run.finish(status, error_code=error.error_code.value if error else None,
                        failed_step=error.action_id if error else None)

    def run_plan(self, plan: Plan, metadata: dict[str, Any] | None = None) -> RunResult:
        """Run every step; never raises an ExecutorFailure (it is in the result).

        Raises OutputWriteFailed only when the run folder cannot take even the
        record of that failure (see ``_unwritable``).
        """
        error: ExecutorError | None = None
        status: RunStatus = "passed"
        current: tuple[int, ActionSpec] | None = None
        try:
            self.start({"plan": plan.name, **(metadata or {})})
            with using(_registry(self.settings)):  # (extensions) the kinds the plan was validated with
                for index, spec in enumerate(plan.steps):
                    current = (index, spec)
                    self._next = plan.steps[index + 1] if index + 1 < len(plan.steps) else None
                    self.execute(spec, index)
            current = None
        except Stop:
            status = "stopped"
        except ExecutorFailure as failure:
            error = failure.error
            status = status_for(error)
        except OutputWriteFailed as exc:
            return self._unwritable(exc, current)
        except BaseException as exc:  # KeyboardInterrupt, internal faults: the trace still closes
            status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "internal_error"
            self._safe_finish(status, cause=repr(exc))
            raise
        try:
            self.finish(status, error)
        except OutputWriteFailed as exc:
            return self._unwritable(exc, None)
        return RunResult(status, error, self.results, self.run.path)

    def _unwritable(self, exc: OutputWriteFailed, current: tuple[int, ActionSpec] | None) -> RunResult:
        """The run's artifacts stopped fitting (a full disk, a folder gone read-only): OUTPUT_WRITE_FAILED.

        Whatever failed left no partial line or file behind. The run folder's
        reserve is freed, which leaves room for a small evidence file, the
        error, run_finished and the manifest, so the trace still verifies. If
        even that cannot be written, the exception goes up: the caller (the
        pytest item) reports it without a run record.
        """
        self.run.release_reserve()
        if self.run.trace.closed:
            raise exc
        index, spec = current if current else (None, None)
        try:
            error = self.failures.output_write_failed(exc, spec, index)
            self.journal.error_raised(error)
            if spec is not None:
                self._record(StepResult(spec.id, spec.kind, False, 0, error=f"{error.error_code.value}: {error.message}",
                                        typed_error=error, evidence_refs=list(error.evidence_refs)))
            self.finish("failed", error)
        except OutputWriteFailed:
            self._safe_finish("failed", cause=str(exc))
            raise exc from None
        return RunResult("failed", error, self.results, self.run.path)

    def _safe_finish(self, status: RunStatus, cause: str | None = None) -> None:
        if self.ctx.stubs is not None:
            self.ctx.stubs.remove()  # (v1.2) a context that outlives the run keeps none of its routes
        try:
            self.journal.run_finished({"status": status, "error_code": None, "cause": cause})
        except Exception:
            pass
        try:
            self.run.finish(status)
        except Exception:
            pass

    def propose(self, raw: Any) -> StepResult:
        """Validate one proposed step, then execute it; raises ExecutorFailure on any error."""
        self.proposals += 1
        with using(_registry(self.settings)):  # (extensions) validated and run with the same kinds
            return self._propose(raw)

    def _propose(self, raw: Any) -> StepResult:
        validated = validate_action_spec(raw, uploads_root=self.settings.uploads_root)
        if not isinstance(validated, list):
            unknown = sorted({name for name in SECRET_REFERENCE.findall(validated.model_dump_json())
                              if name not in self.settings.secrets})
            if unknown:
                validated = [Problem("<proposal>", Mark(1, 1), "", f"unknown secret(s): {', '.join(unknown)}", "INTERPOLATION")]
        if isinstance(validated, list):
            raise self.failures.reject(raw, validated)
        self.run.uses_format(format_version(validated))
        return self.execute(validated, len(self.results))

    # -- retries and recovery ------------------------------------------------

    def execute(self, spec: ActionSpec, index: int, *, recovery: bool = False, parent_tag: str = "") -> StepResult:
        """Run one step with its retries and recovery; raise ExecutorFailure when it fails for good."""
        attempt_no, recoveries, started = 0, 0, time.monotonic()
        spec = self.ctx.saved.apply(spec)  # (v1.2) ${saved.NAME}: the values earlier steps saved
        request = request_key(spec, self.settings.base_url) if spec.kind == "request" else None  # (v1.2) its call
        while True:
            attempt_no += 1
            suffix = f"_a{attempt_no}" if attempt_no > 1 else ""
            tag = parent_tag + (f"rec_{index:02d}" if recovery else f"step_{index:03d}") + suffix
            attempt = StepAttempt(spec, index, tag, attempt_no, recovery, request_key=request)
            try:
                self._attempt_typed(attempt)
                result = StepResult(spec.id, spec.kind, True, elapsed_ms(started), evidence_refs=attempt.evidence,
                                    attempts=attempt_no)
                self._record(result)
                if not recovery and spec.id in self.settings.storage_saves and self.storage is not None:
                    self.journal.storage_state_saved(spec.id, save_state(
                        self.page, self.run, self.storage, self.settings.storage_saves[spec.id],
                        self.settings.state_settings))
                return result
            except ExecutorFailure as failure:
                error = failure.error
                move = self.ctx.retry.next_move(attempt, error.error_code.value, error.retryable, recoveries)
                if move == "recover":
                    recoveries += 1
                    self._recover(spec, error, recoveries, tag)
                    continue
                if move == "retry":
                    delay = self.settings.policy.backoff_for(attempt_no)
                    with self.journal.retry(attempt, error, delay):
                        backoff(self.page, delay)
                    continue
                if attempt_no > 1 or recoveries:
                    error = error.model_copy(update={
                        "details": {**error.details, "attempts": attempt_no, "recoveries": recoveries},
                        "retryable": False,
                    })
                self._raise_final(attempt, error)

    def _attempt_typed(self, attempt: StepAttempt) -> None:
        """One attempt, in its journal bracket, with every failure of the page or the browser typed.

        A call the watchdog gave up on is a page that stopped answering (or
        died meanwhile); a crash is BROWSER_CRASHED. Anything else that is not
        an ExecutorFailure is a fault of this plugin and goes up as such.
        """
        with self.journal.attempt(attempt):
            try:
                self._attempt(attempt)
            except (ExecutorFailure, Stop):
                raise
            except CallTimedOut as exc:
                raise self.failures.page_stopped(attempt, exc.what, exc.waited_ms) from None
            except PageTampered as exc:
                raise self.failures.tampered(attempt, exc.what, exc.problem) from None
            except PageUnresponsive as exc:
                raise self.failures.page_stopped(attempt, exc.what, exc.waited_ms,
                                                 probed=exc.probe == "no answer") from None
            except StepRefused as exc:  # a refusal, or an extension's: StepFailed's code, or EXTENSION_FAILED
                raise self.failures.fail(attempt, exc.code, exc.stage, exc.message, details=exc.details) from None
            except Exception as exc:
                if not (is_crash(exc) or self.ctx.events.crashed):
                    raise  # a fault of this plugin: reported as such, never disguised
                raise self.failures.crashed(attempt, attempt.phase, first_line(exc)) from None

    def _recover(self, spec: ActionSpec, error: ExecutorError, round_: int, tag: str) -> None:
        steps = self.settings.recovery_steps
        with self.journal.recovery(spec, error, round_, self.settings.policy.recovery_max, [s.id for s in steps]):
            for i, rspec in enumerate(steps):
                self.execute(rspec, i, recovery=True, parent_tag=f"{tag}_r{round_}_")

    def _raise_final(self, attempt: StepAttempt, error: ExecutorError) -> None:
        if self.ctx.stubs is not None:  # (v1.2) the item's failure names its stale stubs, as run_finished does
            unused = self.run.redactor.tree(self.ctx.stubs.unused())
            error = error.model_copy(update={"details": {**error.details, "routes_unused": unused}})
        self.journal.step_failed(attempt.spec.id, error)
        self._record(StepResult(attempt.spec.id, attempt.spec.kind, False, elapsed_ms(attempt.started),
                                error=f"{error.error_code.value}: {error.message}",
                                typed_error=error, evidence_refs=list(error.evidence_refs), attempts=attempt.attempt))
        if error.error_code in PAGE_GONE:
            # Let go of the page: the context's teardown and the next item must not wait on it.
            self.released = self.ctx.watch.close()
        raise ExecutorFailure(error)

    def _record(self, result: StepResult) -> None:
        self.results.append(result)
        if self.on_step is not None:
            try:
                self.on_step(result)
            except Exception:  # a reporter must never break a run
                pass

    # -- one attempt of one step ---------------------------------------------

    def _phase(self, attempt: StepAttempt, what: str):
        """The watchdog's bound on one phase of the step: its timeout_ms plus the margin."""
        attempt.phase = what
        return bound(what, attempt.spec.timeout_ms + CALL_MARGIN_MS)

    def _attempt(self, attempt: StepAttempt) -> None:
        """One attempt, its events in the journal's order (docs/executor.md, "One step")."""
        spec, ctx, journal = attempt.spec, self.ctx, self.journal
        kind = action_row(spec.kind).kind  # the contract's row of the kind
        halt = ctx.policy.check_step_budget()
        ahead, self._ahead = self._ahead, None
        with self._phase(attempt, "observation before the step"):
            prepared = prepare(ctx, attempt, ahead)  # the look, and where the target comes from
        attempt.before = prepared.before
        journal.observation_captured(ctx.policy.observation_metadata(attempt.before.signature, attempt.request_key))
        self._accept(attempt)
        self._decide(attempt, halt)
        if kind.ends_run:
            raise self._stopped(attempt)
        with self._phase(attempt, "target resolution and preconditions"):
            resolution, checked_ahead = prepared.settle(ctx, attempt, self.failures, self.conditions)
        journal.preconditions_checked(resolution, checked_ahead)
        if resolution:
            ctx.places.found(spec.id, resolution["resolved"])
        if spec.criticality == "critical" and self.settings.mode == "dry_run" and (kind.side_effect or spec.kind in KINDS):
            raise self.failures.fail(attempt, ErrorCode.ACTION_CRITICAL_BLOCKED, "precondition",
                                     "dry run: critical step not performed", details={"critical_reason": "dry_run"},
                                     severity="critical", extended=True)
        journal.action_started()
        started = time.monotonic()
        with self._phase(attempt, spec.kind):
            outcome = self.actions.perform(attempt)
        journal.action_executed({"duration_ms": elapsed_ms(started),
                                 "blocked_requests": ctx.events.take_blocked(), **outcome})
        with self._phase(attempt, "postconditions"):  # the more specific codes first
            self.safety.check_after_action(attempt)
            read = self._read(attempt)  # the one read between this step and the next
        with self._phase(attempt, "observation after the step"):  # balanced: its picture, with a first look
            self._ahead, first = draw_after(ctx, self.conditions, attempt, read)
        with self._phase(attempt, "postconditions"):
            at_once = self.conditions.check(attempt, kind.post_phase, spec.postconditions, read and read.title, first)
            self.actions.capture_downloads(attempt)
        with self._phase(attempt, "observation after the step"):
            self._after(attempt, read if at_once else None)
        # Once more after the observation, which gives late events (a popup's first
        # request, a meta refresh) time to arrive.
        self.safety.check_navigation(attempt)
        self._reported(attempt)
        self._passed(attempt)

    def _accept(self, attempt: StepAttempt) -> None:
        """proposal_received, proposal_accepted and action_compiled (a navigation's URL made absolute)."""
        spec, row = attempt.spec, action_row(attempt.spec.kind)
        self.journal.proposal_received("plan" if not self.proposals else "planner",
                                       self.settings.step_sources.get(spec.id))
        if row.url_of is not None:
            attempt.requested_url = absolute_url(self.failures, attempt, row.url_of(spec))
        self.journal.proposal_accepted()
        self.journal.action_compiled()

    def _decide(self, attempt: StepAttempt, halt: Halt | None) -> None:
        """The policy's checks (the hard cap, then the same-state revisit counter), then the step counted."""
        policy = self.ctx.policy
        if halt is not None:
            raise self.failures.halt(attempt, halt)
        halt = policy.count_revisit(effect_kind(attempt.spec), attempt.before.signature, attempt.attempt == 1,
                                    attempt.recovery, attempt.request_key)
        if halt is not None:
            raise self.failures.halt(attempt, halt)
        policy.count_step()
        attempt.marks = self.ctx.events.mark(attempt.spec.id)

    def _stopped(self, attempt: StepAttempt) -> Stop:
        """A ``stop`` step: its preconditions, then the run ends here (when the policy allows it)."""
        with self._phase(attempt, "preconditions"):
            self.conditions.check(attempt, "pre", attempt.spec.preconditions)
        if not self.settings.policy.allow_stop:
            raise self.failures.halt(attempt, Halt("stop_not_allowed", {"allow_stop": False}))
        self.journal.action_started()
        self.journal.action_executed({"duration_ms": 0, "stopped": True})
        self._passed(attempt)
        return Stop()

    def _reported(self, attempt: StepAttempt) -> None:
        """What happened since the action (late refused requests, pages opened, stubbed requests), then
        postconditions_checked."""
        ctx = self.ctx
        late = ctx.events.take_blocked()  # refused after action_executed: a page's late requests
        if ctx.pages.ever_several:  # v1.2: the pages opened since (a v1 run never has a second)
            self.journal.pages_opened(ctx.pages)
        if ctx.stubs is not None:  # v1.2: the requests the plan's routes answered since
            self.journal.requests_stubbed(ctx.stubs.take())
            self.safety.check_routes(attempt, "postcondition")
        self.journal.postconditions_checked(action_row(attempt.spec.kind).kind.post_phase, late)

    def _read(self, attempt: StepAttempt) -> Ahead | None:
        """The one read between two steps (``read_between``), when the plan's next step follows this one
        with nothing in between: no recovery, no planner, no full-size pictures (a critical step's)."""
        nxt = self._next
        if nxt is None or attempt.recovery or self.proposals or self.ctx.observer.full(attempt) or self.ctx.events.crashed:
            return None
        return read_between(self.ctx, nxt, attempt.index + 1, attempt.spec.timeout_ms)

    def _after(self, attempt: StepAttempt, read: Ahead | None) -> None:
        """The step's "after": the one read when its postconditions held at that read (it is then the next
        step's "before" too; balanced drew its picture already: ``draw_after``), else a look of its own,
        with the next step's look-ahead."""
        if read is None:
            attempt.after, self._ahead = self.ctx.observer.after(attempt, self._meanwhile(attempt))
        elif attempt.after is None:  # fast: no picture drawn meanwhile
            attempt.after, self._ahead = self.ctx.observer.after(attempt, None, read.look.again(), read.since)[0], read

    def _meanwhile(self, attempt: StepAttempt) -> Callable[[], Ahead | None] | None:
        """The next plan step's read-only work (``look_ahead``), to run while this step's picture is drawn."""
        nxt = self._next
        if nxt is None or attempt.recovery or self.proposals:
            return None
        return lambda: look_ahead(self.ctx, self.conditions, nxt, attempt.index + 1)

    def _passed(self, attempt: StepAttempt) -> None:
        with self._phase(attempt, "evidence"):
            attempt.evidence.extend(step_evidence(self.page, self.run.evidence, attempt,
                                                  self.ctx.observer.profile.full_every_step))
        self.journal.evidence_captured()
        self.ctx.places.passed(attempt.spec.id, attempt.target.context if attempt.target else None)


def _registry(settings: ExecutorSettings) -> Any:
    """(extensions) The kinds the plan was validated with, else the active registry."""
    return settings.extensions if settings.extensions is not None else active()
