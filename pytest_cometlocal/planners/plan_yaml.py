"""How a planner writes a plan file: the defaults every proposed step gets, and readable YAML.

Shared by the codegen importer and the agent's ``save_plan``, so a recorded
plan and an explored one look the same: plan keys in block style, each step's
target and conditions on one line, as people write them.
"""

from __future__ import annotations

from typing import Any

import yaml

# What a planner's steps get unless they say otherwise (the host check is the weakest condition that holds).
DEFAULTS: dict[str, Any] = {
    "criticality": "normal",
    "timeout_ms": 10000,
    "preconditions": [{"kind": "host_in_allowlist"}],
    "postconditions": [{"kind": "host_in_allowlist"}],
}
_FLOW_STEP_KEYS = ("target", "to", "preconditions", "postconditions", "metadata", "file_ref", "page",
                   "headers", "json", "form", "viewport", "detail", "position")  # v1.2: a request's; v1.3: set_viewport's
# size, an event's init, a point
_FLOW_LIST_KEYS = ("modifiers",)  # a short list of words, on one line: modifiers: [Control, Shift]


class _Flow(dict):
    """A mapping written on one line."""


class _FlowList(list):
    """A list written on one line."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Flow, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True))
_Dumper.add_representer(_FlowList, lambda d, data: d.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True))


def _flow(value: Any) -> Any:
    if isinstance(value, dict):
        return _Flow({k: _flow(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_flow(v) for v in value]
    return value


def dump_plan(plan: dict[str, Any]) -> str:
    """The plan as YAML: ``secrets`` and each step's target and conditions in flow style."""
    body = {k: (_flow(v) if k == "secrets" else v) for k, v in plan.items()}
    if "routes" in plan:  # (v1.2) one block per route, its url and respond on a line each
        body["routes"] = [{k: _flow(v) for k, v in route.items()} for route in plan["routes"]]
    if "defaults" in plan:
        body["defaults"] = {k: _flow(v) if isinstance(v, list) else v for k, v in plan["defaults"].items()}
    body["steps"] = [{k: (_flow(v) if k in _FLOW_STEP_KEYS else _FlowList(v) if k in _FLOW_LIST_KEYS else v)
                      for k, v in step.items()} for step in plan["steps"]]
    # No folding: at a width PyYAML breaks a long text inside a flow mapping onto the next line
    # ("text: Successfully deleted\n 1 group."), which reads as two values to someone editing.
    return yaml.dump(body, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=4096, default_flow_style=False)
