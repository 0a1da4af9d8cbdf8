"""The plan side of ``cometlocal validate`` and ``cometlocal schema``: plans validated with the
extensions their folder sees, and the registration problems those extensions had.

Each plan is validated with the kinds pytest would give it (contract/extensions/loading.py:
the installed packages' ``cometlocal.extensions`` entry points and the conftest.py files from the
rootdir down to the plan's folder). A registration refused, or a source that failed to load, is a
warning here, located where it was registered: a plan that uses such a kind is invalid (rule
EXTENSION, located at its ``kind``), the others are not.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Iterable

from pytest_cometlocal.contract.expectation import expectation_met
from pytest_cometlocal.contract.extensions.loading import Extensions
from pytest_cometlocal.contract.extensions.registry import KindRegistry, RegistrationProblem
from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder
from pytest_cometlocal.contract.model.plan import plan_format_versions
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.internal import unreadable_file
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_path


def shown_path(path: Path, real: Path, cwd: Path) -> str:
    """``path`` as reported: relative to the working folder ``cwd`` when ``real`` (both resolved) is inside it."""
    try:
        return real.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def _resolved(path: Path, folders: dict[Path, Path]) -> Path:
    """``path.resolve()``, with ``folders`` keeping each folder resolved: resolving walks
    the disk, and only a file that is itself a symlink needs more than its folder."""
    folder = folders.get(path.parent)
    if folder is None:
        folder = folders[path.parent] = path.parent.resolve()
    return path.resolve() if path.is_symlink() else folder / path.name


def registration_problems(registries: Iterable[KindRegistry]) -> list[RegistrationProblem]:
    """The problems of the registries, each once (every folder's registry repeats the entry points')."""
    seen: dict[tuple[str, str], RegistrationProblem] = {}
    for registry in registries:
        for problem in registry.problems:
            seen.setdefault((problem.where, problem.message), problem)
    return list(seen.values())


def warning_line(problem: RegistrationProblem) -> str:
    """``conftest.py:12: warning: kind 'click' is a built-in kind: ... [EXTENSION]``"""
    return f"{problem.where}: warning: {problem.message} [EXTENSION]"


def warning_entry(problem: RegistrationProblem) -> dict[str, Any]:
    return {"where": problem.where, "kind": problem.name, "message": problem.message, "rule": "EXTENSION"}


def folder_registry(root: Path | None, cwd: Path) -> KindRegistry:
    """The kinds a plan in ``cwd`` would see under ``root`` (``cometlocal schema`` and ``mcp``)."""
    root = (root or cwd).resolve()
    return Extensions(root).for_path(cwd if cwd.resolve().is_relative_to(root) else root)


def validate_files(files: list[Path], root: Path, configs: SuiteConfigFinder,
                   args: argparse.Namespace) -> tuple[list[dict], tuple[int, int, int], list[RegistrationProblem]]:
    """The report entries, the (valid, invalid, expected invalid) counts, and the extensions' registration
    problems; text mode prints the plans' problems as it goes."""
    report: list[dict] = []
    invalid_count = valid_count = expected_count = 0
    cwd = Path.cwd().resolve()
    folders: dict[Path, Path] = {}
    extensions = None if getattr(args, "no_extensions", False) else Extensions(root)
    # Validation uses a plan's path only for its folder, which also decides its
    # suite config and its extensions, so the plans of one folder share a context (and its plan_dir).
    contexts: dict[Path, ValidationContext] = {}
    for path in files:
        real = _resolved(path, folders)
        ctx = contexts.get(real.parent)
        if ctx is None:
            ctx = contexts[real.parent] = ValidationContext(
                root=root, plan_path=real, suite_config=configs.for_plan(real), run_vars=args.run_vars,
                extensions=extensions.for_path(real) if extensions is not None else None)
        shown = shown_path(path, real, cwd)
        try:
            results = validate_path(path, ctx, shown=shown)
        except Exception as exc:  # the last line of defence: this file is one invalid plan, the others go on
            results = [unreadable_file(shown, exc)]
        for result in results:
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
                if args.format == "json":  # only the JSON report shows these: text mode does not pay for them
                    entry["format_versions"] = plan_format_versions(result.plan)  # v1.1: which formats it needs
                    eff = effective_settings(result, cli_base_url=args.base_url, env={})
                    entry["effective"] = {"base_url": eff.base_url, "allowlist": list(eff.allowlist),
                                          "sources": {k: eff.sources[k] for k in ("base_url", "allowlist")}}
                    if result.var_sources:  # where each var came from: row > plan > --var (names, never values)
                        entry["effective"]["sources"]["vars"] = dict(result.var_sources)
            report.append(entry)
    registries = [ctx.extensions for ctx in contexts.values() if ctx.extensions is not None]
    return report, (valid_count, invalid_count, expected_count), registration_problems(registries)


__all__ = ["registration_problems", "folder_registry", "shown_path", "validate_files", "warning_entry", "warning_line"]
