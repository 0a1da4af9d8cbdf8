"""Role families: the roles a nameless role target may have meant, for its suggestions.

A role-only target (``{type: role, role: table}``, no name) says nothing but
its role, so a page whose element has a neighbouring role gets no suggestion
from names: Gradio's data frame is a ``grid``, not a ``table``, and a
``<select multiple>`` a ``listbox``, not a ``list``. The roles of one family
are what one thing on screen is often given by different toolkits; a
role-only target that matches nothing is offered the elements of its family's
other roles (``ranking.rank``). One row per family: a role may sit in
several, its related roles are the union.
"""

from __future__ import annotations

# (family, its roles): each role of a row is related to the row's other roles.
ROLE_FAMILIES: tuple[tuple[str, frozenset[str]], ...] = (
    ("tables", frozenset({"table", "grid", "treegrid"})),
    ("lists", frozenset({"list", "listbox"})),
    ("buttons", frozenset({"button", "link", "menuitem", "tab"})),
    ("text fields", frozenset({"textbox", "searchbox", "combobox"})),
)


def related_roles(role: str | None) -> frozenset[str]:
    """The other roles of ``role``'s families (none for a role in no family)."""
    return frozenset().union(*(roles for _family, roles in ROLE_FAMILIES if role in roles)) - {role}


def family_of(role: str | None, other: str | None) -> str | None:
    """The family ``role`` and ``other`` share (the first row that has both), None when they share none."""
    return next((family for family, roles in ROLE_FAMILIES if role in roles and other in roles and role != other), None)
