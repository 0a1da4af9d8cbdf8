"""``cometlocal diff`` over output folders: the runs of each plan on two sides, paired by plan.

Why: two CI runs of one suite are compared plan by plan (each CI run perhaps split
into shards, each shard with its own output folder), and a failing run is compared
with its plan's run in another build without looking for that run's folder first.

What a side is: one or more paths, each a run folder or an output folder (the
shards' folders of one CI run together). Its runs are grouped by the plan they
ran (``plan.file``, ``plan.name`` and ``plan.row_id`` of the run manifest, as
``diff RUN_A RUN_B`` identifies plans); a plan with several runs on one side (a
rerun, an output folder used by several sessions, or the runs that made a storage
state on demand in each xdist worker) is compared by its latest (``started_at``), a
run of its own item before one made on demand, with a note. Then:

- ``--plan SELECTOR`` keeps only the plans it names (a plan name, ``name[row]``,
  a plan file or its end, or ``file::name`` as in a pytest node id); without it,
  a side given as one run folder names the plan to look for on the other side;
- one plan on each side, the same: the step-by-step comparison of
  :mod:`pytest_cometlocal.runs.diff`, as for two run folders;
- else one line per plan: ``match``, ``diverges`` (with its first divergence),
  ``only in A``, ``only in B``. Any line but ``match`` makes the exit code 1.

Every run folder is read through :mod:`pytest_cometlocal.runs.reader`. Pure
Python, no browser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from pytest_cometlocal.runs.diff import (SCHEMA_VERSION, RunDiff, diff_runs, first_json, plan_change_note, render_json,
                                         render_text)
from pytest_cometlocal.runs.errors import DiffError, RunFolderError
from pytest_cometlocal.runs.extensions import extension_note
from pytest_cometlocal.runs.reader import find_runs, is_run_folder, plan_identity, read_manifest, read_run

__all__ = ["FolderDiff", "PlanPair", "compare_command", "compare_sides", "render_folders_json",
           "render_folders_text", "selects"]

Key = tuple[str, str, str]
RESULTS = ("match", "diverges", "only_in_a", "only_in_b")


@dataclass
class PlanPair:
    """One plan's runs on the two sides; ``diff`` when both sides ran it."""

    identity: dict[str, Any]
    a: Path | None
    b: Path | None
    diff: RunDiff | None

    @property
    def result(self) -> str:
        if self.a is None:
            return "only_in_b"
        if self.b is None:
            return "only_in_a"
        return "match" if self.diff is not None and self.diff.match else "diverges"

    def why(self) -> str:
        """The first divergence in words, empty when the runs match or only one side has the plan."""
        if self.diff is None or self.diff.match:
            return ""
        first = self.diff.first_divergence
        return first.describe() if first is not None else f"the run's status: {self.diff.status_differs}"


@dataclass
class FolderDiff:
    side_a: list[Path]
    side_b: list[Path]
    counts: dict[str, int]  # runs found on each side: {"a": n, "b": m}
    pairs: list[PlanPair]
    notes: list[str]

    @property
    def match(self) -> bool:
        return all(pair.result == "match" for pair in self.pairs)


def shown_plan(identity: dict[str, Any]) -> str:
    row = f" row {identity['row_id']!r}" if "row_id" in identity else ""
    return f"'{identity.get('name')}' ({identity.get('file')}){row}"


def _key(identity: dict[str, Any]) -> Key:
    row = identity.get("row_id")
    return (str(identity.get("file") or ""), str(identity.get("name") or ""), "" if row is None else str(row))


def _file_matches(file: str, wanted: str) -> bool:
    return bool(wanted) and (file == wanted or file.endswith("/" + wanted))


def selects(selector: str, identity: dict[str, Any]) -> bool:
    """Whether ``--plan SELECTOR`` names this plan: its name, ``name[row]``, its file (or the file's end),
    or ``file::name`` / ``file::name[row]`` as pytest's node id writes it."""
    file, name = str(identity.get("file") or ""), str(identity.get("name") or "")
    full = f"{name}[{identity['row_id']}]" if "row_id" in identity else name
    if "::" in selector:
        wanted_file, wanted_name = selector.split("::", 1)
        return _file_matches(file, wanted_file) and wanted_name in (name, full)
    return selector in (name, full) or _file_matches(file, selector)


