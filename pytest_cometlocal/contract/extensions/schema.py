"""The plan schema with the registered extension kinds in it, for editors (``cometlocal schema``).

The default schema accepts any extension kind's name (``x_<name>``, ``<team>.<name>``) and any
``args``: a plan may be validated where other extensions are loaded. With a registry, each
registered kind's args model goes into ``$defs`` (as ``ext.<Model>``), and ``ActionSpec`` (actions)
and ``ExtensionCondition`` (conditions) get an ``allOf`` of ``if kind is NAME then args is its
model``; the kind's names are offered as an ``enum`` beside the pattern, which still accepts the
others. An empty registry leaves the schema as it is, byte for byte.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic.json_schema import models_json_schema

from pytest_cometlocal.contract.extensions.registry import ActionKindDef, ConditionKindDef, KindRegistry, NoArgs

DEF_PREFIX = "ext."  # a registered model's $defs name: never one of the plan models' own names


def with_kinds(schema: dict[str, Any], registry: KindRegistry) -> dict[str, Any]:
    """``schema`` (a plan, step group or suite config schema) with ``registry``'s kinds; a copy."""
    kinds: list[ActionKindDef | ConditionKindDef] = [*registry.actions.values(), *registry.conditions.values()]
    defs = schema.get("$defs", {})
    if not kinds or not ({"ActionSpec", "ExtensionCondition"} & set(defs)):
        return schema
    schema = copy.deepcopy(schema)
    defs = schema["$defs"]
    models = list(dict.fromkeys(k.args for k in kinds))  # NoArgs may serve several kinds
    refs, found = models_json_schema([(m, "validation") for m in models],
                                     ref_template="#/$defs/" + DEF_PREFIX + "{model}")
    for name, model_schema in found.get("$defs", {}).items():
        defs[DEF_PREFIX + name] = model_schema
    ref = {k.name: refs[(k.args, "validation")] for k in kinds}
    if "ActionSpec" in defs and registry.actions:
        _add_kinds(defs["ActionSpec"], sorted(registry.actions.values(), key=lambda k: k.name), ref, "action")
    if "ExtensionCondition" in defs and registry.conditions:
        _add_kinds(defs["ExtensionCondition"], sorted(registry.conditions.values(), key=lambda k: k.name), ref,
                   "condition")
    schema["$comment"] = f"with the extension kinds registered here: {registry.known()}"
    return schema


def _add_kinds(target: dict[str, Any], kinds: list[Any], ref: dict[str, dict[str, Any]], what: str) -> None:
    names = [k.name for k in kinds]
    hint = {"type": "string", "enum": names, "description": f"an extension {what} kind registered here"}
    kind = target["properties"]["kind"]
    if "anyOf" in kind:
        kind["anyOf"].append(hint)
    else:
        target["properties"]["kind"] = {"anyOf": [hint, kind]}
    rules = target.setdefault("allOf", [])
    for k in kinds:
        then: dict[str, Any] = {"properties": {"args": {**ref[k.name], "description": _describe(k)}}}
        if getattr(k, "target", None) == "required":
            then["required"] = ["target"]
        elif getattr(k, "target", None) == "none":
            then["not"] = {"required": ["target"]}
        rules.append({"if": {"properties": {"kind": {"const": k.name}}, "required": ["kind"]}, "then": then})


def _describe(kind: ActionKindDef | ConditionKindDef) -> str:
    if kind.args is NoArgs:
        return f"{kind.name} ({kind.origin.describe()}) takes no args"
    doc = (kind.args.__doc__ or "").strip().split("\n\n")[0]
    return f"the args of {kind.name} ({kind.origin.describe()})" + (f": {doc}" if doc else "")


__all__ = ["DEF_PREFIX", "with_kinds"]
