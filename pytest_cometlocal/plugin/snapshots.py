"""``--cometlocal-update-snapshots``: which screenshot_matches baselines a run writes beside the plan.

``none`` (the default) writes none: a missing baseline fails, its would-be picture in the
run folder only. ``missing`` writes the baselines that do not exist yet; ``all`` also
rewrites those that differ. A baseline is a reviewed picture: a run that wrote some says
which (a ``cometlocal baselines`` report section, the ``cometlocal.baselines_written``
property, a terminal line), read back from the run's evidence manifest, where each written
baseline has a hashed copy (role ``baseline_written``).
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_cometlocal.contract.model.checks.audits import UPDATE_SNAPSHOTS
from pytest_cometlocal.contract.settings import EffectiveSettings
from pytest_cometlocal.runs.errors import RunFolderError
from pytest_cometlocal.runs.reader import read_evidence

OPTION = "--cometlocal-update-snapshots"


def add_option(parser: pytest.Parser) -> None:
    parser.getgroup("cometlocal").addoption(
        OPTION, dest="cometlocal_update_snapshots", choices=UPDATE_SNAPSHOTS, default="none",
        help="screenshot_matches baselines to write beside the plan: all (missing or differing), missing, "
        "or none (default: a missing baseline fails)")


def with_update_mode(eff: EffectiveSettings, config: pytest.Config) -> EffectiveSettings:
    """The item's settings with the session's update mode (a command-line setting, like dry run)."""
    mode = config.getoption("cometlocal_update_snapshots", "none") or "none"
    return eff if mode == eff.update_snapshots else replace(eff, update_snapshots=mode)


def baselines_written(run_dir: Path) -> list[str]:
    """The baselines a run wrote beside its plan (``<plan stem>.snapshots/<file>``), in order."""
    try:
        entries = read_evidence(run_dir)
    except RunFolderError:
        return []
    return [str(e.data.get("metadata", {}).get("baseline")) for e in entries
            if e.kind == "screenshot" and e.data.get("metadata", {}).get("role") == "baseline_written"]


def report_baselines(item: pytest.Item, run_dir: Path | None) -> None:
    """Say which baselines the item's run wrote: report section, property, and a terminal line."""
    if run_dir is None or (item.config.getoption("cometlocal_update_snapshots", "none") or "none") == "none":
        return
    written = baselines_written(run_dir)
    if not written:
        return
    text = "\n".join(f"wrote baseline {name}" for name in written)
    item.add_report_section("call", "cometlocal baselines", text)
    item.user_properties.append(("cometlocal.baselines_written", ", ".join(written)))
    reporter = item.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not hasattr(item.config, "workerinput"):
        capture = item.config.pluginmanager.get_plugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
            reporter.ensure_newline()
            for name in written:
                reporter.write_line(f"{item.nodeid}: wrote baseline {name}")
