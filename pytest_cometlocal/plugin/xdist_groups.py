"""Plans of one ``xdist_group`` run on one pytest-xdist worker under ``--dist loadgroup``.

A plan joins a group by a tag: ``xdist_group_NAME`` gives its item the mark
``xdist_group(NAME)`` (a bare ``xdist_group`` tag is the mark without a name: xdist's
group ``default``); a ``conftest.py`` may add the mark as to any item. A tag, not a
plan key: plan tags are already markers, and a new key would change the plan schema.

pytest-xdist groups by a ``@NAME`` suffix that its worker's
``pytest_collection_modifyitems`` writes into ``item._nodeid``. pytest 9.2 keeps a
node's id as a structured ``NodeId`` in ``item._id`` and no longer reads
``_nodeid`` (pytest-xdist issue 1386), so the suffix is lost and every item is
scheduled on its own, for any kind of test. For plan items the suffix is written
where the running pytest reads it, after xdist's hook; where xdist's own write
took effect (pytest before 9.2, or an xdist that knows ``_id``) there is nothing to do.
This module is a plugin of its own (registered at ``pytest_configure``): the package
plugin already has a ``pytest_collection_modifyitems``, which must not run last.
"""

from __future__ import annotations

from typing import Any, Iterable

import pytest

GROUP_TAG = "xdist_group"
GROUP_TAG_PREFIX = GROUP_TAG + "_"


def group_marks(tags: Iterable[str]) -> list[pytest.MarkDecorator]:
    """The ``xdist_group(NAME)`` marks of a plan's ``xdist_group_NAME`` tags."""
    return [pytest.mark.xdist_group(tag[len(GROUP_TAG_PREFIX):]) for tag in tags
            if tag.startswith(GROUP_TAG_PREFIX) and len(tag) > len(GROUP_TAG_PREFIX)]


def group_suffix(item: pytest.Item) -> str:
    """``@a_b`` for an item in groups ``a`` and ``b`` (as xdist writes it), ``""`` for one in none."""
    names = {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers(GROUP_TAG)}
    return "@" + "_".join(sorted(names)) if names else ""


def set_node_id(item: Any, nodeid: str) -> None:
    """Give ``item`` the node id ``nodeid`` where this pytest keeps it: pytest has no public way.

    pytest 9.2 and later: ``_id``, a ``NodeId`` (its ``parse`` keeps the string as given);
    before: ``_nodeid``, a string. tests/plugin/test_xdist_groups.py pins both ends.
    """
    current = getattr(item, "_id", None)
    if current is not None and hasattr(type(current), "parse"):
        item._id = type(current).parse(nodeid)
    else:
        item._nodeid = nodeid
    assert item.nodeid == nodeid, f"pytest did not take the node id {nodeid!r}"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker under ``--dist loadgroup``, after xdist's own hook: the group suffix of each
    plan item, where xdist's write did not reach pytest."""
    if not getattr(config.option, "loadgroup", False):  # set by xdist on its workers only
        return
    for item in items:
        if item.get_closest_marker("cometlocal") is not None:  # a plan item (plugin/collection.py marks each)
            suffix = group_suffix(item)
            if suffix and not item.nodeid.endswith(suffix):
                set_node_id(item, item.nodeid + suffix)
