"""Issue 28's "done when", on Django's admin: ``cometlocal fix --verify`` writes one patch that makes the plans pass.

A suite written against an "older" admin (tests/django_admin.py): a login
button named "Sign in" (it is "Log in") used by a step group and by a plan
directly, a reworded field label and a link that is not unique (narrowed),
each behind the group's button (two rounds), a parametrized plan (two rows,
one fix) with a changed link text behind its own button, and a button that is
gone (no fix, no hunk). pytest runs it in a subprocess, fix verifies in a
scratch copy, the patch goes through ``git apply``, and the suite runs again.

Kept quick by design: every plan needs at most two rounds (all items are
rerun together, one pytest process a round), a stale step waits 2 s for its
target, or 5 s when it is a click that navigates (the step's timeout also
bounds that navigation), navigations get 10 s (a loaded machine must not time
them out), the suite runs in the ``fast`` profile, and the inner pytest sessions
skip the plugins they do not need. Every inner run has a hard timeout, and the
Django server outlives them all.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from tests.django_admin import PASSWORD, django_admin
from tests.support import defaults

pytest.importorskip("django", reason="Django is not installed: pip install -e '.[test]' installs it")
pytestmark = pytest.mark.browser

INNER_S = 180  # hard limit of each inner pytest run (the suite, each verification round) and of the server
LEAN = "-p no:cacheprovider -p no:hypothesispytest -p no:playwright -p no:xdist -p no:xdist.looponfail " \
       "-p no:allure_pytest -p no:rerunfailures -p no:pytest-split -p no:anyio --assert=plain"
FILES = {
    "pytest.ini": "[pytest]\n",
    "cometlocal.yaml": "profile: fast\n" + defaults(timeout_ms=10000),
    "groups/login.steps.yaml": """\
# signs in as the admin
secrets: {password: {env: ADMIN_PASSWORD}}
steps:
  - {id: open, kind: navigate, target: {type: url, url: /admin/login/}}
  - {id: user, kind: fill, target: {type: label, text: "Username:", exact: true}, value: admin}
  - {id: password, kind: fill, target: {type: label, text: "Password:", exact: true}, value: "${secrets.password}"}
  - id: log_in
    kind: click
    timeout_ms: 5000
    target:
      type: role
      role: button
      name: Sign in   # renamed in the app
      exact: true
    postconditions: [{kind: url_matches, args: {pattern: "/admin/$"}}]
""",
    "plans/add_group.actions.yaml": """\
name: add a group
steps:
  - use: ../groups/login.steps.yaml
  - {id: open, kind: navigate, target: {type: url, url: /admin/auth/group/add/}}
  - {id: name, kind: fill, timeout_ms: 2000, target: {type: label, text: "Group name:", exact: true}, value: Editors}
""",
    "plans/view_site.actions.yaml": """\
name: view the site
parametrize: {who: [first, second]}
secrets: {password: {env: ADMIN_PASSWORD}}
steps:
  - {id: open, kind: navigate, target: {type: url, url: /admin/login/}}
  - {id: user, kind: fill, target: {type: label, text: "Username:", exact: true}, value: admin}
  - {id: password, kind: fill, target: {type: label, text: "Password:", exact: true}, value: "${secrets.password}"}
  - id: log_in
    kind: click
    timeout_ms: 5000
    target: {type: role, role: button, name: 'Sign in', exact: true}
    postconditions: [{kind: url_matches, args: {pattern: "/admin/$"}}]
  - id: view
    kind: click
    timeout_ms: 5000
    target: {type: role, role: link, name: View website, exact: true}
""",
    "plans/add_link.actions.yaml": """\
name: the groups' add link
steps:
  - use: ../groups/login.steps.yaml
  - id: add
    kind: click
    timeout_ms: 5000
    target: {type: role, role: link, name: Add, exact: true}
    postconditions: [{kind: url_matches, args: {pattern: "/admin/auth/group/add/$"}}]
""",
    "plans/gone.actions.yaml": """\
name: a removed button
steps:
  - use: ../groups/login.steps.yaml
  - {id: open, kind: navigate, target: {type: url, url: /admin/auth/group/add/}}
  - id: purge
    kind: click
    timeout_ms: 2000
    target: {type: role, role: button, name: Purge all groups, exact: true}
    postconditions: [{kind: url_matches, args: {pattern: "/admin/auth/group/$"}}]
