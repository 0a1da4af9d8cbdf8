"""nested_fields: the fields the model walks (regex and number rules) read; a scalar field is never one."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, Field

from pytest_cometlocal.contract.model.base import nested_fields
from pytest_cometlocal.contract.model.plan import Plan
from pytest_cometlocal.contract.patterns import regex_problems


class Colour(enum.Enum):
    RED = "red"


class Inner(BaseModel):
    pattern: str = "a"


class Outer(BaseModel):
    name: str = ""
    count: int = 0
    flag: Optional[bool] = None
    mode: Literal["a", "b"] = "a"
    colour: Colour = Colour.RED
    text_or_none: Annotated[Optional[str], Field(max_length=3)] = None
    one: Optional[Inner] = None
    many: list[Inner] = []
    mapping: dict[str, Inner] = {}
    either: Union[str, Inner] = ""
    loose: Any = None
    aliased: Optional[Inner] = Field(default=None, alias="other-name")


def test_scalar_fields_are_left_out_and_every_field_that_can_hold_a_model_is_in():
    assert nested_fields(Outer) == (("one", "one"), ("many", "many"), ("mapping", "mapping"), ("either", "either"),
                                    ("loose", "loose"), ("aliased", "other-name"))


def test_the_plan_walk_still_reaches_a_regex_deep_in_the_plan():
    plan = Plan.model_validate({
        "name": "p", "base_url": "http://127.0.0.1:1/", "allowlist": ["127.0.0.1"],
        "auth_signals": {"url_pattern": "(unclosed"},
        "steps": [{"id": "s1", "kind": "navigate", "url": "/", "criticality": "normal", "timeout_ms": 1000,
                   "preconditions": [{"kind": "host_in_allowlist"}], "postconditions": [{"kind": "url_matches", "args": {"pattern": "[ok"}}]}],
    })
    # the plan-level walk (steps are the step rules'); then one step's condition, as the step rules walk it
    assert [where for where, _problem in regex_problems(plan, skip=(type(plan.steps[0]),))] == [
        ("auth_signals", "url_pattern")]
    assert sorted(where for where, _problem in regex_problems(plan)) == [
        ("auth_signals", "url_pattern"), ("steps", 0, "postconditions", 0, "args", "pattern")]
