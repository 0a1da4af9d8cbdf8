"""The kinds extensions register (docs/extensions.md): one table every tool reads.

An extension registers action and condition kinds into a ``KindRegistry`` from its
``pytest_cometlocal_register_kinds(registry)`` hook (a conftest, or an installed package's
``cometlocal.extensions`` entry point; contract/extensions/loading.py calls the hooks). What it
registers is checked here, when it registers: a bad name, a built-in's name, a name registered
twice or a bad args model is refused, recorded as a ``RegistrationProblem`` located at the
registering call, and reported on every plan that uses the name (rule EXTENSION): never a crash
of the collection.

The registry is plain data (no browser, no pytest). The validator and the executor read the
active one (``active()``; ``using(registry)`` sets it for a validation or a run).
"""

from __future__ import annotations

import inspect
import os
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Literal

from pydantic import BaseModel, ConfigDict

from pytest_cometlocal.contract.model.actionspec import ACTION_KINDS, KINDS, KindRow
from pytest_cometlocal.contract.model.checks.extension import is_extension_kind
from pytest_cometlocal.contract.model.conditions import CONDITION_KINDS

TargetUse = Literal["none", "optional", "required"]
TARGET_USES: tuple[str, ...] = ("none", "optional", "required")
BUILT_IN_KINDS = frozenset(ACTION_KINDS) | frozenset(CONDITION_KINDS)


