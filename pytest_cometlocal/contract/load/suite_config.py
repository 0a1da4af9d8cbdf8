"""Suite configuration: ``cometlocal.yaml`` values that every plan below it starts from.

A suite of hundreds of plans shares its base URL, allowlist, policy, auth
signals, toast and overlay selectors and step defaults. They are written once
in ``cometlocal.yaml`` (or ``.yml``); the nearest such file in the plan's
folder or above it, up to the suite's root folder, applies (an explicit file
from ``--cometlocal-config`` / ini ``cometlocal_config`` replaces the search).

The config is merged into each plan's YAML tree before validation, so its
values are validated by the same models and rules as a plan's own, and a
problem in them names ``cometlocal.yaml`` with its line. A plan's own key
wins; ``policy`` and ``defaults`` are merged key by key (the plan's keys win).
(v1.2) ``routes`` are added after the plan's own routes: the plan's are
tried first, and the first route that matches a request wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_cometlocal.contract.load.safe_yaml import YDict, YList, copy_tree, load_file

from pytest_cometlocal.contract.errors import YamlError
from pytest_cometlocal.contract.model.plan import APPENDED_SUITE_KEYS, MERGED_SUITE_KEYS, SUITE_KEYS, SUITE_ONLY_KEYS
from pytest_cometlocal.contract.model.problems import Mark, Problem

SUITE_CONFIG_NAMES: tuple[str, ...] = ("cometlocal.yaml", "cometlocal.yml")


@dataclass(frozen=True)
class SuiteConfigFile:
    """A loaded suite config: its tree (positions name the file) or its problems."""

    path: Path
    shown: str
    tree: YDict | None
    problems: tuple[Problem, ...] = ()


def load_suite_config(path: Path, shown: str) -> SuiteConfigFile:
    """Load and shape-check a config file; problems are kept, never raised."""
    try:
        docs = load_file(path)
    except YamlError as exc:
        p = exc.problem
        return SuiteConfigFile(path, shown, None, (Problem(shown, p.mark, p.key_path, p.message, p.rule),))
    if len(docs) != 1 or not isinstance(docs[0].value, YDict):
        what = f"{len(docs)} documents" if len(docs) != 1 else "not a mapping"
        return SuiteConfigFile(path, shown, None, (
            Problem(shown, docs[0].mark if docs else Mark(1, 1), "",
                    f"a suite config is one mapping of {', '.join(SUITE_KEYS)} ({what})", "SUITE_CONFIG"),))
    tree = copy_tree(docs[0].value, file=shown)
    problems = []
    for key in tree:
        if key not in SUITE_KEYS:
            mark = tree.key_marks[key]
            problems.append(Problem(shown, Mark(mark.line, mark.col), key,
                                    f"unknown key '{key}' in the suite config (it takes {', '.join(SUITE_KEYS)})",
                                    "SUITE_CONFIG"))
    return SuiteConfigFile(path, shown, tree, tuple(problems))


def merge_suite_config(tree: YDict, config: SuiteConfigFile) -> dict[str, str]:
    """Fill the config's keys into a plan's tree, in place; return where each key came from.

    SUITE_ONLY_KEYS stay out of the plan: ``suite_setting`` reads them, and the validator reads the
    config's ``vars`` as the lowest layer of a plan's vars.

    Nodes are copied, so interpolation and defaults never change the config
    shared by other plans.
    """
    sources: dict[str, str] = {}
    assert config.tree is not None
    for key, value in config.tree.items():
        if key in SUITE_ONLY_KEYS:  # a setting of the runs (``profile``) or a layer of its own (``vars``)
            continue
        if key not in tree:
            tree[key] = copy_tree(value)
            tree.key_marks[key] = config.tree.key_marks[key]
            tree.value_marks[key] = config.tree.value_marks[key]
            sources[key] = "suite"
        elif key in MERGED_SUITE_KEYS and isinstance(tree[key], YDict) and isinstance(value, YDict):
            own = tree[key]
            merged = YDict(own.mark)
            merged.update(own)
            merged.key_marks.update(own.key_marks)
            merged.value_marks.update(own.value_marks)
            for sub, sub_value in value.items():
                if sub not in merged:
                    merged[sub] = copy_tree(sub_value)
                    merged.key_marks[sub] = value.key_marks[sub]
                    merged.value_marks[sub] = value.value_marks[sub]
            tree[key] = merged
            sources[key] = "plan+suite"
        elif key in APPENDED_SUITE_KEYS and isinstance(tree[key], YList) and isinstance(value, YList):
            tree[key] = _appended(tree[key], copy_tree(value))
            sources[key] = "plan+suite"
        else:
            sources[key] = "plan"
    return sources


def _appended(own: YList, more: YList) -> YList:
    """The plan's list, then the config's (each item keeps its position, so a problem names its file)."""
    joined = YList(own.mark)
    joined.extend([*own, *more])
    joined.item_marks = [*own.item_marks, *more.item_marks]
    return joined


def suite_setting(config: SuiteConfigFile | None, key: str, choices: tuple[str, ...]) -> tuple[str | None, Problem | None]:
    """A suite-only key's value (one of ``choices``), or the problem with it, located in the config file."""
    if config is None or config.tree is None or key not in config.tree:
        return None, None
    value = config.tree[key]
    if isinstance(value, str) and value in choices:
        return value, None
    mark = config.tree.value_marks[key]
    return None, Problem(config.shown, Mark(mark.line, mark.col), key,
                         f"{key} must be one of {', '.join(choices)} (got {value!r})", "SUITE_CONFIG")


class SuiteConfigFinder:
    """The config that applies to a plan file, with files and folders looked up once."""

    def __init__(self, root: Path, explicit: Path | None = None):
        self.root = root.resolve()
        self.explicit = explicit
        self._by_dir: dict[Path, SuiteConfigFile | None] = {}
        self._loaded: dict[Path, SuiteConfigFile] = {}

    def _shown(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def _load(self, path: Path) -> SuiteConfigFile:
        if path not in self._loaded:
            self._loaded[path] = load_suite_config(path, self._shown(path))
        return self._loaded[path]

    def for_plan(self, plan_path: Path) -> SuiteConfigFile | None:
        if self.explicit is not None:
            return self._load(self.explicit)
        return self._for_dir(plan_path.resolve().parent)

    def _for_dir(self, folder: Path) -> SuiteConfigFile | None:
        if folder in self._by_dir:
            return self._by_dir[folder]
        found: SuiteConfigFile | None = None
        for name in SUITE_CONFIG_NAMES:
            candidate = folder / name
            if candidate.is_file():
                found = self._load(candidate)
                break
        else:
            if folder != self.root and self.root in folder.parents:
                found = self._for_dir(folder.parent)
        self._by_dir[folder] = found
        return found