def _side(paths: Sequence[Path], label: str, notes: list[str]) -> tuple[dict[Key, list[tuple[Path, dict]]], int]:
    """The runs under the paths of one side, by plan; how many run folders there were. A run folder in an
    output folder that cannot be read is left out with a note; one named as a path is a refusal."""
    try:
        runs = find_runs(paths)
    except RunFolderError as exc:
        raise DiffError(str(exc)) from None
    named = {path.resolve() for path in paths if is_run_folder(path)}
    grouped: dict[Key, list[tuple[Path, dict]]] = {}
    for run in runs:
        try:
            manifest = read_manifest(run)
            if not isinstance(manifest.get("plan"), dict):
                raise RunFolderError(f"not a run folder (run_manifest.json names no plan): {run}")
        except RunFolderError as exc:
            if run.resolve() in named:
                raise DiffError(str(exc)) from None
            notes.append(f"side {label}: skipped, {exc}")
            continue
        grouped.setdefault(_key(plan_identity(manifest)), []).append((run, manifest))
    return grouped, len(runs)


def _made_on_demand(manifest: dict) -> bool:
    """A run of a plan made to save a storage state another plan needed (``plan.purpose``), not the plan's item."""
    return bool(manifest["plan"].get("purpose"))


def _latest(runs: list[tuple[Path, dict]], label: str, notes: list[str]) -> Path:
    """The run compared: the latest of the plan's own runs (a run made on demand for a storage state only when
    the side has no other)."""
    ordered = sorted(runs, key=lambda r: (not _made_on_demand(r[1]), str(r[1].get("started_at") or ""), r[0].name))
    chosen = ordered[-1][0]
    if len(ordered) > 1:
        made = sum(1 for _, manifest in ordered if _made_on_demand(manifest))
        why = f" ({made} made on demand for a storage state)" if made else ""
        notes.append(f"side {label} holds {len(ordered)} runs of {shown_plan(plan_identity(ordered[-1][1]))}{why}: "
                     f"the latest{' of its own' if made and made < len(ordered) else ''} is compared, {chosen}")
    return chosen


def compare_sides(side_a: Sequence[Path], side_b: Sequence[Path], plan: str | None = None) -> RunDiff | FolderDiff:
    """Two run folders: :func:`diff_runs`. Else the runs of each side paired by plan (module doc): a
    :class:`RunDiff` when one plan is left on each side, the same; else a :class:`FolderDiff`.
    :class:`DiffError` when a path names no run, or the plan asked for is on neither or one side only."""
    if plan is None and len(side_a) == len(side_b) == 1 and all(map(is_run_folder, (side_a[0], side_b[0]))):
        return diff_runs(side_a[0], side_b[0])
    notes: list[str] = []
    (a, count_a), (b, count_b) = _side(side_a, "A", notes), _side(side_b, "B", notes)
    wanted, named = None, repr(plan)
    if plan is None:
        for paths, grouped in ((side_a, a), (side_b, b)):
            if len(paths) == 1 and is_run_folder(paths[0]) and len(grouped) == 1:
                wanted = set(grouped)
                named = shown_plan(plan_identity(next(iter(grouped.values()))[0][1]))
                break
    for label, grouped, paths in (("A", a, side_a), ("B", b, side_b)):
        kept = {k: v for k, v in grouped.items() if (wanted is None or k in wanted)
                and (plan is None or selects(plan, plan_identity(v[0][1])))}
        if not kept and (plan is not None or wanted is not None):
            raise DiffError(f"no run of plan {named} under side {label}: {', '.join(map(str, paths))}")
        grouped.clear()
        grouped.update(kept)
    if len(a) == len(b) == 1 and set(a) == set(b):
        (runs_a,), (runs_b,) = a.values(), b.values()
        diff = diff_runs(_latest(runs_a, "A", notes), _latest(runs_b, "B", notes))
        diff.notes[:0] = notes
        return diff
    pairs = []
    for key in sorted(set(a) | set(b)):
        run_a = _latest(a[key], "A", notes) if key in a else None
        run_b = _latest(b[key], "B", notes) if key in b else None
        manifest = (a.get(key) or b[key])[0][1]
        diff = diff_runs(run_a, run_b) if run_a is not None and run_b is not None else None
        if diff is not None and diff.plan_changed:
            notes.append(f"{shown_plan(plan_identity(manifest))}: {plan_change_note(diff.a, diff.b)}")
        if diff is not None and (note := extension_note(diff.a, diff.b)):  # (extensions) runs/extensions.py
            notes.append(f"{shown_plan(plan_identity(manifest))}: {note}")
        pairs.append(PlanPair(plan_identity(manifest), run_a, run_b, diff))
    return FolderDiff(list(side_a), list(side_b), {"a": count_a, "b": count_b}, pairs, notes)


