"""Opening a run: the one wiring of network guard, browser context, run folder and executor.

``open_run`` is the only place these are put together, so every entry point
runs plans alike: the pytest fixtures (which hand it their own guard and
page, each an overridable fixture built with ``guarded_context``), the
storage-state maker and the library's ``run_plan`` (which let it open both),
and the agent's MCP session. The allowlist is the one ``effective_settings``
computed; a context opened here has DEFAULT_CONTEXT_ARGS, the caller's
arguments, the saved state it starts from, the guard as proxy, the page
script that guards WebRTC and WebTransport, and DEFAULT_TIMEOUT_MS. The trace's
listeners are its run folder's from its creation; finishers and the storage states
are the executor's from its construction.
On exit the context closes before the guard stops. The trace's run_finished
is the executor's to write: ``Executor.run_plan`` writes it whatever happens
(an interrupt and an internal fault included); a caller that drives steps
itself calls ``Executor.start`` and ``Executor.finish``. ``record_invalid_plan`` is the run of a plan
that failed validation: a complete run folder, without a browser.
"""

from __future__ import annotations

import hashlib
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from pytest_cometlocal.contract.expectation import expect_record
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError, TraceEvent
from pytest_cometlocal.contract.settings import EffectiveSettings
from pytest_cometlocal.contract.validate.validated import InvalidPlan, ValidPlan
from pytest_cometlocal.contract.model.plan import Plan, plan_format_versions, state_settings
from pytest_cometlocal.executor.browser.channels import browser_type_name, guard_channels, guards_in_force
from pytest_cometlocal.executor.browser.context_settings import context_args as settings_args
from pytest_cometlocal.executor.browser.context_settings import install_clock
from pytest_cometlocal.executor.browser.context_failure import CLOCK, NEW_CONTEXT, NEW_PAGE, making
from pytest_cometlocal.executor.browser.network_guard import DEFAULT_GUARD_HOST, NetworkGuard
from pytest_cometlocal.executor.browser.storage_states import StateInUse, StorageStates
from pytest_cometlocal.executor.engine import Executor, RunResult, StepResult
from pytest_cometlocal.executor.errors import ContextRefused
from pytest_cometlocal.executor.setup_failure import browser_feature_refusal, record_refusal
from pytest_cometlocal.executor.page.watchdog import close_context
from pytest_cometlocal.executor.results import ExecutorSettings
from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.step.failures import invalid_plan_error
from pytest_cometlocal.executor.step.journal import StepJournal

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

    from pytest_cometlocal.executor.page.observation import BlankFrames

DEFAULT_CONTEXT_ARGS: dict[str, Any] = {"accept_downloads": True, "viewport": {"width": 1280, "height": 720}}
DEFAULT_TIMEOUT_MS = 30_000  # the context's default for Playwright calls that name no timeout

TraceListener = Callable[[TraceEvent], None]
# A finisher stores what it has in the run's evidence (given at finish: it is made before the run folder).
RunFinisher = Callable[[ExecutorError | None, EvidenceStore], list[EvidenceRef]]


