"""``cometlocal``: validate plans, print the plan schema, verify and show run folders (no browser).

Exit codes: 0 all valid, 1 some plan invalid, 2 usage error (bad arguments,
missing path, nothing to validate).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .audit import find_runs, show_run, verify_run
from .contract.expectation import expectation_met
from .contract.suite import SuiteConfigFinder
from .contract.schema import group_json_schema, plan_json_schema, suite_json_schema
from .contract.settings import effective_settings
from .contract.validator import InvalidPlan, ValidationContext, validate_path

DEFAULT_GLOBS = ("*.actions.yaml", "*.actions.yml")
_ROOT_MARKERS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


class UsageError(Exception):
    """Bad arguments or nothing to do: exit code 2."""


def find_root(paths: Sequence[Path]) -> Path:
    """Like pytest's rootdir: the nearest ancestor of the arguments with a config file."""
    resolved = [p.resolve() for p in paths] or [Path.cwd().resolve()]
    common = Path(os.path.commonpath([str(p if p.is_dir() else p.parent) for p in resolved]))
    for folder in (common, *common.parents):
        if any((folder / m).is_file() for m in _ROOT_MARKERS):
            return folder
    return common


def plan_files(paths: Sequence[Path], globs: Sequence[str]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or folder: {path}")
        if path.is_file():
            found.append(path)
            continue
        for candidate in sorted(path.rglob("*")):
            if candidate.is_file() and any(fnmatch.fnmatch(candidate.name, g) for g in globs):
                if not any(part.startswith(".") for part in candidate.relative_to(path).parts[:-1]):
                    found.append(candidate)
    return found


def _shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def cmd_validate(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths]
    files = plan_files(paths, args.glob or DEFAULT_GLOBS)
    if not files:
        raise UsageError("no plan files found under " + ", ".join(map(str, paths)))
    root = Path(args.root).resolve() if args.root else find_root(paths)
    configs = SuiteConfigFinder(root, Path(args.config).resolve() if args.config else None)
    report: list[dict] = []
    invalid_count = valid_count = expected_count = 0
    for path in files:
        ctx = ValidationContext(root=root, plan_path=path.resolve(), suite_config=configs.for_plan(path))
        for result in validate_path(path, ctx, shown=_shown(path)):
            entry = {"file": result.source.file, "plan": result.item_name, "line": result.source.mark.line}
            if isinstance(result, InvalidPlan):
                entry["valid"] = False
                entry["problems"] = [p.as_dict() for p in result.problems]
                if result.expect is not None and expectation_met(
                    result.expect, "INVALID_ACTIONSPEC", None, result.problem_steps
                ):
                    # A negative plan: pytest passes it, so validation does too.
                    expected_count += 1
                    entry["expected_invalid"] = True
                    if args.format == "text":
                        print(f"{result.source.file}:{result.source.mark.line}: plan '{result.item_name}' is invalid as expected")
                    report.append(entry)
                    continue
                invalid_count += 1
                if args.format == "text":
                    for problem in result.problems:
                        print(f"{problem.format()}  [{problem.rule}]")
            else:
                valid_count += 1
                entry["valid"] = True
                entry["steps"] = len(result.plan.steps)
                eff = effective_settings(result, cli_base_url=args.base_url, env={})
                entry["effective"] = {"base_url": eff.base_url, "allowlist": list(eff.allowlist),
                                      "sources": {k: eff.sources[k] for k in ("base_url", "allowlist")}}
            report.append(entry)
    if args.format == "json":
        print(json.dumps(
            {"valid": valid_count, "invalid": invalid_count, "expected_invalid": expected_count, "plans": report},
            indent=2,
        ))
    else:
        total = valid_count + invalid_count + expected_count
        summary = f"{total} plans in {len(files)} files: {valid_count} valid, {invalid_count} invalid"
        if expected_count:
            summary += f", {expected_count} invalid as expected"
        print(summary, file=sys.stderr if invalid_count else sys.stdout)
    return 1 if invalid_count else 0


def cmd_schema(args: argparse.Namespace) -> int:
    make = {"plan": plan_json_schema, "group": group_json_schema, "suite": suite_json_schema}[args.kind]
    text = json.dumps(make(), indent=2)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    runs = find_runs([Path(p) for p in args.runs])
    if not runs:
        raise UsageError("no run folders under " + ", ".join(args.runs))
    bad = 0
    for run in runs:
        result = verify_run(run)
        if result.ok:
            if not args.quiet:
                print(f"ok      {run}  ({result.events} events, {result.files} evidence files)")
                for note in result.notes:
                    print(f"  note: {note}")
            continue
        bad += 1
        print(f"FAILED  {run}")
        for problem in result.problems[: args.max_problems]:
            print(f"  - {problem}")
        if len(result.problems) > args.max_problems:
            print(f"  ... and {len(result.problems) - args.max_problems} more")
    print(f"{len(runs)} run folders: {len(runs) - bad} verified, {bad} failed", file=sys.stderr if bad else sys.stdout)
    return 1 if bad else 0


def cmd_show(args: argparse.Namespace) -> int:
    runs = find_runs([Path(p) for p in args.runs])
    if not runs:
        raise UsageError("no run folders under " + ", ".join(args.runs))
    for run in runs:
        try:
            print(show_run(run))
        except (OSError, ValueError) as exc:
            print(f"{run}: cannot be read ({exc})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cometlocal", description="Browser action plans for pytest.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="validate plan files or folders (no browser)")
    v.add_argument("paths", nargs="+", help="plan files or folders to search")
    v.add_argument("--root", help="folder that confines uploads_root (default: like pytest's rootdir)")
    v.add_argument("--base-url", help="the base URL a run would get from pytest's --base-url (reported with --format json)")
    v.add_argument("--glob", action="append", help="file name pattern in folders (repeatable)")
    v.add_argument("--config", help="suite config file for every plan (default: the nearest cometlocal.yaml)")
    v.add_argument("--format", choices=("text", "json"), default="text")
    v.set_defaults(func=cmd_validate)
    ver = sub.add_parser("verify", help="check run folders against the trace and evidence contracts")
    ver.add_argument("runs", nargs="+", help="run folders, or output folders holding them")
    ver.add_argument("--quiet", "-q", action="store_true", help="print only failures")
    ver.add_argument("--max-problems", type=int, default=10)
    ver.set_defaults(func=cmd_verify)
    sh = sub.add_parser("show", help="print a readable timeline of run folders")
    sh.add_argument("runs", nargs="+", help="run folders, or output folders holding them")
    sh.set_defaults(func=cmd_show)
    s = sub.add_parser("schema", help="print the JSON Schema of plan files (or of step groups, or the suite config)")
    s.add_argument("--kind", choices=("plan", "group", "suite"), default="plan",
                   help="plan: *.actions.yaml (default); group: *.steps.yaml; suite: cometlocal.yaml")
    s.add_argument("--output", "-o", help="write to this file instead of standard output")
    s.set_defaults(func=cmd_schema)
    return parser



def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"cometlocal: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover - `| head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
