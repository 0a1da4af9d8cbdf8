"""What validation gives: a ValidPlan ready to run, or an InvalidPlan with its located problems.

Both say where the plan is written (PlanSource), so a pytest item, a trace
and ``cometlocal validate`` can all point at the same file and line. An
invalid plan keeps what the runtime still needs to decide its outcome from
the raw document: its ``expect`` (a negative plan passes when it is invalid
as expected), its tags (markers) and the ids of the steps with problems.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping

from pydantic import ValidationError

from pytest_cometlocal.contract.model.actionspec import TAG_PATTERN
from pytest_cometlocal.contract.model.plan import RESERVED_TAGS, Expect, Plan
from pytest_cometlocal.contract.model.problems import Mark, Problem
from pytest_cometlocal.contract.load.suite_config import SuiteConfigFile
from pytest_cometlocal.contract.load.run_vars import RunVar
from pytest_cometlocal.contract.extensions.registry import KindRegistry

# Characters a plan name or a row id cannot hold: they would break pytest's node ids.
UNSAFE_NAME = re.compile(r"::|[\[\]\x00-\x1f\x7f]")
_TAG = re.compile(TAG_PATTERN)
# The key path of a step: "steps[3]" or "recovery.steps[0]".
STEP_PATH = re.compile(r"^(steps|recovery\.steps)\[(\d+)\]")


@dataclass(frozen=True)
class ValidationContext:
    """What validation needs to know beyond the document itself.

    ``root`` confines ``uploads_root`` and every other path (pytest's
    rootdir); ``plan_path`` is the file the plan came from (relative paths
    resolve from its folder); ``env`` is where secrets are looked up;
    ``suite_config`` the suite configuration that applies to the plan;
    ``run_vars`` the vars given for every plan of the run (``--cometlocal-var``),
    below the plan's own vars and its parametrize row; ``extensions`` the kinds
    extensions registered (docs/extensions.md).
    """

    root: Path
    plan_path: Path | None = None
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    suite_config: SuiteConfigFile | None = None
    run_vars: Mapping[str, RunVar] = field(default_factory=dict)
    # (extensions) the kinds the plan may use (contract/extensions/); None: the active registry.
    extensions: KindRegistry | None = field(default=None, compare=False)

    @cached_property
    def plan_dir(self) -> Path:
        """The folder relative paths in the plan start from (resolved once per context)."""
        return (self.plan_path.parent if self.plan_path else self.root).resolve()


@dataclass(frozen=True)
class PlanSource:
    """Where a plan and each of its steps are written."""

    file: str
    doc_index: int
    mark: Mark
    step_marks: Mapping[str, Mark] = field(default_factory=dict)
    # step id -> ("plans/a.actions.yaml:12", "groups/login.steps.yaml:9"): the plan line, then group lines.
    step_origins: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # (v1.2) "browser.timezone", "clock.at", "storage_state", ... -> where written (settings_rules.setting_marks):
    # a setting the browser refuses when the run starts is located there. Not compared: a quick load keeps
    # only where the mappings start (settings_rules.locate_setting finds the exact place from the bytes).
    setting_marks: Mapping[str, Mark] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Row:
    """One row of a parametrized plan: its id (in ``plan[id]``) and its vars."""

    id: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class ValidPlan:
    """A plan that passed every rule: its model (alternatives in U4 order) and where it came from.

    The base URL and the allowlist are not here: they depend on the command
    line and the suite as well, and ``contract.settings.effective_settings``
    is the one place that computes them.
    """

    plan: Plan
    source: PlanSource
    uploads_root: Path
    row: Row | None = None
    # (step id, state name): storage states saved after those steps pass.
    storage_saves: tuple[tuple[str, str], ...] = ()
    # plan key -> "suite" | "plan+suite" | "plan", for the keys the suite config also sets.
    config_sources: Mapping[str, str] = field(default_factory=dict)
    suite_config: str | None = None
    suite_profile: str | None = None  # the suite config's ``profile``, a setting of the runs
    # (v1.4) the suite config's ``browsers``: the matrix its plans run on, when no option or ini sets one
    suite_browsers: tuple[str, ...] | None = None
    # (v1.2) route index -> the bytes of its ``respond.file``, read (and size-bounded) at load time.
    route_files: Mapping[int, bytes] = field(default_factory=dict, repr=False)
    # (v1.2) where screenshot_matches' baselines live: ``<plan file stem>.snapshots`` beside the plan file.
    snapshots: Path | None = None
    # var name -> where its value came from: "row", "plan", "cli" or "ini" (contract/load/run_vars.py).
    var_sources: Mapping[str, str] = field(default_factory=dict)
    # (extensions) the registry the plan was validated with: the run uses the same kinds.
    extensions: KindRegistry | None = field(default=None, compare=False, repr=False)

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
    row: Row | None = None

    @property
    def item_name(self) -> str:
        return f"{self.name}[{self.row.id}]" if self.row else self.name

    @property
    def violated_rules(self) -> list[str]:
        return sorted({p.rule for p in self.problems})

    @classmethod
    def from_raw(cls, raw: Any, fallback_name: str, source: PlanSource, problems: Iterable[Problem],
                 row: Row | None = None) -> "InvalidPlan":
        """An invalid plan with what its raw document still tells: name, expect, tags, failing steps."""
        problems = tuple(problems)
        tags = raw.get("tags") if isinstance(raw, dict) else None
        return cls(raw_name(raw, fallback_name), source, problems, _raw_expect(raw), raw_tags(tags),
                   _problem_steps(raw, problems), row)

    @classmethod
    def unparsable(cls, file: str, problem: Problem) -> "InvalidPlan":
        """A file that cannot be read or parsed: one invalid plan named after the file."""
        return cls(file_stem(file), PlanSource(file, 0, problem.mark),
                   (Problem(file, problem.mark, problem.key_path, problem.message, problem.rule),))

    @classmethod
    def no_plan(cls, file: str) -> "InvalidPlan":
        return cls(file_stem(file), PlanSource(file, 0, Mark(1, 1)), (Problem(file, Mark(1, 1), "", "file holds no plan", "SCHEMA"),))


PlanResult = ValidPlan | InvalidPlan


def raw_name(value: Any, fallback: str) -> str:
    """The plan's ``name`` as written, when it is a usable one."""
    return usable_name(value.get("name") if isinstance(value, dict) else None, fallback)


