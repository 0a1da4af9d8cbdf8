"""Playwright locator chains -> plan targets (``cometlocal import``).

A locator keeps its matching: ``exact=True`` becomes ``exact: true``; without
it Playwright matches a case-insensitive substring, which is the plan's
``normalize_ws: true`` for text and label targets (rule U2 accepts either) and
a role target without ``exact``. codegen relies on that: it shortens a long
name to 30 or 80 characters and drops a trailing count ("Inbox 3" is recorded
as "Inbox"), so ``exact: true`` would fail where the recording passed.
What has no plan target (``.last``, a locator inside a role locator, a frame
in a frame) is ``CannotMap`` with the reason.
"""

from __future__ import annotations

from typing import Any

from pytest_cometlocal.contract.model.targets import ROLE_FILTER_ROLES
from pytest_cometlocal.planners.codegen.parse import Link
from pytest_cometlocal.planners.errors import CannotMap

def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def no_reference(text: str) -> str:
    if "${" in text:
        raise CannotMap("the text holds '${', which a plan reads as a reference")
    return text


def text_of(link: Link, what: str) -> str:
    if len(link.args) != 1 or not isinstance(link.args[0], str):
        raise CannotMap(f"{link.name}() needs one string ({what}); a regular expression does not map")
    return no_reference(link.args[0])


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
        exact = _exact(link, frozenset({"name", "exact", *ROLE_FILTER_ROLES}))
        target.update(_role_filters(link))
        if "name" in link.kwargs:
            if not isinstance(link.kwargs["name"], str):
                raise CannotMap("get_by_role(name=re.compile(...)) does not map: name the element exactly")
            target["name"] = no_reference(link.kwargs["name"])
            if exact:
                target["exact"] = True
        return target
    if name in ("get_by_label", "get_by_text"):
        text = text_of(link, "the " + name.removeprefix("get_by_"))
        return {"type": name.removeprefix("get_by_"), "text": text,
                **({"exact": True} if _exact(link) else {"normalize_ws": True})}
    if name == "get_by_test_id":
        return {"type": "testid", "id": text_of(link, "the test id")}
    attribute = {"get_by_placeholder": "placeholder", "get_by_alt_text": "alt", "get_by_title": "title"}.get(name)
    if attribute:
        value = _css_string(text_of(link, "the " + attribute))
        # Not exact: Playwright's case-insensitive substring, which CSS writes *= ... i.
        selector = f"[{attribute}={value}]" if _exact(link) else f"[{attribute}*={value} i]"
        return {"type": "css", "selector": selector}
    if name == "locator":
        selector = text_of(link, "a selector")
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


def _role_filters(link: Link) -> dict[str, Any]:
    """(v1.2) get_by_role's ``level``, ``checked``, ... as the target's own keys, each on a role ARIA gives it."""
    role = link.args[0]
    found: dict[str, Any] = {}
    for name, roles in ROLE_FILTER_ROLES.items():
        if name not in link.kwargs:
            continue
        value = link.kwargs[name]
        wanted_int = name == "level"
        if (not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6) if wanted_int \
                else not isinstance(value, bool):
            raise CannotMap(f"get_by_role({name}={value!r}) does not map: "
                            + ("a level is 1 to 6" if wanted_int else f"{name} is True or False"))
        if roles is not None and role not in roles:
            raise CannotMap(f"get_by_role({role!r}, {name}=...) does not map: ARIA gives {name} only to "
                            + ", ".join(sorted(roles)))
        found[name] = value
    return found


def _compound(selector: str) -> str:
    """A selector list (``a, b``) filtered as a whole: ``:is(a, b)``."""
    return f":is({selector})" if "," in selector else selector


def target_of(chain: tuple[Link, ...]) -> tuple[dict[str, Any], str | None]:
    """The target of a locator chain, and the rationale an ``nth`` needs (U3)."""
    links = list(chain)
    frame: str | None = None
    if links and links[0].name == "frame_locator":
        frame = text_of(links.pop(0), "the iframe selector")
    elif len(links) >= 2 and links[0].name == "locator" and links[1].name == "content_frame" and not links[1].is_call:
        frame = text_of(links.pop(0), "the iframe selector")
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
            text = _css_string(no_reference(link.kwargs["has_text"]))
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
