"""``cometlocal diff RUN_A RUN_B``: two runs of the same plan, step by step.

Why: a plan that is red on one run and green on the next is either flaky or
a regression between two builds. Comparing the two run folders step by step
(outcome, attempts, and the page state before and after each step, part by
part) names the first step where they part ways and what changed on the page
there, without re-running anything. Pure Python: reads two run folders
(:mod:`pytest_cometlocal.runs.reader`), no browser.

Durations are shown but never count as a divergence: they always differ.
A plan edited between the runs (the manifests' ``plan.sha256`` differ) is
said first, in a note: the runs may then differ because the plan does.
Output folders (each plan's runs on two sides, paired) are compared by
:mod:`pytest_cometlocal.runs.diff_folders`, one plan at a time through here.
The JSON structure (``--json``) is documented in docs/triage.md; its
``schema_version`` changes when a field changes meaning or goes away.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_cometlocal.contract.model.plan import settings_items
from pytest_cometlocal.contract.run_folder import RUN_MANIFEST
from pytest_cometlocal.runs.audits import accessibility_note
from pytest_cometlocal.runs.errors import DiffError, RunFolderError
from pytest_cometlocal.runs.extensions import extension_changes, extension_note
from pytest_cometlocal.runs.reader import StoredRun, read_run
from pytest_cometlocal.runs.show import picture_lines
from pytest_cometlocal.runs.steps import STATE_PARTS, StepRecord

__all__ = ["DiffError", "RunDiff", "diff_runs", "first_json", "render_json", "render_text", "run_diff_command"]

SCHEMA_VERSION = "v1"


@dataclass
class StepDiff:
    """One step as both runs saw it; ``a`` or ``b`` is None when only the other run reached it."""

    step_id: str
    recovery: bool
    a: StepRecord | None
    b: StepRecord | None
    before: list[str]
    after: list[str]
    reasons: list[str]

    @property
    def diverges(self) -> bool:
        return bool(self.reasons)

    def describe(self) -> str:
        """``step 'open_menu': before: same; after: visible_text, screenshot differ`` and the other reasons."""
        label = f"recovery step '{self.step_id}'" if self.recovery else f"step '{self.step_id}'"
        if self.a is None or self.b is None:
            return f"{label}: only in run {'B' if self.a is None else 'A'}"
        parts = []
        if "outcome" in self.reasons:
            parts.append(f"outcome: {_outcome(self.a)} vs {_outcome(self.b)}")
        if "attempts" in self.reasons:
            parts.append(f"attempts: {self.a.attempts} vs {self.b.attempts}")
        for phase, changed in (("before", self.before), ("after", self.after)):
            parts.append(f"{phase}: " + (", ".join(changed) + " differ" if changed else "same"))
        return f"{label}: " + "; ".join(parts)


@dataclass
class RunDiff:
    a: StoredRun
    b: StoredRun
    steps: list[StepDiff]
    notes: list[str]

    @property
    def first_divergence(self) -> StepDiff | None:
        return next((step for step in self.steps if step.diverges), None)

    @property
    def status_differs(self) -> str | None:
        """``passed vs failed X`` when the runs ended differently although no step shows it.

        A run can fail outside any step (an invalid plan, a browser that never
        started); two such runs have no steps to compare, and must not match
        a passing one.
        """
        ends = [" ".join(v for v in (r.status, r.error_code) if v)
                for r in (self.a, self.b)]
        return None if ends[0] == ends[1] else f"{ends[0]} vs {ends[1]}"

    @property
    def match(self) -> bool:
        return self.first_divergence is None and self.status_differs is None

    @property
    def settings_changed(self) -> list[str]:
        """(v1.2) The browser settings and clock keys (``browser.locale``, ``clock.at``) the runs were made under
        differently: one key set in one run only counts; ``[]`` when they agree (or neither set any)."""
        return settings_differ(self.a, self.b)

    @property
    def extensions_changed(self) -> list[str]:
        """(extensions) The extension kinds added, removed or of another origin between the runs (``[]``: none)."""
        return extension_changes(self.a, self.b)

    @property
    def plan_changed(self) -> bool | None:
        """The plan ran in two versions (the manifests' ``plan.sha256`` differ); None when a run does not say."""
        hashes = [run.plan.get("sha256") for run in (self.a, self.b)]
        return None if not all(isinstance(h, str) for h in hashes) else hashes[0] != hashes[1]


def _outcome(step: StepRecord | None) -> str:
    if step is None:
        return "-"
    if step.error_code:
        return f"{step.outcome} {step.error_code}"
    if step.outcome == "passed" and step.errors:
        return "passed after " + ", ".join(dict.fromkeys(step.errors))
    return step.outcome


def _relative_url(url: Any, base_url: str | None) -> Any:
    """A URL under the run's base URL, relative to it: two servers on two ports still compare."""
    if isinstance(url, str) and base_url and url.startswith(base_url.rstrip("/")):
        rest = url[len(base_url.rstrip("/")):]
        if rest == "" or rest[0] in "/?#":
            return rest or "/"
    return url


def changed_parts(sig_a: dict[str, Any] | None, sig_b: dict[str, Any] | None,
                  base_a: str | None = None, base_b: str | None = None) -> list[str]:
    """The StateSignature parts that differ; every part when only one run has a signature."""
    if sig_a is None and sig_b is None:
        return []
    if sig_a is None or sig_b is None:
        return [name for name, _ in STATE_PARTS]
    changed = []
    for name, key in STATE_PARTS:
        value_a, value_b = sig_a.get(key), sig_b.get(key)
        if name == "url":
            value_a, value_b = _relative_url(value_a, base_a), _relative_url(value_b, base_b)
        if value_a != value_b:
            changed.append(name)
    return changed


def plan_change_note(a: StoredRun, b: StoredRun) -> str | None:
    """``the plan changed between the runs: ...`` when their manifests record two versions of the plan."""
    hash_a, hash_b = a.plan.get("sha256"), b.plan.get("sha256")
    if not isinstance(hash_a, str) or not isinstance(hash_b, str) or hash_a == hash_b:
        return None
    short = lambda h: h.removeprefix("sha256:")[:12]  # noqa: E731
    return (f"the plan changed between the runs: sha256 {short(hash_a)} in A, {short(hash_b)} in B "
            "(steps, step groups or settings were edited): a difference may be the plan's, not the page's")


def settings_differ(a: StoredRun, b: StoredRun) -> list[str]:
    """The settings keys whose values differ between the runs' manifests (:attr:`RunDiff.settings_changed`)."""
    items_a, items_b = dict(settings_items(a.settings)), dict(settings_items(b.settings))
    return [key for key in dict.fromkeys([*items_a, *items_b]) if items_a.get(key) != items_b.get(key)]


def settings_change_note(a: StoredRun, b: StoredRun) -> str | None:
    """``the runs ran under different browser settings or clock: ...`` (v1.2), each differing key's two values."""
    keys = settings_differ(a, b)
    if not keys:
        return None
    items_a, items_b = dict(settings_items(a.settings)), dict(settings_items(b.settings))
    shown = "; ".join(f"{k} {items_a.get(k, '(not set)')} in A, {items_b.get(k, '(not set)')} in B" for k in keys)
    return (f"the runs ran under different browser settings or clock: {shown}: "
            "a difference may be the settings', not the page's")


def _notes(a: StoredRun, b: StoredRun) -> list[str]:
    notes = [note] if (note := plan_change_note(a, b)) else []
    if note := settings_change_note(a, b):
        notes.append(note)
    if note := extension_note(a, b):  # (extensions) a kind added, removed, or of another version
        notes.append(note)
    for label, run in (("A", a), ("B", b)):
        if run.truncated:
            notes.append(f"run {label}: the trace's last line is cut off (a crash); compared up to the line before")
        elif not run.finished:
            notes.append(f"run {label}: the trace ends without run_finished (cut off or still running)")
        if run.unreadable_lines:
            notes.append(f"run {label}: {run.unreadable_lines} unreadable trace line(s) skipped")
        notes += [f"run {label}: {line}" for line in picture_lines(run.path, run.errors)]  # (v1.2) screenshot_matches
    versions = {label: {(s.before or {}).get("algorithm_version") for s in run.steps if s.before}
                for label, run in (("A", a), ("B", b))}
    if versions["A"] and versions["B"] and versions["A"] != versions["B"]:
        notes.append("the runs hashed screenshots differently (algorithm_version "
                     f"{sorted(map(str, versions['A']))} vs {sorted(map(str, versions['B']))}): "
                     "a screenshot difference may mean nothing")
    steps_b = {s.step_id: s for s in b.steps}
    for step in a.steps:  # a plan edited between the runs: the same step id, another action (v1.1 keys included)
        other = steps_b.get(step.step_id)
        if other is not None and step.what and other.what and step.what != other.what:
            notes.append(f"step '{step.step_id}' does not do the same in both runs: {step.what} vs {other.what}")
    if note := accessibility_note(a.errors, b.errors):  # (v1.2 audits) runs/audits.py
        notes.append(note)
    if a.base_url != b.base_url:
        notes.append(f"different base URLs ({a.base_url} vs {b.base_url}): URLs are compared relative to each")
    return notes


def _check_same_plan(a: StoredRun, b: StoredRun) -> None:
    ident_a, ident_b = a.plan_identity(), b.plan_identity()
    if ident_a != ident_b:
        def shown(ident: dict[str, Any]) -> str:
            row = f" row {ident['row_id']!r}" if "row_id" in ident else ""
            return f"'{ident.get('name')}' ({ident.get('file')}){row}"
        raise DiffError(f"the runs are of different plans: {shown(ident_a)} vs {shown(ident_b)}")


def diff_runs(path_a: Path, path_b: Path) -> RunDiff:
    """Compare two run folders of one plan; :class:`DiffError` when they cannot be compared."""
    try:
        a, b = read_run(path_a), read_run(path_b)
    except RunFolderError as exc:
        raise DiffError(str(exc)) from None
    for run in (a, b):
        if not isinstance(run.manifest.get("plan"), dict):
            raise DiffError(f"not a run folder ({RUN_MANIFEST} names no plan): {run.path}")
    _check_same_plan(a, b)
    steps_a = {s.step_id: s for s in a.steps}
    steps_b = {s.step_id: s for s in b.steps}
    order = [s.step_id for s in a.steps] + [s.step_id for s in b.steps if s.step_id not in steps_a]
    diffs = []
    for step_id in order:
        sa, sb = steps_a.get(step_id), steps_b.get(step_id)
        before = changed_parts(sa.before if sa else None, sb.before if sb else None, a.base_url, b.base_url)
        after = changed_parts(sa.after if sa else None, sb.after if sb else None, a.base_url, b.base_url)
        reasons = []
        if sa is None or sb is None:
            reasons.append("only_in_" + ("b" if sa is None else "a"))
        else:
            if (sa.outcome, sa.error_code) != (sb.outcome, sb.error_code):
                reasons.append("outcome")
            if sa.attempts != sb.attempts:
                reasons.append("attempts")
            if before:
                reasons.append("before")
            if after:
                reasons.append("after")
        recovery = bool((sa and sa.recovery) or (sb and sb.recovery))
        diffs.append(StepDiff(step_id, recovery, sa, sb, before, after, reasons))
    return RunDiff(a, b, diffs, _notes(a, b))


# --------------------------------------------------------------------------- rendering


def render_json(diff: RunDiff) -> dict[str, Any]:
    """The stable ``--json`` structure (docs/triage.md)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "match": diff.match,
        "plan": diff.a.plan_identity(),
        "plan_changed": diff.plan_changed,
        "settings_changed": diff.settings_changed,
        "extensions_changed": diff.extensions_changed,
        "runs": {"a": diff.a.summary(), "b": diff.b.summary()},
        "steps": [
            {"step_id": s.step_id, "recovery": s.recovery,
             "a": s.a.as_dict() if s.a else None, "b": s.b.as_dict() if s.b else None,
             "before": {"same": not s.before, "differs": s.before},
             "after": {"same": not s.after, "differs": s.after},
             "diverges": s.diverges, "reasons": s.reasons}
            for s in diff.steps
        ],
        "first_divergence": first_json(diff),
        "notes": diff.notes,
    }


def first_json(diff: RunDiff) -> dict[str, Any] | None:
    first = diff.first_divergence
    if first is None:
        if diff.status_differs is None:
            return None
        return {"step_id": None, "recovery": False, "reasons": ["status"], "before": [], "after": [],
                "text": f"the run's status: {diff.status_differs}"}
    return {"step_id": first.step_id, "recovery": first.recovery, "reasons": first.reasons,
            "before": first.before, "after": first.after, "text": first.describe()}


def _ms(step: StepRecord | None) -> str:
    if step is None or step.duration_ms is None:
        return "-"
    return f"{step.duration_ms} ms"


def _state(changed: list[str], present: bool) -> str:
    if not present:
        return "-"
    return "same" if not changed else ", ".join(changed)


def render_text(diff: RunDiff) -> str:
    """One line per step, aligned, then notes and the summary line ``first divergence: ...``."""
    ident = diff.a.plan_identity()
    row = f"  row {ident['row_id']}" if "row_id" in ident else ""
    lines = [f"plan '{ident.get('name')}' ({ident.get('file')}){row}"]
    for label, run in (("A", diff.a), ("B", diff.b)):
        status, code = run.status, run.error_code
        where = "" if run.path.name == run.manifest.get("run_id") else f"  (folder {run.path})"
        lines.append(f"  {label}: {run.manifest.get('run_id')}  {status}{' ' + code if code else ''}{where}")
    header = ("", "step", "A outcome", "B outcome", "A att", "B att", "A time", "B time", "before", "after")
    rows = []
    for s in diff.steps:
        both = s.a is not None and s.b is not None
        rows.append(("*" if s.diverges else " ", s.step_id + (" (recovery)" if s.recovery else ""),
                     _outcome(s.a), _outcome(s.b),
                     str(s.a.attempts) if s.a else "-", str(s.b.attempts) if s.b else "-",
                     _ms(s.a), _ms(s.b), _state(s.before, both), _state(s.after, both)))
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    right = {4, 5, 6, 7}
    for r in [header, *rows]:
        cells = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(r)]
        lines.append(("  " + "  ".join(cells)).rstrip())
    if not diff.steps:
        lines.append("  (no steps in either run)")
    for note in diff.notes:
        lines.append(f"note: {note}")
    first = diff.first_divergence
    if first is None and diff.status_differs:
        lines.append(f"first divergence: the run's status: {diff.status_differs} (no step differs)")
    elif first is None:
        changed = "; but the plan changed between the runs (note above)" if diff.plan_changed else ""
        changed += "; but they ran under different settings (note above)" if diff.settings_changed else ""
        changed += "; but they used different extensions (note above)" if diff.extensions_changed else ""
        lines.append(f"the runs match: {len(diff.steps)} steps, same outcomes, attempts and page states "
                     f"(durations are not compared){changed}")
    else:
        count = sum(1 for s in diff.steps if s.diverges)
        lines.append(f"first divergence: {first.describe()}  ({count} of {len(diff.steps)} steps differ)")
    return "\n".join(lines)


def run_diff_command(path_a: Path, path_b: Path, as_json: bool = False) -> tuple[str, int]:
    """What ``cometlocal diff`` prints and its exit code: 0 the runs match, 1 they diverge.

    Raises :class:`DiffError` (exit code 2) when the paths cannot be compared.
    """
    diff = diff_runs(path_a, path_b)
    text = json.dumps(render_json(diff), indent=2) if as_json else render_text(diff)
    return text, 0 if diff.match else 1
