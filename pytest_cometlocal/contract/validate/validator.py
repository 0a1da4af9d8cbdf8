"""From a loaded YAML document to a validated Plan, or a list of located problems.

The pipeline of one plan (``_validate_one``), in a fixed order; the stages in
``_STOPPING`` stop the plan at their first problems, the others let the plan
be checked on so that one pass reports all it can (when the model stage finds
problems, the steps that validate on their own still get the step rules):

0. the suite config's values filled in where the plan has none;
1. the shape of the blocks other stages depend on (``vars``, ``secrets``, ``defaults``);
2. interpolation of ``${vars.X}`` and checking of ``${secrets.X}``;
   2b. step groups (``use``) expanded (``group_expansion``);
3. ``defaults`` merged into every step (recovery steps included), keeping the
   position of the default so an error in it points at the ``defaults`` line;
4. the pydantic models (types, unknown keys, required keys);
5. the rules that need context (``rules``): U1-U5, ids, inputs per kind,
   frames, URLs, regular expressions, path confinement.

A parametrized plan is validated once per row (``parametrize``). Problems are
collected by a ``ProblemCollector`` with their line, column and key path;
every one carries a stable rule id (docs/validation-rules.md). The results
are ``ValidPlan`` / ``InvalidPlan`` (``results``); the settings a plan runs
with are computed from a ValidPlan by ``settings.effective_settings``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

from pydantic import TypeAdapter, ValidationError

from pytest_cometlocal.contract.model.checks.audits import snapshots_dir
from pytest_cometlocal.contract.model.actionspec import ActionSpec, StepDefaults
from pytest_cometlocal.contract.validate.collector import ProblemCollector
from pytest_cometlocal.contract.extensions.registry import active, using
from pytest_cometlocal.contract.validate.group_expansion import expand_groups, storage_saves
from pytest_cometlocal.contract.load.interpolation import interpolate, long_key_vars
from pytest_cometlocal.contract.errors import CometLocalError, ConfinementError, InterpolationError, YamlError
from pytest_cometlocal.contract.load.safe_yaml import Document, YDict, YList, copy_tree, load_documents, read_file
from pytest_cometlocal.contract.validate.parametrize import parametrize_rows
from pytest_cometlocal.contract.validate.internal import internal_plan, unreadable_file
from pytest_cometlocal.contract.load.paths import inside_root
from pytest_cometlocal.contract.model.plan import Plan, SecretRef
from pytest_cometlocal.contract.model.problems import Loc, Mark, Problem, SourceMark
from pytest_cometlocal.contract.validate.validated import InvalidPlan, PlanResult, PlanSource, Row, ValidationContext, ValidPlan, file_stem
from pytest_cometlocal.contract.validate.rules import check_plan, check_step, in_u4_order, plan_in_u4_order
from pytest_cometlocal.contract.validate.settings_rules import check_routes, setting_marks
from pytest_cometlocal.contract.load.suite_config import merge_suite_config, suite_setting
from pytest_cometlocal.contract.browsers.rules import suite_browsers  # (v1.4)
from pytest_cometlocal.contract.http.saved import check_saved  # (v1.2) rule SAVED
from pytest_cometlocal.contract.http.seen_rules import check_since  # (v1.3) rule SINCE
from pytest_cometlocal.contract.model.profiles import PROFILES
from pytest_cometlocal.contract.load.tree_edits import interpolate_in_place, merge_defaults

__all__ = [
    "InvalidPlan", "PlanResult", "PlanSource", "Row", "ValidationContext", "ValidPlan", "file_stem",
    "resolve_uploads_root", "validate_action_spec", "validate_document", "validate_documents", "validate_path",
    "validate_text",
]

_VARS = TypeAdapter(Plan.model_fields["vars"].annotation)
_SECRETS = TypeAdapter(dict[str, SecretRef])


class _Stopped(CometLocalError):
    """A stage found problems: the plan is invalid, later stages do not run."""


class _PlanValidation:
    """The state one plan's stages share: its tree, its collector, what earlier stages found."""

    def __init__(self, doc: Document, raw: Any, ctx: ValidationContext, file: str, fallback_name: str,
                 row: Row | None):
        self.doc, self.tree, self.ctx, self.file, self.row = doc, raw, ctx, file, row
        self.fallback_name = fallback_name
        self.col = ProblemCollector(file, raw, doc.mark)
        self.source = PlanSource(file, doc.index, getattr(raw, "mark", doc.mark))
        self.vars: dict[str, Any] = {}
        self.var_sources: dict[str, str] = {}
        self.secrets: dict[str, SecretRef] = {}
        self.defaults: Any = None
        self.config_sources: dict[str, str] = {}
        self.suite_profile: str | None = None
        self.suite_browsers: tuple[str, ...] | None = None  # (v1.4) the suite config's ``browsers``
        self.own_routes = 0  # (v1.2) how many of the routes are the plan's (the suite config's follow)
        self.route_files: dict[int, bytes] = {}
        self.uses_saved = False  # (v1.2) a string of the plan holds ${saved.NAME} (rule SAVED)

    def checkpoint(self) -> None:
        if self.col.problems:
            raise _Stopped

    def invalid(self) -> InvalidPlan:
        return InvalidPlan.from_raw(self.tree, self.fallback_name, self.source, self.col.problems, self.row)

    # Stage 0
    def suite_config(self) -> None:
        """The suite config's values, where the plan has none (their positions name the config file)."""
        suite = self.ctx.suite_config
        if suite is None:
            return
        self.suite_profile, problem = suite_setting(suite, "profile", PROFILES)
        self.suite_browsers, matrix_problem = suite_browsers(suite)
        problems = [p for p in (problem, matrix_problem) if p is not None]
        if suite.problems or problems:
            self.col.problems.extend([*suite.problems, *problems])
            raise _Stopped
        own = self.tree.get("routes")
        self.own_routes = len(own) if isinstance(own, list) else 0
        self.config_sources = merge_suite_config(self.tree, suite)

    # Stage 1
    def blocks(self) -> None:
        """``vars``, ``secrets`` (their environment variables set) and ``defaults``: well formed."""
        raw, col = self.tree, self.col
        suite_tree = self.ctx.suite_config.tree if self.ctx.suite_config is not None else None
        suite_vars, suite_bad = self._vars_of(suite_tree)  # the suite config's own vars (kept out of the plan)
        self.vars, plan_bad = self._vars_of(raw)
        malformed = suite_bad or plan_bad
        if "secrets" in raw:
            try:
                self.secrets = _SECRETS.validate_python(raw["secrets"])
            except ValidationError as exc:
                col.add_pydantic(exc, ("secrets",))
                malformed = True
            for name, ref in self.secrets.items():
                if not self.ctx.env.get(ref.env):
                    col.add(("secrets", name), f"secret '{name}' needs environment variable {ref.env}, which is not set",
                            "SECRET_ENV")
        # Lowest first: the suite config, the run's (ini, then --cometlocal-var), the plan's, a row's.
        run_vars = self.ctx.run_vars
        self.var_sources = {**{n: "suite" for n in suite_vars}, **{n: v.source for n, v in run_vars.items()},
                            **{n: "plan" for n in self.vars}}
        self.vars = {**suite_vars, **{n: v.value for n, v in run_vars.items()}, **self.vars}
        if self.row is not None:
            self.vars = {**self.vars, **self.row.values}  # a row's values win over the plan's vars
            self.var_sources.update({n: "row" for n in self.row.values})
        self.defaults = raw.get("defaults")
        if self.defaults is not None:
            try:
                StepDefaults.model_validate(self.defaults)
            except ValidationError as exc:
                col.add_pydantic(exc, ("defaults",))
                self.defaults = None
                malformed = True  # its steps would only be told the keys it failed to give
        if malformed:
            raise _Stopped

    def _vars_of(self, tree: Any) -> tuple[dict[str, Any], bool]:
        """The ``vars`` of a plan's (or the suite config's) tree, and whether they are unusable (the later
        stages would only mislead); a problem names the file the tree came from."""
        if not isinstance(tree, dict) or "vars" not in tree:
            return {}, False
        col = self.col
        try:
            found = _VARS.validate_python(tree["vars"], strict=True)
        except ValidationError as exc:
            col.add_pydantic(exc, ("vars",), tree=tree)
            return {}, True
        for name, value in found.items():
            if isinstance(value, str) and "${" in value:
                col.add(("vars", name), "var values cannot contain ${...} references", "INTERPOLATION", tree=tree)
            if isinstance(value, float) and not math.isfinite(value):
                col.add(("vars", name), "var values must be finite numbers or strings", "SCHEMA", tree=tree)
        return found, False

    def check_secret(self, secret: str) -> None:
        if secret not in self.secrets:
            known = ", ".join(sorted(self.secrets)) or "none declared"
            raise InterpolationError(f"unknown secret '{secret}' (secrets: {known})")

    # Stage 2
    def interpolation(self) -> None:
        """``${vars.X}`` replaced, ``${secrets.X}`` checked (and kept until run time)."""
        def interp(path: Loc, text: str) -> str:
            if path and path[0] in ("vars", "secrets"):
                return text
            try:
                out = interpolate(text, self.vars, self.check_secret)
            except InterpolationError as exc:
                self.col.add(path, str(exc), "INTERPOLATION")
                return text
            if problem := long_key_vars(path, text, self.vars):
                self.col.add(path, problem, "KEY")
            self.uses_saved = self.uses_saved or "${saved." in out  # (v1.2) rule SAVED has work
            return out

        interpolate_in_place(self.tree, interp)

    # Stage 2b
    def groups(self) -> None:
        """Step groups (``use``), with vars of their own; their secrets join the plan's."""
        self.expansion = expand_groups(self.tree, self.col, self.ctx, self.file, self.secrets, self.check_secret)

    # Stage 3
    def step_defaults(self) -> None:
        """``defaults`` filled into every step and recovery step that lacks the key."""
        tree, defaults = self.tree, self.defaults
        if isinstance(defaults, YDict):
            blocks = [tree.get("steps")]
            recovery = tree.get("recovery")
            if isinstance(recovery, YDict):
                blocks.append(recovery.get("steps"))
            for steps in blocks:
                if isinstance(steps, YList):
                    for i in range(len(steps)):
                        steps[i] = merge_defaults(steps[i], defaults)
        self.col.root = tree

    # Stage 4
    def model(self) -> None:
        try:
            self.plan = Plan.model_validate(self.tree)
        except ValidationError as exc:
            self.col.add_pydantic(exc)
            self.step_rules()
            raise _Stopped from None

    def step_rules(self) -> None:
        """The plan did not validate: every step that does on its own is still held to the step rules,
        so one pass reports a typo in one step and a U2 in another (rules need a valid step)."""
        blocks = [(("steps",), self.tree.get("steps"), False)]
        recovery = self.tree.get("recovery")
        if isinstance(recovery, YDict):
            blocks.append((("recovery", "steps"), recovery.get("steps"), True))
        add = self.col.reporter()
        for loc, nodes, in_recovery in blocks:
            for i, node in enumerate(nodes if isinstance(nodes, YList) else ()):
                try:
                    step = ActionSpec.model_validate(node)
                except ValidationError:
                    continue  # its schema problems are reported already
                check_step(step, loc + (i,), add, uploads_root=None, in_recovery=in_recovery)

    # Stage 5
    def context_rules(self) -> None:
        plan, col = self.plan, self.col
        self.uploads_root: Path | None = None
        try:
            self.uploads_root = resolve_uploads_root(plan.uploads_root, self.ctx.plan_dir, self.ctx.root)
        except ConfinementError as exc:
            col.add(("uploads_root",), str(exc), "PATH_CONFINEMENT")
        check_plan(plan, col.reporter(), self.uploads_root)
        if plan.routes:  # (v1.2) a suite route's file is relative to the suite config's folder
            self.route_files = check_routes(plan.routes, col.reporter(), self.route_folder)
        check_saved(plan, col.reporter(), self.uses_saved or bool(self.expansion and self.expansion.uses_saved))
        check_since(plan, col.reporter())
        self.saves = storage_saves(plan, self.expansion)
        if plan.storage_state is not None and plan.storage_state in {name for _step, name in self.saves}:
            col.add(("storage_state",), f"the plan saves storage state '{plan.storage_state}' itself, so it cannot "
                    "start from it", "STORAGE_STATE")

    def route_folder(self, index: int) -> tuple[Path, str]:
        suite = self.ctx.suite_config
        if index >= self.own_routes and suite is not None:
            return suite.path.resolve().parent, f"the folder of {suite.shown}"
        return self.ctx.plan_dir, "the plan's folder"

    def valid(self) -> ValidPlan:
        plan, tree = self.plan, self.tree
        step_marks: dict[str, Mark] = {}
        step_origins: dict[str, tuple[str, ...]] = {}
        blocks = [(plan.steps, tree["steps"])]
        if plan.recovery:
            blocks.append((plan.recovery.steps, tree["recovery"]["steps"]))
        file = self.file
        for specs, nodes in blocks:
            for step, node, mark in zip(specs, nodes, nodes.item_marks):
                step_marks[step.id] = mark
                node_mark = getattr(node, "mark", None)
                if isinstance(node_mark, SourceMark):  # from a step group: the plan line, then the group lines
                    step_origins[step.id] = node_mark.via + (f"{node_mark.file}:{node_mark.line}",)
                else:
                    step_origins[step.id] = (f"{file}:{mark.line}",)
        source = PlanSource(self.file, self.doc.index, tree.mark, step_marks, step_origins, setting_marks(tree))
        suite = self.ctx.suite_config
        return ValidPlan(plan_in_u4_order(plan), source, self.uploads_root or self.ctx.plan_dir, self.row,
                         storage_saves=self.saves, config_sources=self.config_sources,
                         suite_config=suite.shown if suite is not None else None, suite_profile=self.suite_profile,
                         suite_browsers=self.suite_browsers,
                         route_files=self.route_files, snapshots=snapshots_dir(self.ctx.plan_path),
                         var_sources=dict(sorted(self.var_sources.items())), extensions=active())


