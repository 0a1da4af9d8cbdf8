"""Reusable step groups: ``- use: groups/login.steps.yaml`` expanded at load time.

What runs is always a flat list of ActionSpecs: a ``use`` step is replaced by
the group's steps before defaults, models and rules see the plan, so a group
step is validated exactly like a step written in the plan. The expansion:

* resolves the group path from the folder of the file that names it, confined
  to the suite's root folder like ``uploads_root`` (it may climb with ``..``,
  never leave the root, symlinks included);
* gives the group its own vars: the group's ``vars`` (defaults) overridden by
  the ``with`` values of the ``use`` step, which are written, and interpolated,
  in the using file's scope; a group never sees the plan's vars;
* prefixes every step id with the ``use`` step's ``id`` (default: the group
  file's stem), so ``login.sign_in`` stays unique and says where it came from;
* fills the group's own ``defaults`` into its steps (the plan's ``defaults``
  come after, for what is still missing);
* expands nested ``use`` steps, with a bounded depth, and refuses cycles;
* keeps every position as a SourceMark of the group file with the chain of
  ``file:line`` places that used it, so a problem names both the group line
  and the plan line, and so does the trace at run time.

Problems are INVALID_ACTIONSPEC problems like any other, with rule GROUP
(missing file, cycle, depth, unused ``with`` values), PATH_CONFINEMENT,
SCHEMA or INTERPOLATION.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pydantic import TypeAdapter, ValidationError

from pytest_cometlocal.contract.model.actionspec import STEP_ID_PATTERN, StepDefaults
from pytest_cometlocal.contract.load.interpolation import REFERENCE, interpolate, long_key_vars
from pytest_cometlocal.contract.errors import ConfinementError, InterpolationError, YamlError
from pytest_cometlocal.contract.load.safe_yaml import YDict, YList, copy_tree, load_file
from pytest_cometlocal.contract.load.paths import inside_root
from pytest_cometlocal.contract.model.plan import GROUP_KEYS, GROUP_SUFFIXES, STATE_NAME, STATE_NAME_PATTERN, VAR_NAME, VAR_NAME_PATTERN, RowValue, SecretRef
from pytest_cometlocal.contract.model.problems import Loc, Mark, Problem, SourceMark
from pytest_cometlocal.contract.load.tree_edits import interpolate_in_place, merge_defaults

MAX_GROUP_DEPTH = 8
MAX_EXPANDED_STEPS = 10_000
_CACHE_SIZE = 512

_VARS = TypeAdapter(dict[str, RowValue])
_SECRETS = TypeAdapter(dict[str, SecretRef])
_STEP_ID = re.compile(STEP_ID_PATTERN)
_USE_KEYS = ("use", "id", "with")


def group_stem(path: str) -> str:
    """``groups/login.steps.yaml`` -> ``login``: the default id prefix of a group's steps."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in GROUP_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


class _GroupCache:
    """Loaded group files by path, size and mtime: a suite that uses one login group in
    hundreds of plans reads and parses it once per process."""

    def __init__(self) -> None:
        self._entries: dict[Path, tuple[tuple[int, int], Any]] = {}

    def load(self, path: Path, shown: str) -> Any:
        stat = path.stat()
        key = (stat.st_size, stat.st_mtime_ns)
        hit = self._entries.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        docs = load_file(path)  # YamlError names the group file already
        if len(docs) != 1:
            raise YamlError(Problem(shown, docs[1].mark if len(docs) > 1 else Mark(1, 1), "",
                                    f"a step group file holds exactly one YAML document, not {len(docs)}", "GROUP"))
        if len(self._entries) >= _CACHE_SIZE:
            self._entries.pop(next(iter(self._entries)))
        self._entries[path] = (key, docs[0].value)
        return docs[0].value


GROUP_CACHE = _GroupCache()


@dataclass(frozen=True)
class _Scope:
    """Where a list of steps is written and what its ``${vars.X}`` mean."""

    file: str                   # shown path of the file that holds the list
    dir: Path                   # its folder, resolved
    via: tuple[str, ...]        # the use places that led here, outermost first
    chain: tuple[Path, ...]     # group files being expanded (cycle check)


