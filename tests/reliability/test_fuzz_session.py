"""Issue 35's fuzz test: mutated real plans through ``cometlocal validate`` and through one pytest session.

The example plans are mutated where each class of bad input lives
(tests/reliability/mutations.py: regexes Python refuses without re.error, aria
templates PyYAML cannot build, URLs urllib refuses, CSV files over the csv
module's limits, combination counts and step-group expansions that would be
built before being checked, control characters, typos beside rule problems,
bad bytes, two broken plans in one file), with a fixed seed. Beside them, five
valid plans run against a tiny page served on 127.0.0.1.

``cometlocal validate`` runs in a subprocess under a hard timeout and a 1 GiB
data limit (RLIMIT_DATA); the pytest session runs in a subprocess under a hard
timeout (Chromium needs more address space than any such limit). Both must
print no traceback; every problem must be located (file:line:col); every plan
must get its own outcome (an invalid one: INVALID_ACTIONSPEC when it runs, not
an error at setup or collection); the five valid plans must pass.

The counts (mutants, Hypothesis' seeds) are CI's (``tests.support.soak``);
``COMETLOCAL_SOAK=1`` runs the full soak (66 mutants, 25 seeds; CI: 22 and 10).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text
from tests.reliability.mutations import EXAMPLES, Mutant, mutants
from tests.support import OUTCOMES_CONFTEST, PORTAL_CONFTEST, read_outcomes, served_pages, soak

pytestmark = pytest.mark.usefixtures("hard_limit")

REPO = Path(__file__).resolve().parents[2]
# Every rule id in a heading of docs/validation-rules.md (a heading may name several: DEVICE, TIMEZONE, ...).
DOCUMENTED_RULES = {rule for heading in re.findall(r"^### (.+)$", (REPO / "docs" / "validation-rules.md").read_text(), re.M)
                    for rule in re.findall(r"`([A-Z0-9_]+)`", heading)}
SEED, COUNT = 35, soak(22, 66)  # every class of mutants.py in turn (11), twice or six times
MEMORY = 1024 ** 3
# Classes whose every mutant is invalid by construction.
ALWAYS_INVALID = {"product", "rows", "groups", "control", "typo"}
LOCATED = re.compile(r"^\S.*?:\d+:\d+[ :]")

PAGES = {
    "/": """<title>Fuzz home</title><h1>Home</h1>
<label>Name <input id=name></label>
<button onclick="document.getElementById('out').textContent='Clicked'">Go</button><p id=out></p>
<a href="/second">Second</a>""",
    "/second": "<title>Second page</title><h1>Second</h1>",
}
DEFAULTS = """defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
"""
OPEN = "  - {id: open, kind: navigate, target: {type: url, url: /}}\n"
VALID = {
    "title": OPEN + "  - {id: t, kind: assert, postconditions: [{kind: title_contains, args: {text: Fuzz home}}]}\n",
    "fill": OPEN + ("  - {id: f, kind: fill, target: {type: label, text: Name, exact: true}, value: Ada,"
                    " postconditions: [{kind: element_value_equals, args: {value: Ada}}]}\n"),
    "click": OPEN + ("  - {id: c, kind: click, target: {type: role, role: button, name: Go, exact: true},"
                     " postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: '#out'},"
                     " text: Clicked}}]}\n"),
    "heading": OPEN + ("  - {id: h, kind: assert, postconditions: [{kind: element_visible,"
                       " args: {target: {type: role, role: heading, name: Home, exact: true}}}]}\n"),
    "second": OPEN + ("  - {id: s, kind: click, target: {type: role, role: link, name: Second, exact: true},"
                      " postconditions: [{kind: url_matches, args: {pattern: /second$}}]}\n"),
}


def _limit_memory() -> None:  # runs in the child, before exec
    """The data the process may write (RLIMIT_DATA), not its address space: a Python blow-up still ends
    in MemoryError, while the Node driver a plan naming ``browser.device`` starts to read Playwright's
    device registry, which reserves far more address space than it uses, can start."""
    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY, MEMORY))


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COMETLOCAL_"))}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTEST_ADDOPTS"] = "-p no:hypothesispytest -p no:cacheprovider -p no:playwright -p no:xdist"
    return env


def _run(args: list[str], cwd: Path, timeout: float, limit_memory: bool) -> subprocess.CompletedProcess[str]:
    """``args`` under a hard timeout: the whole process group is killed when it runs over (no hang passes)."""
    proc = subprocess.Popen(args, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_limit_memory if limit_memory else None)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(args[:4])} hung (killed after {timeout} s):\n{out[-3000:]}\n{err[-3000:]}")
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def _suite(root: Path, base_url: str) -> dict[str, Mutant]:
    """The example suite's data files, the mutants beside them, and the five valid plans; mutants by path."""
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("*.actions.yaml", "conftest.py", "__pycache__"))
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "conftest.py").write_text(OUTCOMES_CONFTEST[len(PORTAL_CONFTEST):].replace(
        '"code": dict(report.user_properties).get("cometlocal.error_code")}',
        '"code": dict(report.user_properties).get("cometlocal.error_code"), "text": report.longreprtext[-4000:]}'))
    by_path: dict[str, Mutant] = {}
    for folder, mutant in mutants(SEED, COUNT):
        where = root / folder
        (where / mutant.name).write_bytes(mutant.data)
        for name, data in mutant.extra.items():
            (where / name).write_bytes(data)
        by_path[(Path(folder) / mutant.name).as_posix().lstrip("./")] = mutant
    (root / "valid").mkdir()
    for name, steps in VALID.items():
        (root / "valid" / f"{name}.actions.yaml").write_text(
            f"name: valid {name}\nbase_url: {base_url}\n{DEFAULTS}steps:\n{steps}")
    return by_path


