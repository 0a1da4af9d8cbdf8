"""Fixtures of the whole suite, and the ``browser`` marker (tests/browser_guard.py).

Helpers that are not fixtures (plan text, result checks, servers) are in tests/support.py.

The executor fixtures: one Chromium for the session, one Firefox beside it
(``firefox``, issue 49), the demo portal, an "outside" server on another
loopback name (localhost) that counts the requests that reach it (the
allowlist tests assert it counts zero), and ``run``, which runs a plan in a
fresh guarded context of ``browser_manager`` (Chromium, unless a test module
parametrizes it: ``tests.browsers.ON_BOTH``) and returns the result, the
parsed trace and the manifests.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidationContext, validate_text
from pytest_cometlocal.demo.portal import DemoPortal
from tests.browsers import firefox_not_here
from tests.support import OutsideServer, Run

# The TodoMVC port's plans are run by tests/executor/test_todomvc_port.py, each in a context of its own
# (against the demo and, when given, other implementations); collected here they would be plan items
# asking for pytest-playwright's Playwright beside the suite's own.
collect_ignore = ["executor/todomvc_port"]

pytest_plugins = ("tests.browser_guard",)


@pytest.fixture(scope="session")
def chromium():
    """The suite's one Chromium (a BrowserManager: ``chromium.browser()``).

    Playwright's sync API allows one instance per thread, so every browser
    test in this process shares it.
    """
    from pytest_cometlocal.executor.browser.manager import BrowserManager

    manager = BrowserManager({"headless": True}, None)
    yield manager
    manager.close()


def shared_playwright(chromium):
    """The Playwright of the suite's ``chromium`` manager, started now if it has not launched yet.

    Playwright's sync API allows one instance per thread, so the session's Firefox
    shares Chromium's; the Chromium manager keeps owning it (it stops it at its
    close, after ``firefox``, which depends on it, has closed its browser).
    """
    if chromium._playwright is None:
        from playwright.sync_api import sync_playwright

        chromium._playwright = sync_playwright().start()
    return chromium._playwright


@pytest.fixture(scope="session")
def firefox(chromium):
    """The suite's one Firefox (a BrowserManager with ``browser_name="firefox"``), launched here.

    Launched at once so the pair probe runs before any test: with no Firefox
    (``FirefoxNotFound``: ``apt-get install -y firefox-esr``) or a Playwright
    that cannot drive it (``BrowserPairMismatch``: Playwright 1.65 with Firefox
    ESR 153), every test that asks for it skips with that one line, or fails
    under ``COMETLOCAL_REQUIRE_FIREFOX=1``. The pytest skip is cached with the
    fixture, so the launch is not tried again.
    """
    from pytest_cometlocal.executor.browser.manager import BrowserManager
    from pytest_cometlocal.executor.errors import BrowserPairMismatch, FirefoxNotFound

    manager = BrowserManager({"headless": True}, None, playwright=shared_playwright(chromium),
                             browser_name="firefox")
    try:
        manager.browser()
    except (FirefoxNotFound, BrowserPairMismatch) as exc:
        manager.close()
        firefox_not_here(str(exc))
    yield manager
    manager.close()


@pytest.fixture
def browser_manager(request):
    """The manager ``run`` (and the tests that take it) runs plans on: ``chromium``, or the browser a
    module gives with ``@pytest.mark.parametrize("browser_manager", ["chromium", "firefox"], indirect=True)``
    (``tests.browsers.ON_BOTH``; test ids ``[chromium]`` / ``[firefox]``). ``COMETLOCAL_TEST_BROWSER=firefox``
    runs every other test that takes it on Firefox: a way to look for Firefox's differences, not a CI run."""
    return request.getfixturevalue(getattr(request, "param", os.environ.get("COMETLOCAL_TEST_BROWSER", "chromium")))


@pytest.fixture
def plan_dir(tmp_path: Path) -> Path:
    """A suite root with a plans/ folder inside it."""
    (tmp_path / "plans").mkdir()
    return tmp_path


@pytest.fixture
def validate(plan_dir: Path):
    """validate(text, env=...) -> list of ValidPlan | InvalidPlan.

    The text is dedented and written to plans/p.actions.yaml under a temporary
    suite root, so path rules behave as in a real suite.
    """

    def run(text: str, *, env: dict | None = None, name: str = "p.actions.yaml"):
        path = plan_dir / "plans" / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        ctx = ValidationContext(root=plan_dir, plan_path=path, env=env or {})
        return validate_text(path.read_bytes(), ctx, file=f"plans/{name}")

    return run


@pytest.fixture(scope="session")
def outside() -> OutsideServer:
    server = OutsideServer()
    yield server
    server.server.shutdown()


@pytest.fixture(scope="session")
def portal(outside: OutsideServer) -> DemoPortal:
    with DemoPortal(outside_url=outside.url + "/landing", slow_ms=2000) as p:
        yield p


@pytest.fixture
def run(tmp_path: Path, browser_manager, portal: DemoPortal, outside: OutsideServer):
    """run(yaml_text, env=..., context_args=..., profile=...) -> Run, on ``browser_manager``'s browser.
    ``{portal}`` and ``{outside}`` are substituted."""
    from pytest_cometlocal.executor.session import run_plan

    def go(text: str, *, env: dict[str, str] | None = None, context_args: dict[str, Any] | None = None,
           dry_run: bool = False, profile: str | None = None) -> Run:
        text = textwrap.dedent(text).replace("{portal}", portal.url).replace("{outside}", outside.url)
        plan_path = tmp_path / "plans" / "t.actions.yaml"
        plan_path.parent.mkdir(parents=True, exist_ok=True)
        plan_path.write_text(text, encoding="utf-8")
        ctx = ValidationContext(root=tmp_path, plan_path=plan_path, env=env or {})
        (plan,) = validate_text(plan_path.read_bytes(), ctx, file="plans/t.actions.yaml")
        if isinstance(plan, InvalidPlan):
            raise AssertionError("\n".join(p.format() for p in plan.problems))
        eff = effective_settings(plan, default_base_url=portal.url, force_dry_run=dry_run, env=env or {},
                                 cli_profile=profile)
        result = run_plan(browser_manager.browser(), plan, tmp_path / "runs", eff, context_args)
        events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
        manifest = json.loads((result.run_dir / "run_manifest.json").read_text())
        evidence = json.loads((result.run_dir / "evidence_manifest.json").read_text())
        return Run(result, result.run_dir, events, manifest, evidence)

    return go


@pytest.fixture
def lean_inner_runs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest runs skip plugins they do not need, which makes them several times faster.

    Requested after pytester, which clears PYTEST_ADDOPTS when it is created.
    pytest-playwright is off too: loaded again inside an in-process run, its
    autouse soft-assertion fixture refuses to nest (tests/plugin/test_coexistence.py
    turns it on). tests/plugin uses it for every test; other modules with
    ``pytest.mark.usefixtures("lean_inner_runs")``.
    """
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:cacheprovider --assert=plain -p no:playwright")
