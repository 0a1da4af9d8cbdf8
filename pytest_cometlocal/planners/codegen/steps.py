"""What each recorded Playwright method becomes in a plan: one row per method.

``ACTIONS``: a locator's action (``click``, ``fill``, ``press``, ...) -> a step;
``KEYBOARD``: ``page.keyboard``'s; ``CHECKS``: an ``expect(locator)`` check ->
a condition; ``PAGE_CHECKS``: ``expect(page)``'s. A method without a row, or a
row that cannot take the recorded arguments, is ``CannotMap`` with the reason:
the importer reports it with its line, it never guesses. v1.1 added the rows
for ``press``, ``check``/``uncheck``, ``hover``, ``dblclick``, ``drag_to`` and
click's ``button``/``modifiers``, and the checks ``to_be_checked``,
``to_be_focused`` and ``to_match_aria_snapshot``. v1.2 added ``to_be_hidden``,
``to_have_text([...])``, a regular expression in ``to_have_text``,
``to_contain_text``, ``to_have_value`` and ``to_have_attribute``, and
``to_have_class``, and ``to_have_screenshot`` (page or locator, as written for Node:
``screenshot_matches``).
"""

from __future__ import annotations

from typing import Any, Callable

from pytest_cometlocal.contract.model.actionspec import MODIFIERS
from pytest_cometlocal.contract.model.checks.audits import snapshot_name_problem
from pytest_cometlocal.contract.validate.keys import key_problem, snapshot_problem
from pytest_cometlocal.planners.codegen.input import dispatched, forced, pointer, select_value, typed
from pytest_cometlocal.planners.codegen.looks import LOOK_CHECKS
from pytest_cometlocal.planners.codegen.parse import LocatorArg, Recorded
from pytest_cometlocal.planners.codegen.targets import no_reference, target_of
from pytest_cometlocal.planners.errors import CannotMap

# Focus moves: the next step's target says where the author went, so nothing is lost.
DROPPED_KEYS = frozenset({"Tab", "Shift+Tab"})
# Playwright's spellings of a key that the plan's key grammar writes otherwise.
_KEY_SPELLINGS = {" ": "Space"}
_BUTTONS = ("left", "right", "middle")

Step = dict[str, Any]


def add_rationale(step: Step, rationale: str | None) -> None:
    """U3: the step holding an nth target (its own, its ``to``, a condition's) says why."""
    if rationale is None:
        return
    metadata = step.setdefault("metadata", {})
    old = metadata.get("target_rationale")
    metadata["target_rationale"] = rationale if not old or old == rationale else f"{old}; {rationale}"


def _on_target(call: Recorded, kind: str, **keys: Any) -> Step:
    target, rationale = target_of(call.chain)
    step: Step = {"kind": kind, "target": target, **keys}
    add_rationale(step, rationale)
    return step


def _pointer_keys(call: Recorded, click_count: int = 1) -> dict[str, Any]:
    """click's v1.1 keys from ``button=``, ``click_count=`` and ``modifiers=``; only those that differ
    from the defaults, so a plain click stays the v1 step it always was."""
    keys: dict[str, Any] = {}
    button = call.kwargs.get("button", "left")
    if button not in _BUTTONS:
        raise CannotMap(f"{call.action}(button={button!r}): a button is left, right or middle")
    if button != "left":
        keys["button"] = button
    count = call.kwargs.get("click_count", click_count)
    if isinstance(count, bool) or count not in (1, 2, 3):
        raise CannotMap(f"{call.action}(click_count={count!r}): a plan clicks 1, 2 or 3 times")
    if count != 1:
        keys["click_count"] = count
    modifiers = call.kwargs.get("modifiers") or []
    if not isinstance(modifiers, list) or any(m not in MODIFIERS for m in modifiers) \
            or len(set(modifiers)) < len(modifiers):
        raise CannotMap(f"{call.action}(modifiers={modifiers!r}): modifiers are {', '.join(MODIFIERS)}, each once")
    if modifiers:
        keys["modifiers"] = modifiers
    return keys


def _key(call: Recorded) -> str | None:
    """The key of a ``press``, None for a focus move (dropped); CannotMap outside the key grammar."""
    key = call.args[0] if call.args else call.kwargs.get("key")
    if not isinstance(key, str) or not key:
        raise CannotMap("press() needs one key name")
    key = _KEY_SPELLINGS.get(key, key)
    if key in DROPPED_KEYS:
        return None
    problem = key_problem(key)
    if problem:
        raise CannotMap(f"press({key!r}): {problem}")
    return key


def _no_modifiers(call: Recorded) -> None:
    if call.kwargs.get("modifiers"):
        raise CannotMap(f"{call.action}() with modifiers does not map (only a click holds modifiers)")


def _click(call: Recorded) -> Step:
    return _on_target(call, "click", **_pointer_keys(call), **pointer(call))  # (v1.3) position, force


