"""The Firefox tests' shared fixture: ``ff_run``, a plan run on the suite's one Firefox (tests/conftest.py
``firefox``), against the ``site`` each module serves."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def ff_run(tmp_path: Path, firefox, site: str):
    """ff_run(yaml_text) -> (RunResult, trace events): the plan run on Firefox, ``{site}`` substituted."""
    from pytest_cometlocal.contract.settings import effective_settings
    from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text
    from pytest_cometlocal.executor.session import run_plan

    def go(text: str) -> tuple[Any, list[dict[str, Any]]]:
        text = textwrap.dedent(text).replace("{site}", site)
        plan_path = tmp_path / "plans" / "t.actions.yaml"
        plan_path.parent.mkdir(parents=True, exist_ok=True)
        plan_path.write_text(text, encoding="utf-8")
        ctx = ValidationContext(root=tmp_path, plan_path=plan_path, env={})
        (plan,) = validate_text(plan_path.read_bytes(), ctx, file="plans/t.actions.yaml")
        if isinstance(plan, InvalidPlan):
            raise AssertionError("\n".join(p.format() for p in plan.problems))
        eff = effective_settings(plan, default_base_url=site, env={})
        result = run_plan(firefox.browser(), plan, tmp_path / "runs", eff, None)
        events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
        return result, events

    return go
