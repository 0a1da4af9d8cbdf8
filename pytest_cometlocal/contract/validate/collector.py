"""Collecting a document's problems, each located at its line, column and key path.

``ProblemCollector`` is what every validation stage reports to: the plan's
own stages, the step-group expansion (whose problems point into the group
file, with the chain of places that used it) and the suite config merge.
It also turns pydantic's errors into the plan format's words: an unknown key
with a close match among the keys that fit there, a missing defaultable key
that may also come from ``defaults``, an unknown target type with the list of
known ones.
"""

from __future__ import annotations

import difflib
import re
import typing
from typing import Any, Mapping

from pydantic import BaseModel, ValidationError

from pytest_cometlocal.contract.model.actionspec import DEFAULTABLE_KEYS
from pytest_cometlocal.contract.model.base import ContractModel
from pytest_cometlocal.contract.model.targets import TARGET_TYPES
from pytest_cometlocal.contract.validate.locate import locate
from pytest_cometlocal.contract.model.problems import Loc, Mark, Problem, SourceMark
from pytest_cometlocal.contract.validate.validated import STEP_PATH


def _model_key_sets() -> list[tuple[frozenset[str], dict[str, tuple]]]:
    """Field names of every plan-format model, with the values its ``type``/``kind`` accept."""
    sets: list[tuple[frozenset[str], dict[str, tuple]]] = []
    todo: list[type[BaseModel]] = [ContractModel]
    while todo:
        cls = todo.pop()
        fields = getattr(cls, "model_fields", {})
        if fields:
            tags = {name: typing.get_args(fields[name].annotation) for name in ("type", "kind")
                    if name in fields and typing.get_origin(fields[name].annotation) is typing.Literal}
            sets.append((frozenset(f.alias or name for name, f in fields.items()), tags))
        todo.extend(cls.__subclasses__())
    return sets


_KEY_SETS = _model_key_sets()
_KNOWN_KEYS = sorted(set().union(*(keys for keys, _tags in _KEY_SETS)))


def _node_at(tree: Any, loc: Loc) -> Any:
    """The mapping or list at ``loc``; parts that are not keys (union tags) are skipped."""
    node = tree
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, int):
            return None
    return node


def key_hint(unknown: str, mapping: Any) -> str | None:
    """A close key among the models that fit the mapping (its other keys, its type/kind)."""
    if not isinstance(mapping, dict):
        mapping = {}
    siblings = {k for k in mapping if k != unknown and k in _KNOWN_KEYS}

    def fits(keys: frozenset[str], tags: dict[str, tuple]) -> bool:
        if not siblings <= keys:
            return False
        return all(mapping.get(name) in values for name, values in tags.items() if name in mapping)

    fitting = [keys for keys, tags in _KEY_SETS if fits(keys, tags)] if siblings else []
    candidates = sorted(set().union(*fitting)) if fitting else _KNOWN_KEYS
    hint = [k for k in difflib.get_close_matches(unknown, candidates, n=3) if k != unknown]
    return hint[0] if hint else None


# Words for a widget that are not target types, and the target that finds that widget.
WIDGET_TARGETS = {
    "dropdown": "role (role: combobox)", "select": "role (role: combobox)", "combobox": "role (role: combobox)",
    "listbox": "role (role: listbox)", "button": "role (role: button)", "link": "role (role: link)",
    "checkbox": "role (role: checkbox)", "radio": "role (role: radio)", "slider": "role (role: slider)",
    "tab": "role (role: tab)", "textbox": "label or role (role: textbox)", "input": "label or role (role: textbox)",
    "textarea": "label or role (role: textbox)", "id": "testid or css", "selector": "css", "placeholder": "label",
}


def close_hint(given: str, options: list[str], target_type: bool = False) -> str:
    """``; did you mean 'x'?`` for the closest option (or the target type that finds a widget), else ''."""
    if target_type and given.lower() in WIDGET_TARGETS:
        return f"; did you mean {WIDGET_TARGETS[given.lower()]}?"
    close = difflib.get_close_matches(given, options, n=1)
    return f"; did you mean '{close[0]}'?" if close and close[0] != given else ""


def _type_hint(node: Any) -> str:
    """For a target without ``type``: the key that looks like the type it meant (``{dropdown: X}``)."""
    for key in node if isinstance(node, dict) else ():
        if key in TARGET_TYPES:
            return f"; did you mean {{type: {key}, ...}}?"
        if str(key).lower() in WIDGET_TARGETS:
            return f"; '{key}' is not a target type: did you mean {WIDGET_TARGETS[str(key).lower()]}?"
    return ""


