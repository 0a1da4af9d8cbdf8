"""The observer hooks of a plan item's run (docs/extensions.md): ``pytest_cometlocal_run_started``,
``pytest_cometlocal_step_finished`` and ``pytest_cometlocal_run_finished``, given the public records,
masked with the run's redactor. Read-only: one that raises is a warning, never the plan's failure.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import pytest

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.records import TraceEvent
    from pytest_cometlocal.contract.validate.validated import ValidPlan
    from pytest_cometlocal.executor.results import StepResult
    from pytest_cometlocal.executor.runfolder.redactor import Redactor


class RunObservers:
    """Calls the observer hooks of an item's run with the public records, masked (``redactor`` is the
    run's, set once its folder exists). An observer that raises is a warning, never the plan's failure."""

    def __init__(self, item: pytest.Item, plan: ValidPlan):
        self.hook = item.ihook
        self.plan, self.nodeid = plan, item.nodeid
        self.redactor: Redactor | None = None
        self.run_dir: Path | None = None
        self.steps = 0

    def wanted(self) -> bool:
        return any(getattr(self.hook, name).get_hookimpls() for name in
                   ("pytest_cometlocal_run_started", "pytest_cometlocal_step_finished", "pytest_cometlocal_run_finished"))

    def on_event(self, event: TraceEvent) -> None:
        if event.event_type == "run_started":
            self._call("pytest_cometlocal_run_started", run={
                **self._plan(), "run_id": event.run_id, "run_dir": str(self.run_dir) if self.run_dir else None,
                "extensions": (self.plan.extensions.manifest() if self.plan.extensions else [])})
        elif event.event_type == "run_finished":
            meta = event.metadata
            self._call("pytest_cometlocal_run_finished", run={
                **self._plan(), "run_id": event.run_id, "status": meta.get("status"),
                "error_code": meta.get("error_code"), "run_dir": str(self.run_dir) if self.run_dir else None,
                "steps": self.steps})

    def on_step(self, result: StepResult) -> None:
        self.steps += 1
        error = result.typed_error
        self._call("pytest_cometlocal_step_finished", step={
            **self._plan(), "step_id": result.step_id, "kind": result.kind, "passed": result.ok,
            "error_code": error.error_code.value if error is not None else None,
            "message": error.message if error is not None else None,
            "duration_ms": result.duration_ms, "attempts": result.attempts})

    def _plan(self) -> dict[str, Any]:
        return {"plan": self.plan.item_name, "file": self.plan.source.file, "nodeid": self.nodeid}

    def _call(self, name: str, **record: Any) -> None:
        masked = {key: self.redactor.tree(value) if self.redactor else value for key, value in record.items()}
        try:
            getattr(self.hook, name)(**masked)
        except Exception as exc:  # an observer must never break a run
            warnings.warn(pytest.PytestWarning(f"{name} raised {type(exc).__name__}: {exc}".splitlines()[0]))


def chained(*calls: Callable[[Any], None] | None) -> Callable[[Any], None]:
    """One callback that calls each of ``calls`` (the step printer, the observers)."""
    present = [c for c in calls if c is not None]
    return lambda value: [c(value) for c in present] and None
