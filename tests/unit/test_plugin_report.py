"""What a plan item reports beside its failure text (plugin/reporting/report.py): its error's JUnit properties and
the text of a run folder that could not be written. Pure: no pytest session, no browser."""

from __future__ import annotations

from pathlib import Path

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError
from pytest_cometlocal.plugin.reporting.report import changed_plan_message, error_properties, output_failed_text


REF = EvidenceRef(kind="validation_report", uri="evidence/validation_report.json", sha256="0" * 64)


def _error(step: str | None, details: dict) -> ExecutorError:
    return ExecutorError(error_code=ErrorCode.TARGET_NOT_FOUND, stage="precondition", severity="error",
                         message="target resolution returned 0 matches; requires exactly 1", retryable=False,
                         run_id="r", seq=3, step_index=1 if step else None, action_id=step, action_kind=None,
                         criticality=None, state_before=None, evidence_refs=[REF], created_at="2026-11-25T00:00:00Z",
                         details=details)


def test_the_properties_of_an_error_name_code_step_folder_suggestions_and_expected_code() -> None:
    error = _error("save", {"suggestions": [{"target": {}}, {"target": {}}]})
    assert error_properties(error, Path("out/run-1"), "ELEMENT_NOT_VISIBLE") == [
        ("cometlocal.error_code", "TARGET_NOT_FOUND"), ("cometlocal.step_id", "save"),
        ("cometlocal.run_dir", "out/run-1"), ("cometlocal.suggestions", 2),
        ("cometlocal.expected_error_code", "ELEMENT_NOT_VISIBLE")]


def test_an_error_outside_a_step_without_a_folder_has_only_its_code_and_an_empty_step() -> None:
    assert error_properties(_error(None, {}), None, None) == [
        ("cometlocal.error_code", "TARGET_NOT_FOUND"), ("cometlocal.step_id", "")]


def test_an_unwritable_run_folder_is_named_with_the_path_and_what_to_check() -> None:
    text = output_failed_text("login", Path("/ro/out"), OSError("Read-only file system"), also="INVALID_ACTIONSPEC")
    lines = text.splitlines()
    assert lines[0] == "OUTPUT_WRITE_FAILED: cannot write the run folder of plan 'login' under /ro/out"
    assert lines[1] == "  Read-only file system" and "permissions and free space" in lines[2]
    assert lines[-1] == "INVALID_ACTIONSPEC"
    assert output_failed_text("login", Path("/ro/out"), OSError("x")).count("\n") == 2


def test_a_plan_changed_during_the_session_is_told_to_run_again() -> None:
    assert changed_plan_message("row 2").startswith("plan 'row 2' was collected, but validating its file again")
