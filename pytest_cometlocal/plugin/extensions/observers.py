"""The observer hooks of a plan item's run (docs/extensions.md): ``pytest_cometlocal_run_started``,
``pytest_cometlocal_step_finished`` and ``pytest_cometlocal_run_finished``, given the public records,
masked with the run's redactor. Read-only: one that raises is a warning, never the plan's failure.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable

import pytest

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.records import TraceEvent
    from pytest_cometlocal.executor.results import StepResult
    from pytest_cometlocal.executor.runfolder.folder import RunFolder


class RunObservers:
    """Calls the observer hooks of an item's run with its public records, masked with the run's
    redactor (docs/extensions.md, "Observer hooks"); ``attach`` gives it the run folder once it exists."""

    def __init__(self, item: pytest.Item, extensions: list[dict[str, Any]] | None = None):
        self.hook, self.nodeid = item.ihook, item.nodeid
        self.extensions = extensions or []
        self.run: RunFolder | None = None
        self.steps: list[dict[str, Any]] = []

    def wanted(self) -> bool:
        return any(getattr(self.hook, name).get_hookimpls() for name in HOOKS)

    def attach(self, run: RunFolder) -> None:
        self.run = run

    def on_event(self, event: TraceEvent) -> None:
        if event.event_type == "run_started":
            self._call("pytest_cometlocal_run_started", run={**self._run(), "extensions": self.extensions})
        elif event.event_type == "run_finished":
            meta = event.metadata
            self._call("pytest_cometlocal_run_finished", run={
                **self._run(), "status": meta.get("status"), "error_code": meta.get("error_code"),
                "steps": [dict(step) for step in self.steps]})

    def on_step(self, result: StepResult) -> None:
        error = result.typed_error
        step = self._masked({
            "run_id": self.run.run_id if self.run else None, "step_id": result.step_id, "kind": result.kind,
            "passed": result.ok, "error_code": error.error_code.value if error is not None else None,
            "message": error.message if error is not None else None,
            "duration_ms": result.duration_ms, "attempts": result.attempts})
        self.steps.append(step)
        self._call("pytest_cometlocal_step_finished", step=dict(step))

    def invalid(self, run: RunFolder) -> None:
        """An invalid plan's run folder, written without a browser: its run_started and run_finished."""
        self.attach(run)
        self._call("pytest_cometlocal_run_started", run={**self._run(), "extensions": self.extensions})
        self._call("pytest_cometlocal_run_finished", run={**self._run(), "status": run.manifest.get("status"),
                                                          "error_code": run.manifest.get("error_code"), "steps": []})

    def _run(self) -> dict[str, Any]:
        run = self.run
        if run is None:
            return {"plan": None, "run_id": None, "run_dir": None}
        plan = {**(run.manifest.get("plan") or {}), "nodeid": self.nodeid}  # an invalid plan's manifest has none
        return {"plan": plan, "run_id": run.run_id, "run_dir": str(run.path.resolve())}

    def _masked(self, record: dict[str, Any]) -> dict[str, Any]:
        return self.run.redactor.tree(record) if self.run is not None and self.run.redactor else record

    def _call(self, name: str, **record: Any) -> None:
        masked = {key: self._masked(value) for key, value in record.items()}
        try:
            getattr(self.hook, name)(**masked)
        except Exception as exc:  # an observer must never break a run
            warnings.warn(pytest.PytestWarning(f"{name} raised {type(exc).__name__}: {exc}".splitlines()[0]))


HOOKS = ("pytest_cometlocal_run_started", "pytest_cometlocal_step_finished", "pytest_cometlocal_run_finished")


def chained(*calls: Callable[[Any], None] | None) -> Callable[[Any], None]:
    """One callback that calls each of ``calls`` (the step printer, the observers)."""
    present = [c for c in calls if c is not None]
    return lambda value: [c(value) for c in present] and None
