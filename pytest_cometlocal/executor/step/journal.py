"""The step journal: each trace event of a run is a method, and a step's events keep one order.

The order of a step's events is the trace's contract (docs/executor.md, "One
step"); readers fold it back into attempts. So no module names an event by
string: it calls the journal, and the journal checks the order as it writes.
``with journal.attempt(attempt):`` brackets one attempt (as Robot Framework's
StatusReporter brackets a body item): inside it the events of ATTEMPT_ORDER
only move forward, a failure's evidence ends the attempt, and leaving the
bracket checks that the attempt ended with its evidence, passed or failed.
Around attempts, ``retry`` and ``recovery`` are brackets too, and
``step_failed`` writes the end of a step that failed for good.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.actionspec import ActionSpec, format_version
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError, StateSignature
from pytest_cometlocal.executor.browser.stubs import Stubs
from pytest_cometlocal.executor.errors import EventOutOfOrder, ExecutorFailure, Stop
from pytest_cometlocal.executor.page.locators import describe_compiled
from pytest_cometlocal.executor.results import StepAttempt
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST
from pytest_cometlocal.executor.runfolder.trace_writer import TraceWriter

# The places an attempt's events take, in order (docs/executor.md, "One step"). An
# attempt skips what its kind does not do; it never goes back. "…_warned" is the
# extra event of failed warning conditions, just before the phase's own event.
ATTEMPT_ORDER = (
    "observation_captured",
    "proposal_received",
    "proposal_accepted",
    "action_compiled",
    "preconditions_warned",
    "preconditions_checked",
    "action_started",
    "inspection",  # inspection_started / inspection_finished, once per file (upload)
    "action_executed",
    "postconditions_warned",
    "download_failed",  # a download that could not be kept, when the step does not expect one
    "pages_opened",  # (v1.2) page_opened events: each page opened since the last report (a popup, a new tab)
    "requests_stubbed",  # (v1.2) request_stubbed events: each request a route answered since the last report
    "postconditions_checked",  # or assert_checked
    "evidence_captured",
)
_PLACE = {name: i for i, name in enumerate(ATTEMPT_ORDER)}
_FAILED = len(ATTEMPT_ORDER)  # the failure's evidence_captured: the attempt is over

_CHECKED = {"pre": "preconditions_checked", "post": "postconditions_checked", "assert": "assert_checked"}


class _Open:
    """The attempt inside the bracket: where its events have got to."""

    def __init__(self, attempt: StepAttempt):
        self.attempt = attempt
        self.place = -1
        self.inspecting = False
        self.action: dict[str, Any] | None = None


class StepJournal:
    """Writes a run's trace events, one method per event; the step's in the documented order."""

    def __init__(self, trace: TraceWriter):
        self.trace = trace
        self._open: _Open | None = None

    # -- the run's frame --------------------------------------------------------

    def run_started(self, metadata: dict[str, Any]) -> None:
        self.trace.emit("run_started", metadata=metadata)

    def finisher_failed(self, message: str) -> None:
        """A finisher (e.g. the Playwright trace) that failed: noted, the run goes on closing."""
        self.trace.emit("evidence_captured", metadata={"finisher_error": message})

    def run_evidence(self, refs: list[EvidenceRef]) -> None:
        """Evidence of the whole run (the finishers' files, an invalid plan's report)."""
        self.trace.emit("evidence_captured", evidence_refs=refs, metadata={"manifest_uri": EVIDENCE_MANIFEST})

    def run_finished(self, metadata: dict[str, Any], after: StateSignature | None = None) -> None:
        self.trace.emit("run_finished", after=after, metadata=metadata)

    def plan_rejected(self, error: ExecutorError, problem_count: int) -> None:
        """A plan that failed validation: rejected before any step."""
        self.trace.emit("proposal_rejected", error=error, metadata={"problem_count": problem_count})

    def proposal_refused(self, error: ExecutorError) -> None:
        """A planner's proposal that failed validation: received, rejected, raised; never run."""
        self.trace.emit("proposal_received", error.action_id, metadata={"proposal_source": "planner"})
        self.trace.emit("proposal_rejected", error.action_id, error=error)
        self.error_raised(error)

    def error_raised(self, error: ExecutorError) -> None:
        self.trace.emit("error_raised", error.action_id, before=error.state_before, after=error.state_after,
                        error=error)

    def storage_state_saved(self, step_id: str, info: dict[str, Any]) -> None:
        """After a step that passed: its save point's storage state (name, hash, counts; never values)."""
        self.trace.emit("evidence_captured", step_id, metadata={"storage_state_saved": info})

    # -- one attempt of one step --------------------------------------------------

    @contextmanager
    def attempt(self, attempt: StepAttempt) -> Iterator[None]:
        """The bracket of one attempt: it ends with its evidence, whether it passed or failed."""
        if self._open is not None:
            raise EventOutOfOrder(f"attempt {attempt.tag} opened inside attempt {self._open.attempt.tag}")
        self._open = opened = _Open(attempt)
        try:
            yield
        except (ExecutorFailure, Stop) as exc:
            want = _FAILED if isinstance(exc, ExecutorFailure) else _PLACE["evidence_captured"]
            if opened.place != want:
                raise EventOutOfOrder(f"attempt {attempt.tag} ended by {type(exc).__name__} "
                                      f"without its evidence_captured") from exc
            raise
        else:
            if opened.place != _PLACE["evidence_captured"]:
                raise EventOutOfOrder(f"attempt {attempt.tag} passed without its evidence_captured")
        finally:
            self._open = None

    def _at(self, place: str, again: bool = False) -> StepAttempt:
        """Move the open attempt to ``place``; refuse going back (or staying, unless ``again``)."""
        opened = self._open
        if opened is None:
            raise EventOutOfOrder(f"{place} outside an attempt")
        to = _PLACE[place]
        if to < opened.place or (to == opened.place and not again) or opened.place == _FAILED:
            was = "its failure" if opened.place == _FAILED else ATTEMPT_ORDER[opened.place]
            raise EventOutOfOrder(f"{place} after {was} in attempt {opened.attempt.tag}")
        opened.place = to
        return opened.attempt

    def _step_event(self, event: str, place: str, **fields: Any) -> None:
        attempt = self._at(place)
        self.trace.emit(event, attempt.spec.id, before=attempt.before.signature, **fields)

    def _action(self) -> dict[str, Any]:
        """The step as proposal_received and action_compiled carry it (dumped once), with the
        ``schema_version`` of the format it needs: ``v1.1`` for a step that uses v1.1, else ``v1``."""
        opened = self._open
        assert opened is not None
        if opened.action is None:
            spec = opened.attempt.spec
            opened.action = {"schema_version": format_version(spec), **spec.model_dump(mode="json", exclude_none=True)}
        return opened.action

    def observation_captured(self, policy: dict[str, Any]) -> None:
        """``policy``: the anti-loop counters before this attempt."""
        attempt = self._at("observation_captured")
        self.trace.emit("observation_captured", attempt.spec.id, before=attempt.before.signature, metadata={
            "policy": policy, "attempt": attempt.attempt, "recovery": attempt.recovery})

    def proposal_received(self, source: str, lines: tuple[str, ...] | None) -> None:
        """``source``: plan or planner; ``lines``: where the step (and its step group) were written."""
        attempt = self._at("proposal_received")
        self.trace.emit("proposal_received", attempt.spec.id, before=attempt.before.signature,
                        action_spec=self._action(),
                        metadata={"proposal_source": source, "step_index": attempt.index,
                                  **({"source": list(lines)} if lines else {})})

    def proposal_accepted(self) -> None:
        self._step_event("proposal_accepted", "proposal_accepted")

    def action_compiled(self) -> None:
        attempt = self._at("action_compiled")
        self.trace.emit("action_compiled", attempt.spec.id, before=attempt.before.signature, action_spec=self._action(),
                        metadata={"compiled": [describe_compiled(t) for t in attempt.spec.alternatives],
                                  "target_resolution_order": list(T.U4_ORDER)})

    def conditions_warned(self, phase: str, warnings: list[dict[str, Any]]) -> None:
        """Failed warning conditions of ``phase``: one more ``…_checked`` event, before the phase's own."""
        self._step_event(_CHECKED[phase], "preconditions_warned" if phase == "pre" else "postconditions_warned",
                         metadata={"ok": True, "warnings": warnings})

    def preconditions_checked(self, resolution: dict[str, Any] | None, ahead: bool = False) -> None:
        """``ahead``: the target and preconditions were checked while the last step's picture was drawn."""
        self._step_event("preconditions_checked", "preconditions_checked",
                         metadata={"ok": True, **({"target_resolution": resolution} if resolution else {}),
                                   **({"checked_ahead": True} if ahead else {})})

    def action_started(self) -> None:
        self._step_event("action_started", "action_started")

    def inspection_started(self, file_ref: str) -> None:
        attempt = self._at("inspection", again=True)
        if self._open.inspecting:  # type: ignore[union-attr]
            raise EventOutOfOrder(f"inspection_started before the last inspection_finished in {attempt.tag}")
        self._open.inspecting = True  # type: ignore[union-attr]
        self.trace.emit("inspection_started", attempt.spec.id, metadata={"file_ref": file_ref})

    def inspection_finished(self, report: EvidenceRef, metadata: dict[str, Any]) -> None:
        attempt = self._at("inspection", again=True)
        if not self._open.inspecting:  # type: ignore[union-attr]
            raise EventOutOfOrder(f"inspection_finished without inspection_started in {attempt.tag}")
        self._open.inspecting = False  # type: ignore[union-attr]
        self.trace.emit("inspection_finished", attempt.spec.id, evidence_refs=[report], metadata=metadata)

    def action_executed(self, metadata: dict[str, Any]) -> None:
        self._step_event("action_executed", "action_executed", metadata=metadata)

    def pages_opened(self, pages: Any) -> None:
        """(v1.2) A page_opened event for each page opened since the last (``Pages.take_opened``); its URL is
        masked with the rest of the line. Whether it became the active page (``opens: page``) is said."""
        opened = pages.take_opened()
        if not opened:
            return
        attempt = self._at("pages_opened", again=True)
        for page in opened:
            self.trace.emit("page_opened", attempt.spec.id, metadata={
                "page": pages.index(page), "url": page.url, "active": page is pages.active})

    def requests_stubbed(self, records: list[dict[str, Any]]) -> None:
        """(v1.2) A request_stubbed event per request a route answered or aborted since the last report
        (``Stubs.take``): in the step's attempt, or between steps (the run's end) when no attempt is open."""
        if not records:
            return
        step_id = None
        if self._open is not None:
            step_id = self._at("requests_stubbed", again=True).spec.id
        for record in records:
            self.trace.emit("request_stubbed", step_id, metadata=record)

    def stubs_finished(self, stubs: Stubs) -> dict[str, Any]:
        """(v1.2) The run's routes taken off its context, request_stubbed for the requests they answered since
        the last step reported (between steps), and run_finished's ``routes_unused``: the routes nothing matched."""
        stubs.remove()
        self.requests_stubbed(stubs.take())
        return {"routes_unused": stubs.unused(), **({"requests_stubbed_untraced": stubs.untraced} if stubs.untraced else {})}

    def download_failed(self, problem: str) -> None:
        """A download that could not be kept, at a step that does not expect one: noted, not failed."""
        attempt = self._at("download_failed", again=True)
        self.trace.emit("evidence_captured", attempt.spec.id, metadata={"download_error": problem})

    def postconditions_checked(self, phase: str, blocked: list[Any] | None) -> None:
        """``phase`` "assert" writes assert_checked; ``blocked``: requests refused since action_executed."""
        attempt = self._at("postconditions_checked")
        self.trace.emit(_CHECKED[phase], attempt.spec.id, before=attempt.before.signature,
                        after=attempt.after.signature if attempt.after else None,
                        metadata={"ok": True, **({"blocked_requests": blocked} if blocked else {}),
                                  **({"saved": attempt.saved} if attempt.saved else {})})

    def evidence_captured(self) -> None:
        """The end of an attempt that passed: its evidence files."""
        attempt = self._at("evidence_captured")
        self.trace.emit("evidence_captured", attempt.spec.id, before=attempt.before.signature,
                        after=attempt.after.signature if attempt.after else None, evidence_refs=attempt.evidence,
                        metadata={"manifest_uri": EVIDENCE_MANIFEST})

    def failure_evidence(self, code: ErrorCode, refs: list[EvidenceRef], after: StateSignature | None) -> None:
        """The end of an attempt that failed: the failure's evidence pack. Nothing of the attempt follows."""
        opened = self._open
        if opened is None or opened.place == _FAILED:
            raise EventOutOfOrder(f"the evidence of {code.value} outside an open attempt")
        opened.place = _FAILED
        attempt = opened.attempt
        self.trace.emit("evidence_captured", attempt.spec.id,
                        before=attempt.before.signature if attempt.before else None, after=after,
                        evidence_refs=refs, metadata={"manifest_uri": EVIDENCE_MANIFEST, "for_error": code.value})

    # -- between attempts, and the end of a failed step ---------------------------

    @contextmanager
    def retry(self, attempt: StepAttempt, error: ExecutorError, delay_ms: int) -> Iterator[None]:
        """retry_scheduled, the backoff inside the bracket, then backoff_applied."""
        self._between("retry_scheduled")
        self.trace.emit("retry_scheduled", attempt.spec.id, error=error, metadata={
            "attempt": attempt.attempt, "next_attempt": attempt.attempt + 1, "error_code": error.error_code.value,
            "delay_ms": delay_ms})
        yield
        self.trace.emit("backoff_applied", attempt.spec.id, metadata={"delay_ms": delay_ms,
                                                                      "attempt": attempt.attempt + 1})

    @contextmanager
    def recovery(self, spec: ActionSpec, error: ExecutorError, round_: int, recovery_max: int,
                 steps: list[str]) -> Iterator[None]:
        """recovery_started, the recovery steps inside the bracket, recovery_finished when they all passed."""
        self._between("recovery_started")
        self.trace.emit("recovery_started", spec.id, error=error, metadata={
            "error_code": error.error_code.value, "round": round_, "recovery_max": recovery_max, "steps": steps})
        yield
        self.trace.emit("recovery_finished", spec.id, metadata={"round": round_, "status": "ok"})

    def step_failed(self, step_id: str, error: ExecutorError) -> None:
        """The end of a step that failed for good: proposal_rejected or policy_halt where they apply, error_raised."""
        self._between("error_raised")
        before = error.state_before
        if error.stage == "proposal_validation":
            self.trace.emit("proposal_rejected", step_id, before=before, error=error)
        if error.error_code == ErrorCode.POLICY_HALT:
            reason = {k: error.details[k] for k in ("state_key", "request_key", "count", "threshold") if k in error.details}
            self.trace.emit("policy_halt", step_id, before=before, error=error,
                            metadata={"policy": {"reason": error.details.get("policy_reason"), **reason}})
        self.trace.emit("error_raised", step_id, before=before, after=error.state_after, error=error)

    def _between(self, event: str) -> None:
        if self._open is not None:
            raise EventOutOfOrder(f"{event} inside attempt {self._open.attempt.tag}")