@dataclass
class Expansion:
    """What expanding one plan's ``use`` steps produced besides the steps themselves."""

    secrets: dict[str, tuple[SecretRef, Any]] = field(default_factory=dict)  # name -> (ref, node for errors)
    saves: list[tuple[Any, str]] = field(default_factory=list)  # (last step node of a group, state name)
    group_paths: dict[int, str] = field(default_factory=dict)   # id(step node) -> key path in its group file
    group_nodes: list[Any] = field(default_factory=list)       # every step node that came from a group
    used: bool = False
    uses_saved: bool = False  # (v1.2) a group step holds ${saved.NAME}: rule SAVED has work to do


class GroupExpander:
    """Expands the ``use`` steps of one plan (its ``steps`` and ``recovery.steps``)."""

    def __init__(self, collector: Any, root: Path, show: Callable[[Path], str],
                 env: Any, cache: _GroupCache = GROUP_CACHE):
        self.col = collector    # a collector.ProblemCollector: add() and add_pydantic() with tree=
        self.add = collector.add
        self.root = root
        self.show = show
        self.env = env
        self.cache = cache
        self.result = Expansion()
        self.count = 0

    def expand(self, steps: Any, loc: Loc, tree: Any, plan_file: str, plan_dir: Path) -> Any:
        """The plan's list ``steps`` with every ``use`` step replaced; positions kept."""
        if not isinstance(steps, YList) or not any(isinstance(s, YDict) and "use" in s for s in steps):
            return steps
        self.result.used = True
        out = self._expand(steps, loc, tree, _Scope(plan_file, plan_dir, (), ()))
        return out

    # -- internals -----------------------------------------------------------

    def _expand(self, steps: YList, loc: Loc, tree: Any, scope: _Scope) -> YList:
        out = YList(steps.mark)
        for i, item in enumerate(steps):
            if isinstance(item, YDict) and "use" in item:
                for node in self._use(item, loc + (i,), tree, scope):
                    out.append(node)
                    out.item_marks.append(steps.item_marks[i])
            else:
                if scope.via:  # a plain step of a group: remember its path there
                    self.result.group_paths[id(item)] = f"steps[{i}]"
                    self.result.group_nodes.append(item)
                out.append(item)
                out.item_marks.append(steps.item_marks[i])
        return out

    def _use(self, item: YDict, loc: Loc, tree: Any, scope: _Scope) -> list[Any]:
        add = self.add
        if self.count > MAX_EXPANDED_STEPS:
            return []  # the limit is reported once: nothing more is read, copied or expanded
        ok = True
        for key in item:
            if key not in _USE_KEYS:
                add(loc + (key,), f"unknown key '{key}' in a use step (it takes use, id and with)", "SCHEMA",
                    key=True, tree=tree)
                ok = False
        use = item["use"]
        if not isinstance(use, str) or not use.strip() or use.strip() != use:
            add(loc + ("use",), "must be the path of a *.steps.yaml file", "GROUP", tree=tree)
            return []
        if not use.endswith(GROUP_SUFFIXES):
            add(loc + ("use",), f"'{use}' is not a step group: its name must end with .steps.yaml or .steps.yml",
                "GROUP", tree=tree)
            return []
        prefix = item.get("id", group_stem(use))
        if not isinstance(prefix, str) or not _STEP_ID.match(prefix):
            add(loc + ("id",) if "id" in item else loc + ("use",),
                f"{prefix!r} cannot prefix step ids (it must match {STEP_ID_PATTERN})", "SCHEMA", tree=tree)
            ok = False
        with_values = self._with_values(item, loc, tree)
        if with_values is None or not ok:
            return []
        site = f"{scope.file}:{item.mark.line}"
        try:
            path = inside_root(use, scope.dir, self.root, 'file')
        except ConfinementError as exc:
            add(loc + ("use",), str(exc), "PATH_CONFINEMENT", tree=tree)
            return []
        shown = self.show(path)
        if path in scope.chain:
            cycle = " -> ".join(scope.via + (site, shown))
            add(loc + ("use",), f"step groups use each other in a cycle: {cycle}", "GROUP", tree=tree)
            return []
        if len(scope.chain) >= MAX_GROUP_DEPTH:
            add(loc + ("use",), f"step groups nest deeper than {MAX_GROUP_DEPTH} levels: "
                + " -> ".join(scope.via + (site, shown)), "GROUP", tree=tree)
            return []
        via = scope.via + (site,)
        try:
            raw = self.cache.load(path, shown)
        except FileNotFoundError:
            add(loc + ("use",), f"step group file {shown} does not exist"
                + (f" (used via {' -> '.join(scope.via)})" if scope.via else ""), "GROUP", tree=tree)
            return []
        except OSError as exc:
            add(loc + ("use",), f"cannot read step group file {shown}: {exc.strerror}", "GROUP", tree=tree)
            return []
        except YamlError as exc:
            p = exc.problem
            # Reported in the group file, with the chain that used it.
            problem_file_tree = YDict(SourceMark(p.mark.line, p.mark.col, shown, via))
            add((), p.message, p.rule, tree=problem_file_tree)
            return []
        planned = len(raw["steps"]) if isinstance(raw, YDict) and isinstance(raw.get("steps"), list) else 0
        if self.count + planned > MAX_EXPANDED_STEPS:  # counted before the group is copied
            self.count += planned
            add(loc + ("use",), f"step groups expand to more than {MAX_EXPANDED_STEPS} steps", "GROUP", tree=tree)
            return []
        group = copy_tree(raw, file=shown, via=via)
        return self._group_steps(group, shown, path, via, with_values, prefix, scope)

    def _with_values(self, item: YDict, loc: Loc, tree: Any) -> dict[str, Any] | None:
        values = item.get("with", {})
        if values is None:
            return {}
        if not isinstance(values, dict):
            self.add(loc + ("with",), "must be a mapping of var name -> string or number", "SCHEMA", tree=tree)
            return None
        good = True
        for name, value in values.items():
            if not VAR_NAME.fullmatch(name):
                self.add(loc + ("with", name), f"'{name}' is not a var name ({VAR_NAME_PATTERN})", "SCHEMA",
                         key=True, tree=tree)
                good = False
            elif isinstance(value, bool) or not isinstance(value, (str, int, float)) or (
                    isinstance(value, float) and not math.isfinite(value)):
                self.add(loc + ("with", name), "must be a string or a finite number", "SCHEMA", tree=tree)
                good = False
        return dict(values) if good else None

    def _group_steps(self, group: Any, shown: str, path: Path, via: tuple[str, ...], with_values: dict[str, Any],
                     prefix: str, scope: _Scope) -> list[Any]:
        add = self.add
        if not isinstance(group, YDict):
            add((), "a step group must be a mapping with a 'steps' list", "GROUP",
                tree=YDict(getattr(group, "mark", None) or SourceMark(1, 1, shown, via)))
            return []
        bad = False
        for key in group:
            if key not in GROUP_KEYS:
                add((key,), f"unknown key '{key}' in a step group (it takes {', '.join(GROUP_KEYS)})", "SCHEMA",
                    key=True, tree=group)
                bad = True
        steps = group.get("steps")
        if not isinstance(steps, YList) or not steps:
            add(("steps",) if "steps" in group else (), "a step group needs a non-empty 'steps' list", "GROUP",
                tree=group)
            return []
        own_vars: dict[str, Any] = {}
        if "vars" in group:
            try:
                own_vars = _VARS.validate_python(group["vars"], strict=True)
            except ValidationError as exc:
                self.col.add_pydantic(exc, ("vars",), tree=group)
                bad = True
            for name in own_vars:
                if not VAR_NAME.fullmatch(name):
                    add(("vars", name), f"'{name}' is not a var name ({VAR_NAME_PATTERN})", "SCHEMA", key=True,
                        tree=group)
                    bad = True
                elif isinstance(own_vars[name], str) and "${" in own_vars[name]:
                    add(("vars", name), "var values cannot contain ${...} references", "INTERPOLATION", tree=group)
                    bad = True
        if "secrets" in group:
            bad = not self._merge_secrets(group) or bad
        defaults = group.get("defaults")
        if defaults is not None:
            try:
                StepDefaults.model_validate(defaults)
            except ValidationError as exc:
                self.col.add_pydantic(exc, ("defaults",), tree=group)
                bad = True
        save = group.get("save_storage_state")
        if save is not None and not (isinstance(save, str) and STATE_NAME.match(save)):
            add(("save_storage_state",), f"must be a state name matching {STATE_NAME_PATTERN}", "SCHEMA", tree=group)
            bad = True
        if bad:
            return []

        # A var named in the group's description (the words saying what it does with it) is used, as one in a
        # step's metadata is: a ``with`` value for it is not a typo.
        used = _var_names(steps) | _var_names(group.get("description"))
        unused = sorted(set(with_values) - used - set(own_vars))
        if unused:
            add(("steps",), f"'with' sets {', '.join(unused)}, which the group does not use"
                f" (it uses: {', '.join(sorted(used | set(own_vars))) or 'no vars'})", "GROUP", tree=group)
            return []
        vars_ = {**own_vars, **with_values}
        errors_before = len(self.col.problems)

        def interp(loc: Loc, text: str) -> str:
            try:
                out = interpolate(text, vars_, lambda _name: None, secrets_in_vars=True)
            except InterpolationError as exc:
                add(loc, str(exc), "INTERPOLATION", tree=group)
                return text
            if problem := long_key_vars(loc, text, vars_):
                add(loc, problem, "KEY", tree=group)
            if "${saved." in out:
                self.result.uses_saved = True
            return out

        interpolate_in_place(steps, interp, ("steps",))
        if len(self.col.problems) != errors_before:
            return []
        expanded = self._expand(steps, ("steps",), group, _Scope(shown, path.parent, via, scope.chain + (path,)))
        self.count += len(expanded)
        if self.count > MAX_EXPANDED_STEPS:
            if self.count - len(expanded) <= MAX_EXPANDED_STEPS:  # reported once
                add(("steps",), f"step groups expand to more than {MAX_EXPANDED_STEPS} steps", "GROUP", tree=group)
            return []
        nodes: list[Any] = []
        local = {node["id"] for node in expanded if isinstance(node, YDict) and isinstance(node.get("id"), str)}
        for node in expanded:
            if isinstance(defaults, YDict):
                merge_defaults(node, defaults)
            if isinstance(node, YDict) and isinstance(node.get("id"), str):
                node["id"] = f"{prefix}.{node['id']}"
                _prefix_since(node, local, prefix)
            nodes.append(node)
        if save is not None and nodes:
            self.result.saves.append((nodes[-1], save))
        return nodes

    def _merge_secrets(self, group: YDict) -> bool:
        try:
            declared = _SECRETS.validate_python(group["secrets"])
        except ValidationError as exc:
            self.col.add_pydantic(exc, ("secrets",), tree=group)
            return False
        good = True
        for name, ref in declared.items():
            if not VAR_NAME.fullmatch(name):
                self.add(("secrets", name), f"'{name}' is not a secret name ({VAR_NAME_PATTERN})", "SCHEMA",
                         key=True, tree=group)
                good = False
                continue
            known = self.result.secrets.get(name)
            if known is not None and known[0].env != ref.env:
                self.add(("secrets", name), f"secret '{name}' is already declared with env {known[0].env}, "
                         f"not {ref.env}", "INTERPOLATION", tree=group)
                good = False
                continue
            if not self.env.get(ref.env):
                self.add(("secrets", name), f"secret '{name}' needs environment variable {ref.env}, which is not set",
                         "SECRET_ENV", tree=group)
                good = False
                continue
            self.result.secrets[name] = (ref, group["secrets"][name])
        return good


def _var_names(node: Any) -> set[str]:
    """Names of the ``${vars.X}`` references anywhere in ``node``."""
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if "${" in current:
                for inner in REFERENCE.findall(current):
                    inner = inner.strip()
                    if inner.startswith("vars."):
                        names.add(inner[5:])
        elif isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return names



def _prefix_since(node: YDict, local: set[str], prefix: str) -> None:
    """(v1.3) A request_seen's ``since`` naming a step of the same group names it by its expanded id, as the
    group's steps get theirs (``<use id>.<id>``); one naming a step outside the group is left as written."""
    for phase in ("preconditions", "postconditions"):
        for cond in node.get(phase) or ():
            args = cond.get("args") if isinstance(cond, YDict) and cond.get("kind") == "request_seen" else None
            if isinstance(args, YDict) and isinstance(args.get("since"), str) and args["since"] in local:
                args["since"] = f"{prefix}.{args['since']}"
