"""Recorded codegen calls -> plan steps (plain dicts with the plan file's keys).

Each mapping keeps what the recording meant, in the plan format's words:
locators become targets, actions become steps, ``expect`` checks become
postconditions of the step before them (an ``assert`` step when there is
none). What has no v1 equivalent is reported with its line, never guessed: a
key press other than Tab (v1 has no key-press step: click the submit button
instead), a descendant locator inside a role or text locator, ``.last``, a
second page.

A locator keeps its matching: ``exact=True`` becomes ``exact: true``; without
it Playwright matches a case-insensitive substring, which is the plan's
``normalize_ws: true`` for text and label targets (rule U2 accepts either) and
a role target without ``exact``. codegen relies on that: it shortens a long
name to 30 or 80 characters and drops a trailing count ("Inbox 3" is recorded
as "Inbox"), so ``exact: true`` would fail where the recording passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from pytest_cometlocal.planners.codegen_parse import Link, Recorded, Unmapped
from pytest_cometlocal.planners.errors import CannotMap

# Focus moves: the next step's target says where the author went, so nothing is lost.
DROPPED_KEYS = frozenset({"Tab", "Shift+Tab"})
# Words of a delete or a payment; ``_`` separates words too (Django's ``delete_selected`` action).
_RISKY = re.compile(r"(?<![a-z0-9])(delete|remove|destroy|erase|pay|payment|purchase|checkout|check out|buy|"
                    r"place order)(?![a-z0-9])", re.I)


@dataclass
class Mapped:
    """The plan's steps, its origin (first ``goto``), other hosts, and what was left out."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)      # the script line of each step
    origin: str | None = None                            # the plan's base URL
    recorded: str | None = None                          # the origin of the first absolute goto
    hosts: list[str] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _no_reference(text: str) -> str:
    if "${" in text:
        raise CannotMap("the text holds '${', which a plan reads as a reference")
    return text


def _text(link: Link, what: str) -> str:
    if len(link.args) != 1 or not isinstance(link.args[0], str):
        raise CannotMap(f"{link.name}() needs one string ({what}); a regular expression does not map")
    return _no_reference(link.args[0])


def _exact(link: Link, allowed: frozenset[str] = frozenset({"exact"})) -> bool:
    extra = set(link.kwargs) - allowed
    if extra:
        raise CannotMap(f"{link.name}() with {', '.join(sorted(extra))} does not map")
    return link.kwargs.get("exact") is True


def _base_target(link: Link) -> dict[str, Any]:
    name = link.name
    if name == "get_by_role":
        if not link.args or not isinstance(link.args[0], str):
            raise CannotMap("get_by_role() needs a role")
        target: dict[str, Any] = {"type": "role", "role": link.args[0]}
        exact = _exact(link, frozenset({"name", "exact"}))
        if "name" in link.kwargs:
            if not isinstance(link.kwargs["name"], str):
                raise CannotMap("get_by_role(name=re.compile(...)) does not map: name the element exactly")
            target["name"] = _no_reference(link.kwargs["name"])
            if exact:
                target["exact"] = True
        return target
    if name in ("get_by_label", "get_by_text"):
        text = _text(link, "the " + name.removeprefix("get_by_"))
        return {"type": name.removeprefix("get_by_"), "text": text,
                **({"exact": True} if _exact(link) else {"normalize_ws": True})}
    if name == "get_by_test_id":
        return {"type": "testid", "id": _text(link, "the test id")}
    attribute = {"get_by_placeholder": "placeholder", "get_by_alt_text": "alt", "get_by_title": "title"}.get(name)
    if attribute:
        value = _css_string(_text(link, "the " + attribute))
        # Not exact: Playwright's case-insensitive substring, which CSS writes *= ... i.
        selector = f"[{attribute}={value}]" if _exact(link) else f"[{attribute}*={value} i]"
        return {"type": "css", "selector": selector}
    if name == "locator":
        selector = _text(link, "a selector")
        if link.kwargs:
            raise CannotMap(f"locator() with {', '.join(sorted(link.kwargs))} does not map")
        if selector.startswith("xpath=") or selector.startswith("//") or selector.startswith("(//"):
            return {"type": "xpath", "selector": selector.removeprefix("xpath=")}
        if selector.startswith("css="):
            return {"type": "css", "selector": selector.removeprefix("css=")}
        if selector.startswith(("text=", "internal:", "role=", "id=", "data-testid=")) or ">>" in selector:
            raise CannotMap(f"the Playwright selector {selector!r} is not CSS or XPath")
        return {"type": "css", "selector": selector}
    raise CannotMap(f"the locator {name}() does not map")


