"""Narrowing a target that matched several (TARGET_NOT_UNIQUE): which targets to try, which to keep. Pure.

A narrowing suggestion must pick one of the failed target's own matches:
pasted, it must resolve to exactly that element, never to some other single
element of the page (an empty overlay with a test id of its own, a container
the same size as the match). So the targets tried are built from the
matches themselves (``MATCHES_JS`` describes them from the target's match
list), and one is kept only when the page says it matches exactly one
element and that element is the match it was built from
(``resolved_match``: the same place in the tree). Deterministic: the same
matches and the same answers give the same picks in the same order.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from pytest_cometlocal.executor.suggest.ranking import css_string, target_options

# Attributes whose value can tell matches apart, in the order tried (then aria-* ones, by name).
TELLING_ATTRIBUTES = ("href", "name", "value")


def attribute_targets(matches: list[dict[str, Any]], index: int, base: dict[str, Any]) -> list[dict[str, Any]]:
    """CSS targets naming match ``index`` by an attribute value no other match has (``a[href="?_sort=genre"]``).

    The tag with the attribute first; then, for a CSS base without a selector
    list, the base's own selector with the attribute added to its last part.
    Whether one matches only that element is for the page to say.
    """
    mine = matches[index].get("attrs") or {}
    names = [a for a in TELLING_ATTRIBUTES if a in mine] + sorted(a for a in mine if a.startswith("aria-"))
    selector = base.get("selector") if base.get("type") == "css" else None
    scoped = isinstance(selector, str) and "," not in selector and ">>" not in selector
    targets = []
    for name in names:
        value = mine[name]
        if any((m.get("attrs") or {}).get(name) == value for j, m in enumerate(matches) if j != index):
            continue  # another match has it too
        test = f"[{name}={css_string(value)}]"
        targets.append({"type": "css", "selector": f"{matches[index]['tag']}{test}"})
        if scoped:
            targets.append({"type": "css", "selector": f"{selector.rstrip()}{test}"})
    return targets


def narrowing_targets(matches: list[dict[str, Any]], order: list[int], base: dict[str, Any],
                      frame: str | None = None) -> list[tuple[int, dict[str, Any], str]]:
    """``(match index, target, by what)`` to try, in the order tried: the best narrowing first.

    A test id of a match first, then another target of its own (role and name,
    label, text, CSS id), then an attribute only it has; each pass takes the
    matches in ``order``. The failed target itself is never one, nor a target
    two matches both give (it names both: a page of links all named "open"
    would spend every check on ``text=open``). Only the page can say which of
    them match exactly their match (``resolved_match``).
    """
    out = []
    for kinds in (("testid",), ("role", "label", "text", "css"), ("attribute",)):
        for i in order:
            if kinds == ("attribute",):
                own = attribute_targets(matches, i, base.get("inner", base) if frame else base)
                if frame:
                    own = [{"type": "frame", "selector": frame, "inner": t} for t in own]
            else:
                own = target_options(matches[i], None, frame, kinds)
            for target in own:
                if target != base:
                    kind = target.get("inner", target)["type"]
                    by = {"testid": "its test id", "attribute": "an attribute only it has"}.get(
                        kinds[0], f"a {kind} target of its own")
                    out.append((i, target, by))
    given: dict[str, set[int]] = {}
    for i, target, _ in out:
        given.setdefault(repr(target), set()).add(i)
    return [entry for entry in out if len(given[repr(entry[1])]) == 1]


def resolved_match(seen: dict[str, Any] | None, matches: list[dict[str, Any]]) -> int | None:
    """Which match a checked target resolved to: the index of the one element it matched when that element
    is one of ``matches`` (the same element: the same place in the tree), else None."""
    if not seen or seen.get("count") != 1:
        return None
    return next((i for i, m in enumerate(matches) if m.get("fp") == seen.get("fp")), None)


Check = Callable[[dict[str, Any]], dict[str, Any] | None]  # a target -> what the page says it matches


def narrowing_picks(matches: list[dict[str, Any]], order: list[int], base: dict[str, Any], frame: str | None,
                    check: Check) -> Iterator[tuple[int, dict[str, Any], str]]:
    """The ``narrowing_targets`` that ``check`` (the page: ``{count, fp}`` of a target) says match exactly their
    own match, one per match, in the order tried. A target whose one element is not one of ``matches`` (an
    empty overlay elsewhere with the same test id, a container of the same size) is never yielded."""
    narrowed: set[int] = set()
    for i, target, by in narrowing_targets(matches, order, base, frame):
        if i not in narrowed and resolved_match(check(target), matches) == i:
            narrowed.add(i)
            yield i, target, by


def describe_match(match: dict[str, Any]) -> str:
    """A match by itself, then its container: ``a link "genre" href="?_sort=genre", in table #rows``."""
    m = match
    out = m.get("tag") or "element"
    if m.get("role") and m.get("role") != m.get("tag"):
        out += f" {m['role']}"
    label = m.get("name") or m.get("label") or m.get("text") or ""
    if label:
        out += f' "{label[:60]}"'
    if m.get("id"):
        out += f" #{m['id']}"
    if m.get("testid"):
        out += f" [testid={m['testid']}]"
    if m.get("href") is not None:
        out += f" href={css_string(m['href'][:100])}"
    if m.get("container"):
        out += f", in {m['container']}"
    return out
