"""Safe YAML loading that remembers where every value came from.

Plans are untrusted input, so this module does not use PyYAML's constructors at
all. It reads the *event* stream (libyaml's C parser when available) and builds
plain Python values itself, which lets it:

* give YAML 1.2 core-schema meaning to scalars (core_schema.py: only ``true``/``false`` are
  booleans, ``0123`` and ``11:30`` stay strings, no timestamps, no merge keys);
* refuse every tag beyond the core ones, so ``!!python/object`` is an error and
  never constructed;
* keep the line and column of every mapping key, value and sequence item, so a
  validation error can name ``file:line:col`` and the key path;
* bound the work an alias can cause: aliases are shared, never copied, and the
  expanded size of the document is counted while it is built, so a
  "billion laughs" file fails after a few hundred events with bounded memory;
* bound file size and nesting depth, since the parser is iterative but the
  validators that walk the result are not.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

# libyaml's C parser through PyYAML's public C loader (only its event API is
# used, never its constructors): same events as the pure-Python parser, about
# ten times faster.
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

from pytest_cometlocal.contract.model.problems import Mark, Problem, SourceMark
from pytest_cometlocal.contract.errors import YamlError
from pytest_cometlocal.contract.load.yaml_errors import problem_from_yaml_error
from pytest_cometlocal.contract.load.core_schema import ALLOWED_TAGS, CORE, NOT_SPECIAL_START, resolve_scalar

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_EXPANDED_NODES = 200_000
MAX_DEPTH = 64
# Documents per file: each is an item with its own run folder, so a small file of
# "---" lines must not turn into a hundred thousand of them.
MAX_DOCUMENTS = 1000


class MarkMap(dict):
    """Where a mapping's keys (or values) start, by key.

    A key without a recorded position falls back to the mapping's own: a tree
    loaded without per-key positions (see ``load_documents(positions=False)``)
    or a mapping merged from several still answers every lookup.
    """

    __slots__ = ("default",)

    def __init__(self, default: Mark):
        self.default = default

    def __missing__(self, key: str) -> Mark:
        return self.default


class YDict(dict):
    """A mapping that knows where it and each of its keys and values start."""

    __slots__ = ("mark", "key_marks", "value_marks")

    def __init__(self, mark: Mark):
        self.mark = mark
        self.key_marks = MarkMap(mark)
        self.value_marks = MarkMap(mark)


class YList(list):
    """A sequence that knows where it and each item start."""

    __slots__ = ("mark", "item_marks")

    def __init__(self, mark: Mark):
        super().__init__()
        self.mark = mark
        self.item_marks: list[Mark] = []


def copy_tree(node: Any, file: str | None = None, via: tuple[str, ...] = ()) -> Any:
    """A deep copy of a loaded tree, positions included.

    Validation works on its trees in place, so a tree that is used more than
    once (each row of a parametrized plan, each use of a step group, the
    suite config merged into every plan) is copied first. With ``file``,
    every position becomes a SourceMark of that file, reached ``via`` those
    places, so problems in the copy name the file it came from.
    """
    if file is None:
        def conv(m: Any) -> Any:
            return m
    else:
        def conv(m: Any) -> Any:
            return SourceMark(m.line, m.col, file, via)

    def copy(n: Any) -> Any:
        if type(n) is YDict:
            out = YDict(conv(n.mark))
            for k, v in n.items():
                out[k] = copy(v)
            out.key_marks.update({k: conv(m) for k, m in n.key_marks.items()})
            out.value_marks.update({k: conv(m) for k, m in n.value_marks.items()})
            return out
        if type(n) is YList:
            out_l = YList(conv(n.mark))
            out_l.extend(copy(v) for v in n)
            out_l.item_marks = [conv(m) for m in n.item_marks]
            return out_l
        return n

    return copy(node)


@dataclass(frozen=True)
class Document:
    """One YAML document of a file: its value and where it starts."""

    index: int
    value: Any
    mark: Mark


def _mark(event: Any) -> Mark:
    return Mark(event.start_mark.line + 1, event.start_mark.column + 1)


class _Builder:
    """Turns one document's events into YDict/YList/scalars, with budgets."""

    def __init__(self, path: str, positions: bool = True):
        self.path = path
        self.positions = positions
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.expanded = 0

    def fail(self, mark: Mark, message: str, key_path: str = "") -> YamlError:
        return YamlError(Problem(self.path, mark, key_path, message, rule="YAML"))

    def _charge(self, n: int, mark: Mark) -> None:
        self.expanded += n
        if self.expanded > MAX_EXPANDED_NODES:
            raise self.fail(
                mark,
                f"document expands to more than {MAX_EXPANDED_NODES} nodes through aliases; "
                "aliases are limited to keep loading bounded",
            )

    def _check_tag(self, tag: str | None, mark: Mark, expected: str) -> None:
        if tag in (None, "!"):
            return
        if tag not in ALLOWED_TAGS:
            shown = tag.replace(CORE, "!!") if tag.startswith(CORE) else tag
            raise self.fail(mark, f"tag {shown} is not allowed (only YAML core tags are accepted)")
        if tag != CORE + expected:
            raise self.fail(mark, f"tag {tag.replace(CORE, '!!')} cannot be used on a {expected}")

    def build(self, get_event: Any) -> Any:
        """Consume events up to and including the end of one node.

        Iterative, with an explicit stack, so nesting depth is a checked
        limit rather than a Python recursion error. This loop runs once per
        YAML event of every plan, so it is written for speed: the open
        container's state is held in locals (saved on the stack only while a
        child container is open), class identity checks, keys taken as text
        without resolution. Without ``positions``, keys and values of nested
        mappings get no position of their own (the error path loads the file
        again with them).
        """
        anchors = self.anchors
        positions = self.positions
        new_mark = tuple.__new__
        not_special = NOT_SPECIAL_START
        limit = MAX_EXPANDED_NODES
        expanded = self.expanded
        # The open container: itself (None before the first), whether it is a mapping, the key whose
        # value comes next (mappings) and its position, its size in nodes (what an alias of it costs),
        # its anchor and position. Each enclosing container's are on the stack.
        cur: Any = None
        cur_map = False
        key: Any = None
        key_mark: Any = None
        cur_size = 0
        cur_anchor = None
        cur_mark: Any = None
        depth = 0
        stack: list[tuple[Any, ...]] = []
        while True:
            event = get_event()
            cls = type(event)
            size = 1
            if cls is ScalarEvent:
                expanded += 1
                if cur_map and key is None:
                    # A mapping key: always the text as written ("1:" is the key "1").
                    if positions or depth == 1:
                        sm = event.start_mark
                        mark = new_mark(Mark, (sm.line + 1, sm.column + 1))
                    else:
                        mark = None
                    tag = event.tag
                    if tag is not None and tag != "!" and tag != CORE + "str":
                        self._check_tag(tag, mark or _mark(event), "str")
                    key = event.value
                    if key in cur:
                        raise self.fail(mark or _mark(event), f"duplicate key {key!r}")
                    if event.anchor:
                        anchors[event.anchor] = (key, 1)
                    key_mark = mark
                    continue
                if cur_map and not positions and depth > 1:
                    mark = None
                else:
                    sm = event.start_mark
                    mark = new_mark(Mark, (sm.line + 1, sm.column + 1))
                if expanded > limit:
                    self.expanded = expanded
                    self._charge(0, mark or _mark(event))
                value = event.value
                tag = event.tag
                if tag is not None or (event.implicit[0] and not (value and value[0] in not_special)):
                    # Not a string for sure (the common case skips this call): resolve the core schema.
                    try:
                        value = resolve_scalar(value, tag, event.style, event.implicit)
                    except ValueError as exc:
                        tag = tag or ""
                        if tag and tag not in ALLOWED_TAGS:
                            shown = tag.replace(CORE, "!!") if tag.startswith(CORE) else tag
                            raise self.fail(
                                mark or _mark(event), f"tag {shown} is not allowed (only YAML core tags are accepted)"
                            ) from None
                        raise self.fail(mark or _mark(event), str(exc)) from None
                if event.anchor:
                    anchors[event.anchor] = (value, 1)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                expanded += 1
                sm = event.start_mark
                mark = new_mark(Mark, (sm.line + 1, sm.column + 1))
                is_map = cls is MappingStartEvent
                if event.tag is not None:
                    self._check_tag(event.tag, mark, "map" if is_map else "seq")
                if depth >= MAX_DEPTH:
                    raise self.fail(mark, f"nesting deeper than {MAX_DEPTH} levels")
                if cur_map and key is None:
                    raise self.fail(mark, "mapping keys must be plain scalars")
                if depth:
                    stack.append((cur, cur_map, key, key_mark, cur_size, cur_anchor, cur_mark))
                cur = YDict(mark) if is_map else YList(mark)
                cur_map, key, key_mark, cur_size, cur_anchor, cur_mark = is_map, None, None, 1, event.anchor, mark
                depth += 1
                continue
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                value, size, mark = cur, cur_size, cur_mark
                if cur_anchor:
                    anchors[cur_anchor] = (value, size)
                depth -= 1
                if depth:
                    cur, cur_map, key, key_mark, cur_size, cur_anchor, cur_mark = stack.pop()
            elif cls is AliasEvent:
                sm = event.start_mark
                mark = new_mark(Mark, (sm.line + 1, sm.column + 1))
                if cur_map and key is None:
                    raise self.fail(mark, "mapping keys must be plain scalars")
                if event.anchor not in anchors:
                    raise self.fail(mark, f"alias *{event.anchor} has no anchor before it")
                value, size = anchors[event.anchor]
                expanded += size
                if expanded > limit:
                    self.expanded = expanded
                    self._charge(0, mark)
            else:  # pragma: no cover - document/stream events never reach here
                raise self.fail(_mark(event), f"unexpected YAML event {cls.__name__}")

            if not depth:
                self.expanded = expanded
                return value
            cur_size += size
            if cur_map:
                cur[key] = value
                if positions or depth == 1:
                    cur.key_marks[key] = key_mark
                    cur.value_marks[key] = mark
                key = key_mark = None
            else:
                cur.append(value)
                cur.item_marks.append(mark)


