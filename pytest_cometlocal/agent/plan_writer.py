"""``save_plan``: the steps an agent proposed that passed, as a plan file that validates.

The file holds the session's base URL, allowlist and secret declarations
(references only), the defaults the session filled into every proposal, and
the accepted steps as proposed. It is written only inside the server's
working folder (``contract.load.paths.confine``: no ``..``, no symlink out; an
absolute path is accepted when it names a place inside the working folder, since
an agent often passes the absolute path it knows), only as ``*.actions.yaml``, never over a file this server did
not write itself, and only if the project's own validator accepts it: what
the agent explored runs unchanged under pytest.

``session_plan`` runs the same validator on a session's settings when the
session starts, so a name, an allowlist entry or a secret that no plan could
hold is refused then, not after the agent has done the work; the plan it
validates is where the session's run settings come from.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from pytest_cometlocal.agent.errors import PlanRefused
from pytest_cometlocal.contract.errors import ConfinementError
from pytest_cometlocal.contract.load.paths import DEFAULT_GLOBS, confine
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.model.problems import Problem
from pytest_cometlocal.contract.validate.validated import InvalidPlan, PlanResult, ValidationContext
from pytest_cometlocal.contract.validate.validator import validate_text
from pytest_cometlocal.planners.plan_yaml import DEFAULTS, dump_plan

DESCRIPTION = "Explored by an agent through cometlocal mcp."
SESSION_FILE = "session.actions.yaml"  # where a session's stand-in plan is said to be, for its messages
SUFFIXES = tuple(glob.lstrip("*") for glob in DEFAULT_GLOBS)  # .actions.yaml, .actions.yml


def plan_document(*, name: str, base_url: str, allowlist: list[str] | None, secrets: Mapping[str, str],
                  policy: Policy, steps: list[dict[str, Any]], uploads_root: str | None = None,
                  routes: list[Any] | None = None) -> dict[str, Any]:
    """The plan as a mapping, keys in the order people write them (no allowlist: the plan's default;
    ``routes``: the session's stubs, v1.2)."""
    plan: dict[str, Any] = {"name": name, "description": DESCRIPTION, "base_url": base_url}
    if allowlist is not None:
        plan["allowlist"] = list(allowlist)
    if secrets:
        plan["secrets"] = {n: {"env": var} for n, var in secrets.items()}
    overrides = policy.model_dump(mode="json", exclude_defaults=True)
    if overrides:  # a session under a stricter policy saves a plan under the same one
        plan["policy"] = overrides
    if uploads_root:
        plan["uploads_root"] = uploads_root
    if routes is not None:
        plan["routes"] = routes
    plan["defaults"] = DEFAULTS
    plan["steps"] = steps
    return plan


def problems_of(text: str, workdir: Path, plan_path: Path, env: Mapping[str, str]) -> list[Problem]:
    ctx = ValidationContext(root=workdir, plan_path=plan_path, env=env)
    return [p for r in validate_text(text, ctx, file=plan_path.name) if isinstance(r, InvalidPlan) for p in r.problems]


def session_plan(workdir: Path, *, name: str, base_url: str, allowlist: list[str] | None,
                 secrets: Mapping[str, str], policy: Policy, env: Mapping[str, str],
                 routes: list[Any] | None = None) -> PlanResult:
    """The plan this session could save, with one stand-in step: its settings, checked up front.

    Valid, it is what the session's run settings come from
    (``contract.settings.effective_settings``: the default allowlist, the
    secrets), as a plan file's would; the stand-in step is never run, so it
    names no step's source.
    """
    stand_in = [{"id": "session_settings", "kind": "assert"}]
    text = dump_plan(plan_document(name=name, base_url=base_url, allowlist=allowlist, secrets=secrets,
                                   policy=policy, steps=stand_in, routes=routes))
    ctx = ValidationContext(root=workdir, plan_path=workdir / SESSION_FILE, env=env)
    (result,) = validate_text(text, ctx, file=SESSION_FILE)
    if isinstance(result, InvalidPlan):
        return result
    return replace(result, source=replace(result.source, step_marks={}, step_origins={}))


def check_session(workdir: Path, *, name: str, base_url: str, allowlist: list[str] | None,
                  secrets: Mapping[str, str], policy: Policy, env: Mapping[str, str]) -> list[Problem]:
    """Problems of the plan this session could save (``session_plan``)."""
    result = session_plan(workdir, name=name, base_url=base_url, allowlist=allowlist, secrets=secrets,
                          policy=policy, env=env)
    return list(result.problems) if isinstance(result, InvalidPlan) else []


def save_path(workdir: Path, path: Any) -> Path:
    """Where ``path`` (relative to the working folder, or absolute inside it) is; PATH_REFUSED if it is not
    a plan file in there."""
    if not isinstance(path, str) or not path.endswith(SUFFIXES):
        raise PlanRefused("PATH_REFUSED", f"{path!r}: a plan file's name ends in .actions.yaml")
    try:
        return confine(_within(path, workdir) if os.path.isabs(path) else path, workdir)
    except ConfinementError as exc:
        raise PlanRefused("PATH_REFUSED", f"{path!r}: {exc} (the server's working folder is {workdir})") from None


def _within(path: str, workdir: Path) -> str:
    """An absolute ``path`` as a path relative to the working folder, if it names a place inside it.

    It may spell the folder as given or as resolved, or reach it through a
    symlinked ancestor; ``confine`` then checks the rest (no symlink out).
    """
    absolute = Path(path)
    if ".." in absolute.parts:
        raise ConfinementError(f"'..' in '{path}' is not allowed")
    real = workdir.resolve()
    for base in (workdir, real):
        if absolute.is_relative_to(base):
            return absolute.relative_to(base).as_posix()
    existing = next(p for p in absolute.parents if p.exists())  # "/" exists
    resolved = existing.resolve() / absolute.relative_to(existing)
    if resolved.is_relative_to(real):
        return resolved.relative_to(real).as_posix()
    raise ConfinementError(f"absolute path '{path}' is outside the working folder")


def write_plan(workdir: Path, path: Any, *, name: Any, base_url: str, allowlist: list[str], secrets: Mapping[str, str],
               policy: Policy, steps: list[dict[str, Any]], env: Mapping[str, str], replaceable: set[Path],
               routes: list[Any] | None = None) -> Path:
    """Write the plan and add its path to ``replaceable`` (the files a later save may write over)."""
    target = save_path(workdir, path)
    if target.exists() and target not in replaceable:
        raise PlanRefused("PATH_EXISTS", f"{path!r} exists and was not written by this server: choose another path")
    if target.is_dir():
        raise PlanRefused("PATH_REFUSED", f"{path!r} is a folder")
    if not steps:
        raise PlanRefused("NO_STEPS", "no proposal has passed yet: nothing to save")
    if not isinstance(name, str) or not name.strip():
        raise PlanRefused("INVALID_ARGUMENT", "name must be a non-empty string")
    uploads_root = None
    if any("file_ref" in step for step in steps):
        # Proposals named files relative to the working folder; the plan file's own folder is the default root.
        relative = Path(os.path.relpath(workdir, target.parent)).as_posix()
        uploads_root = None if relative == "." else relative
    text = dump_plan(plan_document(name=name, base_url=base_url, allowlist=allowlist, secrets=secrets, policy=policy,
                                   steps=steps, uploads_root=uploads_root, routes=routes))
    problems = problems_of(text, workdir, target, env)
    if problems:
        raise PlanRefused("INVALID_ACTIONSPEC", "the saved plan would not validate: "
                          + "; ".join(f"{p.format()} [{p.rule}]" for p in problems))
    target.parent.mkdir(parents=True, exist_ok=True)  # resolved already: it is inside the working folder
    target.write_text(text, encoding="utf-8")
    replaceable.add(target)
    return target
