"""The plugin's Allure results render with both Allure CLIs: Allure 2 (npm ``allure-commandline``,
Java) and Allure 3 (npm ``allure``, Node), the latter with docs/allurerc.example.mjs.

Each report is read back from its generated data files, not trusted from an exit
status: the failing plan is there, failed, in its error code's category, with its
attachments (the screenshot at the failure a real PNG); the plan that passed only
after a retry is flaky and in the flaky category; the steady plan is not.

The CLIs are looked up in ``$COMETLOCAL_ALLURE_TOOLS`` when set, then in the
repository's ``.tools`` (where scripts/setup-env.sh installs both), then on PATH by
their reported version. A missing CLI skips its test, naming what is missing.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from pytest_cometlocal.contract.model.codes import ErrorCode
from tests.support import DEFAULTS, FLAKY_SITE_CONFTEST, write

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_CONFIG = REPO / "docs" / "allurerc.example.mjs"
CLI_TIMEOUT_S = 240  # a cold JVM on a busy CI machine; a render takes a few seconds
FLAKY = "passed after retries or recovery (flaky)"
PNG = b"\x89PNG\r\n\x1a\n"


# Read at import: pytester points HOME at its own folder while a test runs.
TOOL_ROOTS = tuple(Path(p) for p in (os.environ.get("COMETLOCAL_ALLURE_TOOLS"), REPO / ".tools") if p)


def run_cli(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run a CLI with a hard timeout; on timeout its whole process group goes (Allure 2's
    launcher script starts a JVM that a plain kill of the script would leave running)."""
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
    try:
        out, _ = proc.communicate(timeout=CLI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{' '.join(command)} did not finish in {CLI_TIMEOUT_S} s")
    return subprocess.CompletedProcess(command, proc.returncode, out, "")


def on_path_with_major(major: str) -> list[str] | None:
    """``allure`` on PATH, when ``allure --version`` reports this major version."""
    found = shutil.which("allure")
    if found is None:
        return None
    try:
        version = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [found] if re.search(rf"(^|\s){major}\.\d+", version) else None


@functools.cache
def allure2() -> tuple[list[str] | None, str]:
    """(command, why not): Allure 2's launcher, which needs Java."""
    if shutil.which("java") is None:
        return None, "Java is missing (Allure 2 needs it)"
    for root in TOOL_ROOTS:
        launcher = root / "node_modules" / "allure-commandline" / "bin" / "allure"
        if launcher.is_file():
            return [str(launcher)], ""
    found = on_path_with_major("2")
    why = f"Allure 2 (npm allure-commandline) is in none of {', '.join(map(str, TOOL_ROOTS))} nor on PATH"
    return found, "" if found else why


@functools.cache
def allure3() -> tuple[list[str] | None, str]:
    """(command, why not): Allure 3's cli.js, run with Node."""
    node = shutil.which("node")
    if node is None:
        return None, "Node is missing (Allure 3 needs it)"
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < 20:
        return None, f"Node {version or '(no version)'} is older than 20, which Allure 3's dependencies need"
    for root in TOOL_ROOTS:
        cli = root / "node_modules" / "allure" / "cli.js"
        if cli.is_file():
            return [node, str(cli)], ""
    found = on_path_with_major("3")
    why = f"Allure 3 (npm allure) is in none of {', '.join(map(str, TOOL_ROOTS))} nor on PATH"
    return found, "" if found else why


RETRY = "policy: {retry_on: [POSTCONDITION_FAILED], retries_per_action: 2, backoff_ms: [0]}\n"
READY = "postconditions: [{kind: title_contains, args: {text: Ready}}]"


def allure_results(pytester: pytest.Pytester) -> Path:
    """A small suite: a failing plan (TARGET_NOT_FOUND), a flaky pass, a steady pass."""
    pytester.makeconftest(FLAKY_SITE_CONFTEST)
    write(pytester, "bad.actions.yaml", "name: bad\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /steady}}
  - {id: go, kind: click, timeout_ms: 500, target: {type: testid, id: nothere}}
""")
    write(pytester, "retried.actions.yaml", "name: retried\n" + RETRY + DEFAULTS + f"""\
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /late-title}}, {READY}}}
""")
    write(pytester, "steady.actions.yaml", "name: steady\n" + DEFAULTS + f"""\
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /steady}}, {READY}}}
""")
    pytester.runpytest_subprocess("--alluredir", "allure-results", "-p", "no:randomly").assert_outcomes(passed=2, failed=1)
    return pytester.path / "allure-results"


def by_name(paths) -> dict[str, dict]:
    return {data["name"]: data for data in (json.loads(p.read_text(encoding="utf-8")) for p in paths)}


def assert_attachments(named: dict[str, Path]) -> None:
    """The failing plan's files are attached and rendered: the trace, and the screenshot at the failure."""
    assert "trace.jsonl" in named and "evidence_manifest.json" in named, sorted(named)
    shots = [name for name in named if name.startswith("screenshot: ") and name.endswith("_after.png")]
    assert shots, sorted(named)
    assert named[shots[0]].read_bytes().startswith(PNG)
    assert b'"event_type"' in named["trace.jsonl"].read_bytes()


