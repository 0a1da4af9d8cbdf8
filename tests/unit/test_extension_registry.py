"""Issue 48: the KindRegistry, register_all, Extensions (the loader) and StepFailed, without a browser.

What an extension registers is checked when it registers: a bad name, a built-in's name, a name
registered twice, args that are not a pydantic model, a callable that is not one, a bad target or flag
are refused, each a RegistrationProblem located at the registering call (``conftest.py:LINE``), never an
exception. A source that fails to import, or whose hook raises, is recorded as a failed source.
"""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest
from pydantic import BaseModel

from pytest_cometlocal.contract.extensions.failures import EXTENSION_CODES, StepFailed
from pytest_cometlocal.contract.extensions.loading import Extensions, LoadedSource, import_conftest, register_all
from pytest_cometlocal.contract.extensions.registry import KindRegistry, NoArgs, Origin, active, kind_row, using
from pytest_cometlocal.contract.model.codes import ErrorCode


class Args(BaseModel):
    ms: int


def act(ctx):
    return None


def look(ctx):
    return True, None


def here() -> int:
    """The line of the caller's call (registrations are located at the line that calls the registry)."""
    return inspect.currentframe().f_back.f_lineno


def refused(registry: KindRegistry) -> list[tuple[str | None, str]]:
    return [(p.name, p.message) for p in registry.problems]


# ---------------------------------------------------------------------------
# Registering: what is taken, what is refused


def test_a_kind_registered_well_is_taken_with_its_origin_and_defaults() -> None:
    registry = KindRegistry()
    registry.action("x_wait", perform=act, args=Args)
    registry.action("acme.tick", perform=act)
    registry.condition("acme.seen", check=look, polled=False, strong=True)
    assert registry.problems == []
    wait = registry.actions["x_wait"]
    assert (wait.args, wait.side_effect, wait.target, wait.origin) == (Args, True, "none", Origin(path="<code>"))
    assert registry.actions["acme.tick"].args is NoArgs  # no model: args must be empty
    seen = registry.conditions["acme.seen"]
    assert (seen.polled, seen.strong) == (False, True)
    assert registry.action_row("x_wait").side_effect and not registry.action_row("x_wait").resolves_target
    assert registry.action_row("acme.seen") is None  # a condition has no action row
    assert registry.manifest() == [
        {"name": "acme.seen", "type": "condition", "path": "<code>"},
        {"name": "acme.tick", "type": "action", "path": "<code>"},
        {"name": "x_wait", "type": "action", "path": "<code>"}]
    assert registry.known() == "acme.seen (<code>), acme.tick (<code>), x_wait (<code>)"
    assert KindRegistry().known() == "none registered"


def test_the_registry_is_active_only_while_used() -> None:
    registry = KindRegistry()
    registry.action("x_slow", perform=act, side_effect=False, target="required")
    assert kind_row("x_slow") is None and not active()
    with using(registry):
        assert active() is registry
        row = kind_row("x_slow")
        assert row is not None and not row.side_effect and row.resolves_target
        assert kind_row("click") is not None  # the built-ins stay
    assert kind_row("x_slow") is None


@pytest.mark.parametrize("name, says", [
    ("wait", "must be x_<name> or <team>.<name>"),
    ("X_Wait", "must be x_<name> or <team>.<name>"),
    ("x-wait", "must be x_<name> or <team>.<name>"),
    ("acme.", "must be x_<name> or <team>.<name>"),
    ("", "must be x_<name> or <team>.<name>"),
    (42, "a kind's name must be a string, not int"),
    ("click", "kind 'click' is a built-in kind: an extension cannot replace it (name it x_click or <team>.click)"),
    ("url_is", "kind 'url_is' is a built-in kind"),
])
def test_a_bad_or_built_in_name_is_refused_and_located(name: object, says: str) -> None:
    registry = KindRegistry()
    line = here() + 1
    registry.action(name, perform=act)  # type: ignore[arg-type]
    registry.condition(name, check=look)  # type: ignore[arg-type]
    assert registry.actions == {} and registry.conditions == {}
    assert len(registry.problems) == 2
    for problem, at in zip(registry.problems, (line, line + 1)):
        assert says in problem.message, problem
        assert problem.where.endswith(f"test_extension_registry.py:{at}"), problem.where
        assert problem.name == (name if isinstance(name, str) else repr(name))
    assert registry.refusal(name if isinstance(name, str) else repr(name)) == registry.problems


class NotSerialisable(BaseModel):
    model_config = {"arbitrary_types_allowed": True}
    when: type  # a type pydantic cannot describe in a JSON schema


