"""From run folders to fixes, one per place in a file, and from fixes to the patch.

Runs that failed the same way on the same written target (every row of a
parametrized plan, every plan that uses one step group) share one site, so
they share one fix and the patch edits that place once. Without verification
a site's fix is its top suggestion; ``verify.py`` chooses among the top 3.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from pytest_cometlocal.contract.load.paths import shown_path
from pytest_cometlocal.fixing.edit import TextEdit, apply
from pytest_cometlocal.fixing.failures import EndedAsExpected, Failure, NotFixable, NothingToFix, read_failure
from pytest_cometlocal.fixing.locate import Site, SourceFiles, locate
from pytest_cometlocal.fixing.patch import unified_patch

__all__ = ["Fix", "Gathered", "Unfixed", "gather", "patch_text", "top_fixes"]


@dataclass(frozen=True)
class Unfixed:
    """A failed run that gets no hunk, and why, in one line."""

    run: Path
    label: str
    reason: str


@dataclass
class Fix:
    """One site's fix: the suggestion chosen, the runs it answers, the run that verified it (or None)."""

    site: Site
    suggestion: dict[str, Any]
    rank: int                      # 1-based among the run's suggestions
    runs: list[Path] = field(default_factory=list)
    verified_by: Path | None = None
    step_id: str = ""

    def edits(self) -> list[TextEdit]:
        return self.site.edits(self.suggestion)


@dataclass
class Gathered:
    """The failed runs located (with their sites), and the runs that got no fix, in the order read."""

    located: list[tuple[Failure, Site]] = field(default_factory=list)
    unfixed: list[Unfixed] = field(default_factory=list)
    passed: int = 0                # runs that did not fail
    expected: int = 0              # negative plans' runs that failed as their ``expect`` asks


def _latest(failures: Iterable[Failure]) -> list[Failure]:
    """One run per plan item: its latest (a rerun's folder next to the first one's)."""
    latest: dict[Any, Failure] = {}
    for f in failures:
        key = f.nodeid or (f.plan.get("file"), f.plan.get("name"), f.plan.get("row_id"))
        if key not in latest or str(f.manifest.get("started_at")) > str(latest[key].manifest.get("started_at")):
            latest[key] = f
    return list(latest.values())


def gather(runs: Sequence[Path], files: SourceFiles) -> Gathered:
    """Each run read and its failed value located; a run that cannot be fixed is one Unfixed line."""
    out = Gathered()
    failures: list[Failure] = []
    for run in runs:
        try:
            failures.append(read_failure(run))
        except EndedAsExpected:
            out.expected += 1
        except NothingToFix:
            out.passed += 1
        except NotFixable as exc:
            out.unfixed.append(Unfixed(run, shown_path(run), str(exc)))
    for failure in _latest(failures):
        try:
            out.located.append((failure, locate(failure, files)))
        except NotFixable as exc:
            out.unfixed.append(Unfixed(failure.run, failure.label, str(exc)))
    return out


def top_fixes(located: Sequence[tuple[Failure, Site]]) -> list[Fix]:
    """One fix per site, its top suggestion, with every run that failed there."""
    fixes: dict[Any, Fix] = {}
    for failure, site in located:
        fix = fixes.get(site.key)
        if fix is None:
            fix = fixes[site.key] = Fix(site, failure.suggestions[0], 1, step_id=failure.step_id)
        fix.runs.append(failure.run)
    return list(fixes.values())


def _header(fixes: Sequence[Fix], unfixed: Sequence[Unfixed], verify: bool) -> list[str]:
    files = len({f.site.file for f in fixes})
    lines = [f"cometlocal fix: {len(fixes)} fix{'es' if len(fixes) != 1 else ''} in {files} file{'s' if files != 1 else ''}"
             f"; {len(unfixed)} with no {'verified ' if verify else ''}fix",
             "Review, then apply from the suite root: git apply fixes.patch", ""]
    for fix in fixes:
        where = f"{fix.site.file}:{fix.site.line}"
        lines.append(f"{where}: step '{fix.step_id.rsplit('.', 1)[-1]}' {'.'.join(map(str, fix.site.path))}")
        lines.append(f"  from: {', '.join(shown_path(r) for r in fix.runs)}")
        s = fix.suggestion
        lines.append(f"  suggestion {fix.rank}: score {s.get('score')}: {s.get('why', '')}")
        if s.get("rationale"):
            lines.append(f"  nth rationale (metadata.target_rationale): {s['rationale']}")
        lines.append(f"  verified: {shown_path(fix.verified_by)}" if fix.verified_by else "  not verified")
    if unfixed:
        lines += ["", f"no {'verified ' if verify else ''}fix (a person judges these: renamed, moved, or gone?):"]
        lines += [f"  {u.label}: {u.reason} [{shown_path(u.run)}]" for u in unfixed]
    return lines


def patch_text(fixes: list[Fix], unfixed: list[Unfixed], files: SourceFiles, verify: bool) -> str:
    """The patch: every fix's edits, a file once however many fixes it holds; a fix whose edits
    overlap an earlier one's (the same step fixed two ways) becomes an Unfixed line instead."""
    per_file: dict[str, list[TextEdit]] = {}
    kept: list[Fix] = []
    for fix in fixes:
        try:
            edits = fix.edits()
        except NotFixable as exc:
            unfixed.extend(Unfixed(r, shown_path(r), str(exc)) for r in fix.runs[:1])
            continue
        taken = per_file.setdefault(fix.site.file, [])
        if any(e.start < t.end and t.start < e.end or (e.start == t.start == e.end == t.end) for e in edits for t in taken):
            unfixed.append(Unfixed(fix.runs[0], shown_path(fix.runs[0]),
                                   f"{fix.site.file}:{fix.site.line}: overlaps another fix of the same place"))
            continue
        taken.extend(edits)
        kept.append(fix)
    diffs = []
    for file, edits in per_file.items():
        if edits:
            text = files.get(file)[0].text
            diffs.append((file, text, apply(text, edits)))
    return unified_patch(_header(kept, unfixed, verify), diffs)
