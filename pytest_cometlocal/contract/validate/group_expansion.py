"""Stage 2b of validation: ``use`` steps replaced by their groups' steps, in the plan's tree.

``groups.GroupExpander`` reads and expands the group files; this module is
the glue on the plan's side: it runs the expander over ``steps`` and
``recovery.steps``, maps each expanded step's key path back to its group
file (so a problem in it names the group's line), merges the groups' secret
declarations into the plan's, checks every ``${secrets.X}`` a group step
holds, and lists where the run saves storage states.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

from pytest_cometlocal.contract.validate.collector import ProblemCollector
from pytest_cometlocal.contract.load.step_groups import Expansion, GroupExpander
from pytest_cometlocal.contract.load.interpolation import SECRET_REFERENCE
from pytest_cometlocal.contract.errors import InterpolationError
from pytest_cometlocal.contract.load.safe_yaml import YDict, YList
from pytest_cometlocal.contract.model.plan import Plan, SecretRef
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.validate.validated import ValidationContext


def expand_groups(tree: YDict, col: ProblemCollector, ctx: ValidationContext, file: str,
                  secrets: dict[str, SecretRef], check_secret: Callable[[str], None]) -> Expansion | None:
    """Replace ``use`` steps by their groups' steps; None when the plan uses no group."""
    recovery = tree.get("recovery")
    lists = [("steps", tree, tree.get("steps"))]
    if isinstance(recovery, YDict):
        lists.append(("recovery.steps", recovery, recovery.get("steps")))
    if not any(isinstance(steps, YList) and any(isinstance(s, YDict) and "use" in s for s in steps)
               for _k, _o, steps in lists):
        return None
    root = ctx.root.resolve()

    def show(path: Path) -> str:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return str(path)

    expander = GroupExpander(col, ctx.root, show, ctx.env)
    for key, owner, steps in lists:
        loc: Loc = ("steps",) if key == "steps" else ("recovery", "steps")
        owner["steps"] = expander.expand(steps, loc, tree, file, ctx.plan_dir)
    result = expander.result
    if col.problems:
        return result
    for key, owner, _steps in lists:  # problems in group steps are reported in their group's terms
        for i, node in enumerate(owner["steps"]):
            local = result.group_paths.get(id(node))
            if local is not None:
                col.group_paths[f"{key}[{i}]"] = local
    _merge_secrets(tree, col, result, secrets)
    group_ids = {id(n) for n in result.group_nodes}
    for key, owner, _steps in lists:
        base: Loc = ("steps",) if key == "steps" else ("recovery", "steps")
        for i, node in enumerate(owner["steps"]):
            if id(node) not in group_ids:
                continue
            for sub, text in _strings_with(node, "${secrets."):
                for secret in SECRET_REFERENCE.findall(text):
                    try:
                        check_secret(secret)
                    except InterpolationError as exc:
                        col.add(base + (i,) + sub, str(exc), "INTERPOLATION")
    return result


def _merge_secrets(tree: YDict, col: ProblemCollector, result: Expansion, secrets: dict[str, SecretRef]) -> None:
    """The groups' secret declarations join the plan's (same name, same env, or an INTERPOLATION problem)."""
    if not result.secrets:
        return
    block = tree.get("secrets")
    if not isinstance(block, YDict):
        block = YDict(tree.mark)
        tree["secrets"] = block
        tree.key_marks["secrets"] = tree.value_marks["secrets"] = tree.mark
    for name, (ref, node) in result.secrets.items():
        if name in secrets and secrets[name].env != ref.env:
            col.add((), f"secret '{name}' is declared by the plan with env {secrets[name].env} and by a step "
                    f"group with env {ref.env}", "INTERPOLATION", tree=node)
        elif name not in secrets:
            secrets[name] = ref
            block[name] = node
            block.key_marks[name] = block.value_marks[name] = node.mark


def _strings_with(node: Any, needle: str, loc: Loc = ()) -> Iterable[tuple[Loc, str]]:
    if isinstance(node, str):
        if needle in node:
            yield loc, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _strings_with(v, needle, loc + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings_with(v, needle, loc + (i,))


def storage_saves(plan: Plan, expansion: Expansion | None) -> tuple[tuple[str, str], ...]:
    """(step id, state name): where the run saves storage states, groups first, the plan's own last."""
    step_ids = {s.id for s in plan.steps}
    saves: list[tuple[str, str]] = []
    for node, name in (expansion.saves if expansion else []):
        sid = node.get("id") if isinstance(node, dict) else None
        if sid in step_ids:
            saves.append((sid, name))
    if plan.save_storage_state is not None:
        saves.append((plan.steps[-1].id, plan.save_storage_state))
    return tuple(saves)
