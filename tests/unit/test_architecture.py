"""Layering rules that keep the architecture honest."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_cometlocal"


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_contract_layer_imports_no_browser_and_no_pytest() -> None:
    for path in (PACKAGE / "contract").glob("*.py"):
        bad = {n for n in _imports(path) if n.split(".")[0] in {"playwright", "pytest", "_pytest", "allure"}}
        assert not bad, f"{path.name} imports {bad}"


def test_planners_import_no_browser_and_no_pytest() -> None:
    """A recording is read, never run: the importer needs neither a browser nor pytest."""
    for path in (PACKAGE / "planners").glob("*.py"):
        bad = {n for n in _imports(path) if n.split(".")[0] in {"playwright", "pytest", "_pytest", "allure"}}
        assert not bad, f"{path.name} imports {bad}"


def test_agent_imports_no_pytest_and_only_its_server_imports_mcp() -> None:
    """The agent's session is the executor's, not a pytest item's: no pytest, no plugin layer."""
    for path in (PACKAGE / "agent").glob("*.py"):
        names = {n.split(".")[0] for n in _imports(path)}
        assert not names & {"pytest", "_pytest"}, path.name
        assert ("mcp" in names) == (path.name == "server.py"), path.name
        relative = {node.module for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module}
        assert not {m for m in relative if m.split(".")[0] == "plugin"}, path.name


def test_no_private_pytest_imports_anywhere() -> None:
    for path in PACKAGE.rglob("*.py"):
        assert not any(n.split(".")[0] == "_pytest" for n in _imports(path)), path


def test_executor_layer_imports_no_pytest() -> None:
    """The executor (the session's browser included) is usable without pytest."""
    for path in (PACKAGE / "executor").glob("*.py"):
        bad = {n for n in _imports(path) if n.split(".")[0] in {"pytest", "_pytest"}}
        assert not bad, f"{path.name} imports {bad}"


def test_plugin_modules_stay_small() -> None:
    """The pytest layer stays thin: no module of plugin/ over 450 lines."""
    for path in (PACKAGE / "plugin").glob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 450, f"plugin/{path.name} has {lines} lines"
