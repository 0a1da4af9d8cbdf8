"""Who owns ``--base-url`` beside pytest-base-url and pytest-playwright, in any load order, and ``-n`` without
pytest-xdist (plugin/options.py). Fresh venvs with other combinations: tests/integration/test_beside_playwright.py.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.plugin.options import _is_xdist_flag

pytest.importorskip("pytest_playwright")
pytest.importorskip("pytest_base_url")

OURS = "base URL for relative plan URLs"  # our --base-url's help; the other two say "base url for the application"
PLAYWRIGHT = "pytest_playwright.pytest_playwright"
# An inner test that shows what the plugin read: --base-url (the command line) and the ini default.
READS = """
from pytest_cometlocal.plugin.options import settings

def test_reads(pytestconfig):
    opts = settings(pytestconfig)
    print("READ", opts.base_url, opts.default_base_url)
"""


@pytest.fixture(autouse=True)
def _quiet_plugins_on(lean_inner_runs: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:cacheprovider -p no:randomly")
    monkeypatch.delenv("PYTEST_BASE_URL", raising=False)
    monkeypatch.delenv("COMETLOCAL_BASE_URL", raising=False)


@pytest.mark.parametrize(("args", "autoload", "owner"), [
    ([], True, "pytest-base-url"),
    (["-p", "no:base_url"], True, "pytest-playwright"),
    (["-p", "no:base_url", "-p", "no:playwright"], True, "cometlocal"),
    (["-p", PLAYWRIGHT, "-p", "pytest_cometlocal.plugin"], False, "pytest-playwright"),
    (["-p", "pytest_cometlocal.plugin", "-p", PLAYWRIGHT], False, "pytest-playwright"),
    (["-p", "pytest_cometlocal.plugin", "-p", PLAYWRIGHT, "-p", "pytest_base_url.plugin"], False, "pytest-base-url"),
    (["-p", "pytest_cometlocal.plugin"], False, "cometlocal"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_one_owner_of_base_url_and_plans_read_it(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                  args: list[str], autoload: bool, owner: str) -> None:
    if not autoload:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeini("[pytest]\nbase_url = http://127.0.0.1:9/ini\n")
    pytester.makepyfile(test_reads=READS)
    given = pytester.runpytest_subprocess(*args, "-s", "--base-url", "http://127.0.0.1:9/given")
    assert given.ret == 0, given.stdout.str() + given.stderr.str()
    given.stdout.fnmatch_lines(["*READ http://127.0.0.1:9/given http://127.0.0.1:9/ini"])
    # Without --base-url, the ini value stays the suite default, below a plan's own base_url, whoever owns it.
    ini = pytester.runpytest_subprocess(*args, "-s")
    ini.stdout.fnmatch_lines(["*READ None http://127.0.0.1:9/ini"])

    shown = pytester.runpytest_subprocess(*args, "--help").stdout.str()
    assert shown.count("--base-url") == 1, shown
    assert (OURS in " ".join(shown.split())) == (owner == "cometlocal")
    group = {"pytest-playwright": "Playwright:", "cometlocal": "cometlocal browser action plans:"}.get(owner)
    if group:  # pytest-base-url's option is in the "Custom options" group
        assert shown.index(group) < shown.index("--base-url") and "--base-url" not in shown[:shown.index(group)]


def test_n_with_xdist_not_loaded_says_so_in_one_line(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-n", "2", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        "ERROR: -n needs pytest-xdist, which is installed but not loaded (-p no:xdist or PYTEST_DISABLE_PLUGIN_AUTOLOAD?)"]


@pytest.mark.parametrize(("arg", "flag"), [
    ("-n", True), ("-n2", True), ("-nauto", True), ("-n=4", True), ("--numprocesses", True),
    ("--numprocesses=logical", True), ("--dist", True), ("--dist=loadfile", True), ("--maxprocesses=2", True),
    ("--no-header", False), ("-nx-y", False), ("--numbers", False), ("--distance", False), ("-k", False),
])
def test_which_unknown_arguments_are_xdist_flags(arg: str, flag: bool) -> None:
    assert _is_xdist_flag(arg) is flag
