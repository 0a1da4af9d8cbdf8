"""A base URL urllib cannot read (``http://outs]ide/``, a port out of range) is a one-line error naming where
it came from: a usage error for ``--base-url`` and ini ``base_url``, INVALID_ACTIONSPEC (rule URL) for a
``cometlocal_base_url`` fixture's, never a ValueError traceback at the first relative ``navigate``."""

from __future__ import annotations

import pytest

from tests.support import VALID_PLAN

NO_BASE = VALID_PLAN.replace("base_url: http://127.0.0.1:8000\n", "")

BAD = ["http://outs]ide.example/", "http://127.0.0.1:99999/"]


@pytest.fixture(autouse=True)
def _no_env_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_BASE_URL", raising=False)
    monkeypatch.delenv("COMETLOCAL_BASE_URL", raising=False)


@pytest.mark.parametrize("url", BAD)
def test_an_unreadable_base_url_option_is_a_one_line_usage_error(pytester: pytest.Pytester, url: str) -> None:
    pytester.makefile(".actions.yaml", plan=VALID_PLAN)
    result = pytester.runpytest_subprocess("-p", "no:randomly", f"--base-url={url}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = [line for line in result.stderr.str().splitlines() if line.strip()]
    assert "Traceback" not in result.stdout.str() and len(err) == 1, err
    result.stderr.fnmatch_lines([f"ERROR: cometlocal: --base-url: cannot read URL {url!r}: *"])


@pytest.mark.parametrize("url", BAD)
def test_an_unreadable_ini_base_url_is_a_one_line_usage_error(pytester: pytest.Pytester, url: str) -> None:
    pytester.makeini(f"[pytest]\nbase_url = {url}\n")
    pytester.makefile(".actions.yaml", plan=VALID_PLAN)
    result = pytester.runpytest_subprocess("-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    result.stderr.fnmatch_lines([f"ERROR: cometlocal: ini base_url: cannot read URL {url!r}: *"])


@pytest.mark.browser
def test_an_unreadable_fixture_base_url_fails_the_plan_with_rule_url(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
import pytest

@pytest.fixture
def cometlocal_base_url():
    return "http://outs]ide.example/"
""")
    pytester.makefile(".actions.yaml", plan=NO_BASE)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-rf")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "Traceback" not in out and "ValueError" not in out
    result.stdout.fnmatch_lines(["INVALID_ACTIONSPEC at step 'open'*", "*has an unreadable base URL: cannot read URL*"])
