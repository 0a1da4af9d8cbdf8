"""``cometlocal``: validate plans, import recordings, print the plan schema, verify, show, diff and fix run folders.

No command starts a browser, except ``fix --verify``, which reruns plans under pytest, and ``targets``.

Exit codes of validate (``VALIDATE_EXIT_CODES``, also in ``cometlocal validate --help``): 0 all
valid, 1 some plan invalid, 2 usage error (bad arguments, missing path, nothing to validate). verify, show and diff take run folders or
output folders, several at once (the shards of one CI run).
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import json
import sys
from pathlib import Path
from typing import Sequence

from pytest_cometlocal import __version__
from pytest_cometlocal.cli_plans import folder_registry, validate_files, warning_entry, warning_line
from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder
from pytest_cometlocal.contract.load.paths import DEFAULT_GLOBS
from pytest_cometlocal.contract.load.rootdir import pytest_rootdir
from pytest_cometlocal.contract.errors import CometLocalError, RootdirError, RunVarError
from pytest_cometlocal.contract.load.run_vars import parse_run_vars
from pytest_cometlocal.targets_cli.command import add_parser as add_targets_parser

# verify/show (run folders) and schema import what they need when they run:
# every start of the command pays for what it imports, and validate, the
# command run most, needs none of it.


VALIDATE_EXIT_CODES = (
    "exit codes: 0 every plan is valid (or invalid as its expect: asks); 1 some plan is invalid, "
    "an INTERNAL problem included; 2 usage error (bad arguments, a missing path, no plan file found), "
    "printed on standard error"
)


class UsageError(CometLocalError):
    """Bad arguments or nothing to do: exit code 2."""


def find_root(paths: Sequence[Path]) -> Path:
    """The rootdir ``pytest PATHS`` would get here, so validation confines paths like the run will."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major = int(version("pytest").split(".")[0])
    except (PackageNotFoundError, ValueError):
        major = 9
    try:
        return pytest_rootdir(paths, Path.cwd(), major)
    except RootdirError as exc:
        raise UsageError(f"cannot tell pytest's rootdir: {exc}") from None


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


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate the plans under the paths, confined to the rootdir ``pytest PATHS`` would use (or ``--root``)."""
    paths = [Path(p) for p in args.paths]
    files = plan_files(paths, args.glob or DEFAULT_GLOBS)
    if not files:
        raise UsageError("no plan files found under " + ", ".join(map(str, paths)))
    root = Path(args.root).resolve() if args.root else find_root(paths)
    configs = SuiteConfigFinder(root, Path(args.config).resolve() if args.config else None)
    try:
        args.run_vars = parse_run_vars(args.var, "cli", "--var")
    except RunVarError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "text":
        print(f"rootdir: {root}")
    # The cyclic GC is paused while plans load, as during pytest's collection
    # (plugin/hooks.py): loaded YAML makes many small containers, little of it
    # cyclic garbage, and the collections would walk them again and again.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        report, (valid_count, invalid_count, expected_count), warnings = validate_files(files, root, configs, args)
    finally:
        if was_enabled:
            gc.enable()
    if args.format == "json":
        extra = {"extension_warnings": [warning_entry(w) for w in warnings]} if warnings else {}
        print(json.dumps(
            {"rootdir": str(root), "valid": valid_count, "invalid": invalid_count,
             "expected_invalid": expected_count, "plans": report, **extra},
            indent=2,
        ))
    else:
        for warning in warnings:  # (extensions) a registration refused: only the plans that use it fail
            print(warning_line(warning))
        total = valid_count + invalid_count + expected_count
        summary = f"{total} plans in {len(files)} files: {valid_count} valid, {invalid_count} invalid"
        if expected_count:
            summary += f", {expected_count} invalid as expected"
        print(summary)  # where the problems go: one stream holds the whole report
    return 1 if invalid_count else 0


def cmd_schema(args: argparse.Namespace) -> int:
    from pytest_cometlocal.contract.model.schema import NEWEST, group_json_schema, plan_json_schema, suite_json_schema

    make = {"plan": plan_json_schema, "group": group_json_schema, "suite": suite_json_schema}[args.kind]
    schema = make(args.format_version)
    if not args.no_extensions and args.format_version == NEWEST:  # (extensions) the kinds registered here
        from pytest_cometlocal.contract.extensions.schema import with_kinds

        registry = folder_registry(Path(args.root) if args.root else find_root([Path(".")]), Path.cwd())
        for warning in registry.problems:
            print(warning_line(warning), file=sys.stderr)
        schema = with_kinds(schema, registry)
    text = json.dumps(schema, indent=2)
    if args.output:
        try:
            _output_file(args.output).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"{args.output}: cannot write the schema: {exc.strerror or exc}") from None
    else:
        print(text)
    return 0


def _output_file(value: str) -> Path:
    """An ``-o`` file in a folder that does not exist is a usage error before any work (fix --verify takes minutes)."""
    path = Path(value)
    if path.is_dir():
        raise UsageError(f"{value}: a folder, not a file")
    if not path.parent.is_dir():
        raise UsageError(f"{value}: the folder {path.parent} does not exist")
    return path


def _run_folders(paths: Sequence[str]) -> list[Path]:
    """The run folders the paths name (run folders or output folders, several shards' together): a path
    that names none is a usage error naming it."""
    from pytest_cometlocal.runs.errors import RunFolderError
    from pytest_cometlocal.runs.reader import find_runs

    try:
        return find_runs([Path(p) for p in paths])
    except RunFolderError as exc:
        raise UsageError(str(exc)) from None


def cmd_verify(args: argparse.Namespace) -> int:
    from pytest_cometlocal.runs.verify import verify_run

    runs = _run_folders(args.runs)
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
    where = f" in {len(args.runs)} paths" if len(args.runs) > 1 else ""
    print(f"{len(runs)} run folders{where}: {len(runs) - bad} verified, {bad} failed",
          file=sys.stderr if bad else sys.stdout)
    return 1 if bad else 0


def cmd_show(args: argparse.Namespace) -> int:
    from pytest_cometlocal.runs.errors import RunFolderError
    from pytest_cometlocal.runs.show import fixes_block, list_line, show_run, suggested_fix

    groups = [(path, _run_folders([path])) for path in args.runs]
    seen: set[Path] = set()
    fixes: list[str] = []
    for path, runs in groups:
        runs = [run for run in runs if run.resolve() not in seen]
        seen.update(run.resolve() for run in runs)
        if len(groups) > 1 and runs:
            print(f"== {path}: {len(runs)} run{'s' if len(runs) != 1 else ''}")
        for run in runs:
            try:
                # A line per run with --list; else the timeline, with the suggested targets of its error.
                print(list_line(run) if args.list else show_run(run))
                fixes += [line for line in [suggested_fix(run)] if line]
            except (OSError, ValueError, RunFolderError) as exc:
                print(f"{run}: cannot be read ({exc})")
    for line in fixes_block(fixes, args.runs):  # either way: the failed runs a `cometlocal fix` could mend
        print(line)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    """Exit 0 when what is compared matches, 1 when it diverges; refusals are usage errors (2)."""
    from pytest_cometlocal.runs.diff_folders import compare_command
    from pytest_cometlocal.runs.errors import DiffError

    if args.against:
        side_a, side_b = args.paths, args.against
    elif len(args.paths) == 2:
        side_a, side_b = args.paths[:1], args.paths[1:]
    else:
        raise UsageError(f"diff compares two sides: RUN_A RUN_B (run folders or output folders), or "
                         f"A... --against B... (got {len(args.paths)} paths and no --against)")
    try:
        text, code = compare_command([Path(p) for p in side_a], [Path(p) for p in side_b],
                                     plan=args.plan, as_json=args.json)
    except DiffError as exc:
        raise UsageError(str(exc)) from None
    print(text)
    return code


def cmd_fix(args: argparse.Namespace) -> int:
    """One patch of suggested targets for the failed runs (docs/triage.md#cometlocal-fix); never writes a plan."""
    from pytest_cometlocal.fixing.command import FixRequest, run_fix
    from pytest_cometlocal.fixing.verify import VerifyOptions

    output = _output_file(args.output) if args.output else None
    runs = _run_folders(args.runs)
    root = Path(args.root or ".")
    if not root.is_dir():
        raise UsageError(f"no such suite root: {root}")
    if args.dry_run and not args.verify:
        raise UsageError("--dry-run applies to --verify's reruns; add --verify")
    loose = [a for a in args.pytest_arg or () if not a.startswith("-")]
    if loose:  # the inner pytest would take it for a test path, and could miss the suite's ini file for it
        raise UsageError(f"--pytest-arg {loose[0]!r} is not an option: give each option with its value in one "
                         "argument, e.g. --pytest-arg=--cometlocal-config=ci.yaml or --pytest-arg=-pno:xdist")
    verify = VerifyOptions(root, Path(args.verify_output), args.timeout, args.dry_run, tuple(args.pytest_arg or ()),
                           tuple(runs)) if args.verify else None
    return run_fix(FixRequest(runs, root, output, verify))


def cmd_import(args: argparse.Namespace) -> int:
    """A codegen recording -> a plan file (docs/planners.md); exit 1 when statements were left out."""
    from pytest_cometlocal.planners.errors import ImportFailed
    from pytest_cometlocal.planners.importer import run_import

    try:
        return run_import(Path(args.script), args.output, name=args.name, base_url=args.base_url,
                          secret_pairs=args.secret or [], partial=args.partial, force=args.force)
    except ImportFailed as exc:
        raise UsageError(str(exc)) from None


def cmd_mcp(args: argparse.Namespace) -> int:
    """The executor as an MCP server on stdio (docs/planners.md); needs the extra ``mcp``."""
    try:
        from pytest_cometlocal.agent.server import serve
    except ImportError as exc:
        if "mcp" not in str(exc):
            raise
        raise UsageError("cometlocal mcp needs the MCP SDK: pip install 'pytest-cometlocal[mcp]'") from None
    workdir = Path(args.workdir)
    registry = None
    if not args.no_extensions:  # (extensions) the kinds a plan saved in the working folder may use
        registry = folder_registry(find_root([workdir]), workdir)
        for warning in registry.problems:
            print(warning_line(warning), file=sys.stderr)  # standard output is the protocol's
    return serve(workdir, headed=args.headed, extensions=registry)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cometlocal", description="Browser action plans for pytest.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="validate plan files or folders (no browser)",
                       description="Validate plan files, or the plan files under folders, without a browser. "
                                   "Every problem is one line, file:line:col key.path: message [RULE], on "
                                   "standard output, followed by the summary line (docs/validation-rules.md).",
                       epilog=VALIDATE_EXIT_CODES)
    v.add_argument("paths", nargs="+", help="plan files or folders to search")
    v.add_argument("--root", help="folder that confines uploads_root (default: the rootdir `pytest PATHS` would use here)")
    v.add_argument("--base-url", help="the base URL a run would get from pytest's --base-url (reported with --format json)")
    v.add_argument("--glob", action="append", help="file name pattern in folders (repeatable)")
    v.add_argument("--config", help="suite config file for every plan (default: the nearest cometlocal.yaml)")
    v.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                   help="set ${vars.NAME} for every plan, as pytest's --cometlocal-var does (repeatable)")
    v.add_argument("--format", choices=("text", "json"), default="text")
    v.add_argument("--no-extensions", action="store_true",
                   help="load no extension (conftest.py kinds, installed packages'): their kinds are unknown")
    v.set_defaults(func=cmd_validate)
    ver = sub.add_parser("verify", help="check run folders against the trace and evidence contracts")
    ver.add_argument("runs", nargs="+", metavar="PATH",
                     help="run folders, or output folders holding them (several: e.g. every shard's)")
    ver.add_argument("--quiet", "-q", action="store_true", help="print only failures")
    ver.add_argument("--max-problems", type=int, default=10)
    ver.set_defaults(func=cmd_verify)
    sh = sub.add_parser("show", help="print a readable timeline of run folders")
    sh.add_argument("runs", nargs="+", metavar="PATH",
                    help="run folders, or output folders holding them (several: each one's runs under its name)")
    sh.add_argument("--list", action="store_true", help="one line per run: status, error code, plan, folder")
    sh.set_defaults(func=cmd_show)
    d = sub.add_parser("diff", help="compare two runs of one plan step by step, or two sets of runs plan by plan; "
                                    "exit 1 when they diverge",
                       description="RUN_A RUN_B: two run folders of one plan, step by step. Each side may also be "
                                   "an output folder, or several with --against (A... --against B...): the runs "
                                   "of each plan are paired across the sides (docs/triage.md).")
    d.add_argument("paths", nargs="+", metavar="PATH",
                   help="RUN_A RUN_B (each a run folder or an output folder); with --against, the paths of side A")
    d.add_argument("--against", nargs="+", metavar="PATH",
                   help="the paths of side B (run folders or output folders, e.g. the shards of another CI run)")
    d.add_argument("--plan", metavar="SELECTOR",
                   help="compare only this plan: its name, name[row], its file, or file::name")
    d.add_argument("--json", action="store_true", help="print the comparison as JSON (docs/triage.md)")
    d.set_defaults(func=cmd_diff)
    imp = sub.add_parser("import", help="turn a Playwright codegen script into a plan file (read, never run)")
    imp.add_argument("script", metavar="SCRIPT.py", help="a script written by `playwright codegen --target python`")
    imp.add_argument("-o", "--output", help="the plan file to write (default: beside the script; - for standard output)")
    imp.add_argument("--name", help="the plan's name (default: from the script's file name)")
    imp.add_argument("--base-url", help="the plan's base URL (default: the origin of the first page.goto)")
    imp.add_argument("--secret", action="append", metavar="NAME=ENVVAR",
                     help="literals equal to $ENVVAR become ${secrets.NAME} (repeatable)")
    imp.add_argument("--partial", action="store_true", help="write the plan even if some statements cannot be imported")
    imp.add_argument("--force", action="store_true", help="replace an existing output file")
    imp.set_defaults(func=cmd_import)
    fx = sub.add_parser(
        "fix", help="one patch replacing the failed targets of runs with their suggestions (never writes a plan)",
        description="Reads failed runs whose error has suggested targets and writes one unified diff over the "
                    "plan and step-group files (paths relative to --root; apply it there with git apply). With "
                    "--verify each affected plan is rerun under pytest in a scratch copy of the suite with each "
                    "of the top 3 suggestions: this RE-RUNS THE PLANS' SIDE EFFECTS against the application, as a "
                    "rerun in CI would (docs/triage.md). Exit 0: every failed run got a fix; 1: some got none.")
    fx.add_argument("runs", nargs="+", metavar="RUN_OR_OUTPUT", help="run folders, or output folders holding them")
    fx.add_argument("-o", "--output", help="write the patch to this file (default: standard output)")
    fx.add_argument("--verify", action="store_true",
                    help="rerun each plan with the fix in a scratch copy of the suite (replays its side effects)")
    fx.add_argument("--root", help="the suite's rootdir, which plan paths in run folders are relative to (default: here)")
    fx.add_argument("--verify-output", default="cometlocal-fix-runs",
                    help="where --verify keeps its run folders: a new folder per invocation, in it one per round "
                         "(default: cometlocal-fix-runs)")
    fx.add_argument("--timeout", type=float, default=600.0, help="hard limit in seconds of each pytest rerun (default 600)")
    fx.add_argument("--dry-run", action="store_true",
                    help="rerun with --cometlocal-dry-run: critical steps are blocked, not performed")
    fx.add_argument("--pytest-arg", action="append", metavar="ARG",
                    help="one more argument for the pytest reruns (repeatable), an option with its value in one: "
                         "--pytest-arg=--cometlocal-config=ci.yaml")
    fx.set_defaults(func=cmd_fix)
    m = sub.add_parser("mcp", help="serve the executor to an agent over MCP on stdio (extra: mcp)")
    m.add_argument("--workdir", default=".", help="where run folders and saved plans go (default: here)")
    m.add_argument("--headed", action="store_true", help="show the browser")
    m.add_argument("--no-extensions", action="store_true", help="load no extension kinds (conftest.py, packages)")
    m.set_defaults(func=cmd_mcp)
    s = sub.add_parser("schema", help="print the JSON Schema of plan files (or of step groups, or the suite config)")
    s.add_argument("--kind", choices=("plan", "group", "suite"), default="plan",
                   help="plan: *.actions.yaml (default); group: *.steps.yaml; suite: cometlocal.yaml")
    s.add_argument("--output", "-o", help="write to this file instead of standard output")
    s.add_argument("--format-version", choices=("v1", "v1.1", "v1.2", "v1.3", "v1.4"), default="v1.4",
                   help="v1.4 (default); an older one prints that format's schema as it was published, "
                        "for tools that must refuse the newer additions")
    s.add_argument("--root", help="the suite's rootdir: the conftest.py files from it down to here register "
                                  "extension kinds (default: the rootdir `pytest` would use here)")
    s.add_argument("--no-extensions", action="store_true",
                   help="the schema without the extension kinds registered here (the published one's shape)")
    s.set_defaults(func=cmd_schema)
    add_targets_parser(sub)  # cometlocal targets: targets_cli/
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
