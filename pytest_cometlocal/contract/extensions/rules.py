"""Rule EXTENSION: a step or condition of an extension kind names a kind the active registry holds,
and its ``args`` fit the kind's registered model, located key by key (docs/extensions.md).

A kind whose registration was refused (a duplicate, a bad model) is reported on every step that
uses it, with where it was registered; a name nobody registered lists the kinds that were, and the
sources that failed to load (their kinds are unknown). ``args`` belongs to extension kinds only.
"""

from __future__ import annotations

from typing import Any, Callable

from pydantic import ValidationError

from pytest_cometlocal.contract.extensions.registry import ActionKindDef, ConditionKindDef, KindRegistry, active
from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.checks.extension import is_extension_kind
from pytest_cometlocal.contract.model.problems import Loc

Report = Callable[[Loc, str, str], None]
Describe = Callable[[Any], tuple[str, str, bool]]


def check_extension_step(step: ActionSpec, loc: Loc, add: Report, describe: Describe) -> None:
    """EXTENSION (and INPUTS, TARGET_REQUIRED for an extension action's target, and ``args``)."""
    registry = active()
    if not is_extension_kind(step.kind):
        if step.args is not None:
            add(loc + ("args",), f"'args' is only for extension kinds (x_<name> or <team>.<name>), not '{step.kind}'",
                "INPUTS")
    elif (found := _registered(registry, step.kind, "action", loc + ("kind",), add)) is not None:
        if found.target == "none" and step.target is not None:
            add(loc + ("target",), f"'{step.kind}' takes no target ({found.origin.describe()} registered it so)", "INPUTS")
        elif found.target == "required" and step.target is None:
            add(loc + ("target",), f"'{step.kind}' needs a target", "TARGET_REQUIRED")
        _check_args(found, step.args, loc + ("args",), add, describe)
    for phase in ("preconditions", "postconditions"):
        for i, cond in enumerate(getattr(step, phase)):
            if is_extension_kind(cond.kind):
                cloc = loc + (phase, i)
                found = _registered(registry, cond.kind, "condition", cloc + ("kind",), add)
                if found is not None:
                    _check_args(found, cond.args, cloc + ("args",), add, describe)


def is_strong_extension(cond: Any) -> bool:
    """U5: an extension condition registered ``strong=True``, with a non-warning severity."""
    found = active().conditions.get(cond.kind) if is_extension_kind(cond.kind) else None
    return found is not None and found.strong and cond.severity != "warning"


def needs_strong(step: ActionSpec) -> bool:
    """U5 asks a critical step for a strong postcondition, but not one of an extension kind registered
    ``side_effect=False``: it changes nothing a postcondition could confirm."""
    found = active().actions.get(step.kind) if is_extension_kind(step.kind) else None
    return found is None or found.side_effect


def _registered(registry: KindRegistry, name: str, wanted: str, loc: Loc,
                add: Report) -> ActionKindDef | ConditionKindDef | None:
    refused = registry.refusal(name)
    if refused:
        for problem in refused:
            add(loc, f"extension kind '{name}' cannot be used: {problem.describe()}", "EXTENSION")
        return None
    table = registry.actions if wanted == "action" else registry.conditions
    found = table.get(name)
    if found is not None:
        return found
    other = registry.conditions.get(name) if wanted == "action" else registry.actions.get(name)
    if other is not None:
        where, must = ("a step's kind", "an action") if wanted == "action" else ("a condition's kind", "a condition")
        add(loc, f"'{name}' is an extension {'condition' if wanted == 'action' else 'action'} kind "
                 f"({other.origin.describe()}); {where} must be {must} kind", "EXTENSION")
        return None
    failed = "".join(f"; {p.describe()}" for p in registry.failed_sources())
    add(loc, f"unknown extension {wanted} kind '{name}' (registered: {registry.known()}){failed}", "EXTENSION")
    return None


def _check_args(found: ActionKindDef | ConditionKindDef, args: Any, loc: Loc, add: Report, describe: Describe) -> None:
    """The plan's args against the registered model; each error located at its key."""
    given = args.given() if args is not None else {}
    try:
        found.args.model_validate(given)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            message, _rule, _key = describe(err)
            add(loc + tuple(err["loc"]), f"{message} ({found.name}'s args)", "EXTENSION")
    except Exception as exc:  # a validator of the extension's model that raised something else
        add(loc, f"{found.name}'s args model raised {type(exc).__name__}: {exc}", "EXTENSION")
