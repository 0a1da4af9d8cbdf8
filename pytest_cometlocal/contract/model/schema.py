"""JSON Schema of the plan file format: the newest generated from the models, the older ones as published.

The validated ``ActionSpec`` requires keys that a plan may supply through
``defaults`` (criticality, timeout_ms, pre/postconditions), so the file
schema relaxes exactly those; everything else (types, enums, unknown keys) is
the model's own schema. Editors use it with
``# yaml-language-server: $schema=<path to the printed schema>``.

A published schema never changes: editors and tools that must refuse newer
additions load it by its ``$id``. So v1, v1.1, v1.2 and v1.3 are the files in
``published/``, byte for byte as they were released (the models have moved on
since: a v1.3 model may widen a v1.2 key, v1.4's ``browser`` has a ``name``);
only the newest format, v1.4, is generated from the models.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel

from pytest_cometlocal.contract.model.actionspec import DEFAULTABLE_KEYS
from pytest_cometlocal.contract.model.plan import Plan, StepGroup, SuiteConfig, UseStep

FormatVersion = Literal["v1", "v1.1", "v1.2", "v1.3", "v1.4"]
NEWEST: FormatVersion = "v1.4"
# The formats whose schemas are the released files (published/<kind>-<version>.json), oldest first.
PUBLISHED_VERSIONS: tuple[str, ...] = ("v1", "v1.1", "v1.2", "v1.3")
# Every format ``cometlocal schema --format-version`` takes, oldest first (the newest last).
SCHEMA_VERSIONS: tuple[str, ...] = (*PUBLISHED_VERSIONS, NEWEST)
SCHEMA_ID = "https://pytest-cometlocal.invalid/schemas/plan-format-v1.json"
SCHEMA_IDS = {
    ("plan", "v1.4"): "https://pytest-cometlocal.invalid/schemas/plan-format-v1.4.json",
    ("group", "v1.4"): "https://pytest-cometlocal.invalid/schemas/step-group-v1.4.json",
    ("suite", "v1.4"): "https://pytest-cometlocal.invalid/schemas/suite-config-v1.4.json",
}
TITLES = {
    "plan": "pytest-cometlocal plan (plan-format {version})",
    "group": "pytest-cometlocal step group (*.steps.yaml, plan-format {version})",
    "suite": "pytest-cometlocal suite config (cometlocal.yaml, plan-format {version})",
}


def plan_json_schema(format_version: FormatVersion = NEWEST) -> dict[str, Any]:
    if format_version in PUBLISHED_VERSIONS:
        return published("plan", format_version)
    schema = _schema(Plan, "plan", format_version)
    # What users write may hold `use` steps where the validated plan has ActionSpecs.
    schema["$defs"]["UseStep"] = copy.deepcopy(UseStep.model_json_schema(mode="validation"))
    step_or_use = {"anyOf": [{"$ref": "#/$defs/ActionSpec"}, {"$ref": "#/$defs/UseStep"}]}
    schema["properties"]["steps"]["items"] = step_or_use
    schema["$defs"]["Recovery"]["properties"]["steps"]["items"] = copy.deepcopy(step_or_use)
    return schema


def group_json_schema(format_version: FormatVersion = NEWEST) -> dict[str, Any]:
    if format_version in PUBLISHED_VERSIONS:
        return published("group", format_version)
    return _schema(StepGroup, "group", format_version)


def suite_json_schema(format_version: FormatVersion = NEWEST) -> dict[str, Any]:
    if format_version in PUBLISHED_VERSIONS:
        return published("suite", format_version)
    return _schema(SuiteConfig, "suite", format_version)


def published(kind: str, format_version: str) -> dict[str, Any]:
    """A released schema as it was published (``published/<kind>-<version>.json``)."""
    return json.loads(published_text(kind, format_version))


def published_text(kind: str, format_version: str) -> str:
    """The released file's text, byte for byte (``cometlocal schema`` prints it as it is)."""
    return resources.files(__package__).joinpath("published", f"{kind}-{format_version}.json").read_text("utf-8")


def _schema(model: type[BaseModel], kind: str, format_version: FormatVersion) -> dict[str, Any]:
    schema = copy.deepcopy(model.model_json_schema(mode="validation"))
    action = schema.get("$defs", {}).get("ActionSpec")
    if action is not None:
        action["required"] = [k for k in action.get("required", []) if k not in DEFAULTABLE_KEYS]
        action["description"] = (
            f"One step (ActionSpec {format_version}). criticality, timeout_ms, preconditions and postconditions "
            "may come from the plan's `defaults`."
        )
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_IDS[(kind, format_version)]
    schema["title"] = TITLES[kind].format(version=format_version)
    return schema
