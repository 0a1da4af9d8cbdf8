"""``--verify``: a suggestion is proposed only when the plan, rerun with it, ends as it should.

The whole suite root is copied once to a scratch folder (its ini, suite
config, step groups, storage-state makers and uploads come along), and each
round writes the candidate edits into the copy and reruns the affected plan
items under pytest in a subprocess, with a hard timeout and the settings the
failed run recorded (``--base-url``, ``--cometlocal-profile`` when they came
from the command line, ``--cometlocal-dry-run`` for a dry run). Every option
goes to the inner pytest as one argument (``--opt=value``): pytest looks for its
ini file before plugins register their options, and a value given apart, an
existing folder, would be taken for a test path and the suite's ini file
missed. The copy's ini file is named with ``-c`` and the copy is the rootdir.
Each invocation keeps its rounds' run folders in a folder of its own under the
verification output folder, so a patch cites only runs of its own invocation.

Per plan item, a round ends one of four ways: it passed (every fix in its
chain is verified by it); it failed again at the same place (that candidate
is dropped for the next of the top 3); it got past it and failed at another
stale target with suggestions (that one joins its chain: a renamed login
button in a shared group usually hides the plan's own stale target); or it
failed some other way (the candidate is dropped too: a fix that only moves
the failure is not a fix). A rerun that failed on the machine's timing
(``TIMING_CODES``: a navigation that did not finish in time, a page that did
not answer, a browser that crashed) says nothing about any candidate: the item
is simply rerun in the next round, candidates kept (on a loaded machine one
slow navigation would otherwise drop a good fix shared by every plan of a
step group). At most ``MAX_ROUNDS`` runs per item. A site whose
candidate made an item pass is locked: other items then take it as it is.
Verification replays the plans' side effects, as a rerun in CI would.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Callable, Sequence

from pytest_cometlocal.contract.errors import RootdirError
from pytest_cometlocal.contract.load.paths import shown_path
from pytest_cometlocal.contract.load.rootdir import config_names, holds_pytest_config
from pytest_cometlocal.fixing.edit import apply
from pytest_cometlocal.fixing.failures import Failure, NotFixable, failure_of
from pytest_cometlocal.fixing.locate import Site, SourceFiles, locate
from pytest_cometlocal.fixing.proposals import Fix, Unfixed
from pytest_cometlocal.runs.errors import RunFolderError
from pytest_cometlocal.runs.reader import StoredRun, read_manifest, read_run, runs_in

__all__ = ["MAX_ROUNDS", "TIMING_CODES", "TOP", "VerifyOptions", "verify_fixes"]

MAX_ROUNDS = 5
TOP = 3
TIMING_CODES = frozenset({"NAVIGATION_TIMEOUT", "PAGE_UNRESPONSIVE", "BROWSER_CRASHED"})
SKIPPED_DIRS = {".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".pytest_cache", ".tox", ".mypy_cache"}


@dataclass(frozen=True)
class VerifyOptions:
    root: Path
    output: Path                      # where each round's run folders are kept
    timeout_s: float = 600.0          # per pytest subprocess
    dry_run: bool = False
    pytest_args: tuple[str, ...] = ()
    skip: tuple[Path, ...] = ()       # folders not copied (the run folders read)


@dataclass
class _SiteState:
    site: Site
    suggestions: tuple[dict[str, Any], ...]
    index: int = 0
    locked_by: Path | None = None
    step_id: str = ""
    runs: list[Path] = field(default_factory=list)

    @property
    def exhausted(self) -> bool:
        return self.index >= min(TOP, len(self.suggestions))


@dataclass
class _Item:
    failure: Failure                  # the original failed run
    chain: list[Any]                  # site keys, first failure first
    steps: dict[Any, str] = field(default_factory=dict)  # site key -> the step id it failed at in this item
    runs: int = 0
    done: bool = False


def _settings(manifest: dict[str, Any], dry_run: bool) -> tuple[str, ...]:
    """The command-line settings the failed run recorded, as pytest options."""
    conf = manifest.get("configuration") if isinstance(manifest.get("configuration"), dict) else {}
    sources, effective = conf.get("sources") or {}, conf.get("effective") or {}
    args: list[str] = []
    if sources.get("base_url") == "cli" and effective.get("base_url"):
        args.append(f"--base-url={effective['base_url']}")
    if sources.get("profile") == "cli" and effective.get("profile"):
        args.append(f"--cometlocal-profile={effective['profile']}")
    if dry_run or manifest.get("execution_mode") == "dry_run":
        args.append("--cometlocal-dry-run")
    return tuple(args)


def _junit_outcomes(path: Path) -> dict[tuple[str, str], str]:
    """(classname, name) -> passed / failed / skipped, from pytest's JUnit XML."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        return {}
    out = {}
    for case in tree.iter("testcase"):
        tags = {child.tag for child in case}
        outcome = "failed" if tags & {"failure", "error"} else "skipped" if "skipped" in tags else "passed"
        out[(case.get("classname", ""), case.get("name", ""))] = outcome
    return out


