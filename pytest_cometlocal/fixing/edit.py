"""The smallest text edits that give a YAML node a new value, in the file's own style.

A reviewer reads a fix as a diff, so it must change what the suggestion
changes and nothing else: a renamed button's ``name: Sign in   # renamed``
becomes ``name: Log in   # renamed``, its quotes, comment and key order kept.
So a mapping is edited key by key (changed values replaced where they are,
new keys added after the last one, in block or flow style as the mapping is
written), and only a mapping that loses keys or a value that changes its
kind (a list of alternatives becoming one target) is written anew, in the
style of what it replaces. No file is ever re-dumped.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode

from pytest_cometlocal.contract.errors import YamlError
from pytest_cometlocal.contract.load.safe_yaml import load_documents
from pytest_cometlocal.fixing.nodes import Text, is_flow, span, value_of

__all__ = ["TextEdit", "apply", "edits_to", "render_flow", "render_scalar"]


@dataclass(frozen=True, order=True)
class TextEdit:
    """Replace ``text[start:end]`` (character offsets) with ``new``."""

    start: int
    end: int
    new: str


def apply(text: str, edits: list[TextEdit]) -> str:
    """``text`` with the edits made (they must not overlap), from the last to the first."""
    out = text
    for edit in sorted(set(edits), reverse=True):
        out = out[: edit.start] + edit.new + out[edit.end:]
    return out


def _reads_back(source: str, value: str) -> bool:
    try:
        docs = load_documents(source)
    except YamlError:
        return False
    return len(docs) == 1 and docs[0].value == {"k": value}


def _plain_ok(value: str, flow: bool) -> bool:
    """``value`` written plain reads back as the same string (the plan loader's YAML 1.2 rules) where it goes."""
    if not value or value != value.strip() or any(ch in value for ch in "\n\r\t#"):
        return False
    return _reads_back(f"{{k: {value}}}\n" if flow else f"k: {value}\n", value)


def render_scalar(value: Any, style: str | None = None, flow: bool = False) -> str:
    """A scalar as YAML text: plain when it reads back the same and the old value was plain, else in the
    old value's quotes (single quotes only for printable text), else double quotes (JSON's escapes)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else json.dumps(str(value))
    text = str(value)
    if not style and _plain_ok(text, flow):
        return text
    if style == "'" and text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text, ensure_ascii=False)


def render_flow(value: Any) -> str:
    """A value in flow style: ``{type: role, role: button, name: Log in, exact: true}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {render_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(render_flow(v) for v in value) + "]"
    return render_scalar(value, flow=True)


def _key(key: str) -> str:
    return key if _plain_ok(key, True) else json.dumps(key, ensure_ascii=False)


def _render_block_mapping(value: dict[str, Any], indent: str, newline: str) -> str:
    """A mapping in block style whose first key starts where the old mapping did; nested values in flow style."""
    lines = [f"{_key(k)}: {render_flow(v) if isinstance(v, (dict, list)) else render_scalar(v)}"
             for k, v in value.items()]
    return (newline + indent).join(lines)


def _scalar_span(node: ScalarNode, text: Text) -> tuple[int, int]:
    start, end = span(node, text)
    return start, start + len(text.text[start:end].rstrip())  # a block scalar's span holds its last newlines


def edits_to(node: Node, new: Any, text: Text, key: ScalarNode | None = None, flow: bool = False) -> list[TextEdit]:
    """The edits that make ``node`` (the value of ``key``, inside a flow collection when ``flow``) read ``new``."""
    if value_of(node) == new:
        return []
    flow = flow or is_flow(node)
    if isinstance(node, MappingNode) and isinstance(new, dict) and node.value:
        old_keys = [k.value for k, _v in node.value if isinstance(k, ScalarNode)]
        if len(old_keys) == len(node.value) and set(old_keys) <= set(new):
            return _mapping_edits(node, new, text, flow)
    if isinstance(node, ScalarNode) and not isinstance(new, (dict, list)):
        start, end = _scalar_span(node, text)
        return [TextEdit(start, end, render_scalar(new, node.style or None, flow))]
    return [_replace_whole(node, new, text, key, flow)]


def _mapping_edits(node: MappingNode, new: dict[str, Any], text: Text, flow: bool) -> list[TextEdit]:
    """Changed values edited where they are; keys the mapping lacks added after its last entry."""
    edits: list[TextEdit] = []
    for k, v in node.value:
        edits.extend(edits_to(v, new[k.value], text, k, flow))
    added = {k: v for k, v in new.items() if k not in {kn.value for kn, _v in node.value}}
    if not added:
        return edits
    last_end = span(node.value[-1][1], text)[1]
    if flow:
        extra = "".join(f", {_key(k)}: {render_flow(v)}" for k, v in added.items())
        return edits + [TextEdit(last_end, last_end, extra)]
    indent = " " * node.value[0][0].start_mark.column
    at = text.line_end(last_end)  # after a comment that ends the last entry's line
    nl = text.newline()
    lines = "".join(f"{nl}{indent}{_key(k)}: {render_flow(v)}" for k, v in added.items())
    return edits + [TextEdit(at, at, lines)]


def _replace_whole(node: Node, new: Any, text: Text, key: ScalarNode | None, flow: bool) -> TextEdit:
    """``node`` written anew: in flow style where it was (a flow value or a scalar); a block mapping as a
    block mapping; any other block value (a list of alternatives) as a flow value after its key."""
    start, end = span(node, text)
    if isinstance(node, ScalarNode):
        start, end = _scalar_span(node, text)
    if flow or isinstance(node, ScalarNode) or not isinstance(new, (dict, list)) and key is None:
        return TextEdit(start, end, render_flow(new))
    if isinstance(node, MappingNode) and isinstance(new, dict) and new:
        indent = " " * node.start_mark.column
        return TextEdit(start, end, _render_block_mapping(new, indent, text.newline()))
    if key is None:
        return TextEdit(start, end, render_flow(new))
    key_end = text.offset(key.end_mark)
    colon = text.text.index(":", key_end)
    return TextEdit(colon, end, ": " + render_flow(new))
