"""Shared helpers for the test suite."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_cometlocal.contract.validator import InvalidPlan, ValidationContext, ValidPlan, validate_text

# A minimal valid plan; tests change one thing in it at a time.
VALID_PLAN = """\
name: minimal
base_url: http://127.0.0.1:8000
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
  - id: go
    kind: click
    target: {type: testid, id: go}
"""


@pytest.fixture(scope="session")
def chromium():
    """The suite's one Chromium (a BrowserManager: ``chromium.browser()``).

    Playwright's sync API allows one instance per thread, so every browser
    test in this process shares it.
    """
    from pytest_cometlocal.executor.browser import BrowserManager

    manager = BrowserManager({"headless": True}, None)
    yield manager
    manager.close()


@pytest.fixture
def plan_dir(tmp_path: Path) -> Path:
    """A suite root with a plans/ folder inside it."""
    (tmp_path / "plans").mkdir()
    return tmp_path


@pytest.fixture
def validate(plan_dir: Path):
    """validate(text, env=...) -> list of ValidPlan | InvalidPlan.

    The text is dedented and written to plans/p.actions.yaml under a temporary
    suite root, so path rules behave as in a real suite.
    """

    def run(text: str, *, env: dict | None = None, name: str = "p.actions.yaml"):
        path = plan_dir / "plans" / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        ctx = ValidationContext(root=plan_dir, plan_path=path, env=env or {})
        return validate_text(path.read_bytes(), ctx, file=f"plans/{name}")

    return run


def only_problems(results) -> InvalidPlan:
    """Assert there is exactly one plan and it is invalid; return it."""
    assert len(results) == 1, results
    result = results[0]
    assert isinstance(result, InvalidPlan), f"expected invalid, got valid plan {result.name}"
    return result


def only_valid(results) -> ValidPlan:
    assert len(results) == 1, results
    result = results[0]
    if isinstance(result, InvalidPlan):
        raise AssertionError("plan is invalid:\n" + "\n".join(p.format() for p in result.problems))
    return result
