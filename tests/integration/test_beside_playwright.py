"""``pip install pytest-playwright pytest-cometlocal`` in fresh venvs: plans and ``page`` tests share ``--base-url``.

Who registers ``--base-url`` depends on what is installed: pytest-base-url,
else pytest-playwright 0.10+ (after every plugin is loaded), else this plugin
(plugin/options.py). Two registrations end every pytest run before
collection, and the test extras install pytest-base-url, so only fresh venvs
show the combinations users have: the newest pytest-playwright alone and with
pytest-base-url, an old pytest-playwright (which requires pytest-base-url), and
neither (which also has no pytest-xdist). The venvs are built without a pip
of their own (this environment's pip installs into them), and this package
goes in as a wheel built from this checkout. Each combination is built once
and kept (tests/integration/venvs.py); each session installs this checkout's
wheel into a copy of it, in parallel. Without a package registry the module
skips.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pytest_cometlocal.executor.browser.chromium import system_chromium
from tests.integration.venvs import cached_venv, clean_env, pip, wheel
from tests.support import defaults, served_pages

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(os.environ.get("COMETLOCAL_SKIP_PACKAGING") == "1", reason="COMETLOCAL_SKIP_PACKAGING=1"),
]

OLD_PLAYWRIGHT = "pytest-playwright==0.9.0"  # the last release that required pytest-base-url
RUN_TIMEOUT = 180


def _newest(package: str) -> str:
    """The newest release on the package index, or skip: this test needs a registry."""
    try:
        found = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "--retries", "2", "--timeout", "30",
                                package], capture_output=True, text=True, timeout=120, env=clean_env())
    except subprocess.TimeoutExpired:
        pytest.skip(f"package registry did not answer for {package} within 120 s")
    match = re.search(rf"^{re.escape(package)} \(([^)]+)\)", found.stdout, re.M)
    if found.returncode != 0 or not match:
        pytest.skip(f"package registry unreachable ({package}): {(found.stderr or found.stdout).strip()[-300:]}")
    return match.group(1)


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, str]]]:
    """name -> (python, {distribution: version}) for each combination."""
    newest = _newest("pytest-playwright")
    tmp = tmp_path_factory.mktemp("beside")
    built = wheel(tmp)
    wanted = {
        "newest alone": [f"pytest-playwright=={newest}"],
        "newest with pytest-base-url": [f"pytest-playwright=={newest}", "pytest-base-url"],
        "old": [OLD_PLAYWRIGHT],
        "neither": [],
    }
    with ThreadPoolExecutor(max_workers=len(wanted)) as pool:
        futures = {name: pool.submit(cached_venv, tmp / f"venv{i}", built, packages)
                   for i, (name, packages) in enumerate(wanted.items())}
        pythons = {name: future.result() for name, future in futures.items()}
    made = {}
    for name, python in pythons.items():
        listed = pip(python, "list", "--format", "json", timeout=120)
        made[name] = (python, {d["name"].lower(): d["version"] for d in json.loads(listed.stdout)})
    # The combinations are the ones named: nothing leaked in from the outer environment.
    assert made["newest alone"][1]["pytest-playwright"] == newest and "pytest-base-url" not in made["newest alone"][1]
    assert made["newest with pytest-base-url"][1]["pytest-playwright"] == newest
    assert "pytest-base-url" in made["newest with pytest-base-url"][1] and "pytest-base-url" in made["old"][1]
    assert not {"pytest-playwright", "pytest-base-url", "pytest-xdist"} & set(made["neither"][1])
    return made


PAGE = "<!doctype html><title>Beside page</title><p>{where}</p>"
PLAN_DEFAULTS = defaults(timeout_ms=10000)
PLAN_RELATIVE = "name: relative\n" + PLAN_DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: ./}, postconditions: [{kind: title_contains, args: {text: Beside}}]}
"""
PLAYWRIGHT_TEST = """\
import os

def test_page(page, base_url):
    assert base_url == os.environ["EXPECTED_BASE_URL"]
    page.goto("/")
    assert page.title() == "Beside page"
"""
# pytest-playwright launches its own Chromium build unless told otherwise; this machine may only have a system one.
CONFTEST = """\
import os
import pytest

if os.environ.get("SYSTEM_CHROMIUM"):
    @pytest.fixture(scope="session")
    def browser_type_launch_args(browser_type_launch_args):
        return {**browser_type_launch_args, "executable_path": os.environ["SYSTEM_CHROMIUM"]}
"""


