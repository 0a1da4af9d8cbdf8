"""The executor's settings and results, and the bookkeeping of one attempt of one step.

Plain data: what the executor is given (``ExecutorSettings``), what it gives
back (``StepResult``, ``RunResult``), ``StepAttempt``, the record one
attempt builds as it goes (its observations, its resolved target, the marks
of the page's events when its action began, its evidence), and ``Fault``,
what went wrong in it before its error is built (step/failures.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Mapping, get_args

from pytest_cometlocal.contract.extensions.registry import KindRegistry
from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.plan import DEFAULT_TOAST_SELECTOR, AuthSignals, Route, state_settings
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.model.profiles import DEFAULT_PROFILE
from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError, FailedCondition
from pytest_cometlocal.contract.settings import EffectiveSettings
from pytest_cometlocal.executor.page.events import Marks  # a new attempt's marks: its default

if TYPE_CHECKING:  # plain data: what the page room makes is only named here
    from pytest_cometlocal.executor.page.locators import ResolvedTarget
    from pytest_cometlocal.executor.page.observation import Observation
    from pytest_cometlocal.executor.page.scrolling import ScrollOutcome


# How a run ended (run_finished.metadata.status, run_manifest.json's status).
RunStatus = Literal["passed", "failed", "halted", "stopped", "blocked", "interrupted", "internal_error"]
RUN_STATUSES: tuple[str, ...] = get_args(RunStatus)


@dataclass(frozen=True)
class ExecutorSettings:
    """Everything the executor needs beyond the steps themselves.

    Flat and constructible by hand, for a planner that runs without a plan file
    (docs/executor.md, library API); a plan's run gets it from its
    EffectiveSettings with ``from_effective``.
    """

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
    profile: str = DEFAULT_PROFILE  # the execution profile: how much evidence a step takes
    # (v1.2) the browser settings a storage state saved by this run is made under (STATE_SETTINGS).
    state_settings: Mapping[str, str] = field(default_factory=dict)
    # (v1.2) the plan's routes (then its suite config's), and the bytes of their files, read at load time.
    routes: tuple[Route, ...] = ()
    route_files: Mapping[int, bytes] = field(default_factory=dict, repr=False)
    # (v1.2) screenshot_matches: the plan's baselines folder, and which baselines the run may write there.
    snapshots: Path | None = None
    update_snapshots: str = "none"
    # (extensions) the kinds extensions registered (contract/extensions/); None: the active registry.
    extensions: KindRegistry | None = None

    @classmethod
    def from_effective(cls, eff: EffectiveSettings) -> "ExecutorSettings":
        """The settings of a run of ``eff.plan``: the run's base URL, allowlist, mode and secrets as
        ``effective_settings`` computed them, the rest from the validated plan. The one way from a plan."""
        valid, plan = eff.plan, eff.plan.plan
        return cls(
            base_url=eff.base_url,
            allowlist=eff.allowlist,
            mode=eff.mode,
            secrets=eff.secrets,
            policy=plan.policy,
            toast_selector=plan.toast_selector or DEFAULT_TOAST_SELECTOR,
            overlay_selectors=tuple(plan.overlay_selectors),
            auth_signals=plan.auth_signals,
            uploads_root=valid.uploads_root,
            recovery_on=tuple(plan.recovery.on_error) if plan.recovery else (),
            recovery_steps=tuple(plan.recovery.steps) if plan.recovery else (),
            step_sources=valid.source.step_origins,
            storage_saves=dict(valid.storage_saves),
            profile=eff.profile,
            state_settings=state_settings(plan.browser),
            routes=tuple(plan.routes or ()),
            route_files=valid.route_files,
            snapshots=valid.snapshots,
            update_snapshots=eff.update_snapshots,
            extensions=valid.extensions,
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
    status: RunStatus
    error: ExecutorError | None
    steps: list[StepResult]
    run_dir: Path


@dataclass
class StepAttempt:
    """Bookkeeping of one attempt of one step."""

    spec: ActionSpec
    index: int
    tag: str  # names its evidence files: step_003, step_003_a2, step_003_a1_r1_rec_00
    attempt: int
    recovery: bool
    before: Observation | None = None
    after: Observation | None = None
    target: ResolvedTarget | None = None  # the step's element, resolved once
    to_target: ResolvedTarget | None = None  # a drag's drop target (``to``, v1.1), resolved with it
    marks: Marks = field(default_factory=Marks)  # the page's events when the action began
    requested_url: str | None = None
    evidence: list[EvidenceRef] = field(default_factory=list)
    phase: str = ""  # the part of the step running now (the watchdog's and a crash's "during")
    started: float = field(default_factory=time.monotonic)
    scrolled: ScrollOutcome | None = None  # (v1.1) how a scroll step's loop ended
    response: Any = None  # (v1.2) a request step's last response (executor/http/exchange.py HttpResponse)
    saved: dict[str, str] | None = None  # (v1.2) the values this attempt saved, recorded with its checks
    request_key: str | None = None  # (v1.2) a request step's call: part of its state (http/client.py)
    # The attempt's verdict once its failure evidence is written (step/failures.py): a watchdog that fires
    # after it, while the failure's own page calls run, does not decide the attempt a second time.
    failure: Any = None


@dataclass(frozen=True)
class Fault:
    """What went wrong, as the code that found it knows it; the error is built from it."""

    code: ErrorCode
    stage: str
    message: str
    details: dict[str, Any] | None = None
    failed_conditions: list[FailedCondition] | None = None
    cause: str | None = None
    severity: str = "error"
    retryable: bool | None = None  # None: as the retry rule says; False: final (a crash, a halt)
    observe_after: bool = True  # False: the page is not looked at again (it may hang)
    extended: bool | None = None  # the full HTML whatever the stage (None: as the code and stage say)


def elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def status_for(error: ExecutorError) -> RunStatus:
    """The run's status when it ends with ``error``."""
    if error.error_code == ErrorCode.POLICY_HALT:
        return "halted"
    if error.error_code == ErrorCode.ACTION_CRITICAL_BLOCKED:
        return "blocked"
    return "failed"