def _compound(selector: str) -> str:
    """A selector list (``a, b``) filtered as a whole: ``:is(a, b)``."""
    return f":is({selector})" if "," in selector else selector


def target_of(chain: tuple[Link, ...]) -> tuple[dict[str, Any], str | None]:
    """The target of a locator chain, and the rationale an ``nth`` needs (U3)."""
    links = list(chain)
    frame: str | None = None
    if links and links[0].name == "frame_locator":
        frame = _text(links.pop(0), "the iframe selector")
    elif len(links) >= 2 and links[0].name == "locator" and links[1].name == "content_frame" and not links[1].is_call:
        frame = _text(links.pop(0), "the iframe selector")
        links.pop(0)
    if any(link.name in ("frame_locator", "content_frame") for link in links):
        raise CannotMap("a frame inside a frame does not map (one frame level in v1)")
    if not links:
        raise CannotMap("no locator")
    target = _base_target(links.pop(0))
    rationale = None
    for link in links:
        if link.name == "filter":
            if target["type"] != "css" or set(link.kwargs) != {"has_text"} or not isinstance(link.kwargs["has_text"], str):
                raise CannotMap("filter() maps only as has_text=\"...\" on a CSS locator")
            text = _css_string(_no_reference(link.kwargs["has_text"]))
            target = {"type": "css", "selector": f"{_compound(target['selector'])}:has-text({text})"}
        elif link.name == "locator" and target["type"] == "css" and link.args and isinstance(link.args[0], str) \
                and not link.kwargs and not link.args[0].startswith(("xpath=", "//", "text=", "internal:")):
            inner = _compound(link.args[0].removeprefix("css="))
            target = {"type": "css", "selector": f"{_compound(target['selector'])} {inner}"}
        elif link.name in ("first", "nth") and target["type"] != "nth":
            index = 0 if link.name == "first" else (link.args[0] if link.args else None)
            if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                raise CannotMap("nth() needs a non-negative number")
            rationale = (f"recorded by codegen as .{'first' if link.name == 'first' else f'nth({index})'} "
                         "(several elements matched): check it is still the one meant")
            target = {"type": "nth", "base": target, "index": index}
        elif link.name == "last":
            raise CannotMap(".last has no v1 target (nth counts from the first match)")
        else:
            raise CannotMap(f"a locator chained with .{link.name} does not map (v1 targets name one element directly)")
    if frame is not None:
        target = {"type": "frame", "selector": frame, "inner": target}
    return target, rationale


