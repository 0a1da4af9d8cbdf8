"""What collection needs of a plan file, read without validating the plans.

Collection must say which items a file holds (one per plan, one per row of a
parametrized plan), their names and markers, whether each expects an error,
and which storage states each starts from or saves (so the plans that save a
state run first). None of that needs the plans validated, and validation is
most of the cost beyond parsing; a pytest item validates its plan from the
bytes read here when it sets up (``plugin/collection.py``), so a run validates
each plan once.

The keys read here are read as validation reads them, with ``${vars.X}``
(the plan's vars and the row's) substituted: ``name``, ``tags``, ``expect``,
``parametrize``, ``storage_state``, ``save_storage_state``, and the
``save_storage_state`` of every step group the plan's steps use. Where a key is
malformed the plan is invalid anyway: the outline then holds what the raw
document still tells (as ``InvalidPlan.from_raw`` does), and the item fails
with INVALID_ACTIONSPEC when it runs. An item finds its validated plan again
by position (document, row), never by name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Mapping

from pydantic import ValidationError

from pytest_cometlocal.contract.validate.collector import ProblemCollector
from pytest_cometlocal.contract.load.step_groups import GROUP_CACHE, MAX_EXPANDED_STEPS, MAX_GROUP_DEPTH
from pytest_cometlocal.contract.load.interpolation import interpolate
from pytest_cometlocal.contract.errors import ConfinementError, InterpolationError, YamlError
from pytest_cometlocal.contract.load.safe_yaml import Document, YDict, load_documents
from pytest_cometlocal.contract.validate.parametrize import parametrize_rows
from pytest_cometlocal.contract.validate.internal import unreadable_file
from pytest_cometlocal.contract.load.paths import inside_root
from pytest_cometlocal.contract.model.plan import STATE_NAME, Expect
from pytest_cometlocal.contract.validate.validated import InvalidPlan, PlanResult, Row, ValidationContext, file_stem, raw_tags, usable_name

__all__ = ["PlanOutline", "outline_text"]


@dataclass(frozen=True, slots=True)
class PlanOutline:
    """One item of a plan file, as collection knows it: where its plan is, what it is called, what it needs."""

    name: str
    doc_index: int
    row_id: str | None
    line: int
    tags: tuple[str, ...]
    expect: Expect | None
    storage_state: str | None
    storage_saves: tuple[str, ...]  # names of the states the plan saves

    @property
    def item_name(self) -> str:
        return f"{self.name}[{self.row_id}]" if self.row_id is not None else self.name

    def finds(self, result: PlanResult) -> bool:
        """Is ``result`` the validation of this item's plan (same document, same row)?"""
        return result.source.doc_index == self.doc_index and (result.row.id if result.row else None) == self.row_id


def outline_text(data: bytes, ctx: ValidationContext, file: str) -> list[PlanOutline | InvalidPlan]:
    """The items of a plan file's bytes; an InvalidPlan for a file that does not parse or holds no plan."""
    try:
        docs = load_documents(data, file, positions=False)
    except Exception:
        try:  # loaded again with every position, so the problem is located exactly
            load_documents(data, file, positions=True)
        except YamlError as exc:
            return [InvalidPlan.unparsable(file, exc.problem)]
        except Exception as exc:  # the last line of defence (contract/validate/internal.py)
            return [unreadable_file(file, exc)]
        raise  # pragma: no cover - the quick load never fails where the full one passes
    if not docs:
        return [InvalidPlan.no_plan(file)]
    outlines: list[PlanOutline | InvalidPlan] = []
    first_doc: dict[str, int] = {}
    multi = len(docs) > 1
    for doc in docs:
        fallback = f"document-{doc.index + 1}" if multi else file_stem(file)
        try:
            found = _document(doc, ctx, file, fallback)
        except Exception:  # one item; validating it when it runs reports the problem (INTERNAL at worst)
            found = [PlanOutline(fallback, doc.index, None, getattr(doc.value, "mark", doc.mark).line,
                                 (), None, None, ())]
        for outline in found:
            if first_doc.setdefault(outline.name, doc.index) != doc.index:
                # UNIQUE_NAME, as validation names it: the item fails with that problem when it runs.
                outline = replace(outline, name=f"{outline.name}@doc{doc.index + 1}")
            outlines.append(outline)
    return outlines


