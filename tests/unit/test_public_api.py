"""The package's public API: ``pytest_cometlocal.__all__``, imported lazily, is what the docs' library example uses."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import pytest

import pytest_cometlocal
from tests.executor.test_doc_snippets import SNIPPETS

REQUIRED = {"validate_path", "effective_settings", "run_plan", "RunResult", "ErrorCode", "CometLocalError", "PlanFailed"}


def test_all_names_the_public_api_and_each_name_is_its_defining_modules_object() -> None:
    assert REQUIRED <= set(pytest_cometlocal.__all__)
    assert set(pytest_cometlocal.__all__) == {"__version__", *pytest_cometlocal._PUBLIC}
    for name in pytest_cometlocal.__all__:
        value = getattr(pytest_cometlocal, name)
        if name != "__version__":
            defining = importlib.import_module(pytest_cometlocal._PUBLIC[name])
            assert value is getattr(defining, name), name
        assert name in dir(pytest_cometlocal)
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        pytest_cometlocal.Nothing  # noqa: B018


def test_importing_the_package_and_the_contract_loads_no_playwright_and_no_pytest() -> None:
    """``cometlocal validate`` and the contract never pay for Playwright through the package root."""
    code = (
        "import sys, pytest_cometlocal, pytest_cometlocal.contract\n"
        "from pytest_cometlocal import CometLocalError, ErrorCode, ValidationContext, effective_settings, validate_path\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'playwright', 'pytest', '_pytest'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout
    assert out.strip() == "[]"


def test_the_library_example_imports_only_public_names_of_the_package() -> None:
    (code,) = [code for where, code in SNIPPETS.items() if where.startswith("executor.md:") and "run_plan(" in code]
    imported = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "pytest_cometlocal":
            assert node.module == "pytest_cometlocal", f"the example imports from {node.module}"
            imported += [alias.name for alias in node.names]
        if isinstance(node, ast.Import):
            assert not any(alias.name.startswith("pytest_cometlocal") for alias in node.names)
    assert {"run_plan", "validate_path", "effective_settings"} <= set(imported) <= set(pytest_cometlocal.__all__)
