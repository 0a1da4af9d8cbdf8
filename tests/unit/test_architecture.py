"""Layering rules that keep the architecture honest, applied to the whole package.

The rules are tests/unit/layering.py's (tests/unit/test_layering.py shows each one
failing on a tree built to break it). Rooms: see that module.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.unit import package_source
from tests.unit.layering import (
    Package,
    crowded_rooms,
    forbidden_imports,
    imports_outside,
    long_modules,
    room_cycles,
    room_imports,
)

REPO = Path(__file__).resolve().parents[2]
BROWSER_AND_PYTEST = {"playwright", "pytest", "_pytest", "allure"}
MODULE_LINES = 450  # hard limit; modules aim at about 400
ROOM_MODULES = 12
# Modules allowed over the limit, with why; each entry must still be needed.
LONG_MODULES = {
    "demo/portal.py": "the demo site (not the plugin): its pages are HTML in strings, to be cut out",
}


@pytest.fixture(scope="module")
def package() -> Package:
    return package_source.package()


def test_no_import_cycle_between_rooms(package: Package) -> None:
    assert room_cycles(package) == []


def test_contract_imports_no_browser_and_no_pytest(package: Package) -> None:
    """The contract is pure: not even under TYPE_CHECKING."""
    assert forbidden_imports(package, "contract", BROWSER_AND_PYTEST, runtime=False) == []


@pytest.mark.parametrize("room", ["runs", "executor/runfolder"])
def test_run_folders_are_written_and_read_without_playwright(package: Package, room: str) -> None:
    """Type hints under TYPE_CHECKING are allowed; nothing at run time."""
    assert forbidden_imports(package, room, {"playwright"}, runtime=True) == []


def test_runs_import_only_the_contract(package: Package) -> None:
    """A finished run is read with the contract's types alone (and the stdlib, pydantic, yaml)."""
    assert imports_outside(package, "runs", ("contract",), {"pydantic", "yaml"}) == []


def test_fix_reads_runs_through_the_reader_and_runs_pytest_only_as_a_subprocess(package: Package) -> None:
    """`cometlocal fix` builds on the contract and the run reader; verification reruns pytest in a child."""
    assert imports_outside(package, "fixing", ("contract", "runs"), {"pydantic", "yaml"}) == []
    assert forbidden_imports(package, "fixing", BROWSER_AND_PYTEST, runtime=False) == []


def test_the_page_room_never_imports_the_step_room(package: Package) -> None:
    assert room_imports(package, "executor/page", "executor/step") == []


def test_nothing_imports_the_plugin_but_its_entry_point(package: Package) -> None:
    """pytest loads plugin/ through pyproject's pytest11 entry point; no other room reaches into it."""
    entry_points = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    assert list(entry_points["pytest11"].values()) == ["pytest_cometlocal.plugin"]
    rooms = {m.room for m in package.modules.values()} - {"plugin"}
    assert [line for room in sorted(rooms) if not room.startswith("plugin/")
            for line in room_imports(package, room, "plugin")] == []


def test_no_private_pytest_imports_anywhere(package: Package) -> None:
    assert forbidden_imports(package, "", {"_pytest"}, runtime=False) == []


@pytest.mark.parametrize("room", ["executor", "agent"])
def test_executor_and_agent_import_no_pytest(package: Package, room: str) -> None:
    """The executor (the session's browser included) and the agent's session are usable without pytest."""
    assert forbidden_imports(package, room, {"pytest", "_pytest"}, runtime=False) == []


def test_planners_import_no_browser_and_no_pytest(package: Package) -> None:
    """A recording is read, never run: the importer needs neither a browser nor pytest."""
    assert forbidden_imports(package, "planners", BROWSER_AND_PYTEST, runtime=False) == []


def test_only_the_agent_server_imports_mcp(package: Package) -> None:
    users = {m.path.as_posix() for m in package.modules.values()
             if any(i.module.split(".")[0] == "mcp" for i in m.imports)}
    assert users == {"agent/server.py"}


def test_modules_stay_small(package: Package) -> None:
    assert long_modules(package, MODULE_LINES, LONG_MODULES) == []
    still_long = {m.path.as_posix() for m in package.modules.values() if m.lines > MODULE_LINES}
    assert still_long == set(LONG_MODULES), "an allowed module is short now: drop it from LONG_MODULES"


def test_no_room_holds_more_than_about_twelve_modules(package: Package) -> None:
    assert crowded_rooms(package, ROOM_MODULES) == []
