"""``save_plan``: the steps an agent proposed that passed, as a plan file that validates.

The file holds the session's base URL, allowlist and secret declarations
(references only), the defaults the session filled into every proposal, and
the accepted steps as proposed. It is written only inside the server's
working folder, only as ``*.actions.yaml``, and only if the project's own
validator accepts it: what the agent explored runs unchanged under pytest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..contract.results import InvalidPlan, ValidationContext
from ..contract.validator import validate_text
from ..planners.plan_yaml import DEFAULTS, dump_plan

class PlanRefused(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _inside(workdir: Path, path: str) -> Path:
    if not isinstance(path, str) or not path.endswith((".actions.yaml", ".actions.yml")):
        raise PlanRefused("PATH_REFUSED", f"{path!r}: a plan file's name ends in .actions.yaml")
    target = (workdir / path).resolve()
    if not target.is_relative_to(workdir):
        raise PlanRefused("PATH_REFUSED", f"{path!r} is outside the server's working folder {workdir}")
    return target


def write_plan(workdir: Path, path: str, *, name: str, base_url: str, allowlist: list[str],
               secrets: Mapping[str, str], steps: list[dict[str, Any]], env: Mapping[str, str]) -> Path:
    target = _inside(workdir, path)
    if not steps:
        raise PlanRefused("NO_STEPS", "no proposal has passed yet: nothing to save")
    if not isinstance(name, str) or not name.strip():
        raise PlanRefused("INVALID_ARGUMENT", "name must be a non-empty string")
    plan: dict[str, Any] = {"name": name, "description": "Explored by an agent through cometlocal mcp.",
                            "base_url": base_url, "allowlist": list(allowlist)}
    if secrets:
        plan["secrets"] = {n: {"env": var} for n, var in secrets.items()}
    plan["defaults"] = DEFAULTS
    plan["steps"] = steps
    text = dump_plan(plan)
    ctx = ValidationContext(root=workdir, plan_path=target, env=env)
    problems = [p for r in validate_text(text, ctx, file=target.name) if isinstance(r, InvalidPlan) for p in r.problems]
    if problems:
        raise PlanRefused("INVALID_ACTIONSPEC", "the saved plan would not validate: "
                          + "; ".join(f"{p.format()} [{p.rule}]" for p in problems))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target