_STAGES = ("suite_config", "blocks", "interpolation", "groups", "step_defaults", "model", "context_rules")
# The stages whose problems stop the plan there: later stages would report what follows from them.
# A secret's missing environment variable or an unknown ${vars.X} does not: the plan is checked on,
# so one pass reports every problem that can be found (a problem at a path reported already is not
# reported again).
_STOPPING = frozenset({"suite_config", "groups", "model", "context_rules"})


def _validate_one(doc: Document, raw: Any, ctx: ValidationContext, file: str, fallback_name: str,
                  row: Row | None) -> PlanResult:
    """Validate one plan (one row of a parametrized plan); ``raw`` is consumed."""
    state = _PlanValidation(doc, raw, ctx, file, fallback_name, row)
    if not isinstance(raw, YDict):
        what = "empty" if raw is None else {"YList": "a list", "str": "a string", "int": "a number",
                                             "float": "a number", "bool": "a boolean"}.get(type(raw).__name__, "a scalar")
        state.col.problems.append(Problem(file, doc.mark, "", f"a plan must be a mapping of plan keys, not {what}", "SCHEMA"))
        return state.invalid()
    try:
        for stage in _STAGES:
            before = len(state.col.problems)
            getattr(state, stage)()
            if stage in _STOPPING and len(state.col.problems) > before:
                raise _Stopped
        state.checkpoint()
    except _Stopped:
        return state.invalid()
    return state.valid()


