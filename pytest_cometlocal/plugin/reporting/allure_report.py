"""Allure: one step per ActionSpec, labels for triage, the run's files as attachments.

Active only when allure-pytest writes results (``--alluredir``). Steps are
built live from the trace events as they are written, so their timings are
the real ones: each ActionSpec step holds nested steps for its preconditions,
its action and its postconditions (or assert checks); recovery rounds nest
recovery steps; plan steps that never ran are added as skipped. Executor
failures are *failed* with the code first in the message; plugin faults stay
*broken*, as allure-pytest reports any exception that is not an assertion.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from uuid import uuid4

import allure_commons
import pytest
from allure_commons.model2 import TestResult

from pytest_cometlocal.contract.model.actionspec import ActionSpec, describe_step, format_version
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.plan import settings_items, settings_record
from pytest_cometlocal.contract.model.records import ExecutorError, TraceEvent
from pytest_cometlocal.contract.model.suggestion import suggestion_lines
from pytest_cometlocal.contract.model.targets import describe_target
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST, RUN_MANIFEST, TRACE
from pytest_cometlocal.contract.settings import EffectiveSettings
from pytest_cometlocal.contract.validate.validated import ValidPlan
from pytest_cometlocal.plugin.reporting.errors import PlanFailed, step_failure
from pytest_cometlocal.runs.audits import detail_lines
from pytest_cometlocal.runs.errors import RunFolderError
from pytest_cometlocal.runs.reader import read_evidence


def allure_active(config: pytest.Config) -> bool:
    return bool(config.getoption("allure_report_dir", None))


class UncodedMessages:
    """An allure-commons plugin for the one message no exception class prints as is.

    allure-pytest's message is the exception as Python prints it, ``<class>: <message>``:
    the code classes print ``TARGET_NOT_FOUND: ...`` on their own (``plugin.reporting.errors``), but a
    plan failure without a code (an expectation not met) must read ``expected
    TARGET_NOT_FOUND, ...``, as its category expects. ``report_result`` runs before the
    result file is written and drops that class's name; allure-pytest has no public call
    that sets a test's message.
    """

    PREFIX = f"{PlanFailed.__module__}.{PlanFailed.__qualname__}: "

    @allure_commons.hookimpl(tryfirst=True)  # before allure's file logger writes the result
    def report_result(self, result: TestResult) -> None:
        details = result.statusDetails
        if details is not None and isinstance(details.message, str) and details.message.startswith(self.PREFIX):
            details.message = details.message[len(self.PREFIX):]


def register_uncoded_messages(config: pytest.Config) -> None:
    """Register ``UncodedMessages`` with allure-commons for this session (when allure is active)."""
    plugin = UncodedMessages()
    allure_commons.plugin_manager.register(plugin)
    config.add_cleanup(lambda: allure_commons.plugin_manager.unregister(plugin))


class AllureSteps:
    """Turns the trace of one run into nested Allure steps, as it is written."""

    def __init__(self, plan_steps: list[ActionSpec], all_steps: list[ActionSpec]):
        self.hook = allure_commons.plugin_manager.hook
        self.plan_steps = plan_steps
        self.titles = {s.id: step_title(s) for s in all_steps}
        self.kinds = {s.id: s.kind for s in all_steps}
        self.stack: list[tuple[str, str, str | None]] = []  # (uuid, level, step_id)
        self.started: set[str] = set()

    def _open(self, title: str, level: str, step_id: str | None, params: dict[str, Any] | None = None) -> None:
        uuid = str(uuid4())
        self.hook.start_step(uuid=uuid, title=title, params=params or {})
        self.stack.append((uuid, level, step_id))

    def _close(self, error: BaseException | None = None) -> None:
        uuid, _level, _sid = self.stack.pop()
        self.hook.stop_step(uuid=uuid, title="", exc_type=type(error) if error else None, exc_val=error, exc_tb=None)

    def _close_phase(self) -> None:
        if self.stack and self.stack[-1][1] == "phase":
            self._close()

    def _close_through_step(self, error: BaseException | None) -> None:
        while self.stack and self.stack[-1][1] == "phase":
            self._close(error)
        if self.stack and self.stack[-1][1] == "step":
            self._close(error)

    def __call__(self, event: TraceEvent) -> None:
        kind = event.event_type
        sid = event.step_id
        meta = event.metadata or {}
        if kind == "observation_captured":
            self.started.add(sid)
            attempt = meta.get("attempt", 1)
            title = self.titles.get(sid, sid) + (f" (attempt {attempt})" if attempt > 1 else "")
            self._open(title, "step", sid, {"criticality": "recovery" if meta.get("recovery") else "plan"})
        elif kind == "proposal_accepted":
            self._open("preconditions", "phase", sid)
        elif kind == "preconditions_checked" and meta.get("ok"):
            self._close_phase()
        elif kind == "action_started":
            self._close_phase()
            self._open("action", "phase", sid)
        elif kind == "action_executed":
            self._close_phase()
            self._open("assert checks" if self.kinds.get(sid) == "assert" else "postconditions", "phase", sid)
        elif kind in ("postconditions_checked", "assert_checked") and meta.get("ok") and not meta.get("warnings"):
            self._close_phase()
        elif kind == "evidence_captured" and not meta.get("for_error"):
            self._close_through_step(None)
        elif kind == "retry_scheduled":
            self._close_through_step(_failed(event, f"attempt {meta.get('attempt')} failed, retried"))
        elif kind == "recovery_started":
            self._close_through_step(_failed(event, "recovering"))
            self._open(f"recovery round {meta.get('round')} for {sid}", "recovery", sid)
        elif kind == "recovery_finished":
            while self.stack and self.stack[-1][1] != "recovery":
                self._close()
            if self.stack:
                self._close()
        elif kind in ("error_raised", "policy_halt"):
            if kind == "error_raised" and event.error is not None:
                failure = _failed(event, event.error.message)
                while self.stack:
                    self._close(failure)
        elif kind == "run_finished":
            while self.stack:
                self._close()
            for step in self.plan_steps:
                if step.id not in self.started:
                    self._open(self.titles[step.id], "step", step.id)
                    self._close(pytest.skip.Exception("not run: an earlier step ended the run"))


def step_title(step: ActionSpec) -> str:
    """An Allure step's title: ``open · navigate · url=/login`` for a v1 step (as v1 titles it),
    ``search · press Enter on label="Search"`` for one that uses v1.1 (its key, ``to``, direction, click keys)."""
    if format_version(step) == "v1":
        return f"{step.id} · {step.kind}" + (f" · {describe_target(step.target)}" if step.target is not None else "")
    return f"{step.id} · {describe_step(step)}"


def _failed(event: TraceEvent, message: str) -> PlanFailed | None:
    """The failure a step is closed with: its error's code class, printed ``CODE: message``."""
    return step_failure(event.error.error_code, message) if event.error is not None else None