def _junit_key(nodeid: str) -> tuple[str, str]:
    """How pytest's JUnit XML names an item: the path's ``/`` as ``.``, ``.py`` dropped."""
    names = nodeid.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    return ".".join(names[:-1]), names[-1]


class _Scratch:
    """The copy of the suite root that candidate edits are written into, file by file, round by round."""

    def __init__(self, options: VerifyOptions, files: SourceFiles):
        self.options, self.files = options, files
        self.tmp = Path(tempfile.mkdtemp(prefix="cometlocal-fix-"))
        self.root = self.tmp / "suite"
        skip = {p.resolve() for p in options.skip} | {options.output.resolve()}

        def ignore(folder: str, names: list[str]) -> set[str]:
            return {n for n in names if n in SKIPPED_DIRS or (Path(folder) / n).resolve() in skip}

        shutil.copytree(options.root, self.root, ignore=ignore, symlinks=True)
        self.written: set[str] = set()

    def write(self, edits_by_file: dict[str, list]) -> None:
        for file in self.written | set(edits_by_file):
            text = self.files.get(file)[0].text
            (self.root / file).write_bytes(apply(text, edits_by_file.get(file, [])).encode("utf-8"))
        self.written |= set(edits_by_file)

    def run(self, nodeids: Sequence[str], settings: tuple[str, ...], out: Path) -> dict[tuple[str, str], str]:
        out.mkdir(parents=True, exist_ok=True)
        junit = out / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", *nodeids, *self.base_args(), f"--cometlocal-output={out.resolve()}",
               f"--junitxml={junit.resolve()}", *settings, *self.options.pytest_args]
        try:
            subprocess.run(cmd, cwd=self.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=self.options.timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return {}
        return _junit_outcomes(junit)

    def base_args(self) -> list[str]:
        """The run folders' node ids are relative to the suite's rootdir: the copy is it, and its ini file
        (when it has one) is named, unless ``--pytest-arg`` names a configuration file or a rootdir itself."""
        mine = [a for a in self.options.pytest_args if a.split("=", 1)[0] in ("-c", "--config-file", "--rootdir")
                or (a.startswith("-c") and not a.startswith("--"))]
        args = ["-q", "-p", "no:cacheprovider"]
        if mine:
            return args
        ini = ini_file(self.root)
        return args + [f"--rootdir={self.root}"] + ([f"--config-file={ini}"] if ini else [])

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def ini_file(root: Path) -> Path | None:
    """The file in ``root`` pytest would read its configuration from (pytest's own order), or None."""
    try:
        major = int(version("pytest").split(".")[0])
    except (PackageNotFoundError, ValueError):
        major = 9
    for name in config_names(major):
        path = root / name
        try:
            if path.is_file() and holds_pytest_config(path, major):
                return path
        except RootdirError:
            return None  # pytest says what is wrong with it, in the rerun's own terms
    return None


def invocation_folder(output: Path) -> Path:
    """A new folder under ``output`` for this invocation's rounds: a rerun never lands among an earlier one's."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    while True:
        folder = output / f"{stamp}-{uuid.uuid4().hex[:6]}"
        try:
            folder.mkdir(parents=True)
            return folder
        except FileExistsError:  # pragma: no cover - two invocations in one second with the same six hex digits
            continue


def _new_runs(out: Path) -> dict[str, Path]:
    """The run folder a round left for each item, by node id (not a storage state made on demand for one).

    Manifests only, once per round: the trace of the one run an item is judged by is read by ``_judge``.
    """
    try:
        runs = runs_in(out)
    except RunFolderError:
        return {}
    found: dict[str, Path] = {}
    for run in runs:
        try:
            plan = read_manifest(run).get("plan")
        except RunFolderError:
            continue
        if isinstance(plan, dict) and plan.get("nodeid") and not plan.get("purpose"):
            found[plan["nodeid"]] = run  # the latest (folders sort by start time): a rerun plugin's retry counts
    return found


def verify_fixes(located: Sequence[tuple[Failure, Site]], files: SourceFiles,
                 options: VerifyOptions, log: Callable[[str], None] | None = None) -> tuple[list[Fix], list[Unfixed]]:
    """The verified fixes (each with the run that verified it) and the items left without one."""
    return _Verification(located, files, options, log).run()


class _Verification:
    """One ``--verify``: the sites with their candidates, the items rerun round by round, what is left."""

    def __init__(self, located: Sequence[tuple[Failure, Site]], files: SourceFiles, options: VerifyOptions,
                 log: Callable[[str], None] | None):
        self.files, self.options, self.log = files, options, log
        self.sites: dict[Any, _SiteState] = {}
        self.items: list[_Item] = []
        self.unfixed: list[Unfixed] = []
        for failure, site in located:
            state = self.sites.setdefault(site.key, _SiteState(site, failure.suggestions, step_id=failure.step_id))
            state.runs.append(failure.run)
            self.items.append(_Item(failure, [site.key], {site.key: failure.step_id}))

    def run(self) -> tuple[list[Fix], list[Unfixed]]:
        scratch = _Scratch(self.options, self.files)
        here = invocation_folder(self.options.output)
        try:
            for round_no in range(1, MAX_ROUNDS + 1):
                pending = [i for i in self.items if not i.done]
                if not pending:
                    break
                self._round(here / f"round-{round_no}", pending, scratch)
            for item in self.items:
                if not item.done:
                    self.unfixed.append(Unfixed(item.failure.run, item.failure.label,
                                                f"still failing after {MAX_ROUNDS} rounds"))
        finally:
            scratch.close()
        fixes = [Fix(s.site, s.suggestions[s.index], s.index + 1, s.runs, s.locked_by, s.step_id)
                 for s in self.sites.values() if s.locked_by is not None]
        return fixes, self.unfixed

    def _edits(self, keys: set[Any]) -> dict[str, list]:
        by_file: dict[str, list] = {}
        for key in keys:
            state = self.sites[key]
            by_file.setdefault(state.site.file, []).extend(state.site.edits(state.suggestions[state.index]))
        return by_file

    def _live(self, pending: list[_Item]) -> set[Any]:
        """The sites a round edits: those of the items still pending, and every fix already verified."""
        return {k for i in pending for k in i.chain} | {k for k, s in self.sites.items() if s.locked_by is not None}

    def _round(self, out: Path, pending: list[_Item], scratch: _Scratch) -> None:
        sites = self.sites
        for key in self._live(pending):  # a candidate that cannot be edited in is dropped like one that failed
            while not sites[key].exhausted:
                try:
                    sites[key].site.edits(sites[key].suggestions[sites[key].index])
                    break
                except NotFixable:
                    sites[key].index += 1
        for item in pending:
            dead = next((k for k in item.chain if sites[k].exhausted), None)
            if dead is not None:
                self._give_up(item, f"none of the top {TOP} suggestions verified at {dead[0]}:{dead[1]}")
        pending = [i for i in pending if not i.done]
        scratch.write(self._edits(self._live(pending)))
        groups: dict[tuple[str, ...], list[_Item]] = {}
        for item in pending:
            groups.setdefault(_settings(item.failure.manifest, self.options.dry_run), []).append(item)
        for number, (settings, group) in enumerate(groups.items(), 1):
            where = out if len(groups) == 1 else out / f"set-{number}"
            if self.log:
                self.log(f"{out.name.replace('-', ' ')}: rerunning {len(group)} plan item(s) in {scratch.root} "
                         f"-> {shown_path(where)}")
            outcomes = scratch.run([i.failure.nodeid for i in group], settings, where)
            new_runs = _new_runs(where)
            for item in group:
                item.runs += 1
                self._judge(item, outcomes.get(_junit_key(item.failure.nodeid)), new_runs.get(item.failure.nodeid))

    def _give_up(self, item: _Item, reason: str) -> None:
        item.done = True
        self.unfixed.append(Unfixed(item.failure.run, item.failure.label, reason))

    def _judge(self, item: _Item, outcome: str | None, run: Path | None) -> None:
        """One item's round: verified, a candidate dropped, or a further stale target added to its chain."""
        record = None
        if run is not None:
            try:
                record = read_run(run)
            except RunFolderError:
                record = None
        if record is None or run is None:
            self._give_up(item, "the rerun left no run folder (timed out, or pytest could not run it)")
            return
        status, failed_step = record.status, record.failed_step
        if outcome == "passed" or (outcome == "skipped" and status == "blocked" and self.options.dry_run):
            item.done = True
            for key in item.chain:
                if self.sites[key].locked_by is None:
                    self.sites[key].locked_by = run
            return
        if record.error_code in TIMING_CODES:  # inconclusive: the same candidates run again
            if item.runs >= MAX_ROUNDS:
                self._give_up(item, f"still failing after {MAX_ROUNDS} rounds, last {record.error_code} "
                              f"at step '{failed_step}' [{shown_path(run)}]")
            return
        self._judge_failure(item, record, run)

    def _judge_failure(self, item: _Item, record: StoredRun, run: Path) -> None:
        """A rerun that failed, not on timing: at a site of its chain (that candidate dropped), or at another."""
        try:
            later = failure_of(record)
            site = locate(later, self.files)
        except NotFixable:
            later = site = None
        failed_key = site.key if site is not None else next(
            (k for k, sid in item.steps.items() if sid == record.failed_step), None)
        if failed_key is None or failed_key not in item.chain:
            if site is None or later is None:
                self._give_up(item, f"{_how_far(record, item)} [{shown_path(run)}]")
            elif item.runs >= MAX_ROUNDS:
                self._give_up(item, f"still failing after {MAX_ROUNDS} rounds, at {site.file}:{site.line} "
                              f"[{shown_path(run)}]")
            else:
                self.sites.setdefault(site.key, _SiteState(site, later.suggestions, step_id=later.step_id)) \
                    .runs.append(later.run)
                item.chain.append(site.key)
                item.steps[site.key] = later.step_id
            return
        state = self.sites[failed_key]  # failed again where a fix was tried: that candidate does not hold
        if state.locked_by is not None:
            self._give_up(item, f"the fix verified by {shown_path(state.locked_by)} does not make it pass "
                          f"[{shown_path(run)}]")
            return
        state.index += 1
        if state.exhausted:
            self._give_up(item, f"none of the top {TOP} suggestions for {state.site.file}:{state.site.line} "
                          f"verified (last: {record.status} {record.error_code or ''} [{shown_path(run)}])")


def _how_far(record: StoredRun, item: _Item) -> str:
    """How the rerun ended, by how far it got: past every fixed step, at one of them, or before them
    (the fix was never tried: an earlier step, or the plan itself, failed)."""
    failed_step = record.failed_step
    ended = f"{record.status} {record.error_code or ''}".rstrip()
    at = f"at step '{failed_step}'" if failed_step else "before its first step"
    passed = {step.step_id for step in record.steps if step.outcome == "passed"}
    fixed = set(item.steps.values())
    if fixed <= passed:
        return f"past the fixed step(s), then {ended} {at} with no suggested target"
    if failed_step in fixed:
        return f"{ended} at the fixed step '{failed_step}' itself, with no suggested target"
    missed = ", ".join(f"'{sid}'" for sid in sorted(fixed - passed))
    return f"{ended} {at}, before the fixed step(s) {missed}: the fix was not tried"
