"""JSON Schema of the plan file format, generated from the same models.

The validated ``ActionSpec`` requires keys that a plan may supply through
``defaults`` (criticality, timeout_ms, pre/postconditions), so the file
schema relaxes exactly those; everything else (types, enums, unknown keys) is
the model's own schema. Editors use it with
``# yaml-language-server: $schema=<path to the printed schema>``.
"""

from __future__ import annotations

import copy
from typing import Any

from .actionspec import DEFAULTABLE_KEYS
from .plan import Plan

SCHEMA_ID = "https://pytest-cometlocal.invalid/schemas/plan-format-v1.json"


def plan_json_schema() -> dict[str, Any]:
    schema = copy.deepcopy(Plan.model_json_schema(mode="validation"))
    action = schema.get("$defs", {}).get("ActionSpec")
    if action is not None:
        action["required"] = [k for k in action.get("required", []) if k not in DEFAULTABLE_KEYS]
        action["description"] = (
            "One step (ActionSpec v1). criticality, timeout_ms, preconditions and postconditions "
            "may come from the plan's `defaults`."
        )
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID
    schema["title"] = "pytest-cometlocal plan (plan-format v1)"
    return schema
