"""One exception tree: every class the package raises derives from CometLocalError, and the
errors modules' docstrings draw the tree they hold."""

from __future__ import annotations

import importlib
import inspect
from types import ModuleType

import pytest

from pytest_cometlocal.contract import errors as contract_errors
from pytest_cometlocal.contract.errors import CometLocalError
from tests.unit import package_source

# Outside the tree on purpose: SIGTERM turned into Ctrl-C must stay out of every ``except Exception``.
NOT_IN_TREE = {"pytest_cometlocal.plugin.interrupts.Terminated"}

ERRORS_MODULES = ["pytest_cometlocal.contract.errors", "pytest_cometlocal.executor.errors",
                  "pytest_cometlocal.plugin.reporting.errors", "pytest_cometlocal.planners.errors",
                  "pytest_cometlocal.agent.errors", "pytest_cometlocal.targets_cli.errors"]


def _modules() -> tuple[ModuleType, ...]:
    return package_source.library_modules()


def _defined_exceptions(module: ModuleType) -> list[type[BaseException]]:
    """The exception classes a module defines (the code classes of plugin.reporting.errors print as builtins)."""
    return [obj for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, BaseException)
            and (obj.__module__ == module.__name__ or (obj.__module__ == "builtins" and issubclass(obj, CometLocalError)))]


def test_every_exception_class_of_the_package_derives_from_comet_local_error() -> None:
    found = {f"{module.__name__}.{cls.__qualname__}": cls for module in _modules() for cls in _defined_exceptions(module)}
    assert len(found) > 30  # the walk found the package's classes
    outside = sorted(name for name, cls in found.items() if not issubclass(cls, CometLocalError))
    assert outside == sorted(NOT_IN_TREE)


@pytest.mark.parametrize("module_name", ERRORS_MODULES)
def test_each_errors_module_draws_its_branch(module_name: str) -> None:
    module = importlib.import_module(module_name)
    doc = module.__doc__ or ""
    for cls in _defined_exceptions(module):
        if cls.__module__ == "builtins":
            continue  # the code classes: one per ErrorCode, drawn as ``TARGET_NOT_FOUND, ...``
        assert cls.__name__ in doc, f"{module_name}'s docstring does not draw {cls.__name__}"
        assert issubclass(cls, CometLocalError)


def test_the_root_docstring_draws_the_whole_tree() -> None:
    doc = contract_errors.__doc__ or ""
    for module in _modules():
        for cls in _defined_exceptions(module):
            if issubclass(cls, CometLocalError) and cls.__module__ != "builtins" and not cls.__name__.startswith("_"):
                assert cls.__name__ in doc, f"contract/errors.py's tree misses {module.__name__}.{cls.__name__}"


@pytest.mark.parametrize(("name", "builtin"), [
    ("contract.errors.InterpolationError", ValueError), ("contract.errors.ConfinementError", ValueError),
    ("contract.errors.RootdirError", ValueError), ("executor.errors.OutputWriteFailed", OSError),
    ("executor.errors.ChromiumNotFound", RuntimeError), ("executor.errors.RemoteBrowserUnavailable", RuntimeError),
    ("planners.errors.NotAScript", ValueError), ("planners.errors.CannotMap", ValueError),
    ("planners.errors.ImportFailed", ValueError), ("agent.errors.PlanRefused", ValueError),
])
def test_classes_keep_the_builtin_their_callers_catch(name: str, builtin: type[BaseException]) -> None:
    module_name, cls_name = name.rsplit(".", 1)
    cls = getattr(importlib.import_module(f"pytest_cometlocal.{module_name}"), cls_name)
    assert issubclass(cls, builtin) and issubclass(cls, CometLocalError)


def test_output_write_failed_is_still_an_os_error_naming_the_file(tmp_path) -> None:
    from pytest_cometlocal.executor.errors import OutputWriteFailed

    exc = OutputWriteFailed(tmp_path / "trace.jsonl", OSError(28, "No space left on device"))
    assert exc.errno == 28 and str(exc) == f"[Errno 28] No space left on device: '{tmp_path / 'trace.jsonl'}'"
