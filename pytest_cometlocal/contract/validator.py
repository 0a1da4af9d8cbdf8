"""From a loaded YAML document to a validated Plan, or a list of located problems.

The order is fixed and each stage only sees what the previous one accepted:

1. shape of the blocks other stages depend on (``vars``, ``secrets``, ``defaults``);
2. interpolation of ``${vars.X}`` and checking of ``${secrets.X}``;
3. ``defaults`` merged into every step (recovery steps included), keeping the
   position of the default so an error in it points at the ``defaults`` line;
4. the pydantic models (types, unknown keys, required keys);
5. the rules that need context: U1-U5, ids, inputs per kind, frames, URLs,
   regular expressions, path confinement.

Every problem carries a stable rule id; docs/validation-rules.md lists them.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping
from urllib.parse import urlsplit

from pydantic import BaseModel, TypeAdapter, ValidationError

from . import conditions as C
from . import targets as T
from .actionspec import (
    DEFAULTABLE_KEYS,
    SINGLE_TARGET_KINDS,
    TARGETLESS_KINDS,
    ActionSpec,
    StepDefaults,
)
from .base import ContractModel
from .interpolation import SECRET_REFERENCE, InterpolationError, interpolate
from .groups import Expansion, GroupExpander
from .loader import Document, YamlError, YDict, YList, copy_tree, load_documents, load_file
from .locate import locate
from .paths import ConfinementError, confine, inside_root
from .plan import RESERVED_TAGS, Expect, Plan, SecretRef
from .problems import Mark, Problem, SourceMark
from .suite import SuiteConfigFile, merge_suite_config
from .tree import interpolate_in_place, merge_defaults

Loc = tuple[Any, ...]

# Codes that a retry or a recovery can never change.
_NOT_RETRYABLE = frozenset({"INVALID_ACTIONSPEC", "POLICY_HALT", "ACTION_CRITICAL_BLOCKED"})
_NAME_FORBIDDEN = re.compile(r"::|[\[\]\x00-\x1f\x7f]")


@dataclass(frozen=True)
class ValidationContext:
    """What validation needs to know beyond the document itself.

    ``root`` confines ``uploads_root`` (pytest's rootdir); ``plan_path`` is
    the file the plan came from (relative paths resolve from its folder);
    ``base_url`` is the command-line override and ``default_base_url`` the
    suite default (ini), so relative URLs can be checked; ``env`` is where
    secrets are looked up.
    """

    root: Path
    plan_path: Path | None = None
    base_url: str | None = None
    default_base_url: str | None = None
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    suite_config: SuiteConfigFile | None = None


@dataclass(frozen=True)
class PlanSource:
    """Where a plan and each of its steps are written."""

    file: str
    doc_index: int
    mark: Mark
    step_marks: Mapping[str, Mark] = field(default_factory=dict)
    # step id -> ("plans/a.actions.yaml:12", "groups/login.steps.yaml:9"): the plan line, then group lines.
    step_origins: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ValidPlan:
    plan: Plan
    source: PlanSource
    base_url: str | None
    allowlist: tuple[str, ...]
    uploads_root: Path
    row: "Row | None" = None
    # (step id, state name): storage states saved after those steps pass.
    storage_saves: tuple[tuple[str, str], ...] = ()
    # plan key -> "suite" | "plan+suite" | "plan", for the keys the suite config also sets.
    config_sources: Mapping[str, str] = field(default_factory=dict)
    suite_config: str | None = None

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def item_name(self) -> str:
        """``name``, or ``name[row-id]`` for one row of a parametrized plan."""
        return f"{self.plan.name}[{self.row.id}]" if self.row else self.plan.name


@dataclass(frozen=True)
class InvalidPlan:
    name: str
    source: PlanSource
    problems: tuple[Problem, ...]
    expect: Expect | None = None
    tags: tuple[str, ...] = ()
    problem_steps: tuple[str, ...] = ()
    row: "Row | None" = None

    @property
    def item_name(self) -> str:
        return f"{self.name}[{self.row.id}]" if self.row else self.name

    @property
    def violated_rules(self) -> list[str]:
        return sorted({p.rule for p in self.problems})


PlanResult = ValidPlan | InvalidPlan


@dataclass(frozen=True)
class Row:
    """One row of a parametrized plan: its id (in ``plan[id]``) and its vars."""

    id: str
    values: Mapping[str, Any]


MAX_ROWS = 1000
_ROW_ID_UNSAFE = re.compile(r"::|[\[\]\x00-\x1f\x7f]")


def _row_id(values: Mapping[str, Any]) -> str:
    return "-".join(str(v) for v in values.values()) or "row"


def _parametrize_rows(raw: YDict, col: "_Collector", plan_dir: Path) -> list[Row]:
    """The rows of ``parametrize`` (rule PARAMETRIZE for anything wrong with them)."""
    import csv
    import io
    import itertools

    spec = raw["parametrize"]
    rows: list[Row] = []
    try:
        TypeAdapter(Plan.model_fields["parametrize"].annotation).validate_python(spec, strict=True)
    except ValidationError as exc:
        col.add_pydantic(exc, ("parametrize",))
        return []
    if isinstance(spec, str):
        try:
            path = confine(spec, plan_dir)
            text = path.read_text(encoding="utf-8-sig")
        except ConfinementError as exc:
            col.add(("parametrize",), f"{exc} (the CSV file must be next to the plan)", "PATH_CONFINEMENT")
            return []
        except (OSError, UnicodeDecodeError) as exc:
            col.add(("parametrize",), f"cannot read {spec}: {getattr(exc, 'strerror', None) or exc}", "PARAMETRIZE")
            return []
        reader = csv.DictReader(io.StringIO(text))
        for name in reader.fieldnames or []:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
                col.add(("parametrize",), f"{spec}: column {name!r} is not a var name", "PARAMETRIZE")
                return []
        table = [dict(r) for r in reader]
        if not table:
            col.add(("parametrize",), f"{spec} has no data rows", "PARAMETRIZE")
            return []
        if any(None in r or any(v is None for v in r.values()) for r in table):
            col.add(("parametrize",), f"{spec}: every row needs a value in every column", "PARAMETRIZE")
            return []
    elif isinstance(spec, dict):
        names = list(spec)
        table = [dict(zip(names, combo)) for combo in itertools.product(*(spec[n] for n in names))]
    else:
        table = [dict(r) for r in spec]
        keys = {frozenset(k for k in r if k != "id") for r in table}
        if len(keys) > 1:
            col.add(("parametrize",), "every row must set the same vars", "PARAMETRIZE")
            return []
    if len(table) > MAX_ROWS:
        col.add(("parametrize",), f"{len(table)} rows; at most {MAX_ROWS}", "PARAMETRIZE")
        return []
    seen: set[str] = set()
    for i, values in enumerate(table):
        given = values.pop("id", None)
        row_id = str(given) if given is not None else _row_id(values)
        if _ROW_ID_UNSAFE.search(row_id) or not row_id.strip():
            col.add(("parametrize",) + ((i,) if isinstance(spec, list) else ()),
                    f"row id {row_id!r} cannot contain '::', brackets or control characters", "PARAMETRIZE")
            return []
        if row_id in seen:
            if given is not None or isinstance(spec, str) and "id" in (table[0] if table else {}):
                col.add(("parametrize",), f"row id {row_id!r} is used twice", "PARAMETRIZE")
                return []
            row_id = f"{row_id}-{i + 1}"
        seen.add(row_id)
        rows.append(Row(row_id, values))
    return rows


def _model_key_sets() -> list[tuple[frozenset[str], dict[str, tuple]]]:
    """Field names of every plan-format model, with the values its ``type``/``kind`` accept."""
    sets: list[tuple[frozenset[str], dict[str, tuple]]] = []
    todo: list[type[BaseModel]] = [ContractModel]
    while todo:
        cls = todo.pop()
        fields = getattr(cls, "model_fields", {})
        if fields:
            tags = {name: typing.get_args(fields[name].annotation) for name in ("type", "kind")
                    if name in fields and typing.get_origin(fields[name].annotation) is typing.Literal}
            sets.append((frozenset(f.alias or name for name, f in fields.items()), tags))
        todo.extend(cls.__subclasses__())
    return sets


_KEY_SETS = _model_key_sets()
_KNOWN_KEYS = sorted(set().union(*(keys for keys, _tags in _KEY_SETS)))


def _node_at(tree: Any, loc: Loc) -> Any:
    """The mapping or list at ``loc``; parts that are not keys (union tags) are skipped."""
    node = tree
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, int):
            return None
    return node


def key_hint(unknown: str, mapping: Any) -> str | None:
    """A close key among the models that fit the mapping (its other keys, its type/kind)."""
    if not isinstance(mapping, dict):
        mapping = {}
    siblings = {k for k in mapping if k != unknown and k in _KNOWN_KEYS}

    def fits(keys: frozenset[str], tags: dict[str, tuple]) -> bool:
        if not siblings <= keys:
            return False
        return all(mapping.get(name) in values for name, values in tags.items() if name in mapping)

    fitting = [keys for keys, tags in _KEY_SETS if fits(keys, tags)] if siblings else []
    candidates = sorted(set().union(*fitting)) if fitting else _KNOWN_KEYS
    hint = [k for k in difflib.get_close_matches(unknown, candidates, n=3) if k != unknown]
    return hint[0] if hint else None


class _Collector:
    """Accumulates problems for one document, located in its YAML tree."""

    def __init__(self, file: str, root: Any, fallback: Mark):
        self.file, self.root, self.fallback = file, root, fallback
        self.problems: list[Problem] = []
        self._seen: dict[str, int] = {}
        # "steps[3]" -> "steps[1]": an expanded group step's key path in its group file.
        self.group_paths: dict[str, str] = {}

    def add(self, loc: Loc, message: str, rule: str, key: bool = False, tree: Any = None, tags: bool = False) -> None:
        mark, path = locate(self.root if tree is None else tree, loc, self.fallback, key=key, tags=tags)
        file, via = self.file, ()
        if isinstance(mark, SourceMark):  # the node came from a step group or the suite config
            file, via = mark.file, mark.via
            m = _STEP_PATH.match(path) if self.group_paths else None
            if m and m.group(0) in self.group_paths:
                path = self.group_paths[m.group(0)] + path[m.end():]
            mark = Mark(mark.line, mark.col)
        seen_key = f"{file}\0{path}"
        if seen_key in self._seen and rule == "SCHEMA":
            # Union members each report the same value; one line is enough.
            prev = self.problems[self._seen[seen_key]]
            if prev.rule == "SCHEMA" and message not in prev.message:
                self.problems[self._seen[seen_key]] = Problem(
                    prev.file, prev.mark, prev.key_path, f"{prev.message}; or {message}", prev.rule, prev.via
                )
            return
        self._seen.setdefault(seen_key, len(self.problems))
        self.problems.append(Problem(file, mark, path, message, rule, via))

    def add_pydantic(self, exc: ValidationError, prefix: Loc = (), tree: Any = None) -> None:
        for err in exc.errors(include_url=False):
            loc = prefix + tuple(err["loc"])
            message, rule, key = _describe(err)
            if err["type"] == "extra_forbidden":
                hint = key_hint(str(loc[-1]), _node_at(self.root if tree is None else tree, loc[:-1]))
                if hint:
                    message += f"; did you mean '{hint}'?"
            self.add(loc, message, rule, key=key, tree=tree, tags=True)


def _describe(err: Mapping[str, Any]) -> tuple[str, str, bool]:
    """A pydantic error as (message, rule, points-at-key) in the plan's words."""
    kind = err["type"]
    loc = err["loc"]
    last = loc[-1] if loc else ""
    ctx = err.get("ctx") or {}
    if kind == "extra_forbidden":
        return f"unknown key '{last}' (unknown keys are rejected)", "SCHEMA", True
    if kind == "missing":
        if last in ("preconditions", "postconditions"):
            return f"'{last}' is required (on the step or in the plan's `defaults`)", "CONDITIONS_REQUIRED", False
        if last in DEFAULTABLE_KEYS:
            return f"'{last}' is required (on the step or in the plan's `defaults`)", "SCHEMA", False
        return f"required key '{last}' is missing", "SCHEMA", False
    if kind == "too_short" and last in ("preconditions", "postconditions"):
        return f"'{last}' must not be empty (after defaults)", "CONDITIONS_REQUIRED", False
    if kind == "too_short":
        return "must not be empty", "SCHEMA", False
    if kind == "union_tag_invalid":
        expected = ctx.get("expected_tags", "")
        disc = str(ctx.get("discriminator", "")).strip("'")
        what = {"type": "target type", "kind": "kind"}.get(disc, disc)
        return f"unknown {what} '{ctx.get('tag')}'; expected one of: {expected}", "SCHEMA", False
    if kind == "union_tag_not_found":
        disc = str(ctx.get("discriminator", "")).strip("'")
        return f"'{disc}' is required here", "SCHEMA", False
    if kind == "literal_error":
        expected = str(ctx.get("expected", ""))
        if len(expected) <= 160:
            return f"must be one of: {expected}", "SCHEMA", False
        options = re.findall(r"'([^']*)'", expected)
        close = difflib.get_close_matches(str(err.get("input")), options, n=3)
        hint = f"; close matches: {', '.join(close)}" if close else ""
        return f"{err.get('input')!r} is not one of the {len(options)} allowed values{hint}", "SCHEMA", False
    if kind == "string_pattern_mismatch":
        return f"{err.get('input')!r} does not match the pattern {ctx.get('pattern')}", "SCHEMA", False
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "must be a mapping", "SCHEMA", False
    if kind == "list_type":
        return "must be a list", "SCHEMA", False
    msg = err.get("msg", kind)
    return msg[0].lower() + msg[1:] if msg else kind, "SCHEMA", False


# ---------------------------------------------------------------------------
# Stage helpers on the raw YAML tree


def _iter_targets(target: Any, loc: Loc) -> Iterable[tuple[Any, Loc, int]]:
    """Every target inside ``target`` with its loc and frame depth."""
    stack: list[tuple[Any, Loc, int]] = []
    if isinstance(target, list):
        stack.extend((t, loc + (i,), 0) for i, t in enumerate(target))
    elif target is not None:
        stack.append((target, loc, 0))
    while stack:
        t, tloc, depth = stack.pop()
        if isinstance(t, T.FrameTarget):
            depth += 1
            yield t, tloc, depth
            stack.append((t.inner, tloc + ("inner",), depth))
        elif isinstance(t, T.NthTarget):
            yield t, tloc, depth
            stack.append((t.base, tloc + ("base",), depth))
        else:
            yield t, tloc, depth


def _is_absolute_http(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


# ---------------------------------------------------------------------------
# Rules on validated models


def check_step(
    step: ActionSpec,
    loc: Loc,
    add,
    *,
    uploads_root: Path | None,
    in_recovery: bool = False,
) -> None:
    """The context rules for one ActionSpec; ``add(loc, message, rule)`` reports."""
    kind = step.kind
    if step.target is None and kind not in TARGETLESS_KINDS:
        add(loc + ("target",), f"'{kind}' needs a target (only assert and stop may omit it)", "TARGET_REQUIRED")
    if kind == "navigate":
        if step.target is not None and not isinstance(step.target, T.UrlTarget):
            add(loc + ("target",), "navigate takes a single {type: url} target", "URL_TARGET")
        elif isinstance(step.target, T.UrlTarget):
            # The scheme and host are checked with any secret replaced by a
            # placeholder: a secret may sit in the path, never decide the scheme.
            url = SECRET_REFERENCE.sub("SECRET", step.target.url)
            parts = urlsplit(url)
            if parts.scheme and parts.scheme not in ("http", "https"):
                add(loc + ("target", "url"), f"scheme '{parts.scheme}' is not allowed; use http or https", "URL")
            elif not parts.scheme and parts.netloc:
                add(loc + ("target", "url"), "scheme-relative URLs ('//host') are not allowed", "URL")
            # A relative URL without a known base URL is not an error here: the
            # base URL may come at run time from a `base_url` fixture.
    else:
        for t, tloc, _d in _iter_targets(step.target, loc + ("target",)):
            if isinstance(t, T.UrlTarget):
                add(tloc, "url targets are only for navigate", "URL_TARGET")
    for phase in ("preconditions", "postconditions"):
        for i, cond in enumerate(getattr(step, phase)):
            for t, tloc, _d in _iter_targets(getattr(cond.args, "target", None), loc + (phase, i, "args", "target")):
                if isinstance(t, T.UrlTarget):
                    add(tloc, "a condition's target cannot be a url (use url_is or url_matches)", "URL_TARGET")

    # Inputs by kind.
    if kind in ("fill", "select"):
        if step.value is None:
            add(loc + ("value",), f"'{kind}' needs a value", "INPUTS")
    elif step.value is not None:
        add(loc + ("value",), f"'value' is not used by '{kind}' (only fill and select)", "INPUTS")
    if kind == "upload":
        if not step.file_refs:
            add(loc + ("file_ref",), "'upload' needs a file_ref", "INPUTS")
        elif uploads_root is not None:
            for i, ref in enumerate(step.file_refs):
                ref_loc = loc + ("file_ref",) + ((i,) if isinstance(step.file_ref, list) else ())
                try:
                    confine(ref, uploads_root)
                except ConfinementError as exc:
                    add(ref_loc, f"{exc} (uploads_root)", "PATH_CONFINEMENT")
    elif step.file_ref is not None:
        add(loc + ("file_ref",), f"'file_ref' is not used by '{kind}' (only upload)", "INPUTS")
    if in_recovery and kind == "stop":
        add(loc + ("kind",), "recovery steps cannot stop the run", "RECOVERY")

    # Targets: U2, U3, frame depth, alternatives (U4).
    all_targets: list[tuple[Any, Loc]] = []
    all_targets.append((step.target, loc + ("target",)))
    for phase in ("preconditions", "postconditions"):
        for i, cond in enumerate(getattr(step, phase)):
            ctarget = getattr(cond.args, "target", None)
            if ctarget is not None:
                all_targets.append((ctarget, loc + (phase, i, "args", "target")))
    rationale = step.metadata.get("target_rationale")
    for spec, sloc in all_targets:
        if isinstance(spec, list):
            seen: dict[str, int] = {}
            for i, alt in enumerate(spec):
                key = alt.model_dump_json()
                if key in seen:
                    add(sloc + (i,), f"alternative {i} repeats alternative {seen[key]}", "U4")
                seen.setdefault(key, i)
        for t, tloc, depth in _iter_targets(spec, sloc):
            if isinstance(t, (T.TextTarget, T.LabelTarget)) and not (t.exact or t.normalize_ws):
                add(tloc, f"a {t.type} target needs exact: true or normalize_ws: true", "U2")
            if isinstance(t, T.FrameTarget):
                if depth > 1:
                    add(tloc, "frames nest one level only", "FRAME_DEPTH")
                if isinstance(t.inner, T.UrlTarget):
                    add(tloc + ("inner",), "a frame's inner target cannot be a url", "URL_TARGET")
            if isinstance(t, T.NthTarget):
                if not isinstance(rationale, str) or not rationale.strip():
                    add(tloc, "an nth target needs metadata.target_rationale on its step", "U3")
                if isinstance(t.base, (T.NthTarget, T.UrlTarget)):
                    add(tloc + ("base",), f"an nth target's base must be a stable element target, not {t.base.type}", "U3")

    # Conditions: targets available, regexes, U1.
    step_has_element_target = step.target is not None and kind != "navigate"
    for phase in ("preconditions", "postconditions"):
        for i, cond in enumerate(getattr(step, phase)):
            cloc = loc + (phase, i)
            ctarget = getattr(cond.args, "target", None)
            if cond.kind in C.ELEMENT_KINDS and ctarget is None and not step_has_element_target:
                add(cloc, f"{cond.kind} needs args.target: this {kind} step has no element target", "CONDITION_TARGET")
            pattern = getattr(cond.args, "pattern", None) if cond.kind == "url_matches" else None
            if cond.kind == "download_started":
                pattern = cond.args.filename
            if pattern is not None:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    add(cloc + ("args",), f"invalid regular expression: {exc}", "REGEX")
            if (
                cond.kind == "element_count_equals"
                and ctarget is None
                and kind in SINGLE_TARGET_KINDS
                and cond.args.count != 1
            ):
                add(cloc + ("args", "count"), f"'{kind}' needs exactly one element (U1); count {cond.args.count} contradicts it", "U1")

    # U5.
    if step.criticality == "critical" and not any(C.is_strong(c) for c in step.postconditions):
        add(
            loc + ("postconditions",),
            "a critical step needs a strong postcondition (url_is, url_matches, download_started, "
            "upload_completed, or toast_contains/element_text_contains with severity critical)",
            "U5",
        )
    try:
        json.dumps(step.metadata, allow_nan=False)
    except ValueError:
        add(loc + ("metadata",), "metadata must be JSON-serialisable (no NaN or infinity)", "SCHEMA")


def _check_plan(plan: Plan, add, uploads_root: Path | None) -> None:
    if _NAME_FORBIDDEN.search(plan.name) or plan.name != plan.name.strip():
        add(("name",), "a plan name cannot contain '::', brackets, control characters or surrounding spaces", "NAME")
    for i, tag in enumerate(plan.tags):
        if tag in RESERVED_TAGS:
            add(("tags", i), f"'{tag}' is one of pytest's own markers and cannot be a plan tag", "TAG_NAME")
    if plan.base_url is not None and not _is_absolute_http(plan.base_url):
        add(("base_url",), "base_url must be an absolute http(s) URL", "URL")
    ids: dict[str, Loc] = {}
    steps = [(s, ("steps", i), False) for i, s in enumerate(plan.steps)]
    if plan.recovery:
        steps += [(s, ("recovery", "steps", i), True) for i, s in enumerate(plan.recovery.steps)]
        for i, code in enumerate(plan.recovery.on_error):
            if code in _NOT_RETRYABLE:
                add(("recovery", "on_error", i), f"{code} cannot be recovered from", "RECOVERY")
    for step, loc, in_recovery in steps:
        if step.id in ids:
            add(loc + ("id",), f"step id '{step.id}' is already used", "UNIQUE_ID")
        ids.setdefault(step.id, loc)
        check_step(step, loc, add, uploads_root=uploads_root, in_recovery=in_recovery)
    for i, code in enumerate(plan.policy.retry_on):
        if code in _NOT_RETRYABLE:
            add(("policy", "retry_on", i), f"{code} cannot be retried", "POLICY")
    if plan.auth_signals and plan.auth_signals.url_pattern is not None:
        try:
            re.compile(plan.auth_signals.url_pattern)
        except re.error as exc:
            add(("auth_signals", "url_pattern"), f"invalid regular expression: {exc}", "REGEX")
    if plan.expect and plan.expect.step is not None and plan.expect.step not in ids:
        add(("expect", "step"), f"no step has id '{plan.expect.step}'", "EXPECT")


# ---------------------------------------------------------------------------
# Entry points


_VARS = TypeAdapter(Plan.model_fields["vars"].annotation)
_SECRETS = TypeAdapter(dict[str, SecretRef])


def _raw_name(value: Any, fallback: str) -> str:
    name = value.get("name") if isinstance(value, dict) else None
    if isinstance(name, str) and name.strip() and name == name.strip() and not _NAME_FORBIDDEN.search(name):
        return name
    return fallback


def _raw_expect(value: Any) -> Expect | None:
    raw = value.get("expect") if isinstance(value, dict) else None
    try:
        return Expect.model_validate(raw) if raw is not None else None
    except ValidationError:
        return None


def _raw_tags(value: Any) -> tuple[str, ...]:
    tags = value.get("tags") if isinstance(value, dict) else None
    if not isinstance(tags, list):
        return ()
    return tuple(t for t in tags if isinstance(t, str) and re.fullmatch(r"[a-z][a-z0-9_]*", t) and t not in RESERVED_TAGS)


_STEP_PATH = re.compile(r"^(steps|recovery\.steps)\[(\d+)\]")


def _problem_steps(raw: Any, problems: Iterable[Problem]) -> tuple[str, ...]:
    """Ids (as written) of the steps the problems are in, for ``expect.step``."""
    found: list[str] = []
    for problem in problems:
        m = _STEP_PATH.match(problem.key_path)
        if not m or not isinstance(raw, dict) or problem.via:  # a group's key path is in its own file's terms
            continue
        block = raw.get("steps") if m.group(1) == "steps" else (raw.get("recovery") or {}).get("steps")
        index = int(m.group(2))
        if isinstance(block, list) and index < len(block) and isinstance(block[index], dict):
            sid = block[index].get("id")
            if isinstance(sid, str) and sid not in found:
                found.append(sid)
    return tuple(found)


def validate_document(doc: Document, ctx: ValidationContext, file: str, fallback_name: str) -> list[PlanResult]:
    """Validate one YAML document of a plan file: one result, or one per row when parametrized."""
    raw = doc.value
    if isinstance(raw, YDict) and "parametrize" in raw:
        col = _Collector(file, raw, doc.mark)
        plan_dir = (ctx.plan_path.parent if ctx.plan_path else ctx.root).resolve()
        rows = _parametrize_rows(raw, col, plan_dir)
        if col.problems:
            source = PlanSource(file, doc.index, raw.mark)
            problems = tuple(col.problems)
            return [InvalidPlan(_raw_name(raw, fallback_name), source, problems, _raw_expect(raw), _raw_tags(raw),
                                _problem_steps(raw, problems))]
        return [_validate_one(doc, copy_tree(raw), ctx, file, fallback_name, row) for row in rows]
    return [_validate_one(doc, raw, ctx, file, fallback_name, None)]


def _validate_one(doc: Document, raw: Any, ctx: ValidationContext, file: str, fallback_name: str,
                  row: Row | None) -> PlanResult:
    """Validate one plan (one row of a parametrized plan); ``raw`` is consumed."""
    col = _Collector(file, raw, doc.mark)
    name = _raw_name(raw, fallback_name)
    source = PlanSource(file, doc.index, getattr(raw, "mark", doc.mark))

    def invalid() -> InvalidPlan:
        problems = tuple(col.problems)
        return InvalidPlan(name, source, problems, _raw_expect(raw), _raw_tags(raw), _problem_steps(raw, problems), row)

    if not isinstance(raw, YDict):
        what = "empty" if raw is None else {"YList": "a list", "str": "a string", "int": "a number",
                                             "float": "a number", "bool": "a boolean"}.get(type(raw).__name__, "a scalar")
        col.problems.append(Problem(file, doc.mark, "", f"a plan must be a mapping of plan keys, not {what}", "SCHEMA"))
        return invalid()

    # Stage 0: the suite config's values, where the plan has none (positions name the config file).
    config_sources: dict[str, str] = {}
    suite = ctx.suite_config
    if suite is not None:
        if suite.problems:
            col.problems.extend(suite.problems)
            return invalid()
        config_sources = merge_suite_config(raw, suite)

    # Stage 1: the blocks interpolation and merging depend on.
    vars_: dict[str, Any] = {}
    secrets: dict[str, SecretRef] = {}
    if "vars" in raw:
        try:
            vars_ = _VARS.validate_python(raw["vars"], strict=True)
        except ValidationError as exc:
            col.add_pydantic(exc, ("vars",))
        for name_, value in vars_.items():
            if isinstance(value, str) and "${" in value:
                col.add(("vars", name_), "var values cannot contain ${...} references", "INTERPOLATION")
            if isinstance(value, float) and not math.isfinite(value):
                col.add(("vars", name_), "var values must be finite numbers or strings", "SCHEMA")
    if "secrets" in raw:
        try:
            secrets = _SECRETS.validate_python(raw["secrets"])
        except ValidationError as exc:
            col.add_pydantic(exc, ("secrets",))
        for name_, ref in secrets.items():
            if not ctx.env.get(ref.env):
                col.add(
                    ("secrets", name_),
                    f"secret '{name_}' needs environment variable {ref.env}, which is not set",
                    "SECRET_ENV",
                )
    if row is not None:
        vars_ = {**vars_, **row.values}  # a row's values win over the plan's vars
    defaults = raw.get("defaults")
    if defaults is not None:
        try:
            StepDefaults.model_validate(defaults)
        except ValidationError as exc:
            col.add_pydantic(exc, ("defaults",))
            defaults = None
    if col.problems:
        return invalid()

    # Stage 2: interpolation.
    def check_secret(secret: str) -> None:
        if secret not in secrets:
            known = ", ".join(sorted(secrets)) or "none declared"
            raise InterpolationError(f"unknown secret '{secret}' (secrets: {known})")

    def interp(path: Loc, text: str) -> str:
        if path and path[0] in ("vars", "secrets"):
            return text
        try:
            return interpolate(text, vars_, check_secret)
        except InterpolationError as exc:
            col.add(path, str(exc), "INTERPOLATION")
            return text

    tree = raw
    interpolate_in_place(tree, interp)
    if col.problems:
        return invalid()

    # Stage 2b: step groups (``use``), with vars of their own; their secrets join the plan's.
    plan_dir = (ctx.plan_path.parent if ctx.plan_path else ctx.root).resolve()
    expansion = _expand_groups(tree, col, ctx, file, plan_dir, secrets, check_secret)
    if col.problems:
        return invalid()

    # Stage 3: defaults.
    if isinstance(defaults, YDict):
        if isinstance(tree.get("steps"), YList):
            steps = tree["steps"]
            for i in range(len(steps)):
                steps[i] = merge_defaults(steps[i], defaults)
        recovery = tree.get("recovery")
        if isinstance(recovery, YDict) and isinstance(recovery.get("steps"), YList):
            rsteps = recovery["steps"]
            for i in range(len(rsteps)):
                rsteps[i] = merge_defaults(rsteps[i], defaults)
    col.root = tree

    # Stage 4: models.
    try:
        plan = Plan.model_validate(tree)
    except ValidationError as exc:
        col.add_pydantic(exc)
        return invalid()

    # Stage 5: context rules.
    uploads_root: Path | None = None
    try:
        uploads_root = resolve_uploads_root(plan.uploads_root, plan_dir, ctx.root)
    except ConfinementError as exc:
        col.add(("uploads_root",), str(exc), "PATH_CONFINEMENT")
    effective_base = ctx.base_url or plan.base_url or ctx.default_base_url
    _check_plan(plan, lambda loc, msg, rule: col.add(loc, msg, rule), uploads_root)
    saves = _storage_saves(plan, expansion)
    if plan.storage_state is not None and plan.storage_state in {name for _step, name in saves}:
        col.add(("storage_state",), f"the plan saves storage state '{plan.storage_state}' itself, so it cannot "
                "start from it", "STORAGE_STATE")
    if col.problems:
        return invalid()

    step_marks: dict[str, Mark] = {}
    step_origins: dict[str, tuple[str, ...]] = {}
    blocks = [(plan.steps, tree["steps"])]
    if plan.recovery:
        blocks.append((plan.recovery.steps, tree["recovery"]["steps"]))
    for specs, nodes in blocks:
        for i, step in enumerate(specs):
            step_marks[step.id] = nodes.item_marks[i]
            node_mark = getattr(nodes[i], "mark", None)
            if isinstance(node_mark, SourceMark):  # from a step group: the plan line, then the group lines
                step_origins[step.id] = node_mark.via + (f"{node_mark.file}:{node_mark.line}",)
            else:
                step_origins[step.id] = (f"{file}:{nodes.item_marks[i].line}",)
    allowlist: tuple[str, ...]
    if plan.allowlist is not None:
        allowlist = tuple(h.lower() for h in plan.allowlist)
    elif effective_base and _is_absolute_http(effective_base):
        allowlist = ((urlsplit(effective_base).hostname or "").lower(),)
    else:
        allowlist = ()
    source = PlanSource(file, doc.index, tree.mark, step_marks, step_origins)
    ordered = _u4_sorted(plan)
    return ValidPlan(ordered, source, effective_base, allowlist, uploads_root or plan_dir, row,
                     storage_saves=saves, config_sources=config_sources,
                     suite_config=suite.shown if suite is not None else None)


def _expand_groups(tree: YDict, col: _Collector, ctx: ValidationContext, file: str, plan_dir: Path,
                   secrets: dict[str, SecretRef], check_secret) -> Expansion | None:
    """Replace ``use`` steps by their groups' steps (stage 2b); None when the plan uses no group."""
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
        owner["steps"] = expander.expand(steps, loc, tree, file, plan_dir)
    result = expander.result
    if col.problems:
        return result
    for key, owner, _steps in lists:  # problems in group steps are reported in their group's terms
        for i, node in enumerate(owner["steps"]):
            local = result.group_paths.get(id(node))
            if local is not None:
                col.group_paths[f"{key}[{i}]"] = local
    if result.secrets:
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


def _storage_saves(plan: Plan, expansion: Expansion | None) -> tuple[tuple[str, str], ...]:
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


def resolve_uploads_root(value: str | None, plan_dir: Path, root: Path) -> Path:
    """``uploads_root`` is relative to the plan's folder and must stay inside ``root``.

    Unlike ``file_ref``, it may climb with ``..`` (``../fixtures``) as long as
    the resolved folder, symlinks followed, is still inside the suite's root.
    """
    if value is None:
        return plan_dir
    return inside_root(value, plan_dir, root, "folder")


def _u4_sorted(plan: Plan) -> Plan:
    """Alternatives in U4 order (stable for equal types), so the executor just iterates."""

    def fix(step: ActionSpec) -> ActionSpec:
        return _u4_step(step)

    steps = [fix(s) for s in plan.steps]
    update: dict[str, Any] = {"steps": steps}
    if plan.recovery:
        update["recovery"] = plan.recovery.model_copy(update={"steps": [fix(s) for s in plan.recovery.steps]})
    return plan.model_copy(update=update)


def _u4_step(step: ActionSpec) -> ActionSpec:
    """The step with every list of alternatives (its own, its conditions') in U4 order."""
    update: dict[str, Any] = {}
    if isinstance(step.target, list):
        ordered = sorted(step.target, key=T.u4_rank)
        if ordered != list(step.target):
            update["target"] = ordered
    for phase in ("preconditions", "postconditions"):
        conditions = list(getattr(step, phase))
        changed = False
        for i, cond in enumerate(conditions):
            target = getattr(cond.args, "target", None)
            if isinstance(target, list):
                ordered = sorted(target, key=T.u4_rank)
                if ordered != list(target):
                    conditions[i] = cond.model_copy(update={"args": cond.args.model_copy(update={"target": ordered})})
                    changed = True
        if changed:
            update[phase] = conditions
    return step.model_copy(update=update) if update else step


def file_stem(path: str) -> str:
    """Item name for a file that does not parse: the file name without its suffixes."""
    name = Path(path).name
    for suffix in (".actions.yaml", ".actions.yml", ".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return name


def validate_documents(docs: list[Document], ctx: ValidationContext, file: str) -> list[PlanResult]:
    """Validate every document; also enforce unique plan names within the file."""
    results: list[PlanResult] = []
    names: dict[str, int] = {}
    multi = len(docs) > 1
    for doc in docs:
        fallback = f"document-{doc.index + 1}" if multi else file_stem(file)
        for result in validate_document(doc, ctx, file, fallback):
            if result.name in names and names[result.name] != doc.index:
                name_mark = doc.value.value_marks.get("name") if isinstance(doc.value, YDict) else None
                problem = Problem(
                    file,
                    name_mark or result.source.mark,
                    "name",
                    f"plan name '{result.name}' is already used by document {names[result.name] + 1} of this file",
                    "UNIQUE_NAME",
                )
                result = InvalidPlan(
                    f"{result.name}@doc{doc.index + 1}",
                    result.source,
                    (problem,) + (result.problems if isinstance(result, InvalidPlan) else ()),
                    result.expect if isinstance(result, InvalidPlan) else result.plan.expect,
                    result.tags if isinstance(result, InvalidPlan) else tuple(result.plan.tags),
                    result.problem_steps if isinstance(result, InvalidPlan) else (),
                    result.row,
                )
            else:
                names.setdefault(result.name, doc.index)
            results.append(result)
    if not docs:
        results.append(
            InvalidPlan(file_stem(file), PlanSource(file, 0, Mark(1, 1)), (Problem(file, Mark(1, 1), "", "file holds no plan", "SCHEMA"),))
        )
    return results


def validate_text(text: str | bytes, ctx: ValidationContext, file: str = "<string>") -> list[PlanResult]:
    """Load and validate plan text; a YAML error gives one InvalidPlan named after the file."""
    try:
        docs = load_documents(text, file)
    except YamlError as exc:
        return [InvalidPlan(file_stem(file), PlanSource(file, 0, exc.problem.mark), (exc.problem,))]
    return validate_documents(docs, ctx, file)


def validate_path(path: Path, ctx: ValidationContext, shown: str | None = None) -> list[PlanResult]:
    """Load and validate a plan file."""
    file = shown or str(path)
    try:
        docs = load_file(path)
    except YamlError as exc:
        problem = Problem(file, exc.problem.mark, exc.problem.key_path, exc.problem.message, exc.problem.rule)
        return [InvalidPlan(file_stem(file), PlanSource(file, 0, problem.mark), (problem,))]
    return validate_documents(docs, ctx, file)


def validate_action_spec(raw: Any, *, uploads_root: Path | None = None, file: str = "<proposal>") -> ActionSpec | list[Problem]:
    """Validate one proposed step (from a planner), with the same rules as a plan step."""
    fallback = getattr(raw, "mark", Mark(1, 1))
    col = _Collector(file, raw, fallback)
    try:
        step = ActionSpec.model_validate(raw)
    except ValidationError as exc:
        col.add_pydantic(exc)
        return col.problems
    check_step(step, (), lambda loc, msg, rule: col.add(loc, msg, rule), uploads_root=uploads_root)
    if col.problems:
        return col.problems
    return _u4_step(step)
