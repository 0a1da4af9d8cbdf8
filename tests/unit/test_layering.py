"""The layering rules (tests/unit/layering.py) can fail: each one on a tiny tree built to break it.

test_architecture.py passing means nothing unless these rules see a violation
when there is one; every tree here holds one, and a twin that holds none.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.unit import layering
from tests.unit.layering import Package


def tree(tmp_path: Path, files: dict[str, str]) -> Package:
    """A package ``pkg`` with these modules (path: source); every folder gets an ``__init__.py``."""
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        for folder in [path.parent, *path.parent.parents]:
            if folder == root.parent:
                break
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "__init__.py").touch()
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return Package.read(root)


def test_rooms_are_leaf_folders_and_modules_beside_subfolders(tmp_path: Path) -> None:
    package = tree(tmp_path, {"cli.py": "", "executor/engine.py": "", "executor/page/a.py": "", "plugin/x.py": ""})
    rooms = {m.path.as_posix(): m.room for m in package.modules.values()}
    assert rooms["cli.py"] == "cli" and rooms["executor/engine.py"] == "executor/engine"
    assert rooms["executor/page/a.py"] == rooms["executor/page/__init__.py"] == "executor/page"
    assert rooms["plugin/x.py"] == "plugin"


def test_a_cycle_between_rooms_is_found_through_any_import_form(tmp_path: Path) -> None:
    package = tree(tmp_path, {
        "a/one.py": "from pkg.b import two\n",  # a submodule imported by name
        "b/two.py": "def f():\n    from ..c.three import X\n",  # relative, inside a function
        "c/three.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a.one\nX = 1\n",
    })
    [cycle] = layering.room_cycles(package)
    assert cycle.startswith("a <-> b <-> c: ") and "c/three.py:3 imports pkg.a.one" in cycle
    acyclic = tree(tmp_path / "ok", {"a/one.py": "from pkg.b import two\n", "b/two.py": "import json\n"})
    assert layering.room_cycles(acyclic) == []


def test_a_module_importing_its_own_room_is_no_cycle(tmp_path: Path) -> None:
    package = tree(tmp_path, {"a/one.py": "from pkg.a import two\n", "a/two.py": "from pkg.a import one\n"})
    assert layering.room_cycles(package) == []


def test_forbidden_imports_at_any_depth_and_under_type_checking(tmp_path: Path) -> None:
    package = tree(tmp_path, {
        "contract/model/plan.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from playwright.sync_api import Page\n",
        "contract/load/yaml_.py": "import pytest\n",
        "runs/reader.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from playwright.sync_api import Page\n",
        "executor/runfolder/folder.py": "def f():\n    import playwright.sync_api\n",
    })
    assert sorted(layering.forbidden_imports(package, "contract", {"playwright", "pytest"}, runtime=False)) == [
        "contract/load/yaml_.py:1 imports pytest", "contract/model/plan.py:3 imports playwright.sync_api"]
    assert layering.forbidden_imports(package, "runs", {"playwright"}, runtime=True) == []  # a type hint only
    assert layering.forbidden_imports(package, "runs", {"playwright"}, runtime=False) == ["runs/reader.py:3 imports playwright.sync_api"]
    assert layering.forbidden_imports(package, "executor/runfolder", {"playwright"}, runtime=True) == [
        "executor/runfolder/folder.py:2 imports playwright.sync_api"]
    assert layering.forbidden_imports(package, "", {"pytest"}, runtime=False) == ["contract/load/yaml_.py:1 imports pytest"]


@pytest.mark.parametrize(("source", "bad"), [
    ("from pkg.contract.model import plan\n", None),
    ("import json, yaml\nfrom pydantic import BaseModel\n", None),
    ("from pkg.runs import other\n", None),  # its own room
    ("from pkg.executor.runfolder.folder import NAME\n", "pkg.executor.runfolder.folder"),
    ("import requests\n", "requests"),
    ("from . import other\nfrom ..executor import engine\n", "pkg.executor.engine"),
])
def test_runs_may_import_only_the_contract(tmp_path: Path, source: str, bad: str | None) -> None:
    package = tree(tmp_path, {"runs/reader.py": source, "runs/other.py": "", "contract/model/plan.py": "",
                              "executor/engine.py": "", "executor/runfolder/folder.py": ""})
    found = layering.imports_outside(package, "runs", ("contract",), {"pydantic", "yaml"})
    assert found == ([] if bad is None else [f"runs/reader.py:{source.count(chr(10))} imports {bad}"])


def test_one_room_importing_another(tmp_path: Path) -> None:
    package = tree(tmp_path, {"executor/page/settle.py": "from pkg.executor.step.actions import run\n",
                              "executor/step/actions.py": "from pkg.executor.page import settle\n"})
    assert layering.room_imports(package, "executor/page", "executor/step") == [
        "executor/page/settle.py:1 imports pkg.executor.step.actions"]
    assert layering.room_imports(package, "executor/step", "executor/page") == [
        "executor/step/actions.py:1 imports pkg.executor.page.settle"]


def test_importing_the_plugin_from_outside_it(tmp_path: Path) -> None:
    package = tree(tmp_path, {"plugin/hooks.py": "from pkg.plugin import items\n", "plugin/items.py": "",
                              "agent/session.py": "import pkg.plugin.hooks\n"})
    assert layering.room_imports(package, "agent", "plugin") == ["agent/session.py:1 imports pkg.plugin.hooks"]


def test_long_modules_and_crowded_rooms(tmp_path: Path) -> None:
    files = ({f"big/m{n}.py": "" for n in range(13)} | {f"big/sub/m{n}.py": "" for n in range(12)}
             | {f"top{n}.py": "" for n in range(13)} | {"small/long.py": "x = 1\n" * 451, "small/ok.py": "x = 1\n" * 450})
    package = tree(tmp_path, files)
    assert layering.long_modules(package, 450, {}) == ["small/long.py has 451 lines"]
    assert layering.long_modules(package, 450, {"small/long.py": "why"}) == []
    assert sorted(layering.crowded_rooms(package, 12)) == ["big/ holds 13 modules", "pkg/ holds 13 modules"]
    assert layering.crowded_rooms(package, 13) == []
