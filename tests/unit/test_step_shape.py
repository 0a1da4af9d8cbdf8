"""The step's flow keeps the shape docs/executor.md gives it ("One step"; issue 38, item 3).

``Executor._attempt`` reads as that list: short, and with one source of the
step's target (``Prepared.settle``, step/target.py), decided by one
``prepare``. These fail when a second source or an out-parameter creeps back.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit import package_source

EXECUTOR = package_source.PACKAGE / "executor"
ATTEMPT_MAX_LINES = 45


def _tree(path: Path) -> ast.Module:
    """The module's tree, from the package read the self-inspection tests share (package_source.py)."""
    (tree,) = [f.tree for f in package_source.python_files() if f.path == path]
    return tree


def _function(path: Path, qualname: str) -> ast.FunctionDef:
    tree = _tree(path)
    cls, name = qualname.split(".")
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    return item
    raise AssertionError(f"{qualname} not found in {path}")


def _called_names(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def test_attempt_is_short_and_takes_its_look_and_target_from_prepare() -> None:
    attempt = _function(EXECUTOR / "engine.py", "Executor._attempt")
    assert attempt.end_lineno - attempt.lineno + 1 <= ATTEMPT_MAX_LINES
    called = _called_names(attempt)
    assert {"prepare", "settle"} <= called
    # No other source of the target or of the "before" look in the step's flow.
    assert not called & {"resolve_step_target", "look_and_match", "before", "before_ahead"}


def test_the_target_is_resolved_in_one_place_of_the_step() -> None:
    callers = [f.path.relative_to(EXECUTOR).as_posix() for f in package_source.python_files()
               if f.path.is_relative_to(EXECUTOR) and "resolve_step_target" in _called_names(f.tree)]
    assert callers == ["step/target.py"]
    settle = _function(EXECUTOR / "step" / "target.py", "Prepared.settle")
    assert "resolve_step_target" in _called_names(settle)
