"""(v1.2) The worked example of docs/http-steps.md, as plan files in example_plans/v12/: they validate as they
are, use every part-B step key and condition, and the docs print them whole.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text

EXAMPLES = Path(__file__).resolve().parents[2] / "example_plans" / "v12"
NAMES = ("http_documents", "http_stubs")
SAVED = re.compile(r"\$\{saved\.([A-Za-z_][A-Za-z0-9_]*)\}")
METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}
RESPONSE_CONDITIONS = {"response_status", "response_json", "response_header"}


def example_path(name: str) -> Path:
    return EXAMPLES / f"{name}.actions.yaml"


def strings(value: Any):
    if isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


@pytest.mark.parametrize("name", NAMES)
def test_the_example_is_where_the_docs_link_it(name):
    assert example_path(name).is_file()
    docs = (EXAMPLES.parents[1] / "docs" / "http-steps.md").read_text(encoding="utf-8")
    assert f"{name}.actions.yaml" in docs


def test_the_documents_example_uses_every_part_b_step_key_and_saves_before_use():
    plan = yaml.safe_load(example_path("http_documents").read_text(encoding="utf-8"))
    saved: set[str] = set()
    methods, conditions = [], set()
    for step in plan["steps"]:
        used = {m for s in strings({k: v for k, v in step.items() if k != "save"}) for m in SAVED.findall(s)}
        assert used <= saved, (step["id"], used - saved)  # rule SAVED: nothing earlier saves it
        if step["kind"] == "request":
            methods.append(step["method"])
            assert step["method"] in METHODS and sum(k in step for k in ("json", "form", "body")) <= 1
            assert all(p in ("status",) or p.startswith(("/", "header:")) for p in step.get("save", {}).values())
            conditions |= {c["kind"] for c in step["postconditions"]}
            assert all(set(c) <= {"kind", "args", "severity"} for c in step["postconditions"])
        saved |= set(step.get("save", {})) | ({step["save_text"]} if "save_text" in step else set())
    assert methods == ["POST", "GET", "DELETE", "GET"]  # create, check the edit, delete, gone
    assert conditions == RESPONSE_CONDITIONS
    assert saved == {"doc_id", "doc_url", "shown_number"}


def test_the_stubs_example_answers_the_slow_and_the_outside_service():
    plan = yaml.safe_load(example_path("http_stubs").read_text(encoding="utf-8"))
    routes = plan["routes"]
    assert [set(r) <= {"url", "method", "respond", "abort"} for r in routes] == [True, True]
    assert routes[0]["url"] == "**/api/slow/recommendations*"
    assert re.match(routes[1]["url"]["pattern"], "https://feed.outside.example/items.json")
    assert "allowlist" not in plan  # the outside host is not allowed: the route answers it


@pytest.mark.parametrize("name", NAMES)
def test_the_examples_validate_as_they_are(name, tmp_path):
    path = example_path(name)
    plan_path = tmp_path / f"{name}.actions.yaml"
    results = validate_text(path.read_text(encoding="utf-8"),
                            ValidationContext(root=tmp_path, plan_path=plan_path, env={}), file=plan_path.name)
    assert [p.format() for r in results if isinstance(r, InvalidPlan) for p in r.problems] == []


@pytest.mark.parametrize("name", NAMES)
def test_the_docs_show_the_plan_as_it_is(name):
    """docs/http-steps.md prints each plan whole: the same YAML as the file (its comments aside)."""
    docs = (EXAMPLES.parents[1] / "docs" / "http-steps.md").read_text(encoding="utf-8")
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", docs, re.S)]
    plan = yaml.safe_load(example_path(name).read_text(encoding="utf-8"))
    assert plan in blocks
