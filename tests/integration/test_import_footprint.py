"""What importing a layer loads, seen in a fresh interpreter (a subprocess: this one has pytest loaded).

tests/unit/test_architecture.py reads the import statements; these tests check what
actually ends up in ``sys.modules``.
"""

from __future__ import annotations

import subprocess
import sys


def test_contract_import_loads_no_browser_library() -> None:
    code = (
        "import sys, pytest_cometlocal.contract, pytest_cometlocal.cli, pytest_cometlocal.planners.importer;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('playwright', 'pytest', '_pytest', 'mcp')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_executor_browser_module_loads_no_pytest() -> None:
    code = ("import sys, pytest_cometlocal.executor.browser.manager, pytest_cometlocal.executor.browser.remote;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
