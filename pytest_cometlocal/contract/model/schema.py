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

from pydantic import BaseModel

from pytest_cometlocal.contract.model.actionspec import DEFAULTABLE_KEYS
from pytest_cometlocal.contract.model.plan import Plan, StepGroup, SuiteConfig, UseStep

SCHEMA_ID = "https://pytest-cometlocal.invalid/schemas/plan-format-v1.json"
SCHEMA_IDS = {
    "plan": SCHEMA_ID,
    "group": "https://pytest-cometlocal.invalid/schemas/step-group-v1.json",
    "suite": "https://pytest-cometlocal.invalid/schemas/suite-config-v1.json",
}
TITLES = {
    "plan": "pytest-cometlocal plan (plan-format v1)",
    "group": "pytest-cometlocal step group (*.steps.yaml)",
    "suite": "pytest-cometlocal suite config (cometlocal.yaml)",
}


def plan_json_schema() -> dict[str, Any]:
    schema = _schema(Plan, "plan")
    # What users write may hold `use` steps where the validated plan has ActionSpecs.
    schema["$defs"]["UseStep"] = copy.deepcopy(UseStep.model_json_schema(mode="validation"))
    step_or_use = {"anyOf": [{"$ref": "#/$defs/ActionSpec"}, {"$ref": "#/$defs/UseStep"}]}
    schema["properties"]["steps"]["items"] = step_or_use
    schema["$defs"]["Recovery"]["properties"]["steps"]["items"] = copy.deepcopy(step_or_use)
    return schema


def group_json_schema() -> dict[str, Any]:
    return _schema(StepGroup, "group")


def suite_json_schema() -> dict[str, Any]:
    return _schema(SuiteConfig, "suite")


def _schema(model: type[BaseModel], kind: str) -> dict[str, Any]:
    schema = copy.deepcopy(model.model_json_schema(mode="validation"))
    action = schema.get("$defs", {}).get("ActionSpec")
    if action is not None:
        action["required"] = [k for k in action.get("required", []) if k not in DEFAULTABLE_KEYS]
        action["description"] = (
            "One step (ActionSpec v1). criticality, timeout_ms, preconditions and postconditions "
            "may come from the plan's `defaults`."
        )
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_IDS[kind]
    schema["title"] = TITLES[kind]
    return schema
