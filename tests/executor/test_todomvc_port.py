"""Playwright's TodoMVC example suite, ported plan by plan (tests/executor/todomvc_port), in a real Chromium.

Why: issue 36's "done when" is that a QA engineer can port this suite without dropping an
assertion it makes. Each of its 24 tests is one plan here, written from the docs alone; each
must validate and pass against the demo portal's TodoMVC (``/todomvc/``, the React
implementation's DOM and ``localStorage['react-todos']``). docs/porting-a-suite.md has the
table and the mapping.

Other implementations: with ``COMETLOCAL_TODOMVC_EXAMPLES`` set to a folder of TodoMVC
implementations (the ``examples/`` folder of the npm package ``todomvc``), the same plans run
against each one listed in ``IMPLEMENTATIONS`` that exists there, served on 127.0.0.1, with the
plans' one ``vars:`` line changed to its URL and storage key. Without it those are skipped.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
from pathlib import Path
from typing import Iterator

import pytest

from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_path
from tests.support import Run, read_trace, serve

pytestmark = pytest.mark.browser

PORT = Path(__file__).resolve().parent / "todomvc_port"
PLANS = sorted(p.name for p in PORT.glob("*.actions.yaml"))
VARS_LINE = 'vars: {app: /todomvc/, key: react-todos, list: ""}'

# name -> (folder under COMETLOCAL_TODOMVC_EXAMPLES, its localStorage key, the JSON Pointer of its list)
IMPLEMENTATIONS = {
    "react": ("react", "react-todos", ""),
    "vue": ("vue", "todos-vuejs", ""),
    "vanillajs": ("vanillajs", "todos-vanillajs", "/todos"),
    "angularjs": ("angularjs", "todos-angularjs", ""),
}


def run_port(chromium, root: Path, name: str, base_url: str) -> Run:
    """Validate one ported plan (groups resolve under ``root``) and run it in a fresh context."""
    from pytest_cometlocal.executor.session import run_plan

    path = root / name
    (plan,) = validate_path(path, ValidationContext(root=root, plan_path=path, env={}), shown=name)
    if isinstance(plan, InvalidPlan):
        raise AssertionError("not expressed: " + "\n".join(p.format() for p in plan.problems))
    eff = effective_settings(plan, default_base_url=base_url, env={})
    result = run_plan(chromium.browser(), plan, root / "runs", eff)
    return Run(result, result.run_dir, read_trace(result.run_dir / "trace.jsonl"), {}, {})


def test_the_port_has_one_plan_per_test_of_the_suite():
    assert len(PLANS) == 24
    for name in PLANS:
        text = (PORT / name).read_text(encoding="utf-8")
        assert text.startswith("# Port of Playwright's demo-todo-app.spec.ts: ") and VARS_LINE in text, name


@pytest.mark.parametrize("name", PLANS)
def test_each_ported_plan_passes_on_the_demo_todomvc(name, chromium, portal, tmp_path):
    root = tmp_path / "port"
    shutil.copytree(PORT, root)
    r = run_port(chromium, root, name, portal.url)
    assert r.error is None, r.error
    assert r.result.status == "passed" and len(r.result.steps) >= 4 and all(s.ok for s in r.result.steps)


def test_a_dropped_assertion_would_fail(chromium, portal, tmp_path):
    """The port can fail: the same plan with a wrong stored count fails on that check (storage_item)."""
    root = tmp_path / "port"
    shutil.copytree(PORT, root)
    plan = root / "new_todo_add.actions.yaml"
    plan.write_text(plan.read_text(encoding="utf-8").replace("length: 2", "length: 3"), encoding="utf-8")
    r = run_port(chromium, root, plan.name, portal.url)
    assert r.code == "POSTCONDITION_FAILED" and r.error.action_id == "stored_two"
    (cond,) = r.error.failed_conditions
    assert cond.kind == "storage_item" and cond.observed["length"] == 2


def served_folder(folder: Path) -> Iterator[str]:
    """Serve ``folder``'s files on 127.0.0.1; yields the base URL."""
    yield from serve(functools.partial(_QuietHandler, directory=str(folder)))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return


@pytest.fixture(scope="module", params=sorted(IMPLEMENTATIONS))
def implementation(request) -> Iterator[tuple[str, str, Path]]:
    examples = os.environ.get("COMETLOCAL_TODOMVC_EXAMPLES")
    folder, key, pointer = IMPLEMENTATIONS[request.param]
    if not examples or not (Path(examples) / folder / "index.html").is_file():
        pytest.skip("set COMETLOCAL_TODOMVC_EXAMPLES to the examples/ folder of the npm package todomvc")
    for base in served_folder(Path(examples)):
        yield base, f'vars: {{app: /{folder}/index.html, key: {key}, list: "{pointer}"}}', Path(examples) / folder


@pytest.mark.parametrize("name", PLANS)
def test_each_ported_plan_on_another_implementation(name, implementation, chromium, tmp_path):
    base, vars_line, _ = implementation
    root = tmp_path / "port"
    shutil.copytree(PORT, root)
    plan = root / name
    plan.write_text(plan.read_text(encoding="utf-8").replace(VARS_LINE, vars_line), encoding="utf-8")
    r = run_port(chromium, root, name, base)
    assert r.error is None, r.error