def validate_document(doc: Document, ctx: ValidationContext, file: str, fallback_name: str) -> list[PlanResult]:
    """Validate one YAML document of a plan file: one result, or one per row when parametrized."""
    raw = doc.value
    if isinstance(raw, YDict) and "parametrize" in raw:
        col = ProblemCollector(file, raw, doc.mark)
        rows = parametrize_rows(raw, col, ctx.plan_dir)
        if col.problems:
            return [InvalidPlan.from_raw(raw, fallback_name, PlanSource(file, doc.index, raw.mark), col.problems)]
        return [_guarded_one(doc, raw, ctx, file, fallback_name, row) for row in rows]
    return [_guarded_one(doc, raw, ctx, file, fallback_name, None)]


def _guarded_one(doc: Document, raw: Any, ctx: ValidationContext, file: str, fallback_name: str,
                 row: Row | None) -> PlanResult:
    """``_validate_one``, with an unexpected exception as the INTERNAL problem of this plan (or row) alone."""
    try:
        with using(ctx.extensions if ctx.extensions is not None else active()):  # (extensions) the kinds this plan may use
            return _validate_one(doc, copy_tree(raw) if row is not None else raw, ctx, file, fallback_name, row)
    except Exception as exc:  # the last line of defence (contract/validate/internal.py)
        return internal_plan(raw, file, doc.index, doc.mark, fallback_name, exc, row)