def _document(doc: Document, ctx: ValidationContext, file: str, fallback: str) -> list[PlanOutline]:
    raw = doc.value
    line = getattr(raw, "mark", doc.mark).line
    if not isinstance(raw, YDict):
        return [PlanOutline(fallback, doc.index, None, line, (), None, None, ())]
    rows: list[Row | None] = [None]
    if "parametrize" in raw:
        col = ProblemCollector(file, raw, doc.mark)
        found = parametrize_rows(raw, col, ctx.plan_dir)
        if not col.problems:  # otherwise one item, invalid when it runs
            rows = list(found)
    suite = ctx.suite_config.tree if ctx.suite_config is not None and ctx.suite_config.tree is not None else {}
    plan_vars = {**_plain_vars(suite.get("vars")), **{n: v.value for n, v in ctx.run_vars.items()},
                 **_plain_vars(raw.get("vars"))}
    outlines = []
    for row in rows:
        vars_ = {**plan_vars, **row.values} if row is not None else plan_vars
        name = usable_name(_interpolated(raw.get("name"), vars_), fallback)
        state = _state_name(raw.get("storage_state"), vars_)
        saves = tuple(_group_saves(raw.get("steps"), ctx.plan_dir, ctx.root, vars_, (), [MAX_EXPANDED_STEPS]))
        own = _state_name(raw.get("save_storage_state"), vars_)
        outlines.append(PlanOutline(
            name, doc.index, row.id if row is not None else None, line,
            raw_tags([_interpolated(t, vars_) for t in raw["tags"]] if isinstance(raw.get("tags"), list) else None),
            _expect(raw.get("expect"), vars_), state, saves + ((own,) if own else ())))
    return outlines


def _plain_vars(value: Any) -> dict[str, Any]:
    """The vars a value can be substituted from (validation refuses the plan if any is malformed)."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}


def _interpolated(value: Any, vars_: Mapping[str, Any]) -> Any:
    """``value`` with its vars substituted, as validation's stage 2 does; as written when it cannot be."""
    if not isinstance(value, str) or "${" not in value:
        return value
    try:
        return interpolate(value, vars_, lambda _secret: None)
    except InterpolationError:
        return value


def _state_name(value: Any, vars_: Mapping[str, Any]) -> str | None:
    value = _interpolated(value, vars_)
    return value if isinstance(value, str) and STATE_NAME.match(value) else None


def _expect(value: Any, vars_: Mapping[str, Any]) -> Expect | None:
    if not isinstance(value, dict):
        return None
    try:
        return Expect.model_validate({k: _interpolated(v, vars_) for k, v in value.items()})
    except ValidationError:
        return None


def _group_saves(steps: Any, folder: Path, root: Path, vars_: Mapping[str, Any],
                 chain: tuple[Path, ...], budget: list[int]) -> Iterator[str]:
    """The ``save_storage_state`` of the groups ``steps`` use, inner groups first (as expansion lists them).

    A group that cannot be read or used is skipped: the plan is invalid, and
    says why when it runs. ``budget`` counts the steps walked, as expansion
    does (``MAX_EXPANDED_STEPS``): a wide group nested deep is not walked
    step by step (100 uses of 100 uses... would be 100^8), and its plan
    fails validation with GROUP when it runs.
    """
    if not isinstance(steps, list):
        return
    budget[0] -= len(steps)
    if budget[0] < 0:
        return
    for step in steps:
        use = _interpolated(step.get("use"), vars_) if isinstance(step, dict) else None
        if not isinstance(use, str) or len(chain) >= MAX_GROUP_DEPTH:
            continue
        try:
            path = inside_root(use, folder, root, "file")
            group = GROUP_CACHE.load(path, str(path))
        except (ConfinementError, OSError, YamlError, ValueError):
            continue
        if path in chain or not isinstance(group, dict):
            continue
        with_ = step.get("with")
        inner = {**_plain_vars(group.get("vars")),
                 **({k: _interpolated(v, vars_) for k, v in with_.items()} if isinstance(with_, dict) else {})}
        yield from _group_saves(group.get("steps"), path.parent, root, inner, chain + (path,), budget)
        if budget[0] < 0:
            return
        save = group.get("save_storage_state")
        if isinstance(save, str) and STATE_NAME.match(save):
            yield save