def usable_name(name: Any, fallback: str) -> str:
    """``name`` if it can name a pytest item, else ``fallback``."""
    if isinstance(name, str) and name.strip() and name == name.strip() and not UNSAFE_NAME.search(name):
        return name
    return fallback


def file_stem(path: str) -> str:
    """Item name for a file that does not parse: the file name without its suffixes."""
    name = Path(path).name
    for suffix in (".actions.yaml", ".actions.yml", ".yaml", ".yml"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return name


def _raw_expect(value: Any) -> Expect | None:
    raw = value.get("expect") if isinstance(value, dict) else None
    try:
        return Expect.model_validate(raw) if raw is not None else None
    except ValidationError:
        return None


def raw_tags(tags: Any) -> tuple[str, ...]:
    """The usable tags of a ``tags`` value as written (markers of an item whose plan may be invalid)."""
    if not isinstance(tags, list):
        return ()
    return tuple(t for t in tags if isinstance(t, str) and _TAG.match(t) and t not in RESERVED_TAGS)


def _problem_steps(raw: Any, problems: Iterable[Problem]) -> tuple[str, ...]:
    """Ids (as written) of the steps the problems are in, for ``expect.step``."""
    found: list[str] = []
    for problem in problems:
        m = STEP_PATH.match(problem.key_path)
        if not m or not isinstance(raw, dict) or problem.via:  # a group's key path is in its own file's terms
            continue
        block = raw.get("steps") if m.group(1) == "steps" else (raw.get("recovery") or {}).get("steps")
        index = int(m.group(2))
        if isinstance(block, list) and index < len(block) and isinstance(block[index], dict):
            sid = block[index].get("id")
            if isinstance(sid, str) and sid not in found:
                found.append(sid)
    return tuple(found)
