"""What a plan item reports: its failure text (the code first, then what a QA engineer needs), the JUnit
properties of its error, the text of a plan that changed or a run folder that could not be written."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Callable

import pytest

from pytest_cometlocal.contract.failure_lines import condition_line, short
from pytest_cometlocal.contract.load.paths import shown_path
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import ExecutorError
from pytest_cometlocal.contract.validate.validated import ValidPlan
from pytest_cometlocal.contract.model.suggestion import fix_command, suggestion_lines
from pytest_cometlocal.executor.results import StepResult
from pytest_cometlocal.plugin.reporting.artifacts import artifact_lines


LIMIT = 160  # characters of one value in the failure text


def _short(value: Any, limit: int = LIMIT) -> str:
    return short(value, limit)


def failure_text(plan: ValidPlan, error: ExecutorError, run_dir: Path | None) -> str:
    step = error.action_id
    line = plan.source.step_marks.get(step) if step else None
    where = f"{plan.source.file}:{line.line}" if line else f"{plan.source.file}:{plan.source.mark.line}"
    origins = plan.source.step_origins.get(step) if step else None
    if origins and len(origins) > 1:  # a step group's step: the plan line, then the group line(s)
        where = " -> ".join(origins)
    head = f"{error.error_code.value} at step '{step}' ({error.action_kind}, {error.criticality}) — {where}" if step else \
        f"{error.error_code.value} — {where}"
    lines = [head, f"  {error.message}"]
    for fc in error.failed_conditions:  # why first: the cut falls on what was seen (contract/failure_lines.py)
        what = "assert check" if fc.phase == "assert" else f"{fc.phase}condition"
        lines.append(f"  failed {what} {condition_line(fc.kind, fc.args, fc.observed, LIMIT)}")
    details = error.details
    for key in ("count_observed", "matches_sample", "host", "allowlist", "auth_signal", "overlay_selector",
                "overlay_text", "policy_reason", "critical_reason", "net_error", "timeout_ms", "file_ref", "attempts",
                "routes_unused",  # (v1.2) a failing item's stale stubs
                "baseline", "baseline_file", "diff_pixels", "diff_ratio", "size", "stable"):  # (v1.2) screenshot_matches
        if key in details and details[key] not in (None, [], {}):
            lines.append(f"  {key}: {_short(details[key])}")
    if error.cause:
        lines.append(f"  cause: {_short(error.cause, 300)}")
    lines += suggestion_lines(details)  # replacement targets for a failed target, as YAML to paste
    if run_dir is not None and details.get("suggestions"):
        lines.append(f"  fix it:     {fix_command(run_dir)}   (a patch to review, checked by a re-run; never applied)")
    if run_dir is not None:
        lines += artifact_lines(run_dir, error)  # trace.zip, video, screenshots: paths to open
        lines.append(f"  run folder: {run_dir}")
        lines.append(f"  check it:   cometlocal verify {run_dir}   (timeline: cometlocal show {run_dir})")
    return "\n".join(lines)


def error_properties(error: ExecutorError, run_dir: Path | None, expected_code: str | None) -> list[tuple[str, Any]]:
    """The item's JUnit properties for the error it raised: code, step, run folder, suggestions, expected code."""
    found = [("cometlocal.error_code", error.error_code.value), ("cometlocal.step_id", error.action_id or "")]
    if run_dir is not None:
        found.append(("cometlocal.run_dir", str(run_dir)))
    if suggestions_count(error):  # counted by the terminal summary's "cometlocal fix" line
        found.append(("cometlocal.suggestions", suggestions_count(error)))
    if expected_code is not None:
        found.append(("cometlocal.expected_error_code", expected_code))
    return found


def output_failed_text(plan_name: str, output: Path, exc: Exception, also: str = "") -> str:
    """The failure of an item whose run folder could not be written at all: the path, and what to check."""
    code = ErrorCode.OUTPUT_WRITE_FAILED.value
    text = (f"{code}: cannot write the run folder of plan '{plan_name}' under "
            f"{output}\n  {exc}\n  no run record was kept "
            "(check --cometlocal-output / ini cometlocal_output, permissions and free space)")
    return text + "\n" + also if also else text


def changed_plan_message(plan_name: str) -> str:
    """Why a plan collected earlier is not found when its file is validated again to run (rule CHANGED)."""
    return (f"plan '{plan_name}' was collected, but validating its file again to run does "
            "not give it: a file it reads changed during the session; run pytest again")


def suggestions_count(error: ExecutorError) -> int:
    """How many suggested targets the error carries (0 without suggestion work): a JUnit property of the item."""
    found = error.details.get("suggestions")
    return len(found) if isinstance(found, list) else 0


def suggested_fix_summary(reports: list[pytest.TestReport], output: Path, cwd: Path) -> str | None:
    """``3 failures have suggested targets: cometlocal fix <output> --verify``, or None when no failure has any.

    Counted from the failed items' ``cometlocal.suggestions`` property; the
    output folder is shown relative to where pytest was started when it is
    under it. Only a count and a path: no target, value or secret.
    """
    count = sum(1 for r in reports if int(dict(getattr(r, "user_properties", []) or []).get(
        "cometlocal.suggestions", 0) or 0) > 0)
    if not count:
        return None
    shown = shown_path(output, cwd)
    noun = "failure has" if count == 1 else "failures have"
    return f"{count} {noun} suggested targets: {fix_command(shown)}"


def step_columns(plan: ValidPlan | None) -> tuple[int, int]:
    """The widths of the step id and kind columns: the plan's longest (its groups' steps and recovery
    steps included), at least 24 and 9, so every line of a plan aligns however long its ids are."""
    steps = plan.plan.all_steps() if plan is not None else []
    return max([24, *(len(s.id) for s in steps)]), max([9, *(len(s.kind) for s in steps)])


def step_printer(config: pytest.Config, plan: ValidPlan | None = None) -> Callable[[StepResult], None] | None:
    """With ``-v``, one line per step as it finishes: status, step id, kind, duration, in columns."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or config.getoption("verbose", 0) < 1 or hasattr(config, "workerinput"):
        return None

    capture = config.pluginmanager.get_plugin("capturemanager")
    width_id, width_kind = step_columns(plan)

    def show(result: StepResult) -> None:
        status = "ok  " if result.ok else "FAIL"
        tail = f"  {result.error}" if result.error else ""
        retries = f" ({result.attempts} attempts)" if result.attempts > 1 else ""
        line = (f"    {status} {result.step_id:<{width_id}} {result.kind:<{width_kind}} {result.duration_ms:>6} ms"
                f"{retries}{tail[:120]}")
        # Output capture is suspended for the line, so it reaches the terminal as the step ends.
        with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
            reporter.ensure_newline()
            reporter.write_line(line)

    return show


def error_code_summary(reports: list[pytest.TestReport]) -> list[str]:
    """``TARGET_NOT_FOUND: 3 — plan a, plan b`` lines for the failed items, most frequent first."""
    groups: dict[str, list[str]] = {}
    for report in reports:
        props = dict(getattr(report, "user_properties", []) or [])
        code = props.get("cometlocal.error_code")
        if code:
            name = report.nodeid.split("::", 1)[-1]
            groups.setdefault(code, []).append(name)
    lines = []
    for code, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(names[:5]) + (f", … ({len(names) - 5} more)" if len(names) > 5 else "")
        lines.append(f"{code}: {len(names)} — {shown}")
    return lines
