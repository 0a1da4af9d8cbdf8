"""From a failed run to the text of its target in the file that holds it, and the edits that fix it.

The run records where the failed step is written (``file:line``, the group
file's for a step group's step); the file is read as it is now and the step
found on that line. Before anything is proposed, the value there must still
be the one the run failed with: a plan edited since the run (the step moved,
its target already changed) or a target written with ``${vars.X}`` (one
value per row: a literal would break the other rows) gets a one-line reason,
never a hunk that could be wrong.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from pytest_cometlocal.contract.errors import YamlError
from pytest_cometlocal.contract.load.safe_yaml import load_documents
from pytest_cometlocal.fixing.edit import TextEdit, apply, edits_to
from pytest_cometlocal.fixing.failures import Failure, NotFixable
from pytest_cometlocal.fixing.nodes import NodeError, Text, compose, entry, step_at, value_of

__all__ = ["Site", "SourceFiles", "locate"]

Path_ = tuple[Any, ...]  # keys and list indexes from the step mapping to the failed value


@dataclass(frozen=True)
class Site:
    """Where a failed value is written: its file (relative to the root, as the patch names it), the step's
    line there, the path from the step to the value, and the value as the file has it now."""

    file: str
    line: int
    path: Path_
    old: Any
    text: Text
    roots: tuple[Node, ...]

    @property
    def key(self) -> tuple[str, int, Path_]:
        return self.file, self.line, self.path

    def step(self) -> MappingNode:
        found = step_at(list(self.roots), self.line)
        assert found is not None  # located before
        return found

    def edits(self, suggestion: dict[str, Any]) -> list[TextEdit]:
        """The edits that put ``suggestion``'s target in place (and, for an ``nth`` target, the rationale the
        step then needs in ``metadata.target_rationale``); NotFixable when the result would not read back."""
        step = self.step()
        new = copy.deepcopy(value_of(step))
        holder = new
        for part in self.path[:-1]:
            holder = holder[part]
        holder[self.path[-1]] = suggestion["target"]
        if suggestion.get("rationale"):
            meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else {}
            new["metadata"] = {**meta, "target_rationale": suggestion["rationale"]}
        edits = edits_to(step, new, self.text)
        fixed = apply(self.text.text, edits)
        try:
            load_documents(fixed, self.file)
            reread = step_at(compose(Text.of(fixed.encode("utf-8"))), self.line)
        except (YamlError, NodeError) as exc:
            raise NotFixable(f"{self.file}:{self.line}: the fixed step would not be valid YAML ({exc})") from None
        if reread is None or value_of(reread) != new:
            raise NotFixable(f"{self.file}:{self.line}: the step cannot be edited in place")
        return edits


class SourceFiles:
    """The suite's files as read once for a whole fix: the same group file is parsed once for every plan."""

    def __init__(self, root: Path):
        self.root = root
        self._read: dict[str, tuple[Text, tuple[Node, ...]] | str] = {}

    def get(self, file: str) -> tuple[Text, tuple[Node, ...]]:
        if file not in self._read:
            self._read[file] = self._load(file)
        found = self._read[file]
        if isinstance(found, str):
            raise NotFixable(found)
        return found

    def _load(self, file: str) -> tuple[Text, tuple[Node, ...]] | str:
        path = self.root / file
        if Path(file).is_absolute() or ".." in Path(file).parts:
            return f"{file}: not inside the suite root {self.root}"
        try:
            text = Text.of(path.read_bytes())
            return text, tuple(compose(text))
        except FileNotFoundError:
            return f"{file}: no such file under {self.root} (run cometlocal fix in the rootdir the plans ran from, or pass --root)"
        except OSError as exc:
            return f"{file}: cannot be read ({exc.strerror})"
        except NodeError as exc:
            return f"{file}: not YAML now ({exc})"


def _normal(value: Any) -> str:
    """A target as compared: keys without a value left out, alternatives in any order."""
    def norm(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items() if x is not None}
        if isinstance(v, list):
            return sorted((norm(x) for x in v), key=lambda x: json.dumps(x, sort_keys=True))
        return v
    return json.dumps(norm(value), sort_keys=True)


def _condition_path(step: MappingNode, keys: tuple[str, ...], kind: str, recorded: Any) -> Path_:
    for key in keys:
        found = entry(step, key)
        if found is None or not isinstance(found[1], SequenceNode):
            continue
        for i, cond in enumerate(found[1].value):
            value = value_of(cond)
            if isinstance(value, dict) and value.get("kind") == kind and \
                    _normal((value.get("args") or {}).get("target")) == _normal(recorded):
                return key, i, "args", "target"
    raise NotFixable(f"the failed {kind} condition is not written in the step (from defaults?): fix it by hand")


def _lookup(value: Any, path: Path_) -> Any:
    for part in path:
        value = value[part]
    return value


def locate(failure: Failure, files: SourceFiles) -> Site:
    """Where the failure's value is written now; NotFixable (one line) when it cannot be fixed safely."""
    file, line = failure.written_at
    text, roots = files.get(file)
    where = f"{file}:{line}"
    step = step_at(list(roots), line)
    if step is None:
        raise NotFixable(f"{where}: no step starts on that line now (the file changed since the run)")
    own_id = value_of(step).get("id")
    if not isinstance(own_id, str):
        raise NotFixable(f"{where}: no step with an id starts on that line now (the file changed since the run)")
    if not (failure.step_id == own_id or failure.step_id.endswith("." + own_id)):
        raise NotFixable(f"{where}: the step there is '{own_id}', not '{failure.step_id}' (the file changed since the run)")
    condition = failure.failed.condition
    path: Path_ = (failure.failed.key,) if condition is None else _condition_path(step, *condition)
    try:
        old = _lookup(value_of(step), path)
    except (KeyError, IndexError, TypeError):
        raise NotFixable(f"{where}: step '{own_id}' has no {failure.failed.describe()} written in it") from None
    if "${" in json.dumps(old):
        raise NotFixable(f"{where}: the {failure.failed.describe()} of step '{own_id}' is written with ${{...}}: "
                         "one literal cannot fix every row; fix it by hand")
    if failure.target is not None and _normal(old) != _normal(failure.target):
        raise NotFixable(f"{where}: the {failure.failed.describe()} of step '{own_id}' changed since the run")
    return Site(file, line, path, old, text, roots)
