"""JSON Schema of the plan file format, generated from the same models.

The validated ``ActionSpec`` requires keys that a plan may supply through
``defaults`` (criticality, timeout_ms, pre/postconditions), so the file
schema relaxes exactly those; everything else (types, enums, unknown keys) is
the model's own schema. Editors use it with
``# yaml-language-server: $schema=<path to the printed schema>``.

The schema describes v1.2 by default; ``format_version="v1.1"`` leaves out
v1.2's kinds, keys, conditions and role filters, and ``"v1"`` v1.1's as well,
for tools that must refuse the newer additions.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel

from pytest_cometlocal.contract.model.actionspec import (
    DEFAULTABLE_KEYS, EXTENSION_KEYS, EXTENSION_KINDS, REQUEST_KEYS, V1_KINDS, V12_STEP_KEYS,
)
from pytest_cometlocal.contract.model.conditions import V12_CONDITION_DEFS
from pytest_cometlocal.contract.model.plan import V12_PLAN_KEYS, Plan, StepGroup, SuiteConfig, UseStep
from pytest_cometlocal.contract.model.targets import ROLE_FILTERS

FormatVersion = Literal["v1", "v1.1", "v1.2"]
SCHEMA_ID = "https://pytest-cometlocal.invalid/schemas/plan-format-v1.json"
SCHEMA_IDS = {
    ("plan", "v1"): SCHEMA_ID,
    ("plan", "v1.1"): "https://pytest-cometlocal.invalid/schemas/plan-format-v1.1.json",
    ("group", "v1"): "https://pytest-cometlocal.invalid/schemas/step-group-v1.json",
    ("group", "v1.1"): "https://pytest-cometlocal.invalid/schemas/step-group-v1.1.json",
    ("suite", "v1"): "https://pytest-cometlocal.invalid/schemas/suite-config-v1.json",
    ("suite", "v1.1"): "https://pytest-cometlocal.invalid/schemas/suite-config-v1.json",
    ("plan", "v1.2"): "https://pytest-cometlocal.invalid/schemas/plan-format-v1.2.json",
    ("group", "v1.2"): "https://pytest-cometlocal.invalid/schemas/step-group-v1.2.json",
    ("suite", "v1.2"): "https://pytest-cometlocal.invalid/schemas/suite-config-v1.json",
}
TITLES = {
    "plan": "pytest-cometlocal plan (plan-format {version})",
    "group": "pytest-cometlocal step group (*.steps.yaml, plan-format {version})",
    "suite": "pytest-cometlocal suite config (cometlocal.yaml)",
}
# The $defs only v1.1 has: its condition kinds and their args.
_EXTENSION_DEFS = frozenset({"ElementChecked", "ElementFocused", "AriaSnapshotMatches", "CheckedArgs", "AriaSnapshotArgs"})
# (v1.2) The $defs only the browser settings and the clock have.
_V12_SETTINGS_DEFS = frozenset({"BrowserSettings", "ClockSettings", "Viewport", "Geolocation"})
# (v1.2) The $defs of the pages' step keys (switch_page's page).
_V12_KEY_DEFS = frozenset({"PageSpec"})
# (v1.2) The $defs of ``routes:``.
_V12_ROUTE_DEFS = frozenset({"Route", "RouteResponse", "UrlPattern"})
_V12_DEFS = V12_CONDITION_DEFS | _V12_SETTINGS_DEFS | _V12_KEY_DEFS | _V12_ROUTE_DEFS
# What each older format leaves out of the newest schema:
# (kinds kept, step keys, $defs, role target keys, plan keys).
_LEFT_OUT: dict[str, tuple[frozenset[str], tuple[str, ...], frozenset[str], tuple[str, ...], tuple[str, ...]]] = {
    "v1.1": (V1_KINDS | EXTENSION_KINDS, (*V12_STEP_KEYS, *REQUEST_KEYS), _V12_DEFS, ROLE_FILTERS, tuple(V12_PLAN_KEYS)),
    "v1": (V1_KINDS, (*EXTENSION_KEYS, *V12_STEP_KEYS, *REQUEST_KEYS), _V12_DEFS | _EXTENSION_DEFS, ROLE_FILTERS,
           tuple(V12_PLAN_KEYS)),
}


def plan_json_schema(format_version: FormatVersion = "v1.2") -> dict[str, Any]:
    schema = _schema(Plan, "plan", format_version)
    # What users write may hold `use` steps where the validated plan has ActionSpecs.
    schema["$defs"]["UseStep"] = copy.deepcopy(UseStep.model_json_schema(mode="validation"))
    step_or_use = {"anyOf": [{"$ref": "#/$defs/ActionSpec"}, {"$ref": "#/$defs/UseStep"}]}
    schema["properties"]["steps"]["items"] = step_or_use
    schema["$defs"]["Recovery"]["properties"]["steps"]["items"] = copy.deepcopy(step_or_use)
    return schema


def group_json_schema(format_version: FormatVersion = "v1.2") -> dict[str, Any]:
    return _schema(StepGroup, "group", format_version)


def suite_json_schema(format_version: FormatVersion = "v1.2") -> dict[str, Any]:
    return _schema(SuiteConfig, "suite", format_version)


def _schema(model: type[BaseModel], kind: str, format_version: FormatVersion) -> dict[str, Any]:
    schema = copy.deepcopy(model.model_json_schema(mode="validation"))
    action = schema.get("$defs", {}).get("ActionSpec")
    if action is not None:
        action["required"] = [k for k in action.get("required", []) if k not in DEFAULTABLE_KEYS]
        action["description"] = (
            f"One step (ActionSpec {format_version}). criticality, timeout_ms, preconditions and postconditions "
            "may come from the plan's `defaults`."
        )
    if format_version in _LEFT_OUT:
        schema = _without(schema, *_LEFT_OUT[format_version])
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_IDS[(kind, format_version)]
    schema["title"] = TITLES[kind].format(version=format_version)
    return schema


def _without(schema: dict[str, Any], kinds: frozenset[str], keys: tuple[str, ...], def_names: frozenset[str],
             role_keys: tuple[str, ...], plan_keys: tuple[str, ...]) -> dict[str, Any]:
    """An older format's schema: the kinds it lacks, its missing step keys, condition kinds and
    settings ($defs), role target keys and plan keys (v1.2's browser, clock) taken out."""
    for key in plan_keys:
        schema.get("properties", {}).pop(key, None)
    defs = schema.get("$defs", {})
    action = defs.get("ActionSpec")
    if action is not None:
        kind = action["properties"]["kind"]
        kind["enum"] = [k for k in kind["enum"] if k in kinds]
        for key in keys:
            action["properties"].pop(key, None)
    role = defs.get("RoleTarget")
    if role is not None:
        for key in role_keys:
            role["properties"].pop(key, None)
    for name in def_names:
        defs.pop(name, None)
    refs = {f"#/$defs/{name}" for name in def_names}

    def prune(node: Any) -> None:
        if isinstance(node, dict):
            for union in ("oneOf", "anyOf"):
                if union in node:
                    node[union] = [n for n in node[union] if not (isinstance(n, dict) and n.get("$ref") in refs)]
            mapping = node.get("discriminator", {}).get("mapping") if isinstance(node.get("discriminator"), dict) else None
            if mapping:
                for k in [k for k, v in mapping.items() if v in refs]:
                    del mapping[k]
            for value in node.values():
                prune(value)
        elif isinstance(node, list):
            for value in node:
                prune(value)

    prune(schema)
    return schema
