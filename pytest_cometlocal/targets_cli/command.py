"""``cometlocal targets URL``: what a plan can target on a page, each element with its target and whether it is unique.

The page is opened by running a plan through the executor (opening.py), in
a Chromium of its own (``BrowserManager``, as pytest's session would launch
it), and listed by ``executor.suggest.listing``; ``--aria`` prints Playwright's
aria snapshot instead (masked, at most 20 KB). Exit codes: 0 listed; 1 the
page could not be opened (its error code first: DOMAIN_BLOCKED, the failed
step's code; the exception's name for a browser that could not start); 2 usage error. The run folders of the
opening are kept only with ``--output``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.targets_cli.errors import TargetsRefused, TargetsUsage
from pytest_cometlocal.targets_cli.opening import Opening, open_and_look

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_cometlocal.executor.runfolder.redactor import Redactor

EXIT_CODES = ("exit codes: 0 the page's targets were listed; 1 the page could not be opened (the error code and "
              "why, on standard error: DOMAIN_BLOCKED for a URL outside the allowlist, the failed step's code); "
              "2 usage error")


def add_parser(sub: Any) -> None:
    """``targets``, in ``cometlocal``'s subcommands."""
    t = sub.add_parser(
        "targets", help="list what a plan can target on a page (opens a browser)",
        description="Open a page as a plan would (its allowlist, secrets masked) and list each interactive or "
                    "landmark element with the target a plan would use (role and name first, then label, test id, "
                    "text) and whether it matches that element alone (docs/getting-started.md#finding-targets).",
        epilog=EXIT_CODES)
    t.add_argument("url", nargs="?", help="the page: absolute, or relative to the suite config's base_url")
    t.add_argument("--plan", metavar="FILE[::NAME]", help="open the page a plan's step starts from (with --step)")
    t.add_argument("--step", metavar="ID", help="the step of --plan: its steps before this one run first "
                                                "(default: all of them)")
    t.add_argument("--storage-state", metavar="NAME", help="start from this saved state, made by the suite's plan "
                                                           "that saves it (save_storage_state: NAME)")
    t.add_argument("--json", action="store_true", help="print the listing as JSON")
    t.add_argument("--aria", action="store_true", help="print the page's aria snapshot (with --json: add it)")
    t.add_argument("--config", help="suite config file (default: the nearest cometlocal.yaml)")
    t.add_argument("--root", help="the suite's root, where storage-state makers are looked for (default: here)")
    t.add_argument("--base-url", help="the base URL, as pytest's --base-url gives a run")
    t.add_argument("--output", help="keep the run folders of the opening here (default: a temporary folder)")
    t.add_argument("--headed", action="store_true", help="show the browser")
    t.set_defaults(func=cmd_targets)


def cmd_targets(args: argparse.Namespace) -> int:
    try:
        opening = _opening(args)
        with tempfile.TemporaryDirectory(prefix="cometlocal-targets-") as scratch:
            output = Path(args.output) if args.output else Path(scratch)
            found = _look(opening, output, args)
    except TargetsUsage as exc:
        print(f"cometlocal: error: {exc}", file=sys.stderr)
        return 2
    except TargetsRefused as exc:
        print(f"cometlocal targets: {exc}", file=sys.stderr)
        if args.json:
            print(json.dumps({"error": {"code": exc.code, "message": str(exc)}}, indent=2))
        return 1
    print(json.dumps(found, indent=2, ensure_ascii=False) if args.json else text_report(found, args.aria))
    return 0


def _opening(args: argparse.Namespace) -> Opening:
    if (args.url is None) == (args.plan is None):
        raise TargetsUsage("give a URL or --plan FILE (one of them)")
    if args.step and not args.plan:
        raise TargetsUsage("--step names a step of --plan FILE")
    root = Path(args.root or ".")
    if not root.is_dir():
        raise TargetsUsage(f"no such suite root: {root}")
    config = Path(args.config).resolve() if args.config else None
    if config is not None and not config.is_file():
        raise TargetsUsage(f"no such suite config: {args.config}")
    return Opening(root.resolve(), args.url, args.plan, args.step, args.storage_state, config, args.base_url)


def _look(opening: Opening, output: Path, args: argparse.Namespace) -> dict[str, Any]:
    from pytest_cometlocal.executor.browser.manager import BrowserManager
    from pytest_cometlocal.executor.errors import CallTimedOut
    from pytest_cometlocal.executor.step.evidence import aria_text
    from pytest_cometlocal.executor.suggest.listing import page_targets

    def look(page: Page, redactor: Redactor) -> dict[str, Any]:
        found = page_targets(page, redactor)
        if args.aria:
            found["aria_snapshot"], cut = aria_text(page, redactor, ms=10_000)
            if cut:
                found["aria_snapshot_truncated"] = True
        return found

    manager = BrowserManager({"headless": not args.headed}, None)
    try:
        return open_and_look(manager.browser, opening, output, look, kept=bool(args.output))
    except CallTimedOut as exc:
        raise TargetsRefused("PAGE_UNRESPONSIVE", str(exc)) from None
    except CometLocalError as exc:
        if isinstance(exc, (TargetsRefused, TargetsUsage)):
            raise
        raise TargetsRefused(getattr(getattr(exc, "code", None), "value", type(exc).__name__), str(exc)) from None
    finally:
        manager.close()


def target_yaml(target: dict[str, Any]) -> str:
    """A target as one line of YAML, as a plan writes it: ``{type: role, role: button, name: Save, exact: true}``."""
    return yaml.safe_dump(target, default_flow_style=True, sort_keys=False, width=1_000_000, allow_unicode=True).strip()


def _states(entry: dict[str, Any]) -> str:
    """``   states: checked=true expanded=false``: what a role target's v1.2 filters could add (none: "")."""
    shown = " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in entry.get("states", {}).items())
    return f"   states: {shown}" if shown else ""


def text_report(found: dict[str, Any], aria: bool) -> str:
    """The listing as text: the page, then a line per element (what it is, its target, unique or not)."""
    if aria:
        return found["aria_snapshot"] + ("# ... cut at 20 KB\n" if found.get("aria_snapshot_truncated") else "")
    lines = [f'{found["url"]}  "{found["title"]}"']
    width = min(48, max((len(e["element"]) for e in found["elements"]), default=0))
    for entry in found["elements"]:
        mark = "" if entry["unique"] else f"   not unique: matches {entry['matches']}"
        lines.append(f"  {entry['element']:<{width}}  {target_yaml(entry['target'])}{mark}{_states(entry)}")
    unique = sum(1 for e in found["elements"] if e["unique"])
    summary = f"{len(found['elements'])} elements: {unique} unique targets"
    if found.get("unnamed"):
        summary += f"; {found['unnamed']} elements no target names"
    lines.append(summary + (f" ({found['note']})" if found.get("note") else ""))
    return "\n".join(lines)
