"""The failure classes of plan items: real classes, one per error code, chosen from the verdict's code."""

from __future__ import annotations

import json
import re
import traceback

import pytest
from allure_commons import model2

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.plugin.reporting import errors
from pytest_cometlocal.plugin.reporting.allure_report import UncodedMessages, write_categories
from pytest_cometlocal.plugin.reporting.errors import FAILURE_CLASSES, PlanFailed, failure_class, plan_failure, step_failure


def test_every_error_code_has_a_real_class_of_the_errors_module() -> None:
    assert set(FAILURE_CLASSES) == set(ErrorCode)
    for code in ErrorCode:
        cls = FAILURE_CLASSES[code]
        assert getattr(errors, code.value) is cls  # a module-level name
        assert cls.__qualname__ == cls.__name__ == code.value
        assert cls.code is code and failure_class(code) is cls
        assert issubclass(cls, PlanFailed) and issubclass(cls, pytest.fail.Exception)
        assert issubclass(cls, CometLocalError)
    assert failure_class(None) is PlanFailed


def test_the_class_is_chosen_from_the_code_not_from_the_text() -> None:
    text = "TARGET_NOT_FOUND at step 'go' (click, normal) — plans/a.actions.yaml:9\n  no element matched"
    failure = plan_failure(ErrorCode.TARGET_NOT_FOUND, text)
    assert type(failure) is errors.TARGET_NOT_FOUND
    assert str(failure) == "at step 'go' (click, normal) — plans/a.actions.yaml:9\n  no element matched"
    assert failure.full_text == text and failure.pytrace is False
    colon = plan_failure(ErrorCode.OUTPUT_WRITE_FAILED, "OUTPUT_WRITE_FAILED: cannot write the run folder")
    assert type(colon) is errors.OUTPUT_WRITE_FAILED and str(colon) == "cannot write the run folder"
    # The code decides, whatever the text says: a text naming another code is not read.
    assert type(plan_failure(ErrorCode.AUTH_FAILED, "PAGE_UNRESPONSIVE at step 'x'")) is errors.AUTH_FAILED
    # A mismatch verdict: the actual code first, then what was expected.
    mismatch = plan_failure(ErrorCode.POSTCONDITION_FAILED, "POSTCONDITION_FAILED: expected TARGET_NOT_FOUND, got it")
    assert type(mismatch) is errors.POSTCONDITION_FAILED and str(mismatch) == "expected TARGET_NOT_FOUND, got it"


@pytest.mark.parametrize("text", ["expected TARGET_NOT_FOUND, but the plan passed with no error",
                                  "TARGET_NOT_FOUND at step 'x' (a text alone picks no class)"])
def test_a_verdict_without_a_code_is_a_plain_plan_failure(text: str) -> None:
    failure = plan_failure(None, text)
    assert type(failure) is PlanFailed
    assert str(failure) == failure.full_text == text


def test_a_plan_failure_is_a_pytest_failure_and_a_cometlocal_error() -> None:
    with pytest.raises(pytest.fail.Exception):
        raise plan_failure(ErrorCode.TARGET_NOT_FOUND, "TARGET_NOT_FOUND at step 'go'")
    with pytest.raises(CometLocalError):
        raise plan_failure(None, "expected AUTH_FAILED, but the plan passed with no error")


def _exconly(exc: BaseException) -> str:
    with pytest.raises(BaseException) as excinfo:
        raise exc
    return excinfo.exconly()


def test_the_exception_prints_code_first_as_allure_takes_it() -> None:
    """allure-pytest's message is ``exconly()`` (steps: ``format_exception_only``): code first, no module."""
    failure = plan_failure(ErrorCode.TARGET_NOT_FOUND, "TARGET_NOT_FOUND at step 'go' (click, normal)")
    assert _exconly(failure) == "TARGET_NOT_FOUND: at step 'go' (click, normal)"
    step = step_failure(ErrorCode.POSTCONDITION_FAILED, "title")
    assert "".join(traceback.format_exception_only(type(step), step)) == "POSTCONDITION_FAILED: title\n"


def test_allure_messages_of_failures_without_a_code_are_their_text() -> None:
    def details(exc: BaseException) -> model2.StatusDetails:
        return model2.StatusDetails(message=_exconly(exc), trace="tb")

    text = "expected AUTH_FAILED, but the plan passed with no error"
    inner = model2.TestStepResult(name="action", statusDetails=details(step_failure(ErrorCode.TARGET_NOT_FOUND, "gone")))
    result = model2.TestResult(name="plan", statusDetails=details(plan_failure(None, text)), steps=[inner])
    UncodedMessages().report_result(result)
    assert result.statusDetails.message == text
    assert inner.statusDetails.message == "TARGET_NOT_FOUND: gone"
    coded = model2.TestResult(name="plan", statusDetails=details(plan_failure(ErrorCode.AUTH_FAILED, "AUTH_FAILED — a:1")))
    UncodedMessages().report_result(coded)
    assert coded.statusDetails.message == "AUTH_FAILED: — a:1"


def test_allure_has_a_category_per_error_code_that_matches_only_its_messages(tmp_path) -> None:
    write_categories(str(tmp_path))
    categories = json.loads((tmp_path / "categories.json").read_text(encoding="utf-8"))
    by_code = {c["name"]: c["messageRegex"] for c in categories if c["name"] in ErrorCode.__members__}
    assert list(by_code) == [code.value for code in ErrorCode]
    for code in ErrorCode:
        message = _exconly(plan_failure(code, f"{code.value} at step 'go'\nmore"))
        matching = [name for name, regex in by_code.items() if re.match(regex, message)]
        assert matching == [code.value], message
