"""The failure classes of plan items: real classes, one per error code, reported code first."""

from __future__ import annotations

import json
import re
import traceback

import pytest
from allure_commons import model2

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.plugin import errors as failures
from pytest_cometlocal.plugin.allure_report import CodeFirstMessages, write_categories
from pytest_cometlocal.plugin.errors import FAILURE_CLASSES, PlanFailed, StepFailed, plan_failure, report_message


def test_every_error_code_has_a_real_class_of_the_failures_module() -> None:
    assert set(FAILURE_CLASSES) == {code.value for code in ErrorCode}
    for code in ErrorCode:
        cls = FAILURE_CLASSES[code.value]
        assert getattr(failures, code.value) is cls  # a module-level name
        assert cls.__module__ == "pytest_cometlocal.plugin.errors"
        assert cls.__qualname__ == cls.__name__ == code.value
        assert cls.code is code
        assert issubclass(cls, PlanFailed) and issubclass(cls, pytest.fail.Exception)


def test_plan_failure_picks_the_class_of_the_leading_code() -> None:
    text = "TARGET_NOT_FOUND at step 'go' (click, normal) — plans/a.actions.yaml:9\n  no element matched"
    failure = plan_failure(text)
    assert type(failure) is failures.TARGET_NOT_FOUND
    assert str(failure) == "at step 'go' (click, normal) — plans/a.actions.yaml:9\n  no element matched"
    assert failure.full_text == text and failure.pytrace is False
    colon = plan_failure("OUTPUT_WRITE_FAILED: cannot write the run folder")
    assert type(colon) is failures.OUTPUT_WRITE_FAILED and str(colon) == "cannot write the run folder"
    assert type(plan_failure("PAGE_UNRESPONSIVE at step 'x'")) is failures.PAGE_UNRESPONSIVE


@pytest.mark.parametrize("text", ["expected TARGET_NOT_FOUND, but the plan passed with no error",
                                  "NOT_A_CODE at step 'x'"])
def test_a_text_without_a_leading_code_is_a_plain_plan_failure(text: str) -> None:
    failure = plan_failure(text)
    assert type(failure) is PlanFailed
    assert str(failure) == failure.full_text == text


def _exconly(exc: BaseException) -> str:
    with pytest.raises(BaseException) as excinfo:
        raise exc
    return excinfo.exconly()


def test_report_message_turns_exconly_back_into_code_first() -> None:
    """allure-pytest's message is ``exconly()``: module-qualified for classes that are not builtins."""
    failure = plan_failure("TARGET_NOT_FOUND at step 'go' (click, normal)")
    assert _exconly(failure) == "pytest_cometlocal.plugin.errors.TARGET_NOT_FOUND: at step 'go' (click, normal)"
    assert report_message(_exconly(failure)) == "TARGET_NOT_FOUND: at step 'go' (click, normal)"
    plain = plan_failure("expected AUTH_FAILED, but the plan passed with no error")
    assert report_message(_exconly(plain)) == "expected AUTH_FAILED, but the plan passed with no error"
    step = "".join(traceback.format_exception_only(StepFailed, StepFailed("POSTCONDITION_FAILED: title")))
    assert report_message(step) == "POSTCONDITION_FAILED: title\n"
    for other in ("Failed: boom", "AssertionError: x", "pytest_cometlocal.executor.errors.Other: x"):
        assert report_message(other) == other


def test_allure_results_and_their_steps_get_code_first_messages() -> None:
    def details(exc: BaseException) -> model2.StatusDetails:
        return model2.StatusDetails(message=_exconly(exc), trace="tb")

    inner = model2.TestStepResult(name="action", statusDetails=details(StepFailed("TARGET_NOT_FOUND: gone")))
    step = model2.TestStepResult(name="go · click", steps=[inner], statusDetails=None)
    result = model2.TestResult(name="plan", statusDetails=details(plan_failure("TARGET_NOT_FOUND at step 'go'")), steps=[step])
    CodeFirstMessages().report_result(result)
    assert result.statusDetails.message == "TARGET_NOT_FOUND: at step 'go'"
    assert inner.statusDetails.message == "TARGET_NOT_FOUND: gone"


def test_allure_has_a_category_per_error_code_that_matches_only_its_messages(tmp_path) -> None:
    write_categories(str(tmp_path))
    categories = json.loads((tmp_path / "categories.json").read_text(encoding="utf-8"))
    by_code = {c["name"]: c["messageRegex"] for c in categories if c["name"] in ErrorCode.__members__}
    assert list(by_code) == [code.value for code in ErrorCode]
    for code in ErrorCode:
        message = report_message(f"{code.value}: at step 'go'\nmore")
        matching = [name for name, regex in by_code.items() if re.match(regex, message)]
        assert matching == [code.value], message
