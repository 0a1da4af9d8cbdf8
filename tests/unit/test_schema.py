"""``plan_json_schema()`` and ``cometlocal schema``: the JSON Schema of plan files."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Iterator

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.model.checks.extension import EXTENSION_KIND_PATTERN
from pytest_cometlocal.contract.model.actionspec import (
    ACTION_KINDS, DEFAULTABLE_KEYS, V12_CONDITION_KINDS, V12_KINDS, V12_STEP_KEYS, V13_CONDITION_KINDS, V13_KINDS,
    V13_STEP_KEYS, REQUEST_KEYS, ActionSpec)
from pytest_cometlocal.contract.model.conditions import CONDITION_KINDS
from pytest_cometlocal.contract.model.plan import PLAN_KEYS, V12_PLAN_KEYS
from pytest_cometlocal.contract.model.schema import plan_json_schema
from pytest_cometlocal.contract.model.targets import TARGET_TYPES


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return plan_json_schema()


def walk(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def discriminator_values(schema: dict[str, Any], prop: str) -> set[str]:
    """Every ``const`` of property ``prop`` among the $defs (the tagged union members)."""
    found = set()
    for definition in schema["$defs"].values():
        spec = definition.get("properties", {}).get(prop)
        if isinstance(spec, dict) and "const" in spec:
            found.add(spec["const"])
    return found


def test_schema_is_json_serialisable(schema):
    text = json.dumps(schema, allow_nan=False)
    assert json.loads(text) == schema


@pytest.mark.parametrize("version", ["v1", "v1.1", "v1.2", "v1.3", "v1.4"])
def test_schema_header(version):
    schema = plan_json_schema(version)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # The ids editors and the committed docs/plan-format-<version>.schema.json name: not to change.
    assert schema["$id"] == f"https://pytest-cometlocal.invalid/schemas/plan-format-{version}.json"
    assert schema["type"] == "object"
    assert schema["title"].endswith(f"(plan-format {version})")


def test_every_ref_resolves(schema):
    refs = {n["$ref"] for n in walk(schema) if isinstance(n, dict) and "$ref" in n}
    assert refs
    for ref in refs:
        assert ref.startswith("#/$defs/"), ref
        assert ref[len("#/$defs/"):] in schema["$defs"], ref


def test_plan_is_closed(schema):
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == set(PLAN_KEYS)  # v1.4, the default: every key
    assert set(plan_json_schema("v1.3")["properties"]) == set(PLAN_KEYS)  # (v1.4) adds a key inside `browser`
    assert set(plan_json_schema("v1.1")["properties"]) == set(PLAN_KEYS) - V12_PLAN_KEYS  # no v1.2 keys
    assert sorted(schema["required"]) == ["name", "steps"]


def test_action_spec_is_closed(schema):
    action = schema["$defs"]["ActionSpec"]
    assert action["additionalProperties"] is False
    keys = {field.alias or name for name, field in ActionSpec.model_fields.items()}  # json_body is written json
    assert set(action["properties"]) == keys
    v12 = plan_json_schema("v1.2")["$defs"]["ActionSpec"]
    assert set(v12["properties"]) == keys - V13_STEP_KEYS - {"args"}  # (extensions) args: newest schema only
    older = plan_json_schema("v1.1")["$defs"]["ActionSpec"]
    assert set(older["properties"]) == keys - V13_STEP_KEYS - V12_STEP_KEYS - set(REQUEST_KEYS) - {"args"}
    assert "PageSpec" not in plan_json_schema("v1.1")["$defs"]


def test_action_spec_requires_only_id_and_kind(schema):
    action = schema["$defs"]["ActionSpec"]
    assert sorted(action["required"]) == ["id", "kind"]
    for key in DEFAULTABLE_KEYS:
        assert key in action["properties"]
    assert "defaults" in action["description"]


def test_schema_does_not_change_the_model(schema):
    # The relaxation is on a copy: the validated ActionSpec still requires the defaultable keys.
    required = ActionSpec.model_json_schema()["required"]
    for key in DEFAULTABLE_KEYS:
        assert key in required
    assert plan_json_schema() == schema


def test_every_model_in_the_schema_is_closed(schema):
    """All but an extension kind's args, which its registered model closes (cometlocal schema with the
    extensions loaded: tests/integration/test_extensions_cli.py)."""
    for name, definition in schema["$defs"].items():
        if definition.get("type") == "object":
            assert definition.get("additionalProperties") is (name == "ExtensionArgs"), name


V1_KINDS = ["navigate", "click", "fill", "select", "upload", "wait_for", "assert", "stop"]


def test_all_action_kinds(schema):
    built_in, extension = schema["$defs"]["ActionSpec"]["properties"]["kind"]["anyOf"]
    assert built_in["enum"] == list(ACTION_KINDS)
    assert extension["pattern"] == EXTENSION_KIND_PATTERN  # (extensions) a name an extension registers
    v12 = plan_json_schema("v1.2")["$defs"]["ActionSpec"]["properties"]["kind"]["enum"]
    assert v12 == [k for k in ACTION_KINDS if k not in V13_KINDS]
    older = plan_json_schema("v1.1")["$defs"]["ActionSpec"]["properties"]["kind"]["enum"]
    assert older == [k for k in ACTION_KINDS if k not in V12_KINDS | V13_KINDS]
    assert older == V1_KINDS + ["press", "hover", "check", "uncheck", "drag", "scroll"]
    assert plan_json_schema("v1")["$defs"]["ActionSpec"]["properties"]["kind"]["enum"] == V1_KINDS


def test_all_target_types(schema):
    expected = {"testid", "role", "label", "css", "xpath", "text", "frame", "nth", "url"}
    assert set(TARGET_TYPES) == expected
    assert discriminator_values(schema, "type") == expected
    mappings = [
        n["discriminator"]["mapping"]
        for n in walk(schema)
        if isinstance(n, dict) and isinstance(n.get("discriminator"), dict) and n["discriminator"].get("propertyName") == "type"
    ]
    assert mappings
    for mapping in mappings:
        assert set(mapping) == expected


@pytest.mark.parametrize("version", ["v1", "v1.1", "v1.2", "v1.3", "v1.4"])
def test_all_condition_kinds(version):
    schema = plan_json_schema(version)
    expected = set(CONDITION_KINDS)
    if version not in ("v1.3", "v1.4"):
        expected -= V13_CONDITION_KINDS
        assert len(expected) == 34  # with the audits: accessibility_clean, screenshot_matches
    if version in ("v1", "v1.1"):
        expected -= V12_CONDITION_KINDS
    if version == "v1":
        expected -= {"element_checked", "element_focused", "aria_snapshot_matches"}
    assert discriminator_values(schema, "kind") == expected
    if version in ("v1.3", "v1.4"):  # (extensions) one more member, told by a pattern no built-in kind matches
        assert schema["$defs"]["ExtensionCondition"]["properties"]["kind"]["pattern"] == EXTENSION_KIND_PATTERN
        assert not any(re.match(EXTENSION_KIND_PATTERN, k) for k in CONDITION_KINDS)
        return
    mappings = [
        n["discriminator"]["mapping"]
        for n in walk(schema)
        if isinstance(n, dict) and isinstance(n.get("discriminator"), dict) and n["discriminator"].get("propertyName") == "kind"
    ]
    assert mappings
    for mapping in mappings:
        assert set(mapping) == expected


@pytest.mark.parametrize("version", ["v1", "v1.1"])
def test_older_schemas_leave_out_the_role_filters(version):
    """(v1.2) level, checked, ... are v1.2's: an older schema's role target refuses them."""
    role = plan_json_schema(version)["$defs"]["RoleTarget"]
    assert set(role["properties"]) == {"type", "role", "name", "exact"}
    assert role["additionalProperties"] is False
    newest = plan_json_schema()["$defs"]["RoleTarget"]["properties"]
    assert newest["level"]["anyOf"][0] == {"maximum": 6, "minimum": 1, "type": "integer"}
    assert {"checked", "expanded", "selected", "pressed", "disabled", "include_hidden"} <= set(newest)


def test_severity_enum_and_default(schema):
    severity = schema["$defs"]["UrlIs"]["properties"]["severity"]
    assert severity["enum"] == ["warning", "error", "critical"]
    assert severity["default"] == "error"


def test_step_defaults_are_all_optional(schema):
    defaults = schema["$defs"]["StepDefaults"]
    assert set(defaults["properties"]) == set(DEFAULTABLE_KEYS)
    assert not defaults.get("required")


def test_cli_schema_prints_the_same_json(capsys):
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == plan_json_schema()
    assert out == json.dumps(plan_json_schema(), indent=2) + "\n"


def test_cli_schema_to_file(tmp_path, capsys):
    target = tmp_path / "plan.schema.json"
    assert main(["schema", "--output", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text(encoding="utf-8")) == plan_json_schema()


def test_the_docs_point_editors_at_the_schema_cometlocal_schema_writes_by_default():
    """getting-started's plans and the README name the newest schema, the one ``cometlocal schema`` writes,
    and it is committed in docs/ as it is generated (issue 35: the docs named v1 while the command wrote v1.1)."""
    from pathlib import Path
    import re
    import inspect

    root = Path(__file__).resolve().parents[2]
    newest = inspect.signature(plan_json_schema).parameters["format_version"].default
    named = set(re.findall(r"\$schema=\.\./plan-format-(v[0-9.]+)\.schema\.json",
                           (root / "docs" / "getting-started.md").read_text()))
    assert named == {newest}
    committed = json.loads((root / "docs" / f"plan-format-{newest}.schema.json").read_text())
    assert committed == json.loads(json.dumps(plan_json_schema()))


# sha256 of each published schema as released (docs/ at the last commit of plan format v1.2, 23038b8; v1.3's
# as `cometlocal schema` printed them when v1.4 came, with issue 48's extension kinds, 6245eb0).
RELEASED = {
    "plan-format-v1.schema.json": "4348d9b7f46c589fd1f09c2b6c794e0d68c31853880c11e5475f4a677913c9a5",
    "plan-format-v1.1.schema.json": "e0f3100137f07077564d20354d7ee7b514b05163068ee9be7753e6d1b64fc07f",
    "plan-format-v1.2.schema.json": "d95cfb759fd348c049c4de8342510c00f95d7092333bd595639e94230b3217df",
    "step-group-v1.schema.json": "a49db6611199e90ed036c7bb8d25d92dc8941fb10fa0287f1f13c7a1062eea34",
    "step-group-v1.1.schema.json": "57e73c72767c544cec1d00902aaedfd9795b27ce4e93daae3c35962009ba24b5",
    "step-group-v1.2.schema.json": "f2b8bc334f48509d8e64a0262c9c0125c684b38a37ea371fcccb7ac5c6ccaad4",
    "suite-config-v1.schema.json": "b350c887770a80349718ba7c8859c3c214c46105494dbe36473ac118357a11aa",
    "plan-format-v1.3.schema.json": "dc78de22c7ead2968ef12befe430fec343d1cc24403cc5f8715a4c1725e3f421",
    "step-group-v1.3.schema.json": "f39d0abcfa23e2beb35b11a17841e64f8da60b4f5fb4739852c773e631664f4a",
    "suite-config-v1.3.schema.json": "05029dbe77ce106601ac50fc5609ae819dfedf45322abf3e6e0f4c5e2c49c2be",
}


@pytest.mark.parametrize("kind, docs_name", [("plan", "plan-format-{v}"), ("group", "step-group-{v}")])
@pytest.mark.parametrize("version", ["v1", "v1.1", "v1.2", "v1.3"])
def test_published_schemas_never_change(kind, docs_name, version, capsys):
    """(v1.3) An older format's schema is printed byte for byte as it was released: the copy in docs/ and
    the package's copy are one file, and ``cometlocal schema --format-version`` prints exactly it."""
    from pathlib import Path

    from pytest_cometlocal.contract.model.schema import published_text

    docs = Path(__file__).resolve().parents[2] / "docs" / (docs_name.format(v=version) + ".schema.json")
    assert published_text(kind, version) == docs.read_text(encoding="utf-8")
    # The bytes as they were released (plan format v1.2's last commit; v1.3's when v1.4 came): neither copy may be
    # rewritten.
    assert hashlib.sha256(docs.read_bytes()).hexdigest() == RELEASED[docs.name]
    assert main(["schema", "--kind", kind, "--format-version", version]) == 0
    assert capsys.readouterr().out == docs.read_text(encoding="utf-8")


