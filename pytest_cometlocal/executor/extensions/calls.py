"""Calling an extension's ``perform`` or ``check``, and typing what comes out (docs/extensions.md).

The args as the plan wrote them get their ``${secrets.X}`` resolved and are validated into the
registered model just before the call (the validator checked them at load with the references in
place). What the call returns is masked and cut before anything records it. What it raises is
typed: ``StepFailed`` is the code it names; a page that stopped answering, a crash or a failure the
executor raised itself go on as they are; anything else is EXTENSION_FAILED, with the traceback,
masked, as evidence. A call that comes back after the step's time is up fails the same way: Python
code cannot be stopped from outside, but it is never taken as a pass.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Callable

from pydantic import ValidationError

from pytest_cometlocal.contract.extensions.failures import StepFailed
from pytest_cometlocal.contract.extensions.loading import masked_traceback
from pytest_cometlocal.contract.extensions.registry import ActionKindDef, ConditionKindDef, active
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.errors import (
    CallTimedOut, ExecutorFailure, PageTampered, PageUnresponsive, StepRefused, first_line, is_crash,
)
from pytest_cometlocal.executor.extensions.context import ExtensionContext, ExtensionIO

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

# What is kept of a returned value: strings cut to this many characters, lists to this many items,
# mappings this deep.
SHOWN_CHARS, SHOWN_ITEMS, SHOWN_DEPTH = 500, 50, 6
_PASSED_ON = (ExecutorFailure, CallTimedOut, PageUnresponsive, PageTampered)


class ExtensionRaised(StepRefused):
    """An extension call that fails its step: the code, message and details of the error to raise."""


def action_kind(name: str) -> ActionKindDef:
    return active().actions[name]


def condition_kind(name: str) -> ConditionKindDef | None:
    return active().conditions.get(name)


def perform(kind: ActionKindDef, *, page: Page, given: dict[str, Any], target: Locator | None, io: ExtensionIO,
            resolve: Callable[[str], str]) -> dict[str, Any]:
    """Do an extension action; returns what action_executed records (its origin, its result, masked)."""
    ctx = ExtensionContext(page=page, args=_args(kind, given, resolve, io), target=target, kind=kind.name,
                           phase="action", io=io)
    result = _called(kind, kind.perform, ctx, io, "execution")
    if result is not None and not isinstance(result, dict):
        raise _failed(io, kind, "execution", TypeError(f"an action returns None or a dict, not {type(result).__name__}"))
    record: dict[str, Any] = {"extension": _named(kind)}
    if result is not None:
        record["extension_result"] = shown(io, result)
    return record


def check(kind: ConditionKindDef, phase: str, *, page: Page, given: dict[str, Any], target: Locator | None,
          io: ExtensionIO, resolve: Callable[[str], str]) -> tuple[bool, Any]:
    """Look at an extension condition once: ``(held, observed)``, observed masked and cut."""
    stage = "precondition" if phase == "pre" else "postcondition"
    ctx = ExtensionContext(page=page, args=_args(kind, given, resolve, io, stage), target=target, kind=kind.name,
                           phase="pre" if phase == "pre" else "post", io=io)  # an assert's conditions: "post"
    answer = _called(kind, kind.check, ctx, io, stage)
    if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], bool)):
        raise _failed(io, kind, stage, TypeError(
            f"a check returns (held: bool, observed), not {type(answer).__name__}"))
    return answer[0], shown(io, answer[1])


def shown(io: ExtensionIO, value: Any) -> Any:
    """A returned value as the trace may hold it: JSON values, masked, cut."""
    try:
        value = json.loads(json.dumps(value, default=str, allow_nan=False))
    except (TypeError, ValueError):
        value = str(value)
    return io.run.redactor.tree(_cut(value, 0))


def _cut(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= SHOWN_CHARS else value[: SHOWN_CHARS - 1] + "…"
    if depth >= SHOWN_DEPTH and isinstance(value, (dict, list)):
        return "…"
    if isinstance(value, list):
        return [_cut(v, depth + 1) for v in value[:SHOWN_ITEMS]]
    if isinstance(value, dict):
        return {str(k)[:SHOWN_CHARS]: _cut(v, depth + 1) for k, v in list(value.items())[:SHOWN_ITEMS]}
    return value


def _args(kind: ActionKindDef | ConditionKindDef, given: dict[str, Any], resolve: Callable[[str], str],
          io: ExtensionIO, stage: str = "execution") -> Any:
    """The registered model of the args, secrets resolved (the only place their values exist)."""
    try:
        return kind.args.model_validate(_resolved(given, resolve))
    except ValidationError as exc:  # a secret's value the model refuses (it was a reference at load)
        raise ExtensionRaised(ErrorCode.EXTENSION_FAILED, io.run.redactor.text(
            f"{kind.name}'s args do not fit its model once secrets are resolved: {first_line(exc)}"),
            {"extension": _named(kind)}, stage) from None


def _resolved(value: Any, resolve: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return resolve(value)
    if isinstance(value, list):
        return [_resolved(v, resolve) for v in value]
    if isinstance(value, dict):
        return {k: _resolved(v, resolve) for k, v in value.items()}
    return value


def _named(kind: ActionKindDef | ConditionKindDef) -> dict[str, Any]:
    """``{kind, package, version}`` or ``{kind, path}``: which extension, in records and errors."""
    return {"kind": kind.name, **kind.origin.record()}


def _called(kind: ActionKindDef | ConditionKindDef, fn: Callable[[ExtensionContext], Any], ctx: ExtensionContext,
            io: ExtensionIO, stage: str) -> Any:
    started, name = time.monotonic(), kind.name
    try:
        result = fn(ctx)
    except StepFailed as failed:
        raise ExtensionRaised(failed.code, io.run.redactor.text(failed.message),
                              {**shown(io, failed.details), "extension": _named(kind)}, stage) from None
    except _PASSED_ON:
        raise
    except Exception as exc:
        if is_crash(exc):
            raise
        raise _failed(io, kind, stage, exc) from None
    if time.monotonic() > io.deadline:
        waited = int((time.monotonic() - started) * 1000)
        raise ExtensionRaised(ErrorCode.EXTENSION_FAILED, f"{name} ran {waited} ms, past the step's time",
                              {"extension": _named(kind), "timed_out": True, "waited_ms": waited}, stage)
    return result


def _failed(io: ExtensionIO, kind: ActionKindDef | ConditionKindDef, stage: str, exc: BaseException) -> ExtensionRaised:
    """EXTENSION_FAILED, the masked traceback kept as evidence."""
    name = kind.name
    ref = io.run.evidence.add_bytes("extension", f"extensions/{io.tag}_extension_traceback.txt",
                                    masked_traceback(exc).encode("utf-8"), step_id=io.step_id,
                                    metadata={"extension": name, "traceback": True})
    io.evidence.append(ref)
    message = io.run.redactor.text(f"{name} raised {type(exc).__name__}: {first_line(exc)}")
    return ExtensionRaised(ErrorCode.EXTENSION_FAILED, message, {
        "extension": _named(kind), "exception": io.run.redactor.text(f"{type(exc).__name__}: {first_line(exc)}"),
        "traceback_uri": ref.uri}, stage)