class NoArgs(BaseModel):
    """The args model of a kind registered without one: ``args`` must be empty or left out."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Origin:
    """Where a kind comes from: an installed package (its distribution's name and version) or a file
    (a conftest.py). The trace and the run manifest record it, so ``diff`` tells two versions apart."""

    package: str | None = None
    version: str | None = None
    path: str | None = None

    def describe(self) -> str:
        if self.package:
            return f"{self.package} {self.version}" if self.version else self.package
        return self.path or "<unknown>"

    def record(self) -> dict[str, Any]:
        return {"package": self.package, "version": self.version} if self.package else {"path": self.path}


@dataclass(frozen=True)
class ActionKindDef:
    """An extension action kind: ``perform(ctx)`` does its side effect (docs/extensions.md)."""

    name: str
    args: type[BaseModel]
    perform: Callable[..., Any]
    side_effect: bool
    target: TargetUse
    origin: Origin
    where: str

    @property
    def row(self) -> KindRow:
        """The contract's row for the kind: same-state counting, retries and target resolution."""
        return KindRow(side_effect=self.side_effect, resolves_target=self.target != "none")


@dataclass(frozen=True)
class ConditionKindDef:
    """An extension condition kind: ``check(ctx)`` returns ``(held, observed)``; a polled one is looked
    at until it holds or the step's time is up, another is decided by one look."""

    name: str
    args: type[BaseModel]
    check: Callable[..., Any]
    polled: bool
    strong: bool  # counts for U5 as url_is does: it checks the step's own effect
    origin: Origin
    where: str


@dataclass(frozen=True)
class RegistrationProblem:
    """A registration refused (or a source that failed to load): ``where`` is its file and line, or
    the package; ``name`` the kind it concerns (None when a whole source failed to load)."""

    name: str | None
    message: str
    where: str

    def describe(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class KindRegistry:
    """What the extensions registered: their kinds, and the registrations refused."""

    actions: dict[str, ActionKindDef] = field(default_factory=dict)
    conditions: dict[str, ConditionKindDef] = field(default_factory=dict)
    problems: list[RegistrationProblem] = field(default_factory=list)
    sources: list[Origin] = field(default_factory=list)  # every source whose hook ran
    origin: Origin = field(default_factory=lambda: Origin(path="<code>"))  # of the hook being called

    # -- what an extension calls ---------------------------------------------------------

    def action(self, name: str, *, perform: Callable[..., Any], args: type[BaseModel] | None = None,
               side_effect: bool = True, target: TargetUse = "none") -> None:
        """Register an action kind. ``side_effect=False`` for one that changes nothing: the same-state
        rule does not count it, a dry run performs it even when critical, and U5 does not ask a critical
        step of it for a strong postcondition. ``target``: whether its steps take an element target."""
        where = _caller()
        problem = (_name_problem(name) or _model_problem(args) or _callable_problem("perform", perform)
                   or _choice_problem("target", target, TARGET_USES) or _bool_problem("side_effect", side_effect))
        if problem is None:
            self._add(name, ActionKindDef(name, args or NoArgs, perform, side_effect, target, self.origin, where), where)
        else:
            self._refuse(name, problem, where)

    def condition(self, name: str, *, check: Callable[..., Any], args: type[BaseModel] | None = None,
                  polled: bool = True, strong: bool = False) -> None:
        """Register a condition kind. ``polled=False`` for one decided in one look; ``strong=True`` for
        one that checks the step's own effect (a row the step wrote): it then counts for U5."""
        where = _caller()
        problem = (_name_problem(name) or _model_problem(args) or _callable_problem("check", check)
                   or _bool_problem("polled", polled) or _bool_problem("strong", strong))
        if problem is None:
            self._add(name, ConditionKindDef(name, args or NoArgs, check, polled, strong, self.origin, where), where)
        else:
            self._refuse(name, problem, where)

    # -- what the validator, the executor and the tools read -------------------------------

    def refusal(self, name: str) -> list[RegistrationProblem]:
        """The problems that keep ``name`` from being used (empty: none)."""
        return [p for p in self.problems if p.name == name]

    def failed_sources(self) -> list[RegistrationProblem]:
        """Sources that failed to load (an entry point's import error): their kinds are unknown."""
        return [p for p in self.problems if p.name is None]

    def known(self) -> str:
        """``x_a (conftest.py), team.b (acme 1.0)``: what a plan may use, for messages."""
        kinds = {**self.actions, **self.conditions}
        return ", ".join(f"{n} ({k.origin.describe()})" for n, k in sorted(kinds.items())) or "none registered"

    def action_row(self, name: str) -> KindRow | None:
        found = self.actions.get(name)
        return found.row if found is not None else None

    def manifest(self) -> list[dict[str, Any]]:
        """The kinds loaded, for the run manifest (``verify`` and ``diff`` compare them)."""
        kinds = [*(("action", d) for d in self.actions.values()), *(("condition", d) for d in self.conditions.values())]
        return [{"name": d.name, "type": t, **d.origin.record()} for t, d in sorted(kinds, key=lambda td: td[1].name)]

    def __bool__(self) -> bool:
        return bool(self.actions or self.conditions or self.problems)

    # -- registering -----------------------------------------------------------------------

    def _add(self, name: str, kind: ActionKindDef | ConditionKindDef, where: str) -> None:
        earlier = self.actions.get(name) or self.conditions.get(name)
        if earlier is not None or self.refusal(name):
            first = earlier.where if earlier is not None else self.refusal(name)[0].where
            self.actions.pop(name, None)
            self.conditions.pop(name, None)
            message = f"kind '{name}' is registered twice (also at {first}): neither is used"
            self._refuse(name, message, where)
            return
        (self.actions if isinstance(kind, ActionKindDef) else self.conditions)[name] = kind

    def _refuse(self, name: Any, message: str, where: str) -> None:
        self.problems.append(RegistrationProblem(name if isinstance(name, str) else repr(name), message, where))

    def source_failed(self, origin: Origin, message: str) -> None:
        """A source (an entry point) that could not be loaded or whose hook raised."""
        self.problems.append(RegistrationProblem(None, message, origin.describe()))


def _name_problem(name: Any) -> str | None:
    if not isinstance(name, str):
        return f"a kind's name must be a string, not {type(name).__name__}"
    if name in BUILT_IN_KINDS:
        return f"kind '{name}' is a built-in kind: an extension cannot replace it (name it x_{name} or <team>.{name})"
    if not is_extension_kind(name):
        return f"kind name '{name}' must be x_<name> or <team>.<name> (lower case, digits, underscores)"
    return None


def _model_problem(args: Any) -> str | None:
    if args is None:
        return None
    if not (isinstance(args, type) and issubclass(args, BaseModel)):
        return f"args must be a pydantic model class, not {args!r}"
    try:
        args.model_json_schema()
    except Exception as exc:  # a model pydantic cannot describe: editors and agents could not use it
        return f"args model {args.__name__} has no JSON schema: {type(exc).__name__}: {exc}"
    return None


def _callable_problem(what: str, value: Any) -> str | None:
    return None if callable(value) else f"{what} must be callable, not {value!r}"


def _choice_problem(what: str, value: Any, choices: tuple[str, ...]) -> str | None:
    return None if value in choices else f"{what} must be one of {', '.join(choices)}, not {value!r}"


def _bool_problem(what: str, value: Any) -> str | None:
    return None if isinstance(value, bool) else f"{what} must be true or false, not {value!r}"


def _caller() -> str:
    """``conftest.py:12``: the registering call (two frames up), relative to the working folder."""
    frame = inspect.currentframe()
    caller = frame.f_back.f_back if frame is not None and frame.f_back is not None else None
    if caller is None:
        return "<unknown>"
    path = caller.f_code.co_filename
    try:
        path = os.path.relpath(path)
    except ValueError:  # another drive
        pass
    return f"{path}:{caller.f_lineno}"


EMPTY = KindRegistry()
_ACTIVE: ContextVar[KindRegistry] = ContextVar("cometlocal_kinds", default=EMPTY)


def active() -> KindRegistry:
    """The registry of the validation or run in progress (empty outside one)."""
    return _ACTIVE.get()


def kind_row(kind: str) -> KindRow | None:
    """The contract's row of an action kind: a built-in's, or one the active registry holds."""
    return KINDS.get(kind) or _ACTIVE.get().action_row(kind)


@contextmanager
def using(registry: KindRegistry | None) -> Iterator[KindRegistry]:
    """Make ``registry`` the active one for a validation or a run."""
    token = _ACTIVE.set(registry if registry is not None else EMPTY)
    try:
        yield _ACTIVE.get()
    finally:
        _ACTIVE.reset(token)