def resolve_uploads_root(value: str | None, plan_dir: Path, root: Path) -> Path:
    """``uploads_root`` is relative to the plan's folder and must stay inside ``root``.

    Unlike ``file_ref``, it may climb with ``..`` (``../fixtures``) as long as
    the resolved folder, symlinks followed, is still inside the suite's root.
    """
    if value is None:
        return plan_dir
    return inside_root(value, plan_dir, root, "folder")


def validate_documents(docs: list[Document], ctx: ValidationContext, file: str) -> list[PlanResult]:
    """Validate every document; also enforce unique plan names within the file."""
    results: list[PlanResult] = []
    names: dict[str, int] = {}
    multi = len(docs) > 1
    for doc in docs:
        fallback = f"document-{doc.index + 1}" if multi else file_stem(file)
        try:
            found = validate_document(doc, ctx, file, fallback)
        except Exception as exc:  # the last line of defence: this document's plan only
            found = [internal_plan(doc.value, file, doc.index, doc.mark, fallback, exc)]
        for result in found:
            if result.name in names and names[result.name] != doc.index:
                result = _renamed_duplicate(result, doc, file, names[result.name])
            else:
                names.setdefault(result.name, doc.index)
            results.append(result)
    if not docs:
        results.append(InvalidPlan.no_plan(file))
    return results


