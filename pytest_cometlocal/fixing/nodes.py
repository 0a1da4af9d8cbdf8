"""A plan or step-group file as YAML nodes that know their exact span in the text.

The contract's loader (contract/load/safe_yaml.py) keeps where every value
starts, which is enough to point at a line; replacing a value byte for byte
also needs where it ends. PyYAML's composer gives both, as nodes (no Python
object is ever constructed from them), and each scalar's value is resolved
here with the loader's own YAML 1.2 core rules, so ``yes`` stays a string as
it does when the plan runs. Spans are character offsets into the decoded text
(the file is read as UTF-8, line endings untouched), computed from line and
column so they do not depend on how a parser counts its indexes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.contract.load.core_schema import resolve_scalar
from pytest_cometlocal.contract.load.safe_yaml import MAX_FILE_BYTES

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class NodeError(CometLocalError, ValueError):
    """The file cannot be read as YAML nodes; the message is one line."""


@dataclass(frozen=True)
class Text:
    """A file's decoded text, and its line starts for turning marks into offsets."""

    text: str
    bom: bool
    line_starts: tuple[int, ...]

    @classmethod
    def of(cls, data: bytes) -> "Text":
        if len(data) > MAX_FILE_BYTES:
            raise NodeError(f"file is {len(data)} bytes; the limit is {MAX_FILE_BYTES}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NodeError(f"file is not valid UTF-8 (offset {exc.start})") from None
        bom = text.startswith("\ufeff")
        starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                starts.append(i + 1)
        return cls(text, bom, tuple(starts))

    def offset(self, mark: Any) -> int:
        """The character offset of a yaml Mark (0-based line and column)."""
        base = self.line_starts[mark.line] if mark.line < len(self.line_starts) else len(self.text)
        return base + mark.column + (1 if self.bom and mark.line == 0 else 0)

    def newline(self) -> str:
        """The file's line ending: ``\\r\\n`` when its first line ends so."""
        first = self.text.find("\n")
        return "\r\n" if first > 0 and self.text[first - 1] == "\r" else "\n"

    def line_end(self, offset: int) -> int:
        """The offset of the line ending (``\\r\\n`` or ``\\n``) of the line holding ``offset``, or the text's end."""
        end = self.text.find("\n", offset)
        if end < 0:
            return len(self.text)
        return end - 1 if end > 0 and self.text[end - 1] == "\r" else end


def compose(text: Text) -> list[Node]:
    """Every document's root node; NodeError with the parser's first line when it is not YAML."""
    body = text.text[1:] if text.bom else text.text
    try:
        return [n for n in yaml.compose_all(body, Loader=_Loader) if n is not None]
    except yaml.YAMLError as exc:
        raise NodeError(str(exc).splitlines()[0] if str(exc) else "not YAML") from None


def is_flow(node: Node) -> bool:
    return bool(getattr(node, "flow_style", False))


def span(node: Node, text: Text) -> tuple[int, int]:
    """Where the node's text starts and ends. A block collection ends with its last value
    (the parser's own end mark lies after the comments and blank lines that follow it)."""
    start = text.offset(node.start_mark)
    if isinstance(node, MappingNode) and not is_flow(node) and node.value:
        return start, span(node.value[-1][1], text)[1]
    if isinstance(node, SequenceNode) and not is_flow(node) and node.value:
        return start, span(node.value[-1], text)[1]
    return start, text.offset(node.end_mark)


def value_of(node: Node) -> Any:
    """The node as the plan loader reads it (YAML 1.2 core scalars); aliases are shared nodes here."""
    if isinstance(node, ScalarNode):
        tag = None if node.tag in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                                   "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null") else node.tag
        plain = not node.style  # None (pure-Python parser) or "" (libyaml) for a plain scalar
        implicit = (plain, not plain)
        try:
            return resolve_scalar(node.value, tag, node.style, implicit)
        except ValueError:
            return node.value
    if isinstance(node, MappingNode):
        return {k.value: value_of(v) for k, v in node.value if isinstance(k, ScalarNode)}
    if isinstance(node, SequenceNode):
        return [value_of(v) for v in node.value]
    return None


def entry(mapping: Node, key: str) -> tuple[ScalarNode, Node] | None:
    """The (key node, value node) of ``key`` in a mapping node, or None."""
    if isinstance(mapping, MappingNode):
        for k, v in mapping.value:
            if isinstance(k, ScalarNode) and k.value == key:
                return k, v
    return None


def step_nodes(root: Node) -> Iterator[MappingNode]:
    """The step mappings of a plan or group document: ``steps[*]`` and ``recovery.steps[*]``."""
    lists = [entry(root, "steps")]
    recovery = entry(root, "recovery")
    if recovery is not None:
        lists.append(entry(recovery[1], "steps"))
    for found in lists:
        if found is not None and isinstance(found[1], SequenceNode):
            yield from (n for n in found[1].value if isinstance(n, MappingNode))


def step_at(roots: list[Node], line: int) -> MappingNode | None:
    """The step whose mapping starts on ``line`` (1-based), in any document of the file."""
    for root in roots:
        for node in step_nodes(root):
            if node.start_mark.line + 1 == line:
                return node
    return None