@pytest.mark.parametrize("kwargs, says", [
    ({"args": dict}, "args must be a pydantic model class, not <class 'dict'>"),
    ({"args": Args(ms=1)}, "args must be a pydantic model class, not Args(ms=1)"),
    ({"perform": "act"}, "perform must be callable, not 'act'"),
    ({"perform": None}, "perform must be callable, not None"),
    ({"target": "some"}, "target must be one of none, optional, required, not 'some'"),
    ({"side_effect": "yes"}, "side_effect must be true or false, not 'yes'"),
])
def test_a_bad_action_registration_is_refused(kwargs: dict, says: str) -> None:
    registry = KindRegistry()
    registry.action("x_bad", **{"perform": act, **kwargs})
    assert registry.actions == {}
    assert refused(registry) == [("x_bad", says)]


@pytest.mark.parametrize("kwargs, says", [
    ({"check": 3}, "check must be callable, not 3"),
    ({"args": "Args"}, "args must be a pydantic model class, not 'Args'"),
    ({"polled": 1}, "polled must be true or false, not 1"),
    ({"strong": None}, "strong must be true or false, not None"),
])
def test_a_bad_condition_registration_is_refused(kwargs: dict, says: str) -> None:
    registry = KindRegistry()
    registry.condition("x_bad", **{"check": look, **kwargs})
    assert registry.conditions == {}
    assert refused(registry) == [("x_bad", says)]


def test_an_args_model_without_a_json_schema_is_refused() -> None:
    registry = KindRegistry()
    registry.action("x_odd", perform=act, args=NotSerialisable)
    assert registry.actions == {}
    assert registry.problems[0].message.startswith("args model NotSerialisable has no JSON schema"), refused(registry)


def test_a_name_registered_twice_is_refused_both_times_and_located() -> None:
    """Neither registration is used (which one would win is an accident of import order), and a third
    stays refused; an action and a condition of one name are a duplicate too."""
    registry = KindRegistry()
    first = here() + 1
    registry.action("x_dup", perform=act)
    registry.action("x_dup", perform=act, args=Args)
    registry.action("x_dup", perform=act)
    registry.condition("acme.both", check=look)
    registry.action("acme.both", perform=act)
    assert registry.actions == {} and registry.conditions == {}
    dup = registry.refusal("x_dup")
    assert len(dup) == 2
    assert dup[0].where.endswith(f":{first + 1}") and dup[1].where.endswith(f":{first + 2}")
    assert f"test_extension_registry.py:{first})" in dup[0].message
    assert dup[0].message.startswith("kind 'x_dup' is registered twice (also at ") and "neither is used" in dup[0].message
    assert [p.name for p in registry.refusal("acme.both")] == ["acme.both"]


# ---------------------------------------------------------------------------
# register_all and the loader: sources, located where they register