def load_documents(text: str | bytes, path: str = "<string>", positions: bool = True) -> list[Document]:
    """Parse every document of a plan file, or raise YamlError with its location.

    ``text`` may be bytes; it must then be UTF-8 (a BOM is accepted). With
    ``positions=False`` the keys and values of nested mappings keep no
    position of their own (a quicker load for files expected to be valid);
    a YamlError's position may then be less exact, so the caller loads again
    with positions to report it.
    """
    if isinstance(text, bytes):
        if len(text) > MAX_FILE_BYTES:
            raise YamlError(
                Problem(path, Mark(1, 1), "", f"file is {len(text)} bytes; the limit is {MAX_FILE_BYTES}", rule="YAML")
            )
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = text[: exc.start].count(b"\n") + 1
            raise YamlError(
                Problem(path, Mark(line, 1), "", f"file is not valid UTF-8 (byte 0x{text[exc.start]:02x} at offset {exc.start})", rule="YAML")
            ) from None
    elif len(text) > MAX_FILE_BYTES:
        raise YamlError(
            Problem(path, Mark(1, 1), "", f"file is {len(text)} characters; the limit is {MAX_FILE_BYTES}", rule="YAML")
        )
    text = text.lstrip("\ufeff")
    parser = _Parser(text)
    docs: list[Document] = []
    get_event = parser.get_event
    try:
        while True:
            event = get_event()
            if event is None:
                break
            if type(event).__name__ == "DocumentStartEvent":
                start = _mark(event)
                if len(docs) == MAX_DOCUMENTS:
                    raise YamlError(Problem(path, start, "", f"file holds more than {MAX_DOCUMENTS} documents; "
                                            "split it into several plan files", rule="YAML"))
                builder = _Builder(path, positions)
                value = builder.build(get_event)
                get_event()  # DocumentEndEvent
                docs.append(Document(len(docs), value, start))
    except yaml.YAMLError as exc:
        problem = problem_from_yaml_error(path, exc, text, MAX_DEPTH)
        lines = text.splitlines()
        line = lines[problem.mark.line - 1] if 0 < problem.mark.line <= len(lines) else ""
        if "\t" in line[: problem.mark.col]:  # libyaml only says "cannot start any token"
            problem = Problem(path, problem.mark, "", problem.message + " (a tab: YAML indents with spaces only)",
                              rule="YAML")
        raise YamlError(problem) from None
    finally:
        dispose = getattr(parser, "dispose", None)
        if dispose is not None:
            dispose()
    return docs


def load_file(path: Path | str, positions: bool = True) -> list[Document]:
    """Read and parse a plan file, enforcing the size limit before reading it all."""
    return load_documents(read_file(path), str(path), positions)


def read_file(path: Path | str) -> bytes:
    """A plan file's bytes, or YamlError (too large, unreadable) naming the file."""
    p = Path(path)
    shown = str(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise YamlError(
                Problem(shown, Mark(1, 1), "", f"file is {size} bytes; the limit is {MAX_FILE_BYTES}", rule="YAML")
            )
        return p.read_bytes()
    except OSError as exc:
        raise YamlError(Problem(shown, Mark(1, 1), "", f"cannot read file: {exc.strerror}", rule="YAML")) from None