def label_item(item: pytest.Item, valid: ValidPlan, settings: EffectiveSettings) -> None:
    """Description and parameters, known before the run (a parametrized plan's row included)."""
    import allure

    plan = valid.plan
    if plan.description:
        allure.dynamic.description(plan.description)
    if valid.row is not None:
        for name, value in valid.row.values.items():
            allure.dynamic.parameter(name, value)
    allure.dynamic.parameter("base_url", settings.base_url or "")
    allure.dynamic.parameter("mode", settings.mode)
    # (v1.4) the item's browser of the matrix, and the version its manager launched
    allure.dynamic.parameter("browser", getattr(item, "cometlocal_browser_name", "chromium"))
    version = getattr(item, "cometlocal_browser_version", None)
    if version:
        allure.dynamic.parameter("browser_version", version)
    for name, value in settings_items(settings_record(plan.browser, plan.clock)):  # (v1.2) only the keys set
        allure.dynamic.parameter(name, value)


def label_error(error: ExecutorError) -> None:
    import allure

    allure.dynamic.label("error_code", error.error_code.value)
    if error.action_id:
        allure.dynamic.label("failed_step", error.action_id)
    if error.criticality:
        allure.dynamic.label("criticality", error.criticality)


_TYPES = {".json": "application/json", ".png": "image/png", ".jpg": "image/jpeg", ".html": "text/html", ".csv": "text/csv",
          ".txt": "text/plain", ".jsonl": "application/x-ndjson", ".zip": "application/zip",
          ".webm": "video/webm"}