def _validate(root: Path) -> tuple[list[dict], str]:
    cli = [sys.executable, "-m", "pytest_cometlocal.cli", "validate", "."]
    text = _run(cli, root, 120, limit_memory=True)
    report = _run(cli + ["--format", "json"], root, 120, limit_memory=True)
    for done in (text, report):
        assert done.returncode == 1, done.stderr[-3000:]
        assert "Traceback" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-5000:]
    return json.loads(report.stdout)["plans"], text.stdout


@pytest.mark.browser
def test_mutated_plans_never_crash_validate_or_the_session(tmp_path: Path):
    with served_pages(PAGES) as base_url:
        root = tmp_path / "suite"
        by_path = _suite(root, base_url)
        plans, text = _validate(root)

        # validate: every problem located, with a documented rule, one line each; the summary last.
        lines = text.splitlines()
        assert lines[0].startswith("rootdir: ") and re.fullmatch(r"\d+ plans in \d+ files: .*", lines[-1])
        for line in lines[1:-1]:
            assert LOCATED.match(line), line
        for entry in plans:
            for p in entry.get("problems", []):
                assert p["file"] and p["line"] >= 1 and p["col"] >= 1, p
                assert p["rule"] in DOCUMENTED_RULES and "\n" not in p["message"], p
        assert not any(p["rule"] == "INTERNAL" for e in plans for p in e.get("problems", []))
        entries = {f"{e['file']}::{e['plan']}": e for e in plans}
        files = {e["file"] for e in plans}
        assert set(by_path) <= files  # every mutant file has a result
        for path, mutant in by_path.items():
            if mutant.cls in ALWAYS_INVALID:
                assert all(not e["valid"] for e in plans if e["file"] == path), path
        valid = [f"valid/{name}.actions.yaml::valid {name}" for name in VALID]
        assert all(entries[v]["valid"] for v in valid)

        # One pytest session: never interrupted, every plan its own outcome, the valid plans pass.
        done = _run([sys.executable, "-m", "pytest", "-q", "-rN", "."], root, 600, limit_memory=False)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-5000:]
    for bad in ("Traceback", "Interrupted", "error during collection", "INTERNALERROR"):
        assert bad not in output, output[-5000:]
    outcomes = read_outcomes(root / "outcomes.jsonl")
    assert set(entries) <= set(outcomes), sorted(set(entries) - set(outcomes))[:10]
    texts = _failure_texts(root / "outcomes.jsonl")
    for nodeid, entry in entries.items():
        outcome, code = outcomes[nodeid]
        if nodeid in valid:
            assert outcome == "passed", (nodeid, texts.get(nodeid, "")[-2000:])
        elif not entry["valid"] and not entry.get("expected_invalid"):
            assert (outcome, code) == ("failed", "INVALID_ACTIONSPEC"), (nodeid, outcome, code)
            own = entry["problems"][0]["message"][:60]
            assert own in " ".join(texts[nodeid].split()), (nodeid, own)  # its own problem, not a neighbour's
        else:
            assert outcome in ("passed", "failed", "skipped"), (nodeid, outcome)


def _failure_texts(path: Path) -> dict[str, str]:
    texts: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        report = json.loads(line)
        if report.get("text"):
            texts[report["nodeid"]] = texts.get(report["nodeid"], "") + report["text"]
    return texts


@settings(max_examples=soak(10, 25), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 32))
def test_any_seed_gives_located_problems_in_process(seed: int):
    """The same mutators with Hypothesis' seeds, validated in this process: results, never an exception."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(EXAMPLES, root, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("*.actions.yaml", "conftest.py", "__pycache__"))
        for folder, mutant in mutants(seed, 11):
            where = root / folder
            for name, data in mutant.extra.items():
                (where / name).write_bytes(data)
            path = where / mutant.name
            path.write_bytes(mutant.data)
            results = validate_text(mutant.data, ValidationContext(root=root, plan_path=path), file=mutant.name)
            assert results
            for result in results:
                if isinstance(result, InvalidPlan):
                    for p in result.problems:
                        assert p.rule in DOCUMENTED_RULES and p.rule != "INTERNAL", p.format()
                        assert p.mark.line >= 1 and p.mark.col >= 1 and "\n" not in p.format()