def _condition(call: Recorded, relative: Any) -> tuple[dict[str, Any], str | None]:
    """The condition of an ``expect`` (``relative`` makes a URL of the recorded origin relative), and
    the rationale its ``nth`` target needs on the step it joins."""
    action, args = call.action, call.args
    if action.startswith("not_to_"):
        raise CannotMap("negated checks (not_to_...) do not map")
    if not call.chain:  # expect(page), or the download of a ``with page.expect_download()`` block
        if action == "download_started":
            return {"kind": "download_started"}, None
        if action == "to_have_url" and args:
            url = args[0]
            if isinstance(url, tuple):
                return {"kind": "url_matches", "args": {"pattern": _no_reference(url[1])}}, None
            if isinstance(url, str):
                return {"kind": "url_is", "args": {"url": relative(_no_reference(url))}}, None
        if action == "to_have_title" and args and isinstance(args[0], str):
            return {"kind": "title_contains", "args": {"text": _no_reference(args[0])}}, None
        raise CannotMap(f"expect(page).{action}() with these arguments does not map")
    target, rationale = target_of(call.chain)
    one = args[0] if len(args) == 1 else None
    if action == "to_be_visible" and not args:
        condition = {"kind": "element_visible", "args": {"target": target}}
    elif action == "to_be_enabled" and not args:
        condition = {"kind": "element_enabled", "args": {"target": target}}
    elif action == "to_be_attached" and not args:
        condition = {"kind": "element_exists", "args": {"target": target}}
    elif action in ("to_have_text", "to_contain_text") and isinstance(one, str):
        # to_have_text matches the whole text; v1 checks a substring (the closest it has).
        condition = {"kind": "element_text_contains", "args": {"target": target, "text": _no_reference(one)}}
    elif action == "to_have_value" and isinstance(one, str):
        condition = {"kind": "element_value_equals", "args": {"target": target, "value": _no_reference(one)}}
    elif action == "to_have_count" and isinstance(one, int) and not isinstance(one, bool):
        condition = {"kind": "element_count_equals", "args": {"target": target, "count": one}}
    elif action == "to_have_attribute" and len(args) == 2 and all(isinstance(a, str) for a in args):
        condition = {"kind": "element_attr_equals",
                     "args": {"target": target, "attr": args[0], "value": _no_reference(args[1])}}
    else:
        raise CannotMap(f"expect(locator).{action}() with these arguments does not map")
    return condition, rationale


class _Mapper:
    def __init__(self, base_url: str | None):
        self.out = Mapped(origin=base_url.rstrip("/") if base_url else None)
        self.last_mapped = False  # did the previous recorded call become the last step?
        self.after_gap = False    # was the last action left out? Its checks then open an assert step

    def add(self, line: int, step: dict[str, Any]) -> None:
        self.out.steps.append(step)
        self.out.lines.append(line)

    def navigate(self, call: Recorded) -> dict[str, Any]:
        if len(call.args) != 1 or not isinstance(call.args[0], str):
            raise CannotMap("goto() needs one URL")
        url = _no_reference(call.args[0])
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc and self.out.recorded is None:
            self.out.recorded = f"{parts.scheme}://{parts.netloc}"
            if self.out.origin is None:
                self.out.origin = self.out.recorded
            elif self.out.origin != self.out.recorded:
                self.out.notices.append(f"the recording's origin {self.out.recorded} is replaced by the base URL "
                                        f"{self.out.origin}: its pages are navigated relative to it")
        if not parts.netloc or self.recorded(url):
            return {"kind": "navigate", "target": {"type": "url", "url": self.relative(url)}}
        host = parts.hostname or ""
        if host not in self.out.hosts:
            self.out.hosts.append(host)
        return {"kind": "navigate", "target": {"type": "url", "url": url}}

    def recorded(self, url: str) -> bool:
        parts = urlsplit(url)
        return self.out.recorded is not None and f"{parts.scheme}://{parts.netloc}" == self.out.recorded

    def relative(self, url: str) -> str:
        """A URL of the recorded origin as a path the base URL resolves (navigate and url_is alike)."""
        if not self.recorded(url):
            return url
        parts = urlsplit(url)
        return (parts.path or "/") + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")

    def action(self, call: Recorded) -> dict[str, Any] | None:
        if not call.chain:
            if call.action == "goto":
                return self.navigate(call)
            if call.action == "wait_for_timeout":
                raise CannotMap("a fixed wait does not map: a plan never sleeps; each step waits for its target "
                                "and its postconditions (add one where the page needs time)")
            raise CannotMap(f"page.{call.action}() does not map")
        if call.action == "press":
            key = call.args[0] if call.args else None
            if key in DROPPED_KEYS:
                return None
            raise CannotMap(f"press({key!r}): v1 has no key-press step; click the button the key would press")
        target, rationale = target_of(call.chain)
        step: dict[str, Any] = {"kind": "", "target": target}
        if call.action in ("click", "check"):
            if call.kwargs.get("button", "left") != "left" or call.kwargs.get("modifiers"):
                raise CannotMap("a right click, a middle click or a click with modifiers does not map")
            step["kind"] = "click"
        elif call.action == "fill":
            if len(call.args) != 1 or not isinstance(call.args[0], str):
                raise CannotMap("fill() needs one string")
            step.update(kind="fill", value=_no_reference(call.args[0]))
        elif call.action == "select_option":
            value = call.args[0] if call.args else call.kwargs.get("value", call.kwargs.get("label"))
            if isinstance(value, list) and len(value) == 1:
                value = value[0]
            if not isinstance(value, str):
                raise CannotMap("select_option() maps with one value or label")
            step.update(kind="select", value=_no_reference(value))
        elif call.action == "set_input_files":
            files = call.args[0] if call.args else None
            names = files if isinstance(files, list) else [files]
            if not names or not all(isinstance(f, str) and f for f in names):
                raise CannotMap("set_input_files() maps with file paths (not buffers, not an empty list)")
            step.update(kind="upload", file_ref=names[0] if len(names) == 1 else names)
        else:
            raise CannotMap(f"{call.action}() has no v1 step")
        if rationale is not None:
            step["metadata"] = {"target_rationale": rationale}
        return step

    def check(self, call: Recorded) -> None:
        if call.action == "download_started" and not self.last_mapped:
            raise CannotMap("the action that starts the download was not imported, so neither is its check")
        condition, rationale = _condition(call, self.relative)
        if not self.out.steps or self.after_gap:
            # Not the step before a statement left out: the author puts its replacement before this assert.
            self.add(call.line, {"kind": "assert"})
            self.after_gap = False
        step = self.out.steps[-1]
        step.setdefault("_checks", []).append(condition)
        if rationale is not None:  # U3: the step holding an nth target (in a condition too) says why
            metadata = step.setdefault("metadata", {})
            old = metadata.get("target_rationale")
            metadata["target_rationale"] = rationale if not old or old == rationale else f"{old}; {rationale}"