def plan_sha256(plan: Any) -> str:
    """The plan as it ran (step groups expanded, defaults applied, a row's vars in; secrets stay
    placeholders), hashed: ``cometlocal diff`` tells two runs of a changed plan by it."""
    return "sha256:" + hashlib.sha256(plan.model_dump_json().encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class RunRecord:
    """What a run's manifest says it is: its name, its ``plan`` entry, its execution profile
    (its ``name`` is the run's execution profile; the base URL; (v1.4) ``browser`` and ``browser_version``,
    from the context's browser unless given), further keys, the
    browser's connection (``launch``, ``playwright-server``, ``cdp``) for the manifest's guards, and
    the plan format versions its steps use (none for a planner's run: each proposed step adds its own)."""

    name: str
    plan: dict[str, Any]
    profile: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    connection: str | None = None
    format_versions: tuple[str, ...] = ()

    @classmethod
    def of_plan(cls, eff: EffectiveSettings, profile: Mapping[str, Any] | None = None,
                extra_info: Mapping[str, Any] | None = None, extra: Mapping[str, Any] | None = None) -> "RunRecord":
        """A plan's run: where the plan is written, its row, and its configuration (``eff.configuration()``)."""
        plan = eff.plan
        row = {"row_id": plan.row.id, "row": dict(plan.row.values)} if plan.row else {}
        info = {"file": plan.source.file, "name": plan.name, "line": plan.source.mark.line,
                "doc_index": plan.source.doc_index, **row, "sha256": plan_sha256(plan.plan),
                **expect_record(plan.plan.expect), **(extra_info or {})}
        return cls(plan.item_name, info, dict(profile or {}), {"configuration": eff.configuration(), **(extra or {})},
                   (profile or {}).get("connection"), tuple(plan_format_versions(plan.plan)))


def browser_profile(browser: Browser | None) -> dict[str, Any]:
    """(v1.4) The run manifest's ``browser`` (Playwright's name: chromium, firefox, webkit) and
    ``browser_version``; Chromium when no browser is known (a run refused before any)."""
    name = browser_type_name(browser)
    version = getattr(browser, "version", None) if browser is not None else None
    return {"browser": name or "chromium", **({"browser_version": version} if isinstance(version, str) else {})}


def create_run_folder(eff: EffectiveSettings, output: Path, record: RunRecord, context: BrowserContext | None = None,
                      state: StateInUse | None = None, listeners: Sequence[TraceListener] = ()) -> RunFolder:
    """The run's folder under ``output``: its manifest names the guards in force for ``context`` and the
    saved state the run starts from, whose values are masked from the start, as the secrets are; ``listeners``
    are told about every event of its trace."""
    extra = {**record.extra, "guards": guards_in_force(context, record.connection)}
    from pytest_cometlocal.contract.extensions.registry import active  # (extensions)

    registry = getattr(eff.plan, "extensions", None)
    kinds = (registry if registry is not None else active()).manifest()
    if kinds:  # (extensions) the kinds the run could use and where each came from; no key without any
        extra["extensions"] = kinds
    if state is not None:
        extra["storage_state"] = state.info
    return RunFolder.create(
        output, record.name, mode=eff.mode, policy=eff.plan.plan.policy, allowlist=eff.allowlist, plan_info=record.plan,
        redactor=Redactor([*eff.secrets.values(), *(state.values if state else ())]),
        profile={"base_url": eff.base_url, **browser_profile(context.browser if context is not None else None),
                 **record.profile, "name": eff.profile}, extra=extra,
        format_versions=record.format_versions, listeners=listeners,
    )


@contextmanager
def guarded_context(browser: Browser, guard: NetworkGuard, context_args: Mapping[str, Any] | None = None,
                    state: StateInUse | None = None, plan: Plan | None = None) -> Iterator[BrowserContext]:
    """A fresh context whose every request goes through ``guard``; closed on exit.

    ``plan``: (v1.2) its ``browser:`` settings override the caller's arguments, key by key, and its
    ``clock:`` is installed before any page loads. What the browser refuses on the way (a setting, the
    saved state, the clock; or a browser that disconnects) is a typed ``ContextRefused``
    (``browser.context_failure``), never Playwright's bare error; ``first_page`` does the same for the page.
    (v1.4) A plan that uses a feature only Chromium has, on another browser, is refused before anything
    is made: PRECONDITION_FAILED naming the feature's condition (``setup_failure.browser_feature_refusal``).

    Closing never raises: a context whose browser died, or whose HAR or video
    cannot be written, is not the plan's failure (a page whose main thread
    spins forever does not keep Chromium from closing it).
    """
    name = browser_type_name(browser)
    refusal = browser_feature_refusal(plan, name) if plan is not None and name is not None else None
    if refusal is not None:  # (v1.4) a feature only Chromium has: refused before the context is made
        raise ContextRefused(refusal)
    args = {**DEFAULT_CONTEXT_ARGS, **(context_args or {}), **(settings_args(plan.browser) if plan else {})}
    if state is not None:
        args["storage_state"] = state.path
    args["proxy"] = guard.proxy_settings(direct=name == "chromium")  # the guard is not optional
    with making(NEW_CONTEXT, plan, browser, has_state=state is not None):
        context = browser.new_context(**args)
    try:
        with making(NEW_CONTEXT, plan, browser):
            guard_channels(context, guard)  # WebRTC and WebTransport, which the proxy cannot see
            context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        if plan is not None:
            with making(CLOCK, plan, browser):
                install_clock(context, plan.clock)
        yield context
    finally:
        try:
            close_context(context)
        except Exception:
            pass


def first_page(context: BrowserContext, plan: Plan | None) -> Page:
    """The run's first page: Chromium applies the locale and the time zone here, so a refusal of
    either is the ``ContextRefused`` of the setting, as ``guarded_context``'s are."""
    with making(NEW_PAGE, plan, context.browser):
        return context.new_page()


@contextmanager
def open_run(browser: Browser | None, eff: EffectiveSettings, output: Path, record: RunRecord, *,
             guard: NetworkGuard | None = None, guard_host: str = DEFAULT_GUARD_HOST, page: Page | None = None,
             context_args: Mapping[str, Any] | None = None, state: StateInUse | None = None,
             storage: StorageStates | None = None, listeners: Sequence[TraceListener] = (),
             finishers: Sequence[RunFinisher] = (), on_step: Callable[[StepResult], None] | None = None,
             blank_frames: BlankFrames | None = None) -> Iterator[Executor]:
    """An Executor on a new run folder under ``output``, for a run with the settings ``eff``.

    ``guard``: a started guard to use (else one is started on ``guard_host``
    and stopped on exit); ``page``: a page of a guarded context to run in
    (else a ``guarded_context`` of ``browser`` is opened with ``context_args``
    and ``state``, and closed on exit). ``state``: the saved state the run
    starts from (named in the manifest, its values masked); ``storage``: where
    the plan's save points write; ``blank_frames``: the frames of empty pages
    earlier runs kept (the pytest session's; else the run keeps its own).
    """
    with ExitStack() as stack:
        if guard is None:
            guard = stack.enter_context(NetworkGuard(eff.allowlist, host=guard_host))
        if page is None:
            if browser is None:
                raise ValueError("open_run needs a browser or a page")
            page = first_page(stack.enter_context(guarded_context(browser, guard, context_args, state, eff.plan.plan)),
                              eff.plan.plan)
        run = create_run_folder(eff, output, record, page.context, state, listeners)
        yield Executor(page, run, ExecutorSettings.from_effective(eff), guard, on_step,
                       finishers=[_storing(finisher, run.evidence) for finisher in finishers], storage=storage,
                       blank_frames=blank_frames)


def _storing(finisher: RunFinisher, evidence: EvidenceStore) -> Callable[[ExecutorError | None], list[EvidenceRef]]:
    return lambda error: finisher(error, evidence)


def started_from(state: StateInUse | None) -> dict[str, Any]:
    """run_started's metadata for a run that starts from a saved state: its name and hash, never its values."""
    return {"storage_state": state.info} if state is not None else {}


def run_plan(browser: Browser, plan: ValidPlan, output: Path, eff: EffectiveSettings,
             context_args: dict[str, Any] | None = None, guard_host: str = DEFAULT_GUARD_HOST,
             storage: StorageStates | None = None, profile: dict[str, Any] | None = None,
             extra_info: dict[str, Any] | None = None) -> RunResult:
    """Run ``plan`` (``eff.plan``) in a fresh guarded context of ``browser``; always closes the context.

    ``guard_host``: where the guard listens; a browser on another machine must
    reach it. ``storage``: where the plan's save points write and where its
    ``storage_state`` is read from (it must be saved already). (v1.2) A context the browser
    refuses is a failed RunResult too, its run folder saying why (``executor.setup_failure``).
    """
    name = plan.plan.storage_state
    record = RunRecord.of_plan(eff, {**browser_profile(browser), **(profile or {})}, extra_info)
    state = None
    try:
        if name is not None and storage is not None:
            state = storage.in_use(name, state_settings(plan.plan.browser))
        with open_run(browser, eff, output, record, guard_host=guard_host, context_args=context_args, state=state,
                      storage=storage) as executor:
            return executor.run_plan(plan.plan, metadata=started_from(state))
    except ContextRefused as exc:  # (v1.2) no context to run in: the run folder records why, as any failure
        run = create_run_folder(eff, output, record, None, state)
        error = record_refusal(eff, run, exc.refusal, metadata=started_from(state))
        return RunResult("failed", error, [], run.path)


def record_invalid_plan(invalid: InvalidPlan, output: Path, mode: str = "live") -> tuple[RunFolder, ExecutorError]:
    """Write the run folder of an invalid plan (no browser, a full audit trail) and return it with its typed error.

    The run folder gets run_manifest.json, a trace (run_started,
    proposal_rejected, evidence_captured, error_raised, run_finished) and the
    validation report as the error's evidence.
    """
    run = RunFolder.create(
        output, invalid.item_name, mode=mode, policy=Policy(), allowlist=(),
        plan_info={"file": invalid.source.file, "name": invalid.name, "line": invalid.source.mark.line,
                   "doc_index": invalid.source.doc_index, **expect_record(invalid.expect)},
        format_versions=(),  # no step of an invalid plan was validated: it uses no format for sure
    )
    journal = StepJournal(run.trace)
    try:
        journal.run_started({"execution_mode": mode, "plan": invalid.name})
        report = {
            "schema_version": "v1",
            "plan": invalid.name,
            "file": invalid.source.file,
            "violated_rules": invalid.violated_rules,
            "problems": [p.as_dict() | {"text": p.format()} for p in invalid.problems],
        }
        ref = run.evidence.add_json("validation_report", "validation_report.json", report)
        # The error is created before it is emitted, so it records the seq of its first event.
        error = invalid_plan_error(invalid, run.run_id, run.trace.next_seq, [ref])
        journal.plan_rejected(error, len(invalid.problems))
        journal.run_evidence([ref])
        journal.error_raised(error)
        journal.run_finished({"status": "failed", "error_code": error.error_code.value})
    finally:
        run.finish("failed", error_code=ErrorCode.INVALID_ACTIONSPEC.value)
    return run, error