# --------------------------------------------------------------------------- rendering

LABELS = {"match": "match", "diverges": "diverges", "only_in_a": "only in A", "only_in_b": "only in B"}


def _end(run: Path | None, diff: RunDiff | None, side: str) -> str:
    if run is None:
        return "-"
    manifest = (diff.a if side == "a" else diff.b).manifest if diff is not None else read_manifest(run)
    return " ".join(str(v) for v in (manifest.get("status"), manifest.get("error_code")) if v) or "?"


def render_folders_text(diff: FolderDiff) -> str:
    """A header naming the sides, one line per plan (``*`` for each that is not a match), notes, a summary."""
    lines = [f"A: {', '.join(map(str, diff.side_a))}  ({diff.counts['a']} runs)",
             f"B: {', '.join(map(str, diff.side_b))}  ({diff.counts['b']} runs)"]
    rows = [(" " if pair.result == "match" else "*", LABELS[pair.result], shown_plan(pair.identity),
             _end(pair.a, pair.diff, "a"), _end(pair.b, pair.diff, "b"), pair.why()) for pair in diff.pairs]
    header = ("", "result", "plan", "A", "B", "first divergence")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        lines.append(("  " + "  ".join(c.ljust(widths[i]) for i, c in enumerate(row))).rstrip())
    if not rows:
        lines.append("  (no run of any plan on either side)")
    lines += [f"note: {note}" for note in diff.notes]
    tally = {result: sum(1 for p in diff.pairs if p.result == result) for result in RESULTS}
    lines.append(f"{len(diff.pairs)} plans: " + ", ".join(f"{tally[r]} {LABELS[r]}" for r in RESULTS))
    return "\n".join(lines)


def render_folders_json(diff: FolderDiff) -> dict[str, Any]:
    """The ``--json`` structure of a comparison of folders (docs/triage.md)."""
    def summary(run: Path | None, pair: PlanPair, side: str) -> dict[str, Any] | None:
        if run is None:
            return None
        if pair.diff is not None:
            return (pair.diff.a if side == "a" else pair.diff.b).summary()
        return read_run(run).summary()

    return {
        "schema_version": SCHEMA_VERSION,
        "comparison": "folders",
        "match": diff.match,
        "sides": {"a": {"paths": list(map(str, diff.side_a)), "runs": diff.counts["a"]},
                  "b": {"paths": list(map(str, diff.side_b)), "runs": diff.counts["b"]}},
        "plans": [{"plan": pair.identity, "result": pair.result, "a": summary(pair.a, pair, "a"),
                   "b": summary(pair.b, pair, "b"), "plan_changed": pair.diff.plan_changed if pair.diff else None,
                   "first_divergence": first_json(pair.diff) if pair.diff is not None else None}
                  for pair in diff.pairs],
        "notes": diff.notes,
    }


def compare_command(side_a: Sequence[Path], side_b: Sequence[Path], plan: str | None = None,
                    as_json: bool = False) -> tuple[str, int]:
    """What ``cometlocal diff`` prints and its exit code: 0 everything compared matches, 1 not.

    Raises :class:`DiffError` (exit code 2) when the paths cannot be compared.
    """
    result = compare_sides(side_a, side_b, plan)
    if isinstance(result, RunDiff):
        text = json.dumps(render_json(result), indent=2) if as_json else render_text(result)
    else:
        text = json.dumps(render_folders_json(result), indent=2) if as_json else render_folders_text(result)
    return text, 0 if result.match else 1
