"""(v1.2) A step's saves, taken once its postconditions hold: ``save:`` on a request, ``save_text:`` on an
assert or wait_for (checkpoints.py calls ``keep_saves``).

A ``save`` entry is NAME -> ``status``, ``header:NAME`` or a JSON Pointer into
the body (rule SAVE_POINTER, contract/http/rules.py, checks the form at load
time). A value is saved as the JSON value it is (v1.3: the status a number),
and as text (a number or an object as compact JSON), as ``${saved.NAME}``
puts it into a longer string (executor/http/saved.py). One that is not there is
POSTCONDITION_FAILED on this step, its failed condition the one a check on it
would be (``response_json`` for a pointer, ``response_header`` for a header)
with the response it looked at. ``save_text`` stores the target's text as
the text conditions read it (the caller reads it). The values go into the
item's SavedValues and the step's ``postconditions_checked`` /
``assert_checked`` event (``saved``), masked there only where they hold a
secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.http.rules import HEADER_PREFIX
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.records import FailedCondition
from pytest_cometlocal.executor.http.exchange import observed
from pytest_cometlocal.executor.http.saved import SavedValues



@dataclass(frozen=True)
class Missing:
    """A save source the response does not have: the condition kind and args that fail."""

    name: str
    kind: str
    args: dict[str, Any]
    problem: str


def take(response: Any, save: dict[str, str]) -> tuple[dict[str, Any], Missing | None]:
    """The saved values (NAME -> JSON value), or the first source that names nothing."""
    values: dict[str, Any] = {}
    for name, source in save.items():
        if source == "status":
            values[name] = response.status
        elif source.startswith(HEADER_PREFIX):
            header = source[len(HEADER_PREFIX):]
            value = response.header(header)
            if value is None:
                return values, Missing(name, "response_header", {"name": header}, "no such header")
            values[name] = value
        else:
            document = response.json()
            value = json_values.MISSING if document is json_values.MISSING else json_values.resolve(document, source)
            if value is json_values.MISSING:
                problem = "the body is not JSON" if document is json_values.MISSING else "the pointer names nothing in the body"
                return values, Missing(name, "response_json", {"pointer": source}, problem)
            values[name] = value
    return values, None


def keep_saves(failures: Any, attempt: Any, target_text: Callable[[], str]) -> None:
    """Take the step's saves into the item's saved values; raise the typed failure of one it cannot take.

    ``failures`` is the step's Failures, ``attempt`` its StepAttempt; ``target_text`` reads save_text's text.
    """
    ctx, spec = failures.ctx, attempt.spec
    mask = ctx.run.redactor.text
    values: dict[str, Any] = {}
    if spec.save and attempt.response is not None:
        values, missing = take(attempt.response, spec.save)
        if missing is not None:
            seen = observed(attempt.response, mask, problem=missing.problem)
            raise failures.fail(attempt, ErrorCode.POSTCONDITION_FAILED, "postcondition",
                                f"save {missing.name}: {missing.problem} ({spec.save[missing.name]})",
                                details={"save": missing.name},
                                failed_conditions=[FailedCondition(kind=missing.kind, args=missing.args, phase="post",
                                                                   observed=seen)])
    if spec.save_text:
        values[spec.save_text] = target_text()
    refused = SavedValues.refused(values)
    if refused is not None:
        raise failures.fail(attempt, ErrorCode.POSTCONDITION_FAILED, "postcondition",
                            f"save {refused}: a saved value cannot hold a ${{secrets.NAME}} reference",
                            details={"save": refused})
    ctx.saved.keep(values)
    # Masked as text before the trace encodes it: a secret inside a saved JSON text is escaped once there,
    # and would be escaped twice in the trace line, where no mask would know it.
    attempt.saved = {name: mask(json_values.as_text(value)) for name, value in values.items()}
