"""A failed condition's line and a policy halt's message say why first (contract/failure_lines.py), no browser.

The lines are cut (pytest's failure text at 160 characters a value, ``show`` at 140): the reason leads,
so a long value seen (a stored item) is what the cut takes. Every condition kind has its reason, every
policy halt its key, value and how to raise it.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.failure_lines import REASONS, condition_line, halt_line, reason_of
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.executor.page.conditions import EVALUATORS
from pytest_cometlocal.executor.step.budget import PolicyState
from tests.support import Sig

ITEM = '[{"title":"[secret:pw]","completed":false},' + '{"title":"Walk the dog","completed":false},' * 5 + "]"


def test_every_condition_kind_has_its_reason() -> None:
    assert set(REASONS) == set(EVALUATORS)


def test_the_reason_leads_then_what_was_expected_then_what_was_seen_cut() -> None:
    args = {"area": "local", "key": "todos-v12", "pointer": "/3/title", "equals": "Bread"}
    line = condition_line("storage_item", args, {"area": "local", "item": ITEM,
                                                 "problem": "the pointer names nothing in the item"}, 140)
    assert line.startswith('storage_item: the pointer names nothing in the item — expected {"area": "local", '
                           '"key": "todos-v12", "pointer": "/3/title", "equals": "Bread"} — seen {"area": "local", '
                           '"item": "[{\\"title\\":\\"[secret:pw]'), line
    assert line.endswith("…") and len(line.split(" — seen ")[1]) == 140 and "problem" not in line


@pytest.mark.parametrize(("kind", "args", "observed", "reason"), [
    ("element_text_matches", {"target": {"type": "testid", "id": "count"}, "pattern": "^1 item"},
     {"count": 1, "text": "2 items left"}, "the element's text does not match the pattern"),
    ("element_visible", {"target": {"type": "testid", "id": "gone"}}, {"count": 0},
     "the target matches nothing"),
    ("element_enabled", {"target": {"type": "role", "role": "button"}}, {"count": 3},
     "the target matches 3 elements, not one"),
    ("element_count_equals", {"target": {"type": "role", "role": "button"}, "count": 2}, {"count": 3},
     "the target matches another number of elements"),
    ("cookie", {"name": "todo-filter"}, {"value": None, "cookies": []}, "no such cookie is sent with the page's URL"),
    ("cookie", {"name": "f", "equals": "all"}, {"value": "done"}, "the cookie's value differs"),
    ("response_json", {"pointer": "/id"}, {"status": 200, "problem": "the pointer names nothing in the body"},
     "the pointer names nothing in the body"),
])
def test_each_kind_says_why_from_what_was_seen(kind, args, observed, reason) -> None:
    assert reason_of(kind, observed) == reason
    line = condition_line(kind, args, observed, 160)
    assert line.startswith(f"{kind}: {reason} — expected ")
    if "target" in args and len(args) > 1:  # the value expected before the target
        assert line.index('"target"') > line.index(next(f'"{k}"' for k in args if k != "target"))


def _halts() -> dict[str, tuple[dict, Policy]]:
    """A halt of each reason the executor raises, with the policy it was raised under."""
    capped = Policy(hard_cap_steps=2)
    steps = PolicyState(capped)
    steps.count_step(), steps.count_step()
    revisits = PolicyState(Policy())
    state = Sig("dom")
    found = [revisits.count_revisit("click", state, True, False) for _ in range(3)]
    return {"max_steps": (steps.check_step_budget().details, capped),
            "same_state_revisit": (found[-1].details, Policy()),
            "stop_not_allowed": ({"allow_stop": False}, Policy())}  # engine._stopped's halt


def test_a_policy_halt_names_its_key_its_value_and_how_to_raise_it() -> None:
    lines = {reason: halt_line(reason, details, policy) for reason, (details, policy) in _halts().items()}
    assert lines == {
        "same_state_revisit": "policy halt: same_state_revisit — state seen 3 times (policy.same_state_revisits: 2; "
                              "raise it in the plan's policy: or the suite config)",
        "max_steps": "policy halt: max_steps — 2 steps taken (policy.hard_cap_steps: 2; raise it in the plan's "
                     "policy: or the suite config)",
        "stop_not_allowed": "policy halt: stop_not_allowed — a stop step would end the run (policy.allow_stop: false; "
                            "set it to true in the plan's policy: or the suite config)",
    }