""",
}
CHANGED = [  # (before, after): the only lines the patch may change
    ("      name: Sign in   # renamed in the app", "      name: Log in   # renamed in the app"),
    ('  - {id: name, kind: fill, timeout_ms: 2000, target: {type: label, text: "Group name:", exact: true}, value: Editors}',
     '  - {id: name, kind: fill, timeout_ms: 2000, target: {type: label, text: "Name:", exact: true}, value: Editors}'),
    ("    target: {type: role, role: button, name: 'Sign in', exact: true}",
     "    target: {type: role, role: button, name: 'Log in', exact: true}"),
    ("    target: {type: role, role: link, name: View website, exact: true}",
     "    target: {type: role, role: link, name: View site, exact: true}"),
    ("    target: {type: role, role: link, name: Add, exact: true}",
     '    target: {type: css, selector: "a[href=\\"/admin/auth/group/add/\\"]"}'),
]


@pytest.fixture(scope="module")
def admin_site(tmp_path_factory: pytest.TempPathFactory):
    """The admin, alive longer than every inner run of the module can take (its own limit ends it otherwise)."""
    with django_admin(tmp_path_factory.mktemp("django"), hard_limit_s=4 * INNER_S + 120) as url:
        yield url


def run_suite(root: Path, url: str, out: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "plans", "-q", "--base-url", url,
                           "--cometlocal-output", out], cwd=root, capture_output=True, text=True, timeout=INNER_S,
                          env={**os.environ, "ADMIN_PASSWORD": PASSWORD})


def test_fix_verify_writes_one_patch_that_makes_the_stale_plans_pass(tmp_path: Path, admin_site: str,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "suite"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    before = {p: p.read_text() for p in root.rglob("*.yaml")}
    monkeypatch.setenv("PYTEST_ADDOPTS", LEAN)  # the suite's runs and fix's reruns alike
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    first = run_suite(root, admin_site, "runs")
    assert "5 failed" in first.stdout, first.stdout[-3000:]  # each first at the renamed login button
    monkeypatch.chdir(root)
    code = main(["fix", "runs", "--verify", "-o", "../fixes.patch", "--verify-output", "../verify-runs",
                 "--timeout", str(INNER_S)])
    err = capsys.readouterr().err
    patch = (tmp_path / "fixes.patch").read_text()
    assert code == 1, err  # the removed button
    # nothing written in the suite (its run folders, which keep each failure's aria snapshot as YAML, aside)
    assert {p: p.read_text() for p in root.rglob("*.yaml") if (root / "runs") not in p.parents} == before
    assert "'a removed button' (plans/gone.actions.yaml)" in err and "gone.actions.yaml b/" not in patch
    assert patch.count("diff --git a/groups/login.steps.yaml") == 1
    assert patch.count("diff --git a/plans/view_site.actions.yaml") == 1  # two rows, one fix
    # each cites a round of this invocation's own folder (verify-runs/<UTC start>-<6 hex>/round-N)
    cited = re.findall(r"^#   verified: \.\./verify-runs/(\d{8}T\d{6}Z-[0-9a-f]{6})/round-\d/", patch, re.M)
    assert "not verified" not in patch and len(cited) == len(CHANGED) and len(set(cited)) == 1, patch
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=30)
    subprocess.run(["git", "apply", "--check", "../fixes.patch"], cwd=root, check=True, timeout=30)
    subprocess.run(["git", "apply", "../fixes.patch"], cwd=root, check=True, timeout=30)
    changed = [(a, b) for p in before for a, b in zip(before[p].splitlines(), p.read_text().splitlines()) if a != b]
    assert all(len(before[p].splitlines()) == len(p.read_text().splitlines()) for p in before)
    assert sorted(changed) == sorted(CHANGED), changed
    again = run_suite(root, admin_site, "runs-after")
    assert "4 passed" in again.stdout and "1 failed" in again.stdout, again.stdout[-3000:]
    assert "FAILED plans/gone.actions.yaml::a removed button" in again.stdout