@pytest.mark.browser
def test_allure2_renders_codes_as_categories_flaky_passes_and_attachments(pytester: pytest.Pytester) -> None:
    command, why = allure2()
    if command is None:
        pytest.skip(why)
    results = allure_results(pytester)
    report = pytester.path / "report2"
    done = run_cli([*command, "generate", str(results), "-o", str(report), "--clean"], pytester.path)
    assert done.returncode == 0, done.stdout

    cases = by_name((report / "data" / "test-cases").glob("*.json"))
    bad = cases["bad"]
    assert bad["status"] == "failed" and bad["statusMessage"].startswith("TARGET_NOT_FOUND: at step 'go'")
    assert [c["name"] for c in bad["extra"]["categories"]] == ["TARGET_NOT_FOUND"]
    assert ("error_code", "TARGET_NOT_FOUND") in {(label["name"], label["value"]) for label in bad["labels"]}
    steps = bad["testStage"]["steps"]  # a step per ActionSpec, each with its stages
    assert [(s["name"].split(" · ")[0], s["status"]) for s in steps] == [("open", "passed"), ("go", "failed")]
    assert [s["name"] for s in steps[0]["steps"]] == ["preconditions", "action", "postconditions"]
    assert_attachments({a["name"]: report / "data" / "attachments" / a["source"] for a in bad["testStage"]["attachments"]})
    assert cases["retried"]["status"] == "passed" and cases["retried"]["flaky"] is True
    assert cases["steady"]["status"] == "passed" and cases["steady"]["flaky"] is False

    tree = json.loads((report / "data" / "categories.json").read_text(encoding="utf-8"))
    members = {}
    for category in tree["children"]:
        members[category["name"]] = {leaf["name"] for group in category["children"] for leaf in group["children"]}
    assert members == {"TARGET_NOT_FOUND": {"bad"}, FLAKY: {"retried"}}


@pytest.mark.browser
def test_allure3_renders_codes_as_categories_from_the_example_config(pytester: pytest.Pytester) -> None:
    command, why = allure3()
    if command is None:
        pytest.skip(why)
    results = allure_results(pytester)
    report = pytester.path / "report3"
    done = run_cli([*command, "generate", str(results), "-o", str(report), "--config", str(EXAMPLE_CONFIG)],
                   pytester.path)
    assert done.returncode == 0, done.stdout

    tests = by_name((report / "data" / "test-results").glob("*.json"))
    bad = tests["bad"]
    assert bad["status"] == "failed" and bad["error"]["message"].startswith("TARGET_NOT_FOUND: at step 'go'")
    # Without the config Allure 3 files every failure under "Product errors": the code comes from it.
    assert [c["name"] for c in bad["categories"]] == ["TARGET_NOT_FOUND"]
    links = [s["link"] for s in bad["steps"] if s.get("type") == "attachment"]
    assert_attachments({link["name"]: report / "data" / "attachments" / (link["id"] + link["ext"]) for link in links})
    assert tests["retried"]["status"] == "passed" and tests["retried"]["flaky"] is True
    assert [c["name"] for c in tests["retried"]["categories"]] == [FLAKY]
    assert tests["steady"]["flaky"] is False and tests["steady"]["categories"] == []

    widget = json.loads((report / "widgets" / "categories.json").read_text(encoding="utf-8"))
    roots = {widget["nodes"][r]["name"]: widget["nodes"][r]["statistic"] for r in widget["roots"]}
    assert roots == {"TARGET_NOT_FOUND": {"total": 1, "failed": 1}, FLAKY: {"total": 1, "passed": 1}}


def test_the_allure3_example_config_lists_every_error_code() -> None:
    """The example's category list is written out for readers; it must not fall behind ErrorCode."""
    text = EXAMPLE_CONFIG.read_text(encoding="utf-8")
    listed = re.search(r"const ERROR_CODES = \[(.*?)\];", text, re.S)
    assert listed is not None
    assert re.findall(r'"([A-Z_]+)"', listed.group(1)) == [code.value for code in ErrorCode]
