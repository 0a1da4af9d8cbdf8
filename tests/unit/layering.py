"""The package's layering rules as functions of a source tree, so a test can show each one failing.

tests/unit/test_architecture.py applies them to pytest_cometlocal; tests/unit/test_layering.py
applies them to tiny trees built to break one rule each. A rule returns its violations
as readable lines (empty: the rule holds); it names no module of today's tree.

A room is a folder without subfolders (``executor/page``, ``plugin``: the modules in it)
or a module beside subfolders (``cli``, ``executor/engine``, ``contract/errors``): so
``executor/errors.py`` below every executor room and ``executor/engine.py`` above them
are not one room in a circle. Imports are read with ``ast``, wherever they are
in a module (functions included); ``runtime=False`` rules also see the ones under
``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}


@dataclass(frozen=True)
class Import:
    module: str  # absolute dotted name
    line: int
    type_checking: bool  # under ``if TYPE_CHECKING:``


@dataclass
class Module:
    name: str  # dotted, e.g. pkg.executor.page.watchdog
    path: Path  # relative to the package folder, e.g. executor/page/watchdog.py
    room: str  # e.g. executor/page, or cli for a top-level module
    lines: int
    imports: list[Import] = field(default_factory=list)

    def imported(self, *, runtime: bool) -> Iterable[Import]:
        return (i for i in self.imports if not (runtime and i.type_checking))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _absolute(node: ast.ImportFrom, module_name: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    parts = module_name.split(".")
    base = parts[: len(parts) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(tree: ast.Module, module_name: str, is_package: bool, known: set[str]) -> list[Import]:
    found: list[Import] = []

    def visit(node: ast.AST, type_checking: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, type_checking)
            return
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, node.lineno, type_checking) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module_name, is_package)
            for alias in node.names:  # ``from pkg.executor import page``: the subpackage is what is imported
                sub = f"{base}.{alias.name}"
                found.append(Import(sub if sub in known else base, node.lineno, type_checking))
        for child in ast.iter_child_nodes(node):
            visit(child, type_checking)

    visit(tree, False)
    return list(dict.fromkeys(found))  # ``from m import a, b``: one import of m


def _room(relative: Path, folders_with_subfolders: set[str]) -> str:
    """A leaf folder is one room; a module beside subfolders (``executor/engine.py``, ``cli.py``) is its own."""
    folder = relative.parent.as_posix()
    if folder not in folders_with_subfolders:
        return folder
    return relative.with_suffix("").as_posix()


@dataclass
class Package:
    """Every module of a package folder, with its room and its imports."""

    name: str
    modules: dict[str, Module]

    @classmethod
    def read(cls, folder: Path) -> Package:
        """Read and parse every module under ``folder``."""
        files = []
        for path in sorted(folder.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            files.append((path, text, ast.parse(text)))
        return cls.of(folder, files)

    @classmethod
    def of(cls, folder: Path, files: Iterable[tuple[Path, str, ast.Module]]) -> Package:
        """The package of modules already read (path, text, parsed tree): tests/unit/package_source.py's."""
        read = {path: (text, tree) for path, text, tree in files}
        names = {}
        for path in read:
            parts = list(path.relative_to(folder).with_suffix("").parts)
            names[path] = ".".join([folder.name, *parts[:-1]] if parts[-1] == "__init__" else [folder.name, *parts])
        known = set(names.values())
        parents = {p.relative_to(folder).parent.as_posix() for p in read}
        with_subfolders = {a.as_posix() for f in parents if f != "." for a in Path(f).parents}
        modules = {}
        for path, name in names.items():
            text, tree = read[path]
            relative = path.relative_to(folder)
            modules[name] = Module(name, relative, _room(relative, with_subfolders), len(text.splitlines()),
                                   _imports(tree, name, path.name == "__init__.py", known))
        return cls(folder.name, modules)

    def room_of(self, dotted: str) -> str | None:
        """The room of an imported name inside the package (None: outside it)."""
        while dotted and dotted not in self.modules:
            dotted = dotted.rpartition(".")[0]
        return self.modules[dotted].room if dotted else None

    def in_rooms(self, prefix: str) -> list[Module]:
        """The modules of a folder and of every folder below it (``""``: the whole package)."""
        return [m for m in self.modules.values() if not prefix or m.room == prefix or m.room.startswith(prefix + "/")]


def _top(name: str) -> str:
    return name.split(".")[0]


def forbidden_imports(package: Package, prefix: str, top_names: set[str], *, runtime: bool) -> list[str]:
    """Modules under ``prefix`` that import a top-level name in ``top_names``."""
    return [f"{m.path}:{i.line} imports {i.module}" for m in package.in_rooms(prefix)
            for i in m.imported(runtime=runtime) if _top(i.module) in top_names]


def imports_outside(package: Package, prefix: str, allowed_rooms: tuple[str, ...], allowed_tops: set[str]) -> list[str]:
    """Modules under ``prefix`` that import anything but the allowed rooms, their own rooms, and allowed libraries."""
    bad = []
    for m in package.in_rooms(prefix):
        for i in m.imported(runtime=False):
            room = package.room_of(i.module) if _top(i.module) == package.name else None
            if room is None:
                ok = _top(i.module) in allowed_tops | STDLIB and _top(i.module) != package.name
            else:
                ok = any(room == r or room.startswith(r + "/") for r in (prefix, *allowed_rooms))
            if not ok:
                bad.append(f"{m.path}:{i.line} imports {i.module}")
    return bad


def room_imports(package: Package, importer: str, imported: str) -> list[str]:
    """Modules under ``importer`` that import anything under ``imported``."""
    return [f"{m.path}:{i.line} imports {i.module}" for m in package.in_rooms(importer)
            for i in m.imports if (room := package.room_of(i.module)) is not None
            and (room == imported or room.startswith(imported + "/"))]


def room_cycles(package: Package) -> list[str]:
    """Every set of rooms that import each other in a circle, with the imports that close it."""
    edges: dict[str, dict[str, str]] = {m.room: {} for m in package.modules.values()}
    for m in package.modules.values():
        for i in m.imports:
            room = package.room_of(i.module)
            if room is not None and room != m.room:
                edges[m.room].setdefault(room, f"{m.path}:{i.line} imports {i.module}")
    return [f"{' <-> '.join(sorted(group))}: " + "; ".join(edges[a][b] for a in sorted(group)
                                                          for b in sorted(edges[a]) if b in group)
            for group in _strongly_connected(edges) if len(group) > 1]


def _strongly_connected(edges: dict[str, dict[str, str]]) -> list[set[str]]:
    """Tarjan's algorithm over the room graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in edges.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                top = stack.pop()
                group.add(top)
                if top == node:
                    break
            groups.append(group)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def long_modules(package: Package, limit: int, allowed: dict[str, str]) -> list[str]:
    """Modules over ``limit`` lines, but those ``allowed`` (path: why)."""
    return [f"{m.path} has {m.lines} lines" for m in package.modules.values()
            if m.lines > limit and m.path.as_posix() not in allowed]


def crowded_rooms(package: Package, limit: int) -> list[str]:
    """Folders holding more than ``limit`` modules of their own (``__init__.py`` and subfolders not counted)."""
    counts: dict[str, int] = {}
    for m in package.modules.values():
        if m.path.name != "__init__.py":
            folder = m.path.parent.as_posix()
            counts[folder] = counts.get(folder, 0) + 1
    return [f"{package.name if folder == '.' else folder}/ holds {n} modules"
            for folder, n in sorted(counts.items()) if n > limit]
