"""The executor: runs validated ActionSpecs on a Playwright page, step by step.

Usable without pytest: give it a page, a run folder and settings, then call
:meth:`Executor.run_plan` with a validated Plan, or :meth:`Executor.propose`
with one raw step at a time (a planner's proposal, validated here first).

Per step the trace gets, in order: observation_captured, proposal_received,
proposal_accepted (or proposal_rejected), action_compiled,
preconditions_checked, action_started, action_executed,
postconditions_checked or assert_checked, evidence_captured; on failure
evidence_captured and error_raised (policy_halt first for a policy halt);
retry_scheduled/backoff_applied and recovery_started/recovery_finished around
retries and recovery. run_started and run_finished frame the run.
"""

from __future__ import annotations

import mimetypes
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urljoin, urlsplit

from ..contract import targets as T
from ..contract.actionspec import ActionSpec
from ..contract.codes import ErrorCode
from ..contract.interpolation import SECRET_REFERENCE, resolve_secrets
from ..contract.paths import ConfinementError, confine
from ..contract.plan import AuthSignals, Plan
from ..contract.policy import Policy
from ..contract.problems import Mark, Problem
from ..contract.records import EvidenceRef, ExecutorError, FailedCondition, StateSignature
from ..contract.validator import validate_action_spec
from .allowlist import url_allowed, url_host
from .checks import DEFAULT_TOAST_SELECTOR, CheckContext, CheckResult, NetworkTracker, poll
from .clock import utc_now_iso
from .errors import (
    Crashed,
    ExecutorFailure,
    actionability_check,
    first_line,
    intercepting_overlay,
    is_crash,
    is_timeout,
    navigation_pending,
    net_error,
)
from .bounded import CallTimedOut, bounded, stop_loading
from .evidence import OutputWriteFailed, sha256_bytes
from .locators import describe_compiled, resolve
from .observe import Observation, observe
from .policy import Halt, PolicyState
from .runfolder import RunFolder

U4_ORDER = list(T.U4_ORDER)
CONDITION_CODES = {
    "host_in_allowlist": ErrorCode.DOMAIN_BLOCKED,
    "no_blocking_overlay": ErrorCode.OVERLAY_BLOCKING,
    "download_started": ErrorCode.DOWNLOAD_FAILED,
    "upload_completed": ErrorCode.UPLOAD_FAILED,
}


@dataclass(frozen=True)
class ExecutorSettings:
    """Everything the executor needs beyond the steps themselves."""

    base_url: str | None = None
    allowlist: tuple[str, ...] = ()
    mode: str = "live"
    policy: Policy = field(default_factory=Policy)
    toast_selector: str = DEFAULT_TOAST_SELECTOR
    overlay_selectors: tuple[str, ...] = ()
    auth_signals: AuthSignals | None = None
    uploads_root: Path | None = None
    secrets: dict[str, str] = field(default_factory=dict)
    recovery_on: tuple[str, ...] = ()
    recovery_steps: tuple[ActionSpec, ...] = ()
    # step id -> ("plans/a.actions.yaml:12", "groups/login.steps.yaml:9"): recorded with the step and its errors.
    step_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # step id -> storage-state name saved when that step passes (needs Executor.storage).
    storage_saves: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def for_plan(cls, plan: Plan, *, base_url: str | None, allowlist: tuple[str, ...], mode: str,
                 uploads_root: Path | None, secrets: dict[str, str],
                 step_sources: Mapping[str, tuple[str, ...]] | None = None,
                 storage_saves: Mapping[str, str] | None = None) -> "ExecutorSettings":
        return cls(
            step_sources=step_sources or {},
            storage_saves=storage_saves or {},
            base_url=base_url,
            allowlist=allowlist,
            mode=mode,
            policy=plan.policy,
            toast_selector=plan.toast_selector or DEFAULT_TOAST_SELECTOR,
            overlay_selectors=tuple(plan.overlay_selectors),
            auth_signals=plan.auth_signals,
            uploads_root=uploads_root,
            secrets=secrets,
            recovery_on=tuple(plan.recovery.on_error) if plan.recovery else (),
            recovery_steps=tuple(plan.recovery.steps) if plan.recovery else (),
        )


@dataclass
class StepResult:
    """Compat result of one step: ``error`` is the string form, ``typed_error`` the ExecutorError."""

    step_id: str
    kind: str
    ok: bool
    duration_ms: int
    error: str | None = None
    typed_error: ExecutorError | None = None
    evidence_refs: list[EvidenceRef] = field(default_factory=list)
    attempts: int = 1


@dataclass
class RunResult:
    status: str  # passed | failed | halted | stopped | blocked
    error: ExecutorError | None
    steps: list[StepResult]
    run_dir: Path

    @property
    def passed(self) -> bool:
        return self.error is None


class _Stop(Exception):
    """A permitted ``stop`` step: the run ends as a pass."""


@dataclass
class _StepCtx:
    """Bookkeeping of one attempt of one step."""

    spec: ActionSpec
    index: int
    tag: str
    attempt: int
    recovery: bool
    before: Observation | None = None
    after: Observation | None = None
    locator: Any = None
    resolved_target: Any = None
    request_mark: int = 0
    response_mark: int = 0
    download_mark: int = 0
    blocked_mark: int = 0
    requested_url: str | None = None
    evidence: list[EvidenceRef] = field(default_factory=list)
    resolution: dict[str, Any] | None = None
    target_context: dict[str, Any] | None = None
    started: float = field(default_factory=time.monotonic)


# How old the previous step's "after" observation may be for the next step's
# "before" to carry its screenshot over (see Executor._carried).
CARRY_MAX_AGE_S = 1.0