def _suite(root: Path, url: str, with_playwright: bool) -> Path:
    root.mkdir()
    (root / "pytest.ini").write_text(f"[pytest]\nbase_url = {url}/ini/\n")
    (root / "relative.actions.yaml").write_text(PLAN_RELATIVE)
    (root / "own.actions.yaml").write_text(PLAN_RELATIVE.replace("name: relative", f"name: own\nbase_url: {url}/sub/"))
    if with_playwright:
        (root / "conftest.py").write_text(CONFTEST)
        (root / "test_page.py").write_text(PLAYWRIGHT_TEST)
    return root


def _pytest(python: Path, suite: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    chromium = os.environ.get("COMETLOCAL_CHROMIUM") or system_chromium() or ""
    return subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "-v", *args], cwd=suite,
                          capture_output=True, text=True, timeout=RUN_TIMEOUT,
                          env=clean_env(SYSTEM_CHROMIUM=chromium, **env))


def _base_urls(output: Path) -> dict[str, str]:
    """plan name -> the base URL its run used (from each run manifest)."""
    manifests = [json.loads(p.read_text()) for p in output.glob("*/run_manifest.json")]
    return {m["plan"]["name"]: m["execution_profile"]["base_url"] for m in manifests}


@pytest.mark.parametrize("combination", ["newest alone", "newest with pytest-base-url", "old", "neither"])
def test_plans_and_page_tests_share_base_url(venvs, combination: str, tmp_path: Path) -> None:
    python, installed = venvs[combination]
    with_playwright = "pytest-playwright" in installed
    with served_pages({"/": PAGE.format(where="root"), "/sub/": PAGE.format(where="sub"),
                       "/ini/": PAGE.format(where="ini")}) as url:
        suite = _suite(tmp_path / "suite", url, with_playwright)
        given = _pytest(python, suite, "--base-url", url, "--cometlocal-output", "given", EXPECTED_BASE_URL=url)
        ini = _pytest(python, suite, "relative.actions.yaml", "own.actions.yaml", "--cometlocal-output", "ini")
    shown = f"{combination} {installed.get('pytest-playwright')}:\n{given.stdout[-3000:]}{given.stderr[-3000:]}"
    assert "already used" not in given.stderr + given.stdout, shown
    expected = ["relative.actions.yaml::relative PASSED", "own.actions.yaml::own PASSED"]
    expected += ["test_page.py::test_page[chromium] PASSED"] if with_playwright else []
    assert all(line in given.stdout for line in expected) and given.returncode == 0, shown
    # --base-url is above the plan's own base_url and the ini's, whoever registered the option ...
    assert _base_urls(suite / "given") == {"relative": url, "own": url}, shown
    # ... and without it, a plan's own is above the ini's (which pytest-base-url copies into the option).
    assert ini.returncode == 0, ini.stdout[-3000:] + ini.stderr[-3000:]
    assert _base_urls(suite / "ini") == {"relative": f"{url}/ini/", "own": f"{url}/sub/"}


def test_n_without_xdist_says_how_to_get_it(venvs, tmp_path: Path) -> None:
    python, _ = venvs["neither"]
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "pytest.ini").write_text("[pytest]\n")
    for flags in (["-n", "2"], ["--numprocesses=auto"]):
        run = _pytest(python, suite, *flags, "--collect-only")
        assert run.returncode == 4, run.stdout + run.stderr  # a usage error, as pytest's own
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        assert lines == [f"ERROR: {flags[0]} needs pytest-xdist, which is not installed: "
                         "pip install 'pytest-cometlocal[xdist]' (or pytest-xdist)"], run.stderr