def _dblclick(call: Recorded) -> Step:
    return _on_target(call, "click", **_pointer_keys(call, click_count=2), **pointer(call))


def _press(call: Recorded) -> Step | None:
    key = _key(call)
    return None if key is None else _on_target(call, "press", key=key)


def _hover(call: Recorded) -> Step:
    _no_modifiers(call)
    return _on_target(call, "hover", **pointer(call))  # (v1.3) position


def _set_checked(call: Recorded) -> Step:
    checked = call.args[0] if call.args else call.kwargs.get("checked")
    if not isinstance(checked, bool):
        raise CannotMap("set_checked() maps with True or False")
    return _on_target(call, "check" if checked else "uncheck", **forced(call))


def _fill(call: Recorded) -> Step:
    if len(call.args) != 1 or not isinstance(call.args[0], str):
        raise CannotMap("fill() needs one string")
    return _on_target(call, "fill", value=no_reference(call.args[0]), **forced(call))


def _select(call: Recorded) -> Step:
    return _on_target(call, "select", value=select_value(call))  # (v1.3) a list: a multiple select


def _upload(call: Recorded) -> Step:
    files = call.args[0] if call.args else None
    names = files if isinstance(files, list) else [files]
    if not names or not all(isinstance(f, str) and f for f in names):
        raise CannotMap("set_input_files() maps with file paths (not buffers, not an empty list)")
    return _on_target(call, "upload", file_ref=names[0] if len(names) == 1 else names)


def _drag(call: Recorded) -> Step:
    to = call.args[0] if call.args else call.kwargs.get("target")
    if "source_position" in call.kwargs or "target_position" in call.kwargs:
        raise CannotMap("drag_to() with a position does not map: a drag goes from element to element")
    if not isinstance(to, LocatorArg):
        raise CannotMap("drag_to() maps with a locator of the page as its target")
    to_target, rationale = target_of(to.chain)
    step = _on_target(call, "drag", to=to_target)
    add_rationale(step, rationale)
    return step


def _keyboard_press(call: Recorded) -> Step | None:
    key = _key(call)
    return None if key is None else {"kind": "press", "key": key}


# A row per method of a locator; None from a row: the call is dropped (a Tab press).
ACTIONS: dict[str, Callable[[Recorded], Step | None]] = {
    "click": _click,
    "dblclick": _dblclick,
    "fill": _fill,
    "select_option": _select,
    "set_input_files": _upload,
    "press": _press,
    "hover": _hover,
    "check": lambda call: _on_target(call, "check", **forced(call)),
    "uncheck": lambda call: _on_target(call, "uncheck", **forced(call)),
    "set_checked": _set_checked,
    "drag_to": _drag,
    # v1.3 (codegen/input.py)
    "focus": lambda call: _on_target(call, "focus"),
    "blur": lambda call: _on_target(call, "blur"),
    "dispatch_event": lambda call: _on_target(call, "dispatch_event", **dispatched(call)),
    "press_sequentially": lambda call: _on_target(call, "fill", **typed(call)),
    "type": lambda call: _on_target(call, "fill", **typed(call)),
}


def _held(call: Recorded) -> Step:
    raise CannotMap(f"page.keyboard.{call.action}() does not map: a plan holds no key down (a modifier held "
                    "for a click is click's modifiers; a modifier alone is a press, key: Shift)")


# page.keyboard's methods: press acts on whatever has focus (v1.3: a modifier alone too). type/insert_text have
# no row: text goes through fill, which masks it; a held key (down/up) is no step.
KEYBOARD: dict[str, Callable[[Recorded], Step | None]] = {"press": _keyboard_press, "down": _held, "up": _held}


def action_step(call: Recorded) -> Step | None:
    """The step of a recorded action on a locator or on ``page.keyboard`` (None: dropped)."""
    device = call.chain[0].name if len(call.chain) == 1 and not call.chain[0].is_call else None
    if device == "keyboard":
        row = KEYBOARD.get(call.action)
        if row is None:
            raise CannotMap(f"page.keyboard.{call.action}() does not map: text is typed with fill on its field, "
                            "a key with press")
        return row(call)
    if device == "mouse":
        raise CannotMap(f"page.mouse.{call.action}() does not map: a plan acts on elements, not on coordinates")
    row = ACTIONS.get(call.action)
    if call.action == "scroll_into_view_if_needed":  # (v1.3) nothing to map: every action already does it
        raise CannotMap("scroll_into_view_if_needed() does not map: every step scrolls its element into view "
                        "itself; a container is scrolled with scroll `to` (a place) or `direction`")
    if row is None:
        raise CannotMap(f"{call.action}() has no step in the plan format (v1.1)")
    return row(call)


# -- checks -----------------------------------------------------------------