class ProblemCollector:
    """Accumulates problems for one document, located in its YAML tree.

    ``root`` is the tree key paths are read in (the stages replace it as they
    rewrite the tree); ``fallback`` the mark of a problem whose node has none.
    A node that came from a step group or the suite config carries a
    SourceMark: the problem then names that file, and ``group_paths`` turns
    the plan's key path of an expanded step back into its group's.
    """

    def __init__(self, file: str, root: Any, fallback: Mark):
        self.file, self.root, self.fallback = file, root, fallback
        self.problems: list[Problem] = []
        self._seen: dict[str, int] = {}
        # "steps[3]" -> "steps[1]": an expanded group step's key path in its group file.
        self.group_paths: dict[str, str] = {}

    def add(self, loc: Loc, message: str, rule: str, key: bool = False, tree: Any = None, tags: bool = False) -> None:
        mark, path = locate(self.root if tree is None else tree, loc, self.fallback, key=key, tags=tags)
        file, via = self.file, ()
        if isinstance(mark, SourceMark):  # the node came from a step group or the suite config
            file, via = mark.file, mark.via
            m = STEP_PATH.match(path) if self.group_paths else None
            if m and m.group(0) in self.group_paths:
                path = self.group_paths[m.group(0)] + path[m.end():]
            mark = Mark(mark.line, mark.col)
        seen_key = f"{file}\0{path}"
        if seen_key in self._seen and rule == "SCHEMA":
            # Union members each report the same value; one line is enough.
            prev = self.problems[self._seen[seen_key]]
            if prev.rule == "SCHEMA" and message not in prev.message:
                self.problems[self._seen[seen_key]] = Problem(
                    prev.file, prev.mark, prev.key_path, f"{prev.message}; or {message}", prev.rule, prev.via
                )
            return
        self._seen.setdefault(seen_key, len(self.problems))
        self.problems.append(Problem(file, mark, path, message, rule, via))

    def add_pydantic(self, exc: ValidationError, prefix: Loc = (), tree: Any = None) -> None:
        for err in exc.errors(include_url=False):
            loc = prefix + tuple(err["loc"])
            message, rule, key = describe(err)
            if err["type"] == "union_tag_not_found" and "'type'" in str((err.get("ctx") or {}).get("discriminator")):
                message += _type_hint(_node_at(self.root if tree is None else tree, loc))
            if err["type"] == "extra_forbidden":
                hint = key_hint(str(loc[-1]), _node_at(self.root if tree is None else tree, loc[:-1]))
                if hint:
                    message += f"; did you mean '{hint}'?"
            self.add(loc, message, rule, key=key, tree=tree, tags=True)

    def reporter(self):
        """``add(loc, message, rule)``: what the rules report through."""
        return lambda loc, message, rule: self.add(loc, message, rule)


def describe(err: Mapping[str, Any]) -> tuple[str, str, bool]:
    """A pydantic error as (message, rule, points-at-key) in the plan's words."""
    kind = err["type"]
    loc = err["loc"]
    last = loc[-1] if loc else ""
    ctx = err.get("ctx") or {}
    if kind == "extra_forbidden":
        return f"unknown key '{last}' (unknown keys are rejected)", "SCHEMA", True
    if kind == "missing":
        if last in ("preconditions", "postconditions"):
            return f"'{last}' is required (on the step or in the plan's `defaults`)", "CONDITIONS_REQUIRED", False
        if last in DEFAULTABLE_KEYS:
            return f"'{last}' is required (on the step or in the plan's `defaults`)", "SCHEMA", False
        return f"required key '{last}' is missing", "SCHEMA", False
    if kind == "too_short" and last in ("preconditions", "postconditions"):
        return f"'{last}' must not be empty (after defaults)", "CONDITIONS_REQUIRED", False
    if kind == "too_short":
        return "must not be empty", "SCHEMA", False
    if kind == "union_tag_invalid":
        expected = str(ctx.get("expected_tags", ""))
        disc = str(ctx.get("discriminator", "")).strip("'").removesuffix("()")  # conditions': a function
        extension = ", 'extension'" if expected.endswith(", 'extension'") else ""  # (extensions) not a kind
        expected = expected.removesuffix(extension)
        what = {"type": "target type", "kind": "kind"}.get(disc, disc)
        hint = close_hint(str(ctx.get("tag")), re.findall(r"'([^']*)'", expected), disc == "type")
        also = "; or an extension kind, x_<name> or <team>.<name> (docs/extensions.md)" if extension else ""
        return f"unknown {what} '{ctx.get('tag')}'{hint}; expected one of: {expected}{also}", "SCHEMA", False
    if kind == "union_tag_not_found":
        disc = str(ctx.get("discriminator", "")).strip("'").removesuffix("()")
        return f"'{disc}' is required here", "SCHEMA", False
    if kind == "literal_error":
        expected = str(ctx.get("expected", ""))
        if len(expected) <= 160:
            hint = close_hint(str(err.get("input")), re.findall(r"'([^']*)'", expected), last == "type")
            return f"must be one of: {expected}{hint}", "SCHEMA", False
        options = re.findall(r"'([^']*)'", expected)
        close = difflib.get_close_matches(str(err.get("input")), options, n=3)
        hint = f"; close matches: {', '.join(close)}" if close else ""
        return f"{err.get('input')!r} is not one of the {len(options)} allowed values{hint}", "SCHEMA", False
    if kind == "string_pattern_mismatch":
        return f"{err.get('input')!r} does not match the pattern {ctx.get('pattern')}", "SCHEMA", False
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "must be a mapping", "SCHEMA", False
    if kind == "list_type":
        return "must be a list", "SCHEMA", False
    msg = err.get("msg", kind)
    return msg[0].lower() + msg[1:] if msg else kind, "SCHEMA", False