@pytest.mark.parametrize("docs_name, versions", [("suite-config-v1", ["v1.2"]), ("suite-config-v1.3", ["v1.3"])])
def test_the_published_suite_schema_never_changes(docs_name, versions, capsys):
    """docs/suite-config-v1.schema.json is what v1.2 prints; v1.3's is frozen as it was when v1.4 came."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / f"{docs_name}.schema.json").read_text(encoding="utf-8")
    assert hashlib.sha256(docs.encode("utf-8")).hexdigest() == RELEASED[f"{docs_name}.schema.json"]
    for version in versions:
        assert main(["schema", "--kind", "suite", "--format-version", version]) == 0
        assert capsys.readouterr().out == docs


def test_v14_is_the_newest_and_adds_the_browser_choice():
    """(v1.4) browser.name (a name or a list of names) and the suite config's browsers (a list), both closed
    to the three names; the frozen v1.3 schemas have neither."""
    from pytest_cometlocal.contract.model.plan import BROWSER_NAMES
    from pytest_cometlocal.contract.model.schema import NEWEST, PUBLISHED_VERSIONS, SCHEMA_VERSIONS, suite_json_schema

    assert NEWEST == "v1.4" and PUBLISHED_VERSIONS[-1] == "v1.3" and SCHEMA_VERSIONS == PUBLISHED_VERSIONS + ("v1.4",)
    names = {"enum": list(BROWSER_NAMES), "type": "string"}
    listed = {"items": names, "minItems": 1, "type": "array", "uniqueItems": True}
    name = plan_json_schema()["$defs"]["BrowserSettings"]["properties"]["name"]
    assert name["anyOf"] == [names, listed, {"type": "null"}]
    assert suite_json_schema()["properties"]["browsers"]["anyOf"] == [listed, {"type": "null"}]
    assert suite_json_schema()["$id"].endswith("suite-config-v1.4.json")
    assert "name" not in plan_json_schema("v1.3")["$defs"]["BrowserSettings"]["properties"]
    assert "browsers" not in suite_json_schema("v1.3")["properties"]
    assert "name" in suite_json_schema()["$defs"]["BrowserSettings"]["properties"]  # a suite-wide pin, merged


def test_a_browser_name_is_what_the_schema_accepts():
    """The schema and the model agree on browser.name (jsonschema, when installed, judges the schema's side)."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = plan_json_schema()
    step = {"id": "a", "kind": "navigate", "target": {"type": "url", "url": "/"}}
    for name, ok in [("firefox", True), (["chromium", "webkit"], True), ([], False), (["firefox", "firefox"], False),
                     ("edge", False), (3, False)]:
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(
            {"name": "p", "browser": {"name": name}, "steps": [step]}))
        assert (not errors) is ok, (name, errors)


@pytest.mark.parametrize("kind, docs_name", [("plan", "plan-format"), ("group", "step-group"), ("suite", "suite-config")])
def test_the_newest_schemas_are_committed_as_generated(kind, docs_name, capsys):
    from pathlib import Path

    from pytest_cometlocal.contract.model.schema import NEWEST

    docs = Path(__file__).resolve().parents[2] / "docs" / f"{docs_name}-{NEWEST}.schema.json"
    assert main(["schema", "--kind", kind]) == 0
    assert capsys.readouterr().out == docs.read_text(encoding="utf-8"), (
        f"run: cometlocal schema --kind {kind} -o docs/{docs_name}-{NEWEST}.schema.json")
