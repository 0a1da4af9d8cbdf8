"""Plan files become pytest items: one per plan document (one per row of a parametrized plan).

Items are ``pytest.Function`` subclasses built with ``callobj``, so they get
fixtures (the runner, a user's conftest overrides, ``usefixtures`` marks)
through pytest's public API alone.

Collection reads each file once and keeps its bytes, but does not validate
the plans: it reads what it needs to name and mark the items from the
documents (``contract.validate.outline``). Each item validates its plan from those
bytes when it sets up, so a plan runs exactly as it was collected even if the
file is edited while the suite runs (as a Python test runs the module
imported at collection). A valid plan sets up the browser fixtures
(``cometlocal_runner`` and what it needs); an invalid one fails with
INVALID_ACTIONSPEC when run and never requests a browser fixture.
"""

from __future__ import annotations

import fnmatch
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cometlocal.contract.browsers.rules import suite_browsers
from pytest_cometlocal.plugin.browsers.matrix import Matrix, browser_names_of, item_name, matrix_for, split_matrix
from pytest_cometlocal.plugin.browsers.summary import count_not_run
from pytest_cometlocal.plugin.extensions import RunObservers, registry_for
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.load.safe_yaml import read_file
from pytest_cometlocal.contract.errors import YamlError
from pytest_cometlocal.contract.validate.outline import PlanOutline, outline_text
from pytest_cometlocal.contract.model.records import ExecutorError
from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder
from pytest_cometlocal.contract.model.problems import Mark, Problem
from pytest_cometlocal.contract.validate.validated import InvalidPlan, PlanResult, PlanSource, ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.internal import unreadable_file
from pytest_cometlocal.contract.validate.validator import validate_text
from pytest_cometlocal.executor.errors import ContextRefused, OutputWriteFailed, Refusal
from pytest_cometlocal.executor.session import record_invalid_plan
from pytest_cometlocal.plugin.reporting.allure_report import allure_active, attach_run, label_error
from pytest_cometlocal.plugin.snapshots import report_baselines
from pytest_cometlocal.plugin.reporting.errors import PlanFailed, plan_failure
from pytest_cometlocal.plugin.fixtures import Outcome, Runner, refused_outcome
from pytest_cometlocal.plugin.options import settings
from pytest_cometlocal.plugin.shared_states import order_providers_first, shared_states
from pytest_cometlocal.plugin.xdist_groups import group_marks
from pytest_cometlocal.plugin.outcome import Verdict, invalid_plan_text, judge
from pytest_cometlocal.plugin.reporting.report import changed_plan_message, error_properties, output_failed_text


_FINDER_KEY = pytest.StashKey[SuiteConfigFinder]()
_TAGS_KEY = pytest.StashKey[set]()
_VALIDATED_KEY = pytest.StashKey[tuple]()


def suite_configs(config: pytest.Config) -> SuiteConfigFinder:
    """One finder per session: each folder's cometlocal.yaml is looked up and loaded once."""
    finder = config.stash.get(_FINDER_KEY, None)
    if finder is None:
        finder = SuiteConfigFinder(config.rootpath, settings(config).suite_config)
        config.stash[_FINDER_KEY] = finder
    return finder


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Plans that save a storage state others start from go first, and are registered as its makers."""
    order_providers_first(items)
    shared_states(config).register(items)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    globs = settings(parent.config).globs
    if any(fnmatch.fnmatch(file_path.name, g) for g in globs):
        return PlanFile.from_parent(parent, path=file_path)
    return None


class PlanFile(pytest.File):
    """A ``*.actions.yaml`` file; collects one item per plan, and keeps the bytes it read."""

    data: bytes | None = None

    @cached_property
    def context(self) -> ValidationContext:
        """What validating this file's plans needs (its folder resolved once, for the outline and every item)."""
        return ValidationContext(
            root=self.config.rootpath,
            plan_path=self.path,
            suite_config=suite_configs(self.config).for_plan(self.path),
            run_vars=settings(self.config).run_vars,
            extensions=registry_for(self),  # (extensions) its conftests' kinds and the installed ones
        )

    @property
    def shown(self) -> str:
        root = self.config.rootpath
        return self.path.relative_to(root).as_posix() if self.path.is_relative_to(root) else str(self.path)

    @cached_property
    def matrix(self) -> Matrix:
        """(v1.4) The browsers this file's plans run on: the session's choice, else its suite config's ``browsers``."""
        return matrix_for(settings(self.config).browsers, suite_browsers(self.context.suite_config)[0])

    def collect(self) -> Iterator[pytest.Item]:
        try:
            self.data = read_file(self.path)
        except YamlError as exc:
            entries: list[PlanOutline | InvalidPlan] = [InvalidPlan.unparsable(self.shown, exc.problem)]
        else:
            try:
                entries = outline_text(self.data, self.context, self.shown)
            except Exception as exc:  # never a collection error: that would interrupt the whole session
                entries = [unreadable_file(self.shown, exc)]
        registered = self.config.stash.setdefault(_TAGS_KEY, set())
        matrix = self.matrix
        names = browser_names_of(self.data, self.shown, self.context.suite_config) if self.data is not None else {}
        for entry in entries:
            for tag in entry.tags:
                if tag not in registered:
                    # Registered before use (once per tag), so --strict-markers accepts plan tags.
                    self.config.addinivalue_line("markers", f"{tag}: cometlocal plan tag")
                    registered.add(tag)
            # (v1.4) one item per browser of the matrix the plan's browser.name allows (an invalid plan: every one)
            allowed = names.get(entry.doc_index) if isinstance(entry, PlanOutline) else None
            run_on, not_run = split_matrix(matrix, allowed)
            count_not_run(self.config, not_run)
            row = entry.row_id if isinstance(entry, PlanOutline) else (entry.row.id if entry.row else None)
            for browser in run_on:
                yield PlanItem.from_parent(self, name=item_name(entry.name, row, browser, matrix.explicit),
                                           callobj=_run_plan, entry=entry, browser=browser)

    def validated(self) -> list[PlanResult]:
        """The plans of the bytes collected, validated (the last file's are kept: items run file by file)."""
        cached = self.config.stash.get(_VALIDATED_KEY, None)
        if cached is not None and cached[0] is self:
            return cached[1]
        results = validate_text(self.data, self.context, file=self.shown) if self.data is not None else []
        self.config.stash[_VALIDATED_KEY] = (self, results)
        return results


