"""Fuzzing the way in: mutated plans only ever give a valid plan or a clean INVALID_ACTIONSPEC.

Valid plans are mutated (keys dropped, duplicated, retyped and renamed,
unicode injected, deep nesting, huge strings, aliases), then written in
different ways (flow or block style, BOM, CRLF, tabs, stray bytes, cut
short). Loading and validating each must return results, never raise;
every problem must be located (file, line, column), carry a documented rule
id and a readable message, and turn into an INVALID_ACTIONSPEC record that
serialises; every valid plan must serialise as the trace will write it.

"Never a hang" is the process's hard limit (the ``hard_limit`` fixture of
tests/reliability/conftest.py ends a stuck worker with every thread's stack),
not a Hypothesis deadline: a wall-clock deadline per example fails on a loaded
machine without any hang; "never unbounded memory" is measured with
tracemalloc on inputs built to blow up (aliases, nesting, size, documents).
Runs are reproducible: derandomized, and no example database is written.
"""

from __future__ import annotations

import copy
import json
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cometlocal.contract.load.safe_yaml import MAX_FILE_BYTES
from pytest_cometlocal.contract.model.problems import MAX_MESSAGE
from pytest_cometlocal.contract.model.records import EvidenceRef
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, ValidPlan, validate_path
from pytest_cometlocal.executor.step.failures import invalid_plan_error

DOCS = Path(__file__).resolve().parents[2] / "docs"
# Every rule id in a heading of docs/validation-rules.md (a heading may name several: DEVICE, TIMEZONE, ...).
DOCUMENTED_RULES = {rule for heading in re.findall(r"^### (.+)$", (DOCS / "validation-rules.md").read_text(), re.M)
                    for rule in re.findall(r"`([A-Z0-9_]+)`", heading)}
ENV = {"PW": "hunter2", "TOKEN": "t0k3n"}

pytestmark = pytest.mark.usefixtures("hard_limit")

FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])

BASES = [
    """\
name: login reaches the dashboard
tags: [smoke, login]
base_url: http://127.0.0.1:8000
allowlist: [127.0.0.1, "*.example.test"]
policy: {retries_per_action: 1, backoff_ms: [10, 20], retry_on: [NAVIGATION_TIMEOUT], allow_stop: true}
vars: {user: alice, n: 3, ratio: 1.5}
secrets:
  pw: {env: PW}
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
auth_signals: {url_pattern: "/login\\\\?expired", texts: [Session expired], status: [401, 403]}
overlay_selectors: ["#cookie-wall"]
toast_selector: "[role=status]"
recovery:
  on_error: [OVERLAY_BLOCKING]
  steps:
    - {id: accept, kind: click, target: {type: role, role: button, name: Accept, exact: true}}
steps:
  - id: open
    kind: navigate
    target: {type: url, url: "/login?u=${vars.user}"}
    postconditions: [{kind: title_contains, args: {text: Sign in}}, {kind: url_matches, args: {pattern: "/login"}}]
  - id: user
    kind: fill
    target: [{type: label, text: User name, exact: true}, {type: css, selector: "#user"}]
    value: "${vars.user}"
  - id: pw
    kind: fill
    target: {type: testid, id: password}
    value: "${secrets.pw}"
  - id: pick
    kind: select
    target: {type: frame, selector: "#f", inner: {type: role, role: combobox, name: Country}}
    value: ES
  - id: first
    kind: click
    metadata: {target_rationale: two identical buttons, n: 1}
    target: {type: nth, index: 0, base: {type: role, role: button, name: Save}}
  - id: submit
    kind: click
    criticality: critical
    target: {type: xpath, selector: "//button[@type='submit']"}
    postconditions: [{kind: url_matches, args: {pattern: "/dashboard$"}}]
  - id: wait
    kind: wait_for
    target: {type: text, text: Welcome, normalize_ws: true}
    postconditions: [{kind: element_visible}, {kind: network_idle, severity: warning}]
  - id: check
    kind: assert
    postconditions:
      - {kind: element_count_equals, args: {target: {type: css, selector: li}, count: 3}}
      - {kind: toast_contains, args: {text: Saved}, severity: critical}
  - {id: end, kind: stop}
""",
    """\
name: upload and download
uploads_root: files
expect: {error_code: DOWNLOAD_FAILED, step: get}
defaults:
  criticality: normal
  timeout_ms: 3000
  preconditions: [{kind: no_blocking_overlay}]
  postconditions: [{kind: host_in_allowlist}]
steps:
  - {id: open, kind: navigate, target: {type: url, url: "http://127.0.0.1:9/form"}}
  - id: attach
    kind: upload
    target: {type: label, text: Attachment, exact: true}
    file_ref: [a.txt, sub/b.pdf]
    postconditions: [{kind: upload_completed, args: {text: Uploaded}}]
  - id: get
    kind: click
    target: {type: role, role: link, name: Export CSV}
    postconditions: [{kind: download_started, args: {filename: "\\\\.csv$"}}, {kind: element_attr_equals, args: {target: {type: testid, id: x}, attr: href, value: /a}}]
""",
    """\
name: rows
parametrize: {page: [login, reports], lang: [en, es]}
defaults: {criticality: normal, timeout_ms: 1000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
steps:
  - {id: open, kind: navigate, target: {type: url, url: "http://127.0.0.1:8000/${vars.page}?l=${vars.lang}"}}
  - {id: v, kind: assert, postconditions: [{kind: element_value_equals, args: {target: {type: label, text: Name, normalize_ws: true}, value: "${vars.lang}"}}]}
""",
]
BASE_TREES = [yaml.safe_load(text) for text in BASES]
KNOWN_KEYS = sorted({k for tree in BASE_TREES for k in re.findall(r"[a-z_]+(?=:)", yaml.safe_dump(tree))})