def _renamed_duplicate(result: PlanResult, doc: Document, file: str, first_doc: int) -> InvalidPlan:
    """UNIQUE_NAME: a plan named like an earlier document's is invalid, as ``name@docN``."""
    name_mark = doc.value.value_marks.get("name") if isinstance(doc.value, YDict) else None
    problem = Problem(file, name_mark or result.source.mark, "name",
                      f"plan name '{result.name}' is already used by document {first_doc + 1} of this file", "UNIQUE_NAME")
    invalid = isinstance(result, InvalidPlan)
    return InvalidPlan(
        f"{result.name}@doc{doc.index + 1}",
        result.source,
        (problem,) + (result.problems if invalid else ()),
        result.expect if invalid else result.plan.expect,
        result.tags if invalid else tuple(result.plan.tags),
        result.problem_steps if invalid else (),
        result.row,
    )


def validate_text(text: str | bytes, ctx: ValidationContext, file: str = "<string>") -> list[PlanResult]:
    """Load and validate plan text; a YAML error gives one InvalidPlan named after the file."""
    return _validate_loaded(lambda positions: load_documents(text, file, positions), ctx, file)


def validate_path(path: Path, ctx: ValidationContext, shown: str | None = None) -> list[PlanResult]:
    """Load and validate a plan file."""
    return validate_file(path, ctx, shown)[0]


def validate_file(path: Path, ctx: ValidationContext, shown: str | None = None) -> tuple[list[PlanResult], bytes | None]:
    """Load and validate a plan file; also give the bytes validated (None when unreadable).

    With the bytes, the same plans can be validated again later
    (``validate_text``) exactly as they were, whatever happened to the file since.
    """
    file = shown or str(path)
    try:
        data = read_file(path)
    except YamlError as exc:
        return [InvalidPlan.unparsable(file, exc.problem)], None
    return validate_text(data, ctx, file), data


def _validate_loaded(load: Callable[[bool], list[Document]], ctx: ValidationContext, file: str) -> list[PlanResult]:
    """Validate a quick load first; a file with any problem is loaded and validated again.

    Most files in a suite are valid, and a valid plan needs no position beyond
    its steps' and its name's, so the first pass loads without the positions of
    nested keys (the loader's largest cost). Any problem, YAML error included,
    sends the file through the full load, so every problem is located exactly.
    """
    try:
        results = validate_documents(load(False), ctx, file)
        if not any(isinstance(r, InvalidPlan) for r in results):
            return results
    except Exception:  # YamlError, or anything else: the full load says what it is
        pass
    try:
        docs = load(True)
    except YamlError as exc:
        return [InvalidPlan.unparsable(file, exc.problem)]
    except Exception as exc:  # the last line of defence: the file is one invalid plan
        return [unreadable_file(file, exc)]
    return validate_documents(docs, ctx, file)


def validate_action_spec(raw: Any, *, uploads_root: Path | None = None, file: str = "<proposal>") -> ActionSpec | list[Problem]:
    """Validate one proposed step (from a planner), with the same rules as a plan step."""
    col = ProblemCollector(file, raw, getattr(raw, "mark", Mark(1, 1)))
    try:
        step = ActionSpec.model_validate(raw)
    except ValidationError as exc:
        col.add_pydantic(exc)
        return col.problems
    check_step(step, (), col.reporter(), uploads_root=uploads_root)
    if col.problems:
        return col.problems
    return in_u4_order(step)