def _run_plan(request: pytest.FixtureRequest) -> None:
    item = request.node
    if isinstance(item.result, ValidPlan) and item.refused is not None:  # (v1.2) its context was refused at setup
        refusal, data = item.refused, item.parent.data
        item.run_valid(lambda plan, node: refused_outcome(request, node, refusal, data))
    elif isinstance(item.result, ValidPlan):
        item.run_valid(request.getfixturevalue("cometlocal_runner"))  # set up with the item
    else:
        item.run_invalid()


class PlanItem(pytest.Function):
    """One plan: the outline collection read of it, and its validation once it sets up.

    ``result`` is the validated plan (or its problems), validated when first
    asked, normally at setup, and let go at teardown: a suite's worth of
    validated plans is never alive at once.
    """

    def __init__(self, *, entry: PlanOutline | InvalidPlan, browser: str = "chromium", **kwargs: Any) -> None:
        self.outline: PlanOutline | None = entry if isinstance(entry, PlanOutline) else None
        self._invalid: InvalidPlan | None = entry if isinstance(entry, InvalidPlan) else None
        self._plan: PlanResult | None = None
        self._changed = False
        super().__init__(**kwargs)
        for tag in entry.tags:
            self.add_marker(tag)
        for mark in group_marks(entry.tags):  # a tag xdist_group_NAME: the item's xdist group
            self.add_marker(mark)
        self.add_marker("cometlocal")
        self.cometlocal_error: ExecutorError | None = None
        self.refused: Refusal | None = None  # the browser refused the plan's context at setup
        self.cometlocal_run_dir: Path | None = None
        self.cometlocal_browser_name = browser  # (v1.4) the browser of the matrix this item runs on

    @property
    def result(self) -> PlanResult:
        """The validated plan, or its validation problems."""
        if self._invalid is not None:
            return self._invalid
        if self._plan is None:
            self._plan = self._validated()
        return self._plan

    @property
    def item_name(self) -> str:
        return self.outline.item_name if self.outline is not None else self.result.item_name

    @property
    def plan_line(self) -> int:
        return self.outline.line if self.outline is not None else self.result.source.mark.line

    def _validated(self) -> PlanResult:
        assert self.outline is not None
        outline = self.outline
        found = next((r for r in self.parent.validated() if outline.finds(r)), None)
        if found is not None:
            return found
        # The file's bytes are the ones collected, so only what the plan reads beside them
        # can have changed: a parametrize CSV file now gives other rows.
        self._changed = True
        file = self.parent.shown
        changed = Problem(file, Mark(outline.line, 1), "", changed_plan_message(outline.item_name), "CHANGED")
        return InvalidPlan(outline.name, PlanSource(file, outline.doc_index, changed.mark), (changed,), None,
                           outline.tags)

    def setup(self) -> None:
        result = self.result
        if self._changed:  # no expectation holds for a changed plan: always an error, at setup
            text = ErrorCode.INVALID_ACTIONSPEC.value  # run_invalid raises: no expectation holds here
            try:
                self.run_invalid()
            except PlanFailed as failure:
                text = failure.full_text
            # At setup pytest reports an exception by its class path; a plain failure, by its text.
            pytest.fail(text, pytrace=False)
        super().setup()
        if isinstance(result, ValidPlan):
            # The runner and the browser fixtures it needs are set up now, in the setup phase.
            # A context the browser refuses (a setting, the saved state, the clock, a disconnect)
            # is the item's failure, reported when it runs with its run folder: not a setup error.
            try:
                self.funcargs["request"].getfixturevalue("cometlocal_runner")
            except ContextRefused as exc:
                self.refused = exc.refusal

    def teardown(self) -> None:
        try:
            super().teardown()
        finally:
            self._plan = None
            self.refused = None

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """A plan failure is its text, code first (pytest's short summary shows its first line)."""
        if isinstance(excinfo.value, PlanFailed):
            return excinfo.value.full_text
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.plan_line - 1, f"plan: {self.item_name}"

    # -- outcomes -----------------------------------------------------------

    def record_error(self, error: ExecutorError, run_dir: Path | None) -> None:
        """Marker, JUnit properties, Allure labels: set on every item that raised an error."""
        self.cometlocal_error = error
        if allure_active(self.config):
            label_error(error)
        self.add_marker(pytest.mark.cometlocal_error_code(error.error_code.value))
        expected = self.result.expect if isinstance(self.result, InvalidPlan) else self.result.plan.expect
        expected_code = expected.error_code if expected is not None else None
        self.user_properties.extend(error_properties(error, run_dir, expected_code))

    def conclude(self, verdict: Verdict) -> None:
        if verdict.outcome == "failed":
            raise plan_failure(verdict.code, verdict.message)
        if verdict.outcome == "skipped":
            pytest.skip(verdict.message)

    def output_failed(self, exc: OutputWriteFailed, also: str = "") -> None:
        """The run folder could not be written at all: a typed failure naming the path, no traceback.

        There is no run record to hold an ExecutorError, so the code goes into
        the failure text, the marker and the JUnit property; the session goes on.
        """
        code = ErrorCode.OUTPUT_WRITE_FAILED.value
        self.add_marker(pytest.mark.cometlocal_error_code(code))
        self.user_properties.append(("cometlocal.error_code", code))
        self.user_properties.append(("cometlocal.step_id", ""))
        text = output_failed_text(self.item_name, settings(self.config).output, exc, also)
        self.conclude(Verdict("failed", text, ErrorCode.OUTPUT_WRITE_FAILED))

    def run_invalid(self) -> None:
        assert isinstance(self.result, InvalidPlan)
        opts = settings(self.config)
        try:
            run, error = record_invalid_plan(self.result, opts.output, mode="dry_run" if opts.dry_run else "live")
        except OutputWriteFailed as exc:
            # The problems are known without a run folder: reported after why there is none.
            self.output_failed(exc, invalid_plan_text(self.result, None))
        self.cometlocal_run_dir = run.path
        self.record_error(error, run.path)
        if allure_active(self.config):
            attach_run(run.path, error)
        if (observers := RunObservers(self)).wanted():  # (extensions) an invalid plan's run is a run too
            observers.invalid(run)
        self.conclude(judge(self.result.expect, error, invalid_plan_text(self.result, run.path)))

    def run_valid(self, runner: Runner) -> None:
        assert isinstance(self.result, ValidPlan)
        states = shared_states(self.config)
        before = dict(states.files.saved)
        try:
            outcome = runner(self.result, self)
        except OutputWriteFailed as exc:
            self.output_failed(exc)
        finally:
            states.saved_by(self.nodeid, before)  # the plans that start from a state it saved name it
        error, run_dir, failure_text = _unpack(outcome)
        self.cometlocal_run_dir = run_dir or self.cometlocal_run_dir
        if error is not None:
            self.record_error(error, run_dir)
        if run_dir is not None and allure_active(self.config):
            attach_run(run_dir, error)
        report_baselines(self, run_dir)  # (v1.2) the screenshot_matches baselines the run wrote
        expect = self.result.plan.expect
        if (
            error is not None
            and error.error_code == ErrorCode.ACTION_CRITICAL_BLOCKED
            and error.details.get("critical_reason") == "dry_run"
            and not (expect is not None and expect.error_code == ErrorCode.ACTION_CRITICAL_BLOCKED)
        ):
            self.conclude(Verdict("skipped", f"ACTION_CRITICAL_BLOCKED (dry_run) at step {error.action_id}",
                                  ErrorCode.ACTION_CRITICAL_BLOCKED))
        self.conclude(judge(expect, error, failure_text))


def _unpack(outcome: Outcome | None) -> tuple[ExecutorError | None, Path | None, str]:
    """A runner returns None (pass), or an Outcome: error, run_dir and failure_text."""
    if outcome is None:
        return None, None, ""
    error = outcome.error
    text = outcome.failure_text or (f"{error.error_code.value}: {error.message}" if error is not None else "")
    return error, outcome.run_dir, text


__all__ = ["PlanFile", "PlanItem", "ErrorCode"]