def map_calls(calls: list[Recorded | Unmapped], base_url: str | None = None) -> Mapped:
    """Steps (with ``_checks`` still separate) in order; every call that does not map is in ``unmapped``."""
    mapper = _Mapper(base_url)
    for call in calls:
        if isinstance(call, Unmapped):
            mapper.out.unmapped.append(call)
            mapper.last_mapped, mapper.after_gap = False, True
            continue
        mapped = False
        try:
            if call.check:
                mapper.check(call)
            else:
                step = mapper.action(call)
                if step is not None:
                    mapper.add(call.line, step)
                    mapped, mapper.after_gap = True, False
        except CannotMap as exc:
            mapper.out.unmapped.append(Unmapped(call.line, str(exc), call.source))
            mapper.after_gap = mapper.after_gap or not call.check
        mapper.last_mapped = mapped or (call.check and mapper.last_mapped)
    _drop_clicks_before_fills(mapper.out)
    return mapper.out


def _drop_clicks_before_fills(out: Mapped) -> None:
    """codegen records the click that focuses a field before its fill; the fill is enough."""
    keep_steps, keep_lines = [], []
    for i, step in enumerate(out.steps):
        following = out.steps[i + 1] if i + 1 < len(out.steps) else None
        if (step["kind"] == "click" and "_checks" not in step and following is not None
                and following["kind"] == "fill" and following["target"] == step["target"]):
            continue
        keep_steps.append(step)
        keep_lines.append(out.lines[i])
    out.steps, out.lines = keep_steps, keep_lines


def risky(step: dict[str, Any]) -> bool:
    """Does a click or a select look like a delete or a payment (worth ``critical``; the author decides)?"""
    if step["kind"] not in ("click", "select"):
        return False
    words = " ".join(str(v) for v in strings([step["target"], step.get("value", "")], skip=("type",)))
    return bool(_RISKY.search(words))


def strings(value: Any, skip: tuple[str, ...] = ()):
    """Every string in a nested step value (dicts, lists), leaving out the values of the keys in ``skip``."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in skip:
                yield from strings(item, skip)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, skip)
    elif isinstance(value, str):
        yield value