class Executor:
    """Runs ActionSpecs on one page and records everything in one run folder."""

    def __init__(self, page: Any, run: RunFolder, settings: ExecutorSettings, guard: Any = None,
                 on_step: Callable[[StepResult], None] | None = None):
        self.page = page
        self.on_step = on_step  # told about every finished step (a reporter's hook)
        # Called with the final error (or None) before run_finished; each returns EvidenceRefs.
        self.finishers: list[Callable[[ExecutorError | None], list[EvidenceRef]]] = []
        self.run = run
        self.trace = run.trace
        self.evidence = run.evidence
        self.settings = settings
        self.guard = guard
        self.policy = PolicyState(settings.policy)
        self.network = NetworkTracker()
        self.requests: list[tuple[str, bool, bool]] = []  # (url, navigation, main frame)
        self.doc_statuses: list[tuple[str, int]] = []
        self.downloads: list[Any] = []
        self.crashed = False
        self.last_observation: Observation | None = None
        # The last step's "after" observation with the request and download counts
        # when it was taken: the next step's "before" may carry its screenshot over.
        self._carry: tuple[Observation, int, int, float] | None = None
        self.results: list[StepResult] = []
        self.proposals = 0
        self.storage: Any = None  # a StorageStates, where save points write (executor/storage.py)
        self._secret_values = tuple(v for v in settings.secrets.values() if v)
        # Requests and responses are followed on the whole context, so a popup's
        # first navigation is seen as soon as the popup exists.
        context = page.context
        context.on("request", self._on_request)
        context.on("requestfinished", self.network.ended)
        context.on("requestfailed", self._on_request_failed)
        context.on("response", self._on_response)
        self._attach(page)
        context.on("page", self._attach)

    # -- page listeners ------------------------------------------------------

    def _attach(self, page: Any) -> None:
        page.on("download", self._on_download)
        page.on("crash", self._on_crash)

    def _on_request(self, request: Any) -> None:
        self.network.started()
        navigation = request.is_navigation_request()
        try:
            main = request.frame.parent_frame is None
        except Exception:
            # A popup's first navigation is issued before its frame exists.
            main = navigation
        self.requests.append((request.url, navigation, main))

    def _on_request_failed(self, request: Any) -> None:
        self.network.ended()
        failure = request.failure or ""
        if "ERR_INVALID_AUTH_CREDENTIALS" in failure and request.is_navigation_request():
            self.doc_statuses.append((request.url, 401))

    def _on_response(self, response: Any) -> None:
        try:
            request = response.request
            if request.is_navigation_request() and request.frame.parent_frame is None:
                self.doc_statuses.append((response.url, response.status))
        except Exception:
            pass

    def _on_download(self, download: Any) -> None:
        self.downloads.append(download)

    def _on_crash(self, *_: Any) -> None:
        self.crashed = True

    # -- public API ----------------------------------------------------------

    def start(self, metadata: dict[str, Any] | None = None) -> None:
        self.trace.emit(
            "run_started",
            metadata={
                "execution_mode": self.settings.mode,
                "execution_profile": self.run.manifest.get("execution_profile"),
                "policy": self.settings.policy.model_dump(mode="json"),
                "domain_allowlist": list(self.settings.allowlist),
                **(metadata or {}),
            },
        )

    def finish(self, status: str, error: ExecutorError | None) -> None:
        after = self.last_observation.signature if self.last_observation else None
        extra: list[EvidenceRef] = []
        for finisher in self.finishers:  # e.g. the Playwright trace, stopped and stored
            try:
                extra.extend(finisher(error) or [])
            except Exception as exc:
                self.trace.emit("evidence_captured", metadata={"finisher_error": first_line(exc)})
        if extra:
            self.trace.emit("evidence_captured", evidence_refs=extra, metadata={"manifest_uri": "evidence_manifest.json"})
        self.trace.emit(
            "run_finished",
            after=after,
            metadata={
                "status": status,
                "error_code": error.error_code.value if error else None,
                "steps_executed": self.policy.steps_taken,
            },
        )
        self.run.finish(status, error_code=error.error_code.value if error else None,
                        failed_step=error.action_id if error else None)

    def run_plan(self, plan: Plan, metadata: dict[str, Any] | None = None) -> RunResult:
        """Run every step; never raises an ExecutorFailure (it is in the result).

        Raises OutputWriteFailed only when the run folder cannot take even the
        record of that failure (see ``_unwritable``).
        """
        error: ExecutorError | None = None
        status = "passed"
        current: tuple[int, ActionSpec] | None = None
        try:
            self.start({"plan": plan.name, **(metadata or {})})
            for index, spec in enumerate(plan.steps):
                current = (index, spec)
                self.execute(spec, index)
            current = None
        except _Stop:
            status = "stopped"
        except ExecutorFailure as failure:
            error = failure.error
            status = _status_for(error)
        except OutputWriteFailed as exc:
            return self._unwritable(exc, current)
        except BaseException as exc:  # KeyboardInterrupt, internal faults: the trace still closes
            status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "internal_error"
            self._safe_finish(status, None, cause=repr(exc))
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
        if self.trace.closed:
            raise exc
        index, spec = current if current else (None, None)
        step_id = spec.id if spec else None
        message = self.run.redactor.text(f"cannot write the run's artifacts: {exc.strerror}: {exc.path}")
        state = self.last_observation.signature if self.last_observation else None
        try:
            ref = self.evidence.add_json("state_signature", "state/output_write_failed.json", {
                "state_before": state.model_dump(mode="json") if state else None,
                "last_url": state.url if state else None,
                "reason": message,
            }, step_id=step_id)
            error = ExecutorError(
                error_code=ErrorCode.OUTPUT_WRITE_FAILED, stage="evidence", severity="critical", message=message,
                retryable=False, run_id=self.run.run_id, seq=self.trace.next_seq, step_index=index, action_id=step_id,
                action_kind=spec.kind if spec else None, criticality=spec.criticality if spec else None,
                state_before=state, evidence_refs=[ref], created_at=utc_now_iso(),
                cause=self.run.redactor.text(str(exc)),
                details={"path": self.run.redactor.text(str(exc.path)), "errno": exc.errno, "strerror": exc.strerror},
            )
            self.trace.emit("error_raised", step_id, before=state, error=error)
            if spec is not None:
                self._record(StepResult(spec.id, spec.kind, False, 0, error=f"{error.error_code.value}: {message}",
                                        typed_error=error, evidence_refs=[ref]))
            self.finish("failed", error)
        except OutputWriteFailed:
            self._safe_finish("failed", None, cause=str(exc))
            raise exc from None
        return RunResult("failed", error, self.results, self.run.path)

    def _safe_finish(self, status: str, error: ExecutorError | None, cause: str | None = None) -> None:
        try:
            self.trace.emit("run_finished", metadata={"status": status, "error_code": None, "cause": cause})
        except Exception:
            pass
        try:
            self.run.finish(status)
        except Exception:
            pass

    def propose(self, raw: Any) -> StepResult:
        """Validate one proposed step, then execute it; raises ExecutorFailure on any error."""
        self.proposals += 1
        validated = validate_action_spec(raw, uploads_root=self.settings.uploads_root)
        if not isinstance(validated, list):
            unknown = sorted({name for name in SECRET_REFERENCE.findall(validated.model_dump_json())
                              if name not in self.settings.secrets})
            if unknown:
                validated = [Problem("<proposal>", Mark(1, 1), "", f"unknown secret(s): {', '.join(unknown)}", "INTERPOLATION")]
        if isinstance(validated, list):
            self._reject(raw, validated)
        return self.execute(validated, len(self.results))

    # -- steps ---------------------------------------------------------------

    def execute(self, spec: ActionSpec, index: int, *, recovery: bool = False, parent_tag: str = "") -> StepResult:
        """Run one step with its retries and recovery; raise ExecutorFailure when it fails for good."""
        attempt = 0
        recoveries = 0
        started = time.monotonic()
        while True:
            attempt += 1
            tag = parent_tag + f"step_{index:03d}" + (f"_a{attempt}" if attempt > 1 else "")
            if recovery:
                tag = parent_tag + f"rec_{index:02d}" + (f"_a{attempt}" if attempt > 1 else "")
            ctx = _StepCtx(spec, index, tag, attempt, recovery)
            try:
                try:
                    self._attempt(ctx, first_attempt=(attempt == 1))
                except (ExecutorFailure, _Stop):
                    raise
                except Exception as exc:
                    if not (is_crash(exc) or self.crashed):
                        raise  # a fault of this plugin: reported as such, never disguised
                    self.crashed = True
                    raise self._fail(ctx, ErrorCode.BROWSER_CRASHED, "execution", "the page or browser crashed",
                                     details={"during": "observation"}, cause=first_line(exc), retryable=False) from None
                result = StepResult(spec.id, spec.kind, True, _ms(started), evidence_refs=ctx.evidence, attempts=attempt)
                self._record(result)
                if not recovery and spec.id in self.settings.storage_saves:
                    self._save_storage_state(spec.id, self.settings.storage_saves[spec.id])
                return result
            except ExecutorFailure as failure:
                error = failure.error
                code = error.error_code.value
                retryable = spec.criticality != "critical" and error.retryable
                if retryable and not recovery and code in self.settings.recovery_on and recoveries < self.settings.policy.recovery_max:
                    recoveries += 1
                    self._recover(spec, index, error, recoveries, tag)
                    continue
                if retryable and code in self.settings.policy.retry_on and attempt <= self.settings.policy.retries_per_action:
                    delay = self.settings.policy.backoff_for(attempt)
                    self.trace.emit("retry_scheduled", spec.id, error=error,
                                    metadata={"attempt": attempt, "next_attempt": attempt + 1, "error_code": code, "delay_ms": delay})
                    self._wait(delay)
                    self.trace.emit("backoff_applied", spec.id, metadata={"delay_ms": delay, "attempt": attempt + 1})
                    continue
                if attempt > 1 or recoveries:
                    error = error.model_copy(update={
                        "details": {**error.details, "attempts": attempt, "recoveries": recoveries},
                        "retryable": False,
                    })
                self._raise_final(ctx, error)

    def _save_storage_state(self, step_id: str, name: str) -> None:
        """A save point passed: keep the context's cookies and local storage under ``name``.

        The values are masked in this run's artifacts from now on; the trace
        records the name, the file's hash and counts, never the values.
        """
        if self.storage is None:
            return
        from .storage import mask_values, state_values

        try:
            state = self.page.context.storage_state()
            mask_values(self.run.redactor, state_values(state))
            info = self.storage.save(name, state)
        except Exception as exc:  # recorded; a plan that starts from this state then says it is missing
            info = {"name": name, "error": first_line(exc)}
        self.trace.emit("evidence_captured", step_id, metadata={"storage_state_saved": info})

    def _wait(self, ms: int) -> None:
        """Backoff that keeps the page's events flowing (a sync sleep would stall them)."""
        try:
            self.page.wait_for_timeout(ms)
        except Exception:
            time.sleep(ms / 1000)

    def _recover(self, spec: ActionSpec, index: int, error: ExecutorError, round_: int, tag: str) -> None:
        self.trace.emit("recovery_started", spec.id, error=error,
                        metadata={"error_code": error.error_code.value, "round": round_,
                                  "recovery_max": self.settings.policy.recovery_max,
                                  "steps": [s.id for s in self.settings.recovery_steps]})
        for i, rspec in enumerate(self.settings.recovery_steps):
            self.execute(rspec, i, recovery=True, parent_tag=f"{tag}_r{round_}_")
        self.trace.emit("recovery_finished", spec.id, metadata={"round": round_, "status": "ok"})

    def _raise_final(self, ctx: _StepCtx, error: ExecutorError) -> None:
        event = "policy_halt" if error.error_code == ErrorCode.POLICY_HALT else None
        before = error.state_before
        if error.stage == "proposal_validation":
            self.trace.emit("proposal_rejected", ctx.spec.id, before=before, error=error)
        if event:
            self.trace.emit(event, ctx.spec.id, before=before, error=error,
                            metadata={"policy": {"reason": error.details.get("policy_reason"), **{
                                k: error.details[k] for k in ("state_key", "count", "threshold") if k in error.details}}})
        self.trace.emit("error_raised", ctx.spec.id, before=before, after=error.state_after, error=error)
        self._record(StepResult(ctx.spec.id, ctx.spec.kind, False, _ms(ctx.started), error=f"{error.error_code.value}: {error.message}",
                                typed_error=error, evidence_refs=list(error.evidence_refs), attempts=ctx.attempt))
        raise ExecutorFailure(error)

    def _record(self, result: StepResult) -> None:
        self.results.append(result)
        if self.on_step is not None:
            try:
                self.on_step(result)
            except Exception:  # a reporter must never break a run
                pass

    def _attempt(self, ctx: _StepCtx, first_attempt: bool) -> None:
        spec = ctx.spec
        halt = self.policy.check_step_budget()
        ctx.before = self._observe(previous=self._carried(ctx))
        state_key = ctx.before.state_key
        self.trace.emit("observation_captured", spec.id, before=ctx.before.signature,
                        metadata={"policy": self.policy.observation_metadata(state_key),
                                  "attempt": ctx.attempt, "recovery": ctx.recovery})
        action = spec.model_dump(mode="json", exclude_none=True)
        source = self.settings.step_sources.get(spec.id)
        self.trace.emit("proposal_received", spec.id, before=ctx.before.signature, action_spec=action,
                        metadata={"proposal_source": "plan" if not self.proposals else "planner", "step_index": ctx.index,
                                  **({"source": list(source)} if source else {})})
        if spec.kind == "navigate":
            ctx.requested_url = self._absolute(ctx, spec.target.url)
        self.trace.emit("proposal_accepted", spec.id, before=ctx.before.signature)
        alternatives = spec.alternatives
        self.trace.emit("action_compiled", spec.id, before=ctx.before.signature, action_spec=action, metadata={
            "compiled": [describe_compiled(t) for t in alternatives],
            "target_resolution_order": U4_ORDER,
        })
        if halt is not None:
            raise self._halt(ctx, halt)
        halt = self.policy.count_revisit(spec.kind, state_key, first_attempt, ctx.recovery)
        if halt is not None:
            raise self._halt(ctx, halt)
        self.policy.count_step()
        self._mark(ctx)

        if spec.kind == "stop":
            self._check_conditions(ctx, "pre", spec.preconditions)
            if not self.settings.policy.allow_stop:
                raise self._halt(ctx, Halt("stop_not_allowed", {"allow_stop": False}))
            self.trace.emit("action_started", spec.id, before=ctx.before.signature)
            self.trace.emit("action_executed", spec.id, before=ctx.before.signature, metadata={"duration_ms": 0, "stopped": True})
            self._step_evidence(ctx)
            raise _Stop()

        # Target resolution and preconditions.
        if spec.kind in ("click", "fill", "select", "upload"):
            self._resolve_target(ctx)
        self._check_conditions(ctx, "pre", spec.preconditions)
        self.trace.emit("preconditions_checked", spec.id, before=ctx.before.signature,
                        metadata={"ok": True, **({"target_resolution": ctx.resolution} if ctx.resolution else {})})

        if spec.criticality == "critical" and self.settings.mode == "dry_run":
            raise self._fail(ctx, ErrorCode.ACTION_CRITICAL_BLOCKED, "precondition",
                             "dry run: critical step not performed", details={"critical_reason": "dry_run"},
                             severity="critical", extended=True)

        self.trace.emit("action_started", spec.id, before=ctx.before.signature)
        started = time.monotonic()
        outcome = self._perform(ctx)
        self.trace.emit("action_executed", spec.id, before=ctx.before.signature,
                        metadata={"duration_ms": _ms(started), "blocked_requests": self._blocked_since(ctx), **outcome})

        # Postconditions (or assert checks), with the more specific codes first.
        self._check_blocked_navigation(ctx)
        self._check_auth(ctx)
        phase = "assert" if spec.kind == "assert" else "post"
        self._check_conditions(ctx, phase, spec.postconditions)
        self._capture_downloads(ctx)
        ctx.after = self._observe()
        self._carry = (ctx.after, len(self.requests), len(self.downloads), time.monotonic())
        # Once more after the observation, which gives late events (a popup's first
        # request, a meta refresh) time to arrive.
        self._check_blocked_navigation(ctx)
        self.trace.emit("assert_checked" if phase == "assert" else "postconditions_checked", spec.id,
                        before=ctx.before.signature, after=ctx.after.signature, metadata={"ok": True})
        self._step_evidence(ctx)

    # -- pieces of a step ----------------------------------------------------

    def _mark(self, ctx: _StepCtx) -> None:
        ctx.request_mark = len(self.requests)
        ctx.response_mark = len(self.doc_statuses)
        ctx.download_mark = len(self.downloads)
        ctx.blocked_mark = len(self.guard.blocked) if self.guard else 0

    def _absolute(self, ctx: _StepCtx, url: str) -> str:
        url = resolve_secrets(url, self.settings.secrets)
        if urlsplit(url).scheme:
            return url
        if not self.settings.base_url:
            raise self._fail(
                ctx, ErrorCode.INVALID_ACTIONSPEC, "proposal_validation",
                f"relative URL {ctx.spec.target.url!r} needs a base URL: --base-url, the plan's base_url, "
                "ini base_url or a cometlocal_base_url fixture",
                details={"violated_rules": ["URL"], "validation_errors": [
                    {"key_path": "target.url", "message": "relative URL without a base URL", "rule": "URL"}]},
                retryable=False,
            )
        return urljoin(self.settings.base_url, url)

    def _resolve_target(self, ctx: _StepCtx) -> None:
        spec = ctx.spec
        resolution = resolve(self.page, spec.alternatives, spec.timeout_ms)
        metadata = {"attempts": [a.as_dict() for a in resolution.attempts], "rounds": resolution.rounds}
        if resolution.ok:
            ctx.locator, ctx.resolved_target = resolution.locator, resolution.target
            ctx.target_context = resolution.context
            ctx.resolution = {"resolved": describe_compiled(resolution.target), **metadata}
            return
        target = spec.target.model_dump(mode="json") if not isinstance(spec.target, list) else [t.model_dump(mode="json") for t in spec.target]
        details = {
            "target": target,
            "target_resolution_order": U4_ORDER,
            "count_observed": resolution.max_count,
            "attempts": [a.as_dict() for a in resolution.attempts[-len(spec.alternatives):]],
        }
        if resolution.max_count > 1:
            details["matches_sample"] = resolution.sample
            raise self._fail(ctx, ErrorCode.TARGET_NOT_UNIQUE, "precondition",
                             f"target resolution returned {resolution.max_count} matches; requires exactly 1", details=details)
        raise self._fail(ctx, ErrorCode.TARGET_NOT_FOUND, "precondition",
                         "target resolution returned 0 matches; requires exactly 1", details=details)

    def _check_context(self, ctx: _StepCtx) -> CheckContext:
        return CheckContext(
            page=self.page,
            step=ctx.spec,
            base_url=self.settings.base_url,
            allowlist=self.settings.allowlist,
            toast_selector=self.settings.toast_selector,
            overlay_selectors=self.settings.overlay_selectors,
            step_locator=ctx.locator,
            requested_url=ctx.requested_url,
            downloads=lambda: self.downloads[ctx.download_mark:],
            network=self.network,
            resolve_text=lambda s: resolve_secrets(s, self.settings.secrets),
        )

    def _check_conditions(self, ctx: _StepCtx, phase: str, conditions: list[Any]) -> list[CheckResult]:
        spec = ctx.spec
        timeout = spec.timeout_ms
        results = self._guarded(lambda: poll(conditions, self._check_context(ctx), phase, timeout), ctx)
        failed = [r for r in results if not r.ok and r.condition.severity != "warning"]
        warnings = [r.failed_dict(phase) for r in results if not r.ok and r.condition.severity == "warning"]
        if warnings:
            self.trace.emit("assert_checked" if phase == "assert" else
                            ("preconditions_checked" if phase == "pre" else "postconditions_checked"),
                            spec.id, before=ctx.before.signature, metadata={"ok": True, "warnings": warnings})
        if not failed:
            return results
        if phase != "pre":
            self._check_blocked_navigation(ctx)
            self._check_auth(ctx)
        failed_conditions = [FailedCondition(**r.failed_dict(phase)) for r in failed]
        kinds = [r.condition.kind for r in failed]
        stage = "precondition" if phase == "pre" else "postcondition"
        for kind, code in CONDITION_CODES.items():
            if kind in kinds:
                result = next(r for r in failed if r.condition.kind == kind)
                details: dict[str, Any] = {}
                if code == ErrorCode.DOMAIN_BLOCKED:
                    url = (result.observed or {}).get("url", "")
                    if spec.criticality == "critical":
                        raise self._fail(ctx, ErrorCode.ACTION_CRITICAL_BLOCKED, stage, f"critical step would leave the allowlist: {url_host(url)}",
                                         details={"critical_reason": "unsafe_domain_escape", "host": url_host(url), "allowlist": list(self.settings.allowlist)},
                                         failed_conditions=failed_conditions, severity="critical", extended=True)
                    details = {"host": url_host(url), "url": url, "allowlist": list(self.settings.allowlist)}
                elif code == ErrorCode.OVERLAY_BLOCKING:
                    observed = result.observed or {}
                    details = {"overlay_selector": observed.get("overlay_selector"), "overlay_text": observed.get("overlay_text")}
                elif code == ErrorCode.DOWNLOAD_FAILED:
                    details = {"expected_download": True, "downloads_seen": (result.observed or {}).get("downloads", [])}
                elif code == ErrorCode.UPLOAD_FAILED:
                    details = {"file_ref": spec.file_refs, "upload_signal": result.condition.args.model_dump(mode="json", exclude_none=True) or "files attached"}
                raise self._fail(ctx, code, stage, f"{kind} did not hold within {timeout} ms", details=details,
                                 failed_conditions=failed_conditions, with_after=phase != "pre")
        if spec.kind == "wait_for" and phase == "post":
            raise self._fail(ctx, ErrorCode.NAVIGATION_TIMEOUT, "postcondition",
                             f"wait_for conditions did not hold within {timeout} ms",
                             details={"timeout_ms": timeout, "wait_condition": [r.failed_dict(phase) for r in failed]},
                             failed_conditions=failed_conditions, with_after=True)
        code = ErrorCode.PRECONDITION_FAILED if phase == "pre" else ErrorCode.POSTCONDITION_FAILED
        names = ", ".join(kinds)
        raise self._fail(ctx, code, stage, f"{'pre' if phase == 'pre' else 'post'}condition failed: {names}",
                         failed_conditions=failed_conditions, with_after=phase != "pre")

    def _perform(self, ctx: _StepCtx) -> dict[str, Any]:
        """Do the step's one side effect; returns what the action_executed event records."""
        spec = ctx.spec
        outcome: dict[str, Any] = {}
        timeout = spec.timeout_ms
        secrets = self.settings.secrets
        try:
            if spec.kind == "navigate":
                url = ctx.requested_url
                if not url_allowed(url, self.settings.allowlist):
                    self._domain_blocked(ctx, url, before_request=True)
                response = self.page.goto(url, timeout=timeout, wait_until="load")
                if response is not None:
                    outcome = {"status": response.status, "url": response.url}
            elif spec.kind == "click":
                ctx.locator.click(timeout=timeout)
            elif spec.kind == "fill":
                ctx.locator.fill(resolve_secrets(spec.value, secrets), timeout=timeout)
            elif spec.kind == "select":
                ctx.locator.select_option(resolve_secrets(spec.value, secrets), timeout=timeout)
            elif spec.kind == "upload":
                paths = self._inspect_uploads(ctx)
                ctx.locator.set_input_files(paths, timeout=timeout)
            # wait_for and assert act through their postconditions only.
        except ExecutorFailure:
            raise
        except Exception as exc:
            self._classify(ctx, exc)
        return outcome

    def _catch_up_on_crash(self) -> None:
        """Let a 'crash' event that raced the action's error arrive.

        A renderer that dies during ``goto`` makes it fail with
        ``net::ERR_ABORTED`` before the page's crash event is dispatched; without
        this, a crash would read as a NAVIGATION_FAILED.
        """
        try:
            self.page.wait_for_timeout(50)
        except Exception as exc:
            if is_crash(exc):
                self.crashed = True

    def _classify(self, ctx: _StepCtx, exc: Exception) -> None:
        spec = ctx.spec
        timeout = spec.timeout_ms
        cause = self.run.redactor.text(first_line(exc, 2000))
        if not (is_crash(exc) or self.crashed):
            self._catch_up_on_crash()
        if is_crash(exc) or self.crashed:
            raise self._fail(ctx, ErrorCode.BROWSER_CRASHED, "execution", "the page or browser crashed during the action",
                             details={"during": spec.kind}, cause=cause, retryable=False)
        if spec.kind == "navigate":
            if is_timeout(exc):
                # The navigation is given up: stop it, or the page cannot be observed
                # while the server keeps the request open.
                stop_loading(self.page)
                raise self._fail(ctx, ErrorCode.NAVIGATION_TIMEOUT, "execution", f"navigation did not finish within {timeout} ms",
                                 details={"timeout_ms": timeout, "wait_condition": "load", "url": ctx.requested_url},
                                 cause=cause, with_after=True)
            net = net_error(exc)
            if net == "ERR_INVALID_AUTH_CREDENTIALS":
                self.doc_statuses.append((ctx.requested_url or "", 401))
                self._check_auth(ctx)
            self._check_blocked_navigation(ctx)
            raise self._fail(ctx, ErrorCode.NAVIGATION_FAILED, "execution", f"navigation failed: {net or 'error'}",
                             details={"net_error": net, "url": ctx.requested_url}, cause=cause, with_after=True)
        if is_timeout(exc) and navigation_pending(exc):
            # Done, but the page it led to never came: a navigation timeout, not an
            # actionability problem. Not retried: repeating the action could repeat
            # its side effect (a form sent twice).
            stop_loading(self.page)
            raise self._fail(ctx, ErrorCode.NAVIGATION_TIMEOUT, "execution",
                             f"{spec.kind} was performed, but the navigation it started did not finish within {timeout} ms",
                             details={"timeout_ms": timeout, "wait_condition": "navigation started by the action",
                                      "action_performed": True},
                             cause=cause, with_after=True, retryable=False)
        overlay = intercepting_overlay(exc)
        if overlay is not None:
            raise self._fail(ctx, ErrorCode.OVERLAY_BLOCKING, "execution", "another element intercepts pointer events on the target",
                             details={"overlay_selector": overlay.selector, "overlay_text": overlay.text}, cause=cause, with_after=True)
        check = actionability_check(exc)
        if check is not None or is_timeout(exc):
            check = check or "element_actionable"
            failed = FailedCondition(kind=check, args={"target": describe_compiled(ctx.resolved_target) if ctx.resolved_target else None},
                                     phase="pre", observed={"error": first_line(exc)})
            raise self._fail(ctx, ErrorCode.PRECONDITION_FAILED, "execution",
                             f"{spec.kind} could not be performed within {timeout} ms: {check}",
                             failed_conditions=[failed], cause=cause, with_after=True)
        if spec.kind == "upload":
            raise self._fail(ctx, ErrorCode.UPLOAD_FAILED, "execution", "upload failed",
                             details={"file_ref": spec.file_refs, "upload_signal": "set_input_files"}, cause=cause, with_after=True)
        raise self._fail(ctx, ErrorCode.PRECONDITION_FAILED, "execution", f"{spec.kind} failed: {first_line(exc, 200)}",
                         failed_conditions=[FailedCondition(kind="element_actionable", args={}, phase="pre")],
                         cause=cause, with_after=True)

    def _inspect_uploads(self, ctx: _StepCtx) -> list[str]:
        spec = ctx.spec
        root = self.settings.uploads_root
        paths = []
        for ref in spec.file_refs:
            self.trace.emit("inspection_started", spec.id, metadata={"file_ref": ref})
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
            ref_ev = self.evidence.add_json("inspection_report", f"inspections/{ctx.tag}_{len(paths)}.json", report, step_id=spec.id)
            ctx.evidence.append(ref_ev)
            self.trace.emit("inspection_finished", spec.id, evidence_refs=[ref_ev], metadata={
                "status": "failed" if problem else "ok", "file_ref": ref, "doc_hash": doc_hash,
                "criteria_profile": "basic_v1", "report_ref": ref_ev.uri,
            })
            if problem:
                raise self._fail(ctx, ErrorCode.UPLOAD_FAILED, "execution", f"{ref}: {problem}",
                                 details={"file_ref": ref, "upload_signal": "inspection", "problem": problem})
            paths.append(str(path))
        return paths

    def _capture_downloads(self, ctx: _StepCtx) -> None:
        """Store the step's downloads, each given ``timeout_ms`` to finish.

        A download that does not finish in time (a server that stops sending)
        is cancelled rather than waited for forever; like one that failed, it
        is DOWNLOAD_FAILED when the step expects a download (a required
        ``download_started``), otherwise it is noted in the trace.
        """
        expects = any(c.kind == "download_started" and c.severity != "warning" for c in ctx.spec.postconditions)
        downloads = self.downloads[ctx.download_mark:]
        for i, download in enumerate(downloads):
            try:
                # save_as, not path(): path() is not available over a remote connection.
                with tempfile.TemporaryDirectory(prefix="cometlocal-download-") as tmp:
                    target = Path(tmp) / "download"
                    bounded(download, "save_as", ctx.spec.timeout_ms, target)
                    data = target.read_bytes()
            except Exception as exc:
                if isinstance(exc, CallTimedOut):
                    problem = f"did not finish within {ctx.spec.timeout_ms} ms"
                    try:
                        download.cancel()
                    except Exception:
                        pass
                else:
                    problem = first_line(exc)
                if is_crash(exc):
                    raise
                if expects:
                    raise self._fail(ctx, ErrorCode.DOWNLOAD_FAILED, "postcondition",
                                     f"download {download.suggested_filename!r} {problem}",
                                     details={"expected_download": True,
                                              "downloads_seen": [d.suggested_filename for d in downloads],
                                              "download_problem": problem}, with_after=True)
                self.trace.emit("evidence_captured", ctx.spec.id, metadata={"download_error": problem})
                continue
            name = re.sub(r"[^A-Za-z0-9._-]+", "_", download.suggested_filename or f"download_{i}")[:100]
            ref = self.evidence.add_bytes("download", f"downloads/{ctx.tag}_{name}", data, step_id=ctx.spec.id,
                                          metadata={"suggested_filename": download.suggested_filename, "url": download.url},
                                          redact=False)
            ctx.evidence.append(ref)

    def _blocked_since(self, ctx: _StepCtx) -> list[dict[str, Any]]:
        if not self.guard:
            return []
        return [{"method": b.method, "url": b.url, "host": b.host} for b in self.guard.blocked_since(ctx.blocked_mark)]

    def _check_blocked_navigation(self, ctx: _StepCtx) -> None:
        """A main-frame navigation (or popup) to an outside host during this step."""
        for url, navigation, main in self.requests[ctx.request_mark:]:
            if navigation and main and not url_allowed(url, self.settings.allowlist):
                self._domain_blocked(ctx, url, before_request=False)

    def _domain_blocked(self, ctx: _StepCtx, url: str, before_request: bool) -> None:
        host = url_host(url)
        details = {"host": host, "url": url, "allowlist": list(self.settings.allowlist),
                   "stopped_before_request": before_request, "blocked_requests": self._blocked_since(ctx)}
        if ctx.spec.criticality == "critical":
            raise self._fail(ctx, ErrorCode.ACTION_CRITICAL_BLOCKED, "execution",
                             f"critical step would leave the allowlist: {host}",
                             details={"critical_reason": "unsafe_domain_escape", **details}, severity="critical", extended=True)
        raise self._fail(ctx, ErrorCode.DOMAIN_BLOCKED, "execution", f"host {host} is outside the allowlist",
                         details=details, with_after=True)

    def _check_auth(self, ctx: _StepCtx) -> None:
        signal = self._auth_signal(ctx)
        if signal is not None:
            raise self._fail(ctx, ErrorCode.AUTH_FAILED, "postcondition", f"authentication failed: {signal['type']}",
                             details={"auth_signal": signal}, with_after=True)

    def _auth_signal(self, ctx: _StepCtx) -> dict[str, Any] | None:
        signals = self.settings.auth_signals
        if signals is None:
            return None
        for url, status in self.doc_statuses[ctx.response_mark:]:
            if status in signals.status:
                return {"type": "status", "status": status, "url": url}
        try:
            if signals.url_pattern and re.search(signals.url_pattern, self.page.url):
                return {"type": "url_pattern", "pattern": signals.url_pattern, "url": self.page.url}
            if signals.texts:
                for frame in self.page.frames:
                    try:
                        text = frame.evaluate("() => document.body ? document.body.innerText : ''")
                    except Exception:
                        continue
                    for wanted in signals.texts:
                        if wanted in text:
                            return {"type": "text", "text": wanted, "frame_url": frame.url}
        except Exception as exc:
            if is_crash(exc):
                return None
        return None

    def _halt(self, ctx: _StepCtx, halt: Halt) -> ExecutorFailure:
        details = {"policy_reason": halt.reason, "policy_thresholds": self.policy.thresholds(), **halt.details}
        return self._fail(ctx, ErrorCode.POLICY_HALT, "policy", f"policy halt: {halt.reason}",
                          details=details, severity="critical", retryable=False)

    def _reject(self, raw: Any, problems: list[Problem]) -> None:
        error = self._bare_error(
            ErrorCode.INVALID_ACTIONSPEC, "proposal_validation", f"proposal rejected: {problems[0].key_path or 'step'}: {problems[0].message}",
            details={"validation_errors": [p.as_dict() for p in problems], "violated_rules": sorted({p.rule for p in problems})},
            action_id=raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None,
            action_kind=raw.get("kind") if isinstance(raw, dict) and isinstance(raw.get("kind"), str) else None,
        )
        self.trace.emit("proposal_received", error.action_id, metadata={"proposal_source": "planner"})
        self.trace.emit("proposal_rejected", error.action_id, error=error)
        self.trace.emit("error_raised", error.action_id, error=error)
        raise ExecutorFailure(error)

    # -- observation and evidence --------------------------------------------

    def _carried(self, ctx: _StepCtx) -> Observation | None:
        """The previous step's "after", if nothing can have changed the page since.

        Nothing the executor does runs between one step's "after" and the next
        step's "before" but trace and evidence writes; the page itself could
        still change, so ``observe`` compares the DOM-derived data, and here a
        request started or a download since then rules the carry-over out. A
        critical step always gets a fresh screenshot: it is its evidence. And
        the carry-over only spans the moment between two steps of a plan: a
        planner proposing steps one by one may think for seconds, in which a
        timer could repaint the page without touching the DOM.
        """
        carry, self._carry = self._carry, None
        if carry is None or ctx.spec.criticality == "critical" or ctx.attempt > 1 or ctx.recovery:
            return None
        observation, requests, downloads, taken = carry
        if requests != len(self.requests) or downloads != len(self.downloads):
            return None
        if time.monotonic() - taken > CARRY_MAX_AGE_S:
            return None
        return observation

    def _observe(self, previous: Observation | None = None) -> Observation:
        if self.crashed:
            raise Crashed("page crashed")
        observation = observe(self.page, secrets=self._secret_values, previous=previous)
        self.last_observation = observation
        return observation

    def _guarded(self, fn, ctx: _StepCtx):
        try:
            return fn()
        except ExecutorFailure:
            raise
        except Exception as exc:
            if is_crash(exc) or self.crashed:
                raise self._fail(ctx, ErrorCode.BROWSER_CRASHED, "execution", "the page or browser crashed",
                                 details={"during": "conditions"}, cause=first_line(exc), retryable=False)
            raise

    def _write_dom(self, ctx: _StepCtx, which: str, obs: Observation) -> EvidenceRef:
        snapshot = dict(obs.snapshot)
        snapshot["state_signature"] = obs.signature.model_dump(mode="json")
        if ctx.locator is not None and which == "before":
            snapshot["target"] = ctx.target_context
        return self.evidence.add_json("dom_snapshot_partial", f"dom/{ctx.tag}_{which}.json", snapshot, step_id=ctx.spec.id)

    def _extended(self, ctx: _StepCtx, refs: list[EvidenceRef], after: Observation | None) -> None:
        """html_full plus before/after screenshots: on failures and for critical steps."""
        try:
            html = self.page.content()
            refs.append(self.evidence.add_bytes("html_full", f"html/{ctx.tag}_full.html", html.encode("utf-8"), step_id=ctx.spec.id))
        except Exception:
            pass
        if ctx.before is not None and ctx.before.screenshot is not None:
            refs.append(self.evidence.add_bytes("screenshot", f"shots/{ctx.tag}_before.png", ctx.before.screenshot,
                                                step_id=ctx.spec.id, redact=False, metadata={"which": "before"}))
        if after is not None and after.screenshot is not None:
            refs.append(self.evidence.add_bytes("screenshot", f"shots/{ctx.tag}_after.png", after.screenshot,
                                                step_id=ctx.spec.id, redact=False, metadata={"which": "after"}))

    def _step_evidence(self, ctx: _StepCtx) -> None:
        refs = [self._write_dom(ctx, "before", ctx.before)]
        if ctx.after is not None:
            refs.append(self._write_dom(ctx, "after", ctx.after))
        if ctx.spec.criticality == "critical":
            self._extended(ctx, refs, ctx.after)
        ctx.evidence.extend(refs)
        self.trace.emit("evidence_captured", ctx.spec.id, before=ctx.before.signature,
                        after=ctx.after.signature if ctx.after else None, evidence_refs=ctx.evidence,
                        metadata={"manifest_uri": "evidence_manifest.json"})

    def _bare_error(self, code: ErrorCode, stage: str, message: str, *, details: dict[str, Any] | None = None,
                    action_id: str | None = None, action_kind: str | None = None) -> ExecutorError:
        """An error with no step observation (proposal rejections): its evidence is the report."""
        ref = self.evidence.add_json("validation_report", f"proposals/proposal_{self.trace.next_seq:05d}.json",
                                     {"message": message, **(details or {})})
        return ExecutorError(
            error_code=code, stage=stage, severity="error", message=self.run.redactor.text(message), retryable=False,
            run_id=self.run.run_id, seq=self.trace.next_seq, step_index=None, action_id=action_id,
            action_kind=action_kind, criticality=None, state_before=None, evidence_refs=[ref],
            created_at=utc_now_iso(), details=details or {},
        )

    def _fail(self, ctx: _StepCtx, code: ErrorCode, stage: str, message: str, *,
              details: dict[str, Any] | None = None, failed_conditions: list[FailedCondition] | None = None,
              cause: str | None = None, severity: str = "error", retryable: bool | None = None,
              with_after: bool = False, extended: bool | None = None) -> ExecutorFailure:
        """Build the typed error of a failed attempt, with its evidence pack."""
        spec = ctx.spec
        after: Observation | None = None
        refs: list[EvidenceRef] = []
        state_before: StateSignature | None = ctx.before.signature if ctx.before else None
        alive = not self.crashed and code != ErrorCode.BROWSER_CRASHED
        if alive and with_after:
            try:
                after = self._observe()
            except Exception:
                after = None
        try:
            if ctx.before is not None:
                refs.append(self._write_dom(ctx, "before", ctx.before))
            if after is not None:
                refs.append(self._write_dom(ctx, "after", after))
            wants_extended = extended if extended is not None else (
                spec.criticality == "critical" or stage in ("execution", "postcondition") or code in (
                    ErrorCode.OVERLAY_BLOCKING, ErrorCode.AUTH_FAILED, ErrorCode.DOWNLOAD_FAILED))
            if wants_extended and alive:
                self._extended(ctx, refs, after)
            elif wants_extended and ctx.before is not None and ctx.before.screenshot is not None:
                refs.append(self.evidence.add_bytes("screenshot", f"shots/{ctx.tag}_before.png", ctx.before.screenshot,
                                                    step_id=spec.id, redact=False, metadata={"which": "before"}))
        except OSError as exc:
            cause = (cause or "") + f" (evidence write failed: {exc.strerror})"
        if not refs:
            # Even a crash leaves something to point at: what was known of the state.
            refs.append(self.evidence.add_json("state_signature", f"state/{ctx.tag}_last_known.json", {
                "state_before": state_before.model_dump(mode="json") if state_before else None,
                "last_url": self.last_observation.signature.url if self.last_observation else None,
                "reason": message,
            }, step_id=spec.id))
        ctx.evidence.extend(refs)
        self.trace.emit("evidence_captured", spec.id, before=state_before, after=after.signature if after else None,
                        evidence_refs=refs, metadata={"manifest_uri": "evidence_manifest.json", "for_error": code.value})
        source = self.settings.step_sources.get(spec.id)
        if source and len(source) > 1:  # a step of a step group: the plan line and the group lines
            details = {**(details or {}), "source": list(source)}
        is_retryable = retryable if retryable is not None else (
            spec.criticality != "critical"
            and (code.value in self.settings.policy.retry_on or (code.value in self.settings.recovery_on and not ctx.recovery)))
        error = ExecutorError(
            error_code=code,
            stage=stage,
            severity=severity,
            message=self.run.redactor.text(message),
            retryable=is_retryable,
            run_id=self.run.run_id,
            seq=self.trace.next_seq,
            step_index=ctx.index,
            action_id=spec.id,
            action_kind=spec.kind,
            criticality=spec.criticality,
            state_before=state_before,
            state_after=after.signature if after else None,
            evidence_refs=refs,
            created_at=utc_now_iso(),
            cause=self.run.redactor.text(cause) if cause else None,
            details=_redact_tree(details or {}, self.run.redactor),
            failed_conditions=[FailedCondition(**_redact_tree(fc.model_dump(), self.run.redactor)) for fc in (failed_conditions or [])],
        )
        return ExecutorFailure(error)


def _redact_tree(value: Any, redactor: Any) -> Any:
    if not redactor:
        return value
    if isinstance(value, str):
        return redactor.text(value)
    if isinstance(value, dict):
        return {k: _redact_tree(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_tree(v, redactor) for v in value]
    return value


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _status_for(error: ExecutorError) -> str:
    if error.error_code == ErrorCode.POLICY_HALT:
        return "halted"
    if error.error_code == ErrorCode.ACTION_CRITICAL_BLOCKED:
        return "blocked"
    return "failed"