def attach_run(run_dir: Path, error: ExecutorError | None) -> None:
    """The trace and manifests always; for a failure, the failing step's evidence too."""
    import allure

    def attach(path: Path, name: str) -> None:
        if path.is_file():
            mime = _TYPES.get(path.suffix, "application/octet-stream")
            allure.attach.file(str(path), name=name, attachment_type=mime, extension=path.suffix.lstrip(".") or "bin")

    suggested = suggestion_lines(error.details, indent="") if error is not None else []
    if suggested:  # the failure's message has them too: it is the whole failure text
        allure.attach("\n".join(suggested) + "\n", name="suggested targets", attachment_type=allure.attachment_type.TEXT)
    violations = detail_lines("violations", error.details.get("violations"), "") if error and error.details else None
    if violations:  # (v1.2 audits) a failed accessibility_clean: one line per rule (runs/audits.py, as `show`)
        allure.attach("\n".join(violations) + "\n", name="accessibility violations",
                      attachment_type=allure.attachment_type.TEXT)
    for name in (TRACE, RUN_MANIFEST, EVIDENCE_MANIFEST):
        attach(run_dir / name, name)
    try:
        entries = read_evidence(run_dir)
    except RunFolderError:
        return
    wanted_kinds = {"inspection_report", "download", "playwright_trace", "video"}
    error_uris = {ref.uri for ref in error.evidence_refs} if error is not None else set()
    for entry in entries:
        if entry.uri is None:
            continue  # withheld (a download holding a secret): there is no file
        if entry.uri in error_uris or entry.kind in wanted_kinds:
            attach(run_dir / entry.uri, f"{entry.kind}: {Path(entry.uri).name}")
    for name, body in picture_sets(run_dir, [e for e in entries if e.uri in error_uris]).items():
        allure.attach(body, name=name, attachment_type=IMAGE_DIFF, extension="imagediff")


# (v1.2) Allure's screen-diff view: one attachment shows expected, actual and diff side by side.
IMAGE_DIFF = "application/vnd.allure.image.diff"


def picture_sets(run_dir: Path, entries: list[Any]) -> dict[str, str]:
    """screenshot_matches' failed comparisons as Allure image-diff bodies (JSON of three data: URIs), by name."""
    sets: dict[str, dict[str, str]] = {}
    for entry in entries:
        meta = entry.data.get("metadata") or {}
        if meta.get("role") in ("expected", "actual", "diff") and meta.get("set"):
            data = base64.b64encode((run_dir / entry.uri).read_bytes()).decode("ascii")
            sets.setdefault(f"screenshot_matches {meta.get('snapshot')}", {})[meta["role"]] = f"data:image/png;base64,{data}"
    return {name: json.dumps(pictures) for name, pictures in sets.items()}


def write_categories(alluredir: str) -> None:
    """categories.json: one Allure category per error code (messages start with the code)."""
    categories = [
        {"name": code.value, "matchedStatuses": ["failed"], "messageRegex": f"^{code.value}\\b[\\s\\S]*"}
        for code in ErrorCode
    ]
    categories.append({"name": "expected error not raised", "matchedStatuses": ["failed"], "messageRegex": "^expected [\\s\\S]*"})
    categories.append({"name": "plugin or infrastructure fault", "matchedStatuses": ["broken"]})
    # statusDetails.flaky is set by plugin.retries on a plan that passed only after a retry or a recovery.
    categories.append({"name": "passed after retries or recovery (flaky)", "matchedStatuses": ["passed"], "flaky": True})
    path = Path(alluredir)
    path.mkdir(parents=True, exist_ok=True)
    (path / "categories.json").write_text(json.dumps(categories, indent=2) + "\n", encoding="utf-8")