ConditionRow = Callable[[tuple[Any, ...], dict[str, Any], dict[str, Any]], dict[str, Any] | None]
_OPTIONS = frozenset({"timeout"})  # keyword arguments of a check that do not change what it checks


def _state(kind: str) -> ConditionRow:
    """A check without arguments (``to_be_visible()``)."""
    return lambda args, kwargs, target: None if args or set(kwargs) - _OPTIONS else {
        "kind": kind, "args": {"target": target}}


def _with_text(kind: str, name: str) -> ConditionRow:
    """A check of one string (``to_have_value("x")``)."""
    def row(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
        if len(args) != 1 or not isinstance(args[0], str):
            return None
        return {"kind": kind, "args": {"target": target, name: no_reference(args[0])}}
    return row


def _text_or_pattern(kind: str, name: str, pattern_kind: str) -> ConditionRow:
    """(v1.2) A string as before; ``re.compile(...)`` (searched, as Playwright searches it) as ``pattern_kind``."""
    plain = _with_text(kind, name)

    def row(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
        if len(args) == 1 and _is_regex(args[0]):
            return {"kind": pattern_kind, "args": {"target": target, "pattern": no_reference(args[0][1])}}
        return plain(args, kwargs, target)
    return row


def _is_regex(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and value[0] == "re" and isinstance(value[1], str)


def _have_text(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
    """(v1.2) ``to_have_text([...])`` is the list's texts in order: element_texts_equal (a regex entry as ``/…/``)."""
    if len(args) == 1 and isinstance(args[0], list):
        texts = []
        for entry in args[0]:
            if _is_regex(entry):
                texts.append(f"/{no_reference(entry[1])}/")
            elif isinstance(entry, str) and not (len(entry) >= 2 and entry.startswith("/") and entry.endswith("/")):
                texts.append(no_reference(entry))
            else:
                return None
        return {"kind": "element_texts_equal", "args": {"target": target, "texts": texts}}
    return _text_or_pattern("element_text_contains", "text", "element_text_matches")(args, kwargs, target)


def _class(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
    """(v1.2) ``to_have_class(re)`` searches the class attribute; a string is the whole attribute."""
    return _attribute(("class", *args), kwargs, target) if len(args) == 1 else None


def _count(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
    one = args[0] if len(args) == 1 else None
    if not isinstance(one, int) or isinstance(one, bool):
        return None
    return {"kind": "element_count_equals", "args": {"target": target, "count": one}}


def _attribute(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
    if len(args) == 2 and isinstance(args[0], str) and _is_regex(args[1]):  # v1.2
        return {"kind": "element_attr_matches", "args": {"target": target, "attr": args[0],
                                                         "pattern": no_reference(args[1][1])}}
    if len(args) != 2 or not all(isinstance(a, str) for a in args):
        return None
    return {"kind": "element_attr_equals", "args": {"target": target, "attr": args[0], "value": no_reference(args[1])}}


def _checked(negated: bool) -> ConditionRow:
    def row(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
        checked = kwargs.get("checked", True)
        if args or set(kwargs) - _OPTIONS - {"checked"} or not isinstance(checked, bool):
            return None
        checked = checked != negated
        return {"kind": "element_checked", "args": {"target": target, **({} if checked else {"checked": False})}}
    return row


# (v1.2) to_have_screenshot's options: the plan's name for each, and those it always has (its stability).
_SCREENSHOT_ARGS = {"mask": "mask", "max_diff_pixels": "max_diff_pixels", "max_diff_pixel_ratio": "max_diff_ratio",
                    "threshold": "threshold"}
_SCREENSHOT_ALWAYS = {"animations": "disabled", "caret": "hide", "scale": "css"}


def _screenshot(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any] | None) -> dict[str, Any] | None:
    """(v1.2) ``to_have_screenshot("name.png", mask=[...], ...)`` as written for Node: screenshot_matches."""
    name = args[0] if len(args) == 1 else None
    if not isinstance(name, str):
        raise CannotMap("to_have_screenshot() needs its baseline's name (a string) to map")
    name = name[:-4] if name.lower().endswith(".png") else name
    if problem := snapshot_name_problem(name):
        raise CannotMap(f"to_have_screenshot(): {problem}")
    for key, value in kwargs.items():
        if key not in _SCREENSHOT_ARGS and key not in _OPTIONS and _SCREENSHOT_ALWAYS.get(key) != value:
            raise CannotMap(f"to_have_screenshot({key}=...) does not map (a plan's picture is always "
                            "animations='disabled', caret='hide', scale='css', the viewport or one element)")
    out: dict[str, Any] = {"name": name, **({"target": target} if target is not None else {})}
    for key, value in kwargs.items():
        if key == "mask":
            if not isinstance(value, list) or not all(isinstance(m, LocatorArg) for m in value):
                raise CannotMap("to_have_screenshot(mask=...) maps a list of the page's locators only")
            value = [target_of(m.chain)[0] for m in value]
        if key in _SCREENSHOT_ARGS:
            out[_SCREENSHOT_ARGS[key]] = value
    return {"kind": "screenshot_matches", "args": out}


def _aria_snapshot(args: tuple[Any, ...], kwargs: dict[str, Any], target: dict[str, Any]) -> dict[str, Any] | None:
    if len(args) != 1 or not isinstance(args[0], str):
        return None
    problem = snapshot_problem(args[0])
    if problem:
        raise CannotMap(f"to_match_aria_snapshot(): {problem}")
    return {"kind": "aria_snapshot_matches", "args": {"target": target, "snapshot": no_reference(args[0])}}


# A row per method of expect(locator). to_have_text matches the whole text; the plan checks a substring.
CHECKS: dict[str, ConditionRow] = {
    "to_be_visible": _state("element_visible"),
    "to_be_enabled": _state("element_enabled"),
    "to_be_attached": _state("element_exists"),
    "to_have_text": _have_text,
    "to_contain_text": _text_or_pattern("element_text_contains", "text", "element_text_matches"),
    "to_have_value": _text_or_pattern("element_value_equals", "value", "element_value_matches"),
    "to_have_count": _count,
    "to_have_attribute": _attribute,
    "to_be_checked": _checked(negated=False),
    "not_to_be_checked": _checked(negated=True),
    "to_be_focused": _state("element_focused"),
    "to_match_aria_snapshot": _aria_snapshot,
    "to_be_hidden": _state("element_hidden"),  # v1.2
    "to_have_class": _class,  # v1.2
    "to_have_screenshot": _screenshot,  # v1.2
    **LOOK_CHECKS,  # v1.3: to_have_css, to_be_in_viewport (codegen/looks.py)
}


def _url(args: tuple[Any, ...], relative: Callable[[str], str]) -> dict[str, Any] | None:
    url = args[0] if args else None
    if isinstance(url, tuple):  # re.compile(...)
        return {"kind": "url_matches", "args": {"pattern": no_reference(url[1])}}
    if isinstance(url, str):
        return {"kind": "url_is", "args": {"url": relative(no_reference(url))}}
    return None


def _seen(url: str, relative: Callable[[str], str]) -> dict[str, Any]:
    """(v1.3) The request a ``with page.expect_response(URL)`` waited for: a URL of the recorded origin
    becomes ``**/path`` (a glob reads the whole URL; the plan's base URL is another origin)."""
    local = relative(url)
    glob = "**" + local if local.startswith("/") else url
    return {"kind": "request_seen", "args": {"url": no_reference(glob)}}


def _title(args: tuple[Any, ...], relative: Callable[[str], str]) -> dict[str, Any] | None:
    if args and isinstance(args[0], str):
        return {"kind": "title_contains", "args": {"text": no_reference(args[0])}}
    return None


# A row per check of the page (``download_started``: the check of a ``with page.expect_download()`` block).
PAGE_CHECKS: dict[str, Callable[[tuple[Any, ...], Callable[[str], str]], dict[str, Any] | None]] = {
    "to_have_url": _url,
    "to_have_title": _title,
    "download_started": lambda args, relative: {"kind": "download_started"},
    "request_seen": lambda args, relative: _seen(args[0], relative),  # (v1.3) expect_response / expect_request
}
# (v1.2) The page's checks that read keyword arguments: (args, kwargs).
PAGE_KW_CHECKS: dict[str, Callable[[tuple[Any, ...], dict[str, Any]], dict[str, Any] | None]] = {
    "to_have_screenshot": lambda args, kwargs: _screenshot(args, kwargs, None),
}


def condition_of(call: Recorded, relative: Callable[[str], str]) -> tuple[dict[str, Any], str | None]:
    """The condition of an ``expect`` (``relative`` makes a URL of the recorded origin relative), and
    the rationale its ``nth`` target needs on the step it joins."""
    action = call.action
    row = CHECKS.get(action) if call.chain else None
    if row is None and action.startswith("not_to_"):
        raise CannotMap("negated checks (not_to_...) do not map, except not_to_be_checked")
    if not call.chain:  # expect(page), or the download of a ``with page.expect_download()`` block
        page_row, kw_row = PAGE_CHECKS.get(action), PAGE_KW_CHECKS.get(action)
        condition = page_row(call.args, relative) if page_row else kw_row(call.args, call.kwargs) if kw_row else None
        if condition is None:
            raise CannotMap(f"expect(page).{action}() with these arguments does not map")
        return condition, None
    target, rationale = target_of(call.chain)
    condition = row(call.args, call.kwargs, target) if row else None
    if condition is None:
        raise CannotMap(f"expect(locator).{action}() with these arguments does not map")
    return condition, rationale
