"""docs/porting-a-suite.md's storage recipes, as written there, on the lists TodoMVC implementations store.

An active to-do may be stored with ``"completed": false`` or without the key (issue 46 item 8): the
completed count and the per-item "active" check must hold on both, as the suite's helper
(``todos.filter(todo => todo.completed).length``) does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_cometlocal.contract.json_values import compare
from pytest_cometlocal.contract.model.conditions import StorageItemArgs

DOC = (Path(__file__).resolve().parents[2] / "docs" / "porting-a-suite.md").read_text(encoding="utf-8")


def _count_pattern(n: int) -> str:
    block = DOC.split("### The completed count", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    pattern = re.search(r"matches: '(.*)'\}\}", block).group(1)
    return pattern.replace("{N}", "{%d}" % n)


def _active_pattern() -> str:
    return re.search(r"per item `/i` `matches:\s+'([^']*)'`", DOC).group(1)


def _holds(value: object, pattern: str) -> bool:
    args = StorageItemArgs(area="local", key="react-todos", pointer="", matches=pattern)
    return compare(value, args)[0]


WITH_FALSE = [{"title": "a", "completed": True}, {"title": "b", "completed": False}, {"title": "c", "completed": True}]
WITHOUT_KEY = [{"title": "a", "completed": True}, {"title": "b"}, {"id": 3, "title": "c", "completed": True}]
TRICKY = [{"title": 'say "completed":true', "completed": False}, {"title": "x"}]  # the text inside a title


@pytest.mark.parametrize("todos, completed", [(WITH_FALSE, 2), (WITHOUT_KEY, 2), (TRICKY, 0), ([], 0),
                                              ([{"title": "a"}], 0), ([{"completed": True, "title": "z"}], 1)])
def test_the_completed_count_counts_the_true_ones_only(todos: list, completed: int) -> None:
    for n in range(4):
        assert _holds(todos, _count_pattern(n)) is (n == completed), (n, json.dumps(todos))


@pytest.mark.parametrize("item, active", [({"title": "b", "completed": False}, True), ({"title": "b"}, True),
                                          ({"title": "a", "completed": True}, False),
                                          ({"completed": True, "title": "a"}, False),
                                          ({"title": 'say "completed":true'}, True)])
def test_an_active_item_is_one_whose_completed_is_not_true(item: dict, active: bool) -> None:
    assert _holds(item, _active_pattern()) is active