def _conftest(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "conftest.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


DUPLICATE_AND_CLICK = """\
def act(ctx):
    return None


def pytest_cometlocal_register_kinds(registry):
    registry.action("x_dup", perform=act)
    registry.action("x_ok", perform=act)
    registry.action("x_dup", perform=act)
    registry.action("click", perform=act)
"""


def test_a_conftest_duplicate_and_a_click_shadow_are_located_at_conftest_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = _conftest(tmp_path, DUPLICATE_AND_CLICK)
    source = import_conftest(path, tmp_path)
    assert isinstance(source, LoadedSource) and source.origin == Origin(path="conftest.py")
    registry = register_all([source])
    assert list(registry.actions) == ["x_ok"] and registry.actions["x_ok"].where == "conftest.py:7"
    assert registry.actions["x_ok"].origin == Origin(path="conftest.py")
    assert [(p.name, p.where) for p in registry.problems] == [("x_dup", "conftest.py:8"), ("click", "conftest.py:9")]
    assert registry.problems[0].describe() == (
        "conftest.py:8: kind 'x_dup' is registered twice (also at conftest.py:6): neither is used")
    assert "built-in kind" in registry.problems[1].message
    assert registry.sources == [Origin(path="conftest.py")]


def test_extensions_scope_conftests_by_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan sees the conftests from the root down to its folder, as pytest scopes them: a sub-folder's
    kinds are not seen by a plan in the parent folder."""
    monkeypatch.chdir(tmp_path)
    _conftest(tmp_path, """\
        def pytest_cometlocal_register_kinds(registry):
            registry.action("x_top", perform=lambda ctx: None)
    """)
    _conftest(tmp_path / "sub", """\
        def pytest_cometlocal_register_kinds(registry):
            registry.condition("x_sub", check=lambda ctx: (True, None))
    """)
    (tmp_path / "other").mkdir()
    extensions = Extensions(tmp_path, entry_points=False)
    top = extensions.for_path(tmp_path / "a.actions.yaml")
    sub = extensions.for_path(tmp_path / "sub" / "b.actions.yaml")
    other = extensions.for_path(tmp_path / "other" / "c.actions.yaml")
    assert (list(top.actions), list(top.conditions)) == (["x_top"], [])
    assert (list(sub.actions), list(sub.conditions)) == (["x_top"], ["x_sub"])
    assert sub.conditions["x_sub"].origin == Origin(path="sub/conftest.py")
    assert other is top  # the same conftests: the same registry
    assert extensions.for_path(tmp_path / "sub") is sub  # a folder is its own plans' folder
    assert top.problems == sub.problems == []


def test_a_conftest_that_fails_to_import_or_whose_hook_raises_is_a_failed_source(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _conftest(tmp_path, """\
        def pytest_cometlocal_register_kinds(registry):
            registry.action("x_top", perform=lambda ctx: None)
    """)
    _conftest(tmp_path / "broken", "import not_a_module_anywhere_48\n")
    _conftest(tmp_path / "raising", """\
        def pytest_cometlocal_register_kinds(registry):
            registry.action("x_early", perform=lambda ctx: None)
            raise KeyError("no such setting")
    """)
    extensions = Extensions(tmp_path, entry_points=False)
    broken = extensions.for_path(tmp_path / "broken" / "p.actions.yaml")
    assert list(broken.actions) == ["x_top"]  # the other sources still register
    (failed,) = broken.failed_sources()
    assert failed.where == "broken/conftest.py"
    assert failed.message == ("broken/conftest.py failed to import: ModuleNotFoundError: "
                              "No module named 'not_a_module_anywhere_48'")
    raising = extensions.for_path(tmp_path / "raising" / "p.actions.yaml")
    (failed,) = raising.failed_sources()
    assert (failed.where, failed.name) == ("raising/conftest.py", None)
    assert failed.message == "pytest_cometlocal_register_kinds raised KeyError: 'no such setting'"
    assert "x_early" in raising.actions  # what it registered before raising is kept


class _BadHook:
    """A hook implementation whose arguments the specification has not: pluggy refuses the source."""

    @staticmethod
    def pytest_cometlocal_register_kinds(registry, config):  # noqa: ARG004
        registry.action("x_never", perform=act)


class _NoHook:
    pass


def test_register_all_refuses_a_hook_with_unknown_arguments_and_skips_sources_without_one() -> None:
    good = type("Good", (), {"pytest_cometlocal_register_kinds": staticmethod(
        lambda registry: registry.action("x_good", perform=act))})
    registry = register_all([LoadedSource(_BadHook, Origin(package="acme-bad", version="1.0")),
                             LoadedSource(_NoHook, Origin(path="empty.py")),
                             LoadedSource(good, Origin(package="acme-good", version="2.1"))],
                            failed=[(Origin(package="acme-gone", version="0.1"), "entry point failed to load")])
    assert list(registry.actions) == ["x_good"]
    assert registry.actions["x_good"].origin == Origin(package="acme-good", version="2.1")
    assert registry.manifest() == [{"name": "x_good", "type": "action", "package": "acme-good", "version": "2.1"}]
    assert registry.known() == "x_good (acme-good 2.1)"
    problems = [(p.where, p.message.split(":")[0]) for p in registry.failed_sources()]
    assert problems[0] == ("acme-gone 0.1", "entry point failed to load")
    assert registry.failed_sources()[1].describe() == (
        "acme-bad 1.0: pytest_cometlocal_register_kinds does not match its specification: "
        "Argument(s) {'config'} are declared in the hookimpl but can not be found in the hookspec")
    assert registry.sources == [Origin(package="acme-good", version="2.1")]


# ---------------------------------------------------------------------------
# StepFailed


def test_step_failed_takes_the_codes_of_the_application_only() -> None:
    failed = StepFailed("POSTCONDITION_FAILED", "no row for order 12", {"rows": 0})
    assert (failed.code, failed.message, failed.details, str(failed)) == (
        ErrorCode.POSTCONDITION_FAILED, "no row for order 12", {"rows": 0}, "no row for order 12")
    assert StepFailed(ErrorCode.TARGET_NOT_FOUND, "gone").details == {}
    for code in ("DOMAIN_BLOCKED", "BROWSER_CRASHED", "PAGE_UNRESPONSIVE", "EXTENSION_FAILED", "INVALID_ACTIONSPEC",
                 "postcondition_failed", "NOT_A_CODE", None):
        with pytest.raises(ValueError, match="StepFailed takes one of PRECONDITION_FAILED, POSTCONDITION_FAILED"):
            StepFailed(code, "claimed")  # type: ignore[arg-type]
    assert ErrorCode.DOMAIN_BLOCKED not in EXTENSION_CODES and ErrorCode.EXTENSION_FAILED not in EXTENSION_CODES
