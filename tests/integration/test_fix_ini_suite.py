"""Issue 35 (2.1-2.3): ``cometlocal fix --verify`` on a suite whose ``base_url`` comes from its ``pytest.ini``.

A tiny page served on 127.0.0.1 renamed its button "Save" to "Save changes".
The suite has two plans: one clicks "Save" (stale), one is a negative plan
that expects exactly that ``TARGET_NOT_FOUND`` (it passes). The reruns must
find the ini file (the base URL is nowhere else), and two consecutive
``fix --verify`` runs must each cite a run of their own: the first one is made
to fail before the fixed step (``--pytest-arg`` sends it to a closed port),
the second verifies the fix. The negative plan gets no fix and is not listed as
failed. The patch applies with ``git apply`` and the suite then passes. Every
inner pytest run has a hard timeout.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from tests.support import defaults, served_pages

pytestmark = pytest.mark.browser

INNER_S = 180
LEAN = "-p no:cacheprovider -p no:hypothesispytest -p no:playwright -p no:xdist -p no:xdist.looponfail " \
       "-p no:allure_pytest -p no:rerunfailures -p no:pytest-split -p no:anyio --assert=plain"
PAGE = "<title>Shop</title><h1>Shop</h1><button onclick=\"document.title='saved'\">Save changes</button>"
LONG = "the_shop_heading_is_there_for_everyone"  # longer than the -v lines' 24 characters
SAVE = """\
name: save
steps:
  - {id: open, kind: navigate, target: {type: url, url: /}}
  - {id: %s, kind: assert, postconditions: [{kind: element_visible, args: {target: {type: role, role: heading, name: Shop}}}]}
  - id: save
    kind: click
    target: {type: role, role: button, name: Save, exact: true}  # renamed in the app
    postconditions: [{kind: title_contains, args: {text: saved}}]
""" % LONG
NEGATIVE = """\
name: no plain save button
expect: {error_code: TARGET_NOT_FOUND, step: save}
steps:
  - {id: open, kind: navigate, target: {type: url, url: /}}
  - id: save
    kind: click
    target: {type: role, role: button, name: Save, exact: true}
"""

if shutil.which("git") is None:  # pragma: no cover
    pytestmark = [pytestmark, pytest.mark.skip(reason="git is needed to check the patch applies")]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_suite(root: Path, out: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "plans", "-v", f"--cometlocal-output={out}"], cwd=root,
                          capture_output=True, text=True, timeout=INNER_S)


def verified_run(patch: str) -> str:
    (found,) = re.findall(r"^#   verified: (\S+)$", patch, re.M)
    return found


def test_fix_verify_in_an_ini_configured_suite_cites_its_own_runs_and_leaves_the_negative_plan_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", LEAN)  # the suite's runs and fix's reruns alike
    with served_pages({"/": PAGE}) as url:
        root = tmp_path / "suite"
        (root / "plans").mkdir(parents=True)
        (root / "pytest.ini").write_text(f"[pytest]\nbase_url = {url}\n")
        (root / "cometlocal.yaml").write_text("profile: fast\n" + defaults(timeout_ms=3000))
        (root / "plans/save.actions.yaml").write_text(SAVE)
        (root / "plans/negative.actions.yaml").write_text(NEGATIVE)
        first = run_suite(root, "runs")
        assert "1 failed, 1 passed" in first.stdout, first.stdout[-3000:]
        steps = [line for line in first.stdout.splitlines() if re.match(r"    (ok  |FAIL) ", line)]
        assert len(steps) == 5 and LONG in steps[3], steps  # the negative plan's 2 steps, then save's 3
        assert len({line.index(" ms") for line in steps[2:]}) == 1, steps  # one plan's lines align

        monkeypatch.chdir(root)
        assert main(["show", "--list", "runs"]) == 0
        listed = capsys.readouterr().out
        assert re.search(r"^expected TARGET_NOT_FOUND +plans/negative.actions.yaml::no plain save button", listed, re.M)
        assert "1 failed run has suggested targets" in listed and "negative" not in listed.split("suggested")[1]

        # 2.2: a first invocation whose rerun fails before the fixed step (sent to a closed port) ...
        code = main(["fix", "runs", "--verify", "-o", "../first.patch", "--verify-output", "../verify-runs",
                     "--timeout", str(INNER_S), f"--pytest-arg=--base-url=http://127.0.0.1:{closed_port()}"])
        err = capsys.readouterr().err
        assert code == 1, err
        assert "before the fixed step(s) 'save': the fix was not tried" in err and "past the fixed" not in err
        assert "1 failed as their plan expects" in err and "INVALID_ACTIONSPEC" not in err
        (first_invocation,) = (tmp_path / "verify-runs").iterdir()

        # ... then one that verifies the fix: it cites its own run, never the first invocation's.
        code = main(["fix", "runs", "--verify", "-o", "../fixes.patch", "--verify-output", "../verify-runs",
                     "--timeout", str(INNER_S)])
        err = capsys.readouterr().err
        patch = (tmp_path / "fixes.patch").read_text()
        assert code == 0, err + patch
        cited = verified_run(patch)
        assert cited.startswith("../verify-runs/") and first_invocation.name not in cited, cited
        assert json.loads((root / cited / "run_manifest.json").read_text())["status"] == "passed"
        assert "diff --git a/plans/save.actions.yaml" in patch and "negative.actions.yaml" not in patch
        assert "2 runs (0 did not fail, 1 failed as their plan expects): 1 fixes, 0 without" in err

        subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=30)
        subprocess.run(["git", "apply", "../fixes.patch"], cwd=root, check=True, timeout=30)
        assert "name: Save changes, exact: true}  # renamed in the app" in (root / "plans/save.actions.yaml").read_text()
        again = run_suite(root, "runs-after")
        assert "2 passed" in again.stdout, again.stdout[-3000:]