# ---------------------------------------------------------------------------
# Strategies


def containers(node: Any, path: tuple = (), seen: set | None = None) -> list[tuple]:
    """Paths of every mapping and list in the tree (a shared one once)."""
    seen = set() if seen is None else seen
    if not isinstance(node, (dict, list)) or id(node) in seen:
        return []
    seen.add(id(node))
    found = [path]
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for k, v in items:
        found += containers(v, path + (k,), seen)
    return found


def at(tree: Any, path: tuple) -> Any:
    for part in path:
        tree = tree[part]
    return tree


text_values = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    text_values, st.sampled_from(["${vars.user}", "${secrets.pw}", "${secrets.nope}", "${", "${vars.${vars.user}}",
                                  "::", "[x]", "../../etc/passwd", "/abs/path", "~/x", "x\x00y", "0x" + "f" * 80,
                                  "yes", "NaN", ".inf", "TARGET_NOT_FOUND", "critical", "navigate", "url"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=8)


@st.composite
def mutated_tree(draw) -> Any:
    tree = copy.deepcopy(draw(st.sampled_from(BASE_TREES)))
    for _ in range(draw(st.integers(1, 4))):
        places = containers(tree)
        path = draw(st.sampled_from(places))
        node = at(tree, path)
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            continue
        key = draw(st.sampled_from(keys))
        op = draw(st.sampled_from(["drop", "duplicate", "retype", "rename", "unicode", "nest", "huge", "alias"]))
        if op == "drop":
            del node[key]
        elif op == "duplicate" and isinstance(node, list):
            node.insert(key, copy.deepcopy(node[key]))
        elif op == "retype" or (op == "duplicate"):
            node[key] = draw(values)
        elif op == "rename" and isinstance(node, dict):
            new = draw(st.one_of(st.sampled_from(KNOWN_KEYS + ["use", "with", "<<", "", " "]), st.text(max_size=12),
                                 st.just(str(key)[:-1] + "s")))
            node[new] = node.pop(key)
        elif op == "unicode":
            node[key] = draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=60))
        elif op == "nest":
            depth = draw(st.integers(1, 90))
            inner: Any = draw(scalars)
            for i in range(depth):
                inner = [inner] if i % 2 else {"k": inner}
            node[key] = inner
        elif op == "huge":
            node[key] = draw(st.sampled_from(["x", "é", "${vars.user}", "<b>", "a "])) * draw(st.integers(1_000, 150_000))
        elif op == "alias":
            # PyYAML writes a shared object once with an anchor, then as aliases.
            # Never an ancestor of the place itself: that would be a cycle, not an alias.
            targets = [p for p in places if p != path[: len(p)]]
            if targets:
                node[key] = at(tree, draw(st.sampled_from(targets)))
    return tree


def dump(tree: Any, flow: bool) -> str:
    try:
        return yaml.dump(tree, Dumper=yaml.SafeDumper, default_flow_style=flow, allow_unicode=True, width=1 << 20,
                         sort_keys=False)
    except (yaml.YAMLError, RecursionError):
        return yaml.dump({"name": "unrepresentable"}, Dumper=yaml.SafeDumper)  # self-referencing alias


@st.composite
def plan_bytes(draw) -> bytes:
    text = dump(draw(mutated_tree()), draw(st.booleans()))
    lines = text.splitlines(keepends=True) or [""]
    edit = draw(st.sampled_from(["none", "bom", "crlf", "tab", "dup_line", "bytes", "cut", "tag", "directive",
                                 "merge", "docs"]))
    if edit == "tab":
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = "\t" + lines[i]
    elif edit == "dup_line":
        i = draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i])
    elif edit == "tag":
        lines.insert(0, "--- !!python/object/apply:os.system ['echo owned']\n")
    elif edit == "directive":
        lines.insert(0, "%YAML 1.1\n---\n")
    elif edit == "merge":
        lines.insert(0, "<<: {name: merged}\n")
    elif edit == "docs":
        lines.append("---\n" + "".join(lines))
    text = "".join(lines)
    if edit == "crlf":
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    if edit == "bom":
        data = b"\xef\xbb\xbf" + data
    elif edit == "bytes":
        i = draw(st.integers(0, len(data)))
        data = data[:i] + draw(st.binary(min_size=1, max_size=6)) + data[i:]
    elif edit == "cut":
        data = data[: draw(st.integers(0, len(data)))]
    return data


