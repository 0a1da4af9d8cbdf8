"""The in-page scripts are files: each one read by its room, none left in a Python string.

Whether each file parses in Chromium is tests/executor/test_page_scripts.py.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from pytest_cometlocal.executor.scripts import fill_script, read_script
from tests.unit import package_source

PACKAGE = package_source.PACKAGE
# The demo portal is the application under test of the demo: its pages' own scripts are part of its
# HTML, served to the browser, not scripts the executor evaluates.
APPLICATION_PAGES = PACKAGE / "demo"
LOADERS = {"load_script", "read_script"}
JAVASCRIPT = re.compile(r"=>|\bfunction\s*\(")


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(f.path, f.tree) for f in package_source.python_files()]


@functools.cache
def _loaded_files() -> frozenset[Path]:
    """The files the modules read: ``load_script(__package__, "name.js")`` names ``<module's folder>/scripts/name.js``."""
    loaded = set()
    for path, tree in _modules():
        imported = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                    and node.module == "pytest_cometlocal.executor.scripts" for alias in node.names} & LOADERS
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in imported:
                package, name = node.args[:2]
                assert isinstance(package, ast.Name) and package.id == "__package__", f"{path}:{node.lineno}"
                assert isinstance(name, ast.Constant) and isinstance(name.value, str), f"{path}:{node.lineno}"
                loaded.add(path.parent / "scripts" / name.value)
    return frozenset(loaded)


def test_every_script_file_is_read_by_a_module_of_its_room() -> None:
    files = package_source.script_files()
    assert len(files) >= 17
    assert {f.relative_to(PACKAGE) for f in files - _loaded_files()} == set(), "files no module reads"
    assert {f.relative_to(PACKAGE) for f in _loaded_files() - files} == set(), "files read but missing"


def test_each_file_says_what_it_is_for_and_the_page_gets_the_script_alone() -> None:
    for path in sorted(package_source.script_files()):
        text = path.read_text(encoding="utf-8")
        assert text.startswith("// "), path
        script = read_script(".".join(path.parent.parent.relative_to(PACKAGE.parent).parts), path.name)
        assert not script.startswith("//") and text.rstrip().endswith(script), path


def test_no_javascript_is_left_in_a_python_string() -> None:
    """A script constant is read from a file, and no string of more than one line reads as JavaScript.

    (A one-line expression passed straight to ``evaluate`` is allowed.)
    """
    found = []
    for path, tree in _modules():
        if path.is_relative_to(APPLICATION_PAGES):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value.strip() \
                    and JAVASCRIPT.search(node.value):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} a string of JavaScript")
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Constant, ast.BinOp, ast.JoinedStr)):
                for target in node.targets:
                    if isinstance(target, ast.Name) and re.search(r"(_JS|SCRIPT)$", target.id):
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {target.id} written in Python")
    assert found == []


def test_the_scan_sees_javascript_in_a_string() -> None:
    """The check above would see a script written back into a module."""
    assert JAVASCRIPT.search("(el) => {\n  return el.id;\n}")
    assert JAVASCRIPT.search("const f = function (a) {\n  return a;\n}")
    assert not JAVASCRIPT.search("A docstring: a step's target,\nthen its function.")


def test_a_placeholder_is_filled_with_its_part() -> None:
    assert fill_script("(els) => { const f = $fingerprint$; return f(els[0]); }", fingerprint="(e) => e.id") \
        == "(els) => { const f = (e) => e.id; return f(els[0]); }"
    # A part is put in as it is: a placeholder inside it is not filled again.
    assert fill_script("[$a$, $b$]", a="$b$", b="2") == "[$b$, 2]"
    assert fill_script("const re = /^\\[|\\]$/g;") == "const re = /^\\[|\\]$/g;"


@pytest.mark.parametrize("template, parts", [
    ("const ALLOW = $allowlist$;", {}),
    ("const ALLOW = $allowlist$;", {"allowlist": "[]", "binding": "\"b\""}),
    ("(els) => els.length", {"look": "(a) => a"}),
])
def test_a_script_is_never_half_built(template: str, parts: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="placeholders"):
        fill_script(template, **parts)