# ---------------------------------------------------------------------------
# What every result must satisfy


REF = EvidenceRef(kind="validation_report", uri="evidence/validation_report.json", sha256="0" * 64, size_bytes=1)


def check(data: bytes, folder: Path) -> list:
    path = folder / "plans" / "p.actions.yaml"
    path.write_bytes(data)
    ctx = ValidationContext(root=folder, plan_path=path, env=ENV)
    results = validate_path(path, ctx, shown="plans/p.actions.yaml")  # must not raise
    assert results, "no result at all"
    lines = data.count(b"\n") + data.count(b"\r") + 2
    for result in results:
        assert isinstance(result, (ValidPlan, InvalidPlan)), type(result)
        assert "::" not in result.item_name and "\n" not in result.item_name
        if isinstance(result, InvalidPlan):
            assert result.problems
            for problem in result.problems:
                assert problem.file == "plans/p.actions.yaml" or problem.via, problem
                assert 1 <= problem.mark.line <= lines and problem.mark.col >= 1, problem
                assert problem.rule in DOCUMENTED_RULES, problem
                assert isinstance(problem.message, str) and 0 < len(problem.message) <= MAX_MESSAGE, problem.message[:300]
                assert "Traceback" not in problem.message
                json.dumps(problem.as_dict(), allow_nan=False)
                assert len(problem.format()) <= 2 * MAX_MESSAGE, problem.format()[:300]
            error = invalid_plan_error(result, "run", 2, [REF])
            assert error.error_code == "INVALID_ACTIONSPEC"
            json.loads(error.model_dump_json())
        else:
            for step in list(result.plan.steps) + (list(result.plan.recovery.steps) if result.plan.recovery else []):
                json.dumps(step.model_dump(mode="json", exclude_none=True), allow_nan=False)  # as the trace writes it
    return results


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "plans" / "files" / "sub").mkdir(parents=True)
    (root / "plans" / "files" / "a.txt").write_text("a")
    return root


@FUZZ
@given(data=plan_bytes())
def test_mutated_plans_give_a_valid_plan_or_clean_problems(folder: Path, data: bytes) -> None:
    check(data, folder)


def test_the_bases_are_valid(folder: Path) -> None:
    """The mutations start from valid plans, so what they find is the mutation's doing."""
    for text in BASES:
        results = check(text.encode(), folder)
        assert all(isinstance(r, ValidPlan) for r in results), [
            p.format() for r in results if isinstance(r, InvalidPlan) for p in r.problems]


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=400) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_arbitrary_bytes_give_clean_problems(folder: Path, data: bytes) -> None:
    check(data, folder)


# ---------------------------------------------------------------------------
# Inputs built to blow up: bounded time (the hard limit) and bounded memory


def _laughs(width: int) -> str:
    text = "a: &a [" + ",".join(["lol"] * width) + "]\n"
    prev = "a"
    for name in "bcdefghijk":
        text += f"{name}: &{name} [" + ",".join([f"*{prev}"] * width) + "]\n"
        prev = name
    return text


BOMBS = {
    "alias-laughs": lambda n: _laughs(2 + n % 9),
    "alias-steps": lambda n: BASES[0].replace("steps:\n", "steps: &s\n", 1) + "x: [" + ",".join(["*s"] * (n * 50)) + "]\n",
    "deep-flow": lambda n: "name: [" + "[" * (n * 40) + "]" * (n * 40) + "]\n",
    "deep-block": lambda n: "".join("  " * i + f"k{i}:\n" for i in range(n * 10)) + "  " * (n * 10) + "v\n",
    "huge-string": lambda n: "name: " + "x" * (MAX_FILE_BYTES // (n + 1) - 20) + "\n",
    "over-the-limit": lambda n: "#" * (MAX_FILE_BYTES + n),
    "many-steps": lambda n: "name: x\nsteps:\n" + "  - {id: s, kind: navigate, target: {type: url, url: /a}}\n" * (n * 400),
    "many-documents": lambda n: "---\nname: p\nsteps: []\n" * (n * 500),
    "long-int": lambda n: "name: x\nvars: {a: 0x" + "f" * (n * 1000) + "}\nsteps: [{id: a, kind: navigate, target: {type: url, url: '/${vars.a}'}}]\n",
}
BOMB_PEAK_BYTES = 256 * 1024 * 1024


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kind=st.sampled_from(sorted(BOMBS)), n=st.integers(1, 12))
def test_inputs_built_to_blow_up_stay_bounded(folder: Path, kind: str, n: int) -> None:
    data = BOMBS[kind](n).encode()
    tracemalloc.start()
    try:
        results = check(data, folder)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < BOMB_PEAK_BYTES, f"{kind}: {peak / 1e6:.0f} MB for {len(data) / 1e6:.1f} MB of input"
    assert len(results) <= 1000
