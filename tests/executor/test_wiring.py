"""The one wiring (``executor.session.open_run``): the library's run_plan, a pytest plan item and
the MCP agent's session get the same context defaults, the same default allowlist and the same
channels guard, because each opens its run there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_cometlocal.agent.agent_session import AgentSession
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.executor.browser.channels import BINDING
from pytest_cometlocal.executor.session import run_plan
from tests.context_probe import ContextProbe, ProbeBrowsers
from tests.support import DEFAULTS, only_valid

pytestmark = pytest.mark.browser

# No allowlist: each entry point gets the default, the base URL's host.
PLAN = "name: wired\n" + DEFAULTS + "steps:\n  - {id: open, kind: navigate, target: {type: url, url: /login}}\n"

CONFTEST = """
import json, sys, pytest
from pathlib import Path
sys.path.insert(0, %(root)r)  # the inner session imports the probe from this repository's tests
from tests.context_probe import ContextProbe

@pytest.fixture
def cometlocal_base_url():
    return %(url)r

@pytest.fixture
def cometlocal_browser(cometlocal_browser_manager):
    return ContextProbe(cometlocal_browser_manager.browser(), Path("contexts.jsonl"))
"""


def manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "run_manifest.json").read_text(encoding="utf-8"))


def what_matters(seen: dict, run_dir: Path) -> dict:
    """The defaults one run got: the context's, the allowlist's and the channels guard's."""
    m = manifest(run_dir)
    return {**{k: v for k, v in seen.items() if k != "bindings"}, "channels_binding": BINDING in seen["bindings"],
            "allowlist": m["domain_allowlist"], "page_script": m["guards"]["webrtc_page_script"]}


def test_run_plan_a_plan_item_and_an_agent_session_open_the_same_run(chromium, portal, validate, tmp_path, pytester):
    # The library: run_plan.
    probe = ContextProbe(chromium.browser())
    eff = effective_settings(only_valid(validate(PLAN)), default_base_url=portal.url, env={})
    library = run_plan(probe, eff.plan, tmp_path / "runs", eff)
    assert library.status == "passed", library.error
    (seen,) = probe.seen
    runs = {"run_plan": what_matters(seen, library.run_dir)}

    # The MCP agent's session.
    probe = ContextProbe(chromium.browser())
    session = AgentSession(tmp_path / "agent", env={}, browsers=ProbeBrowsers(probe))
    try:
        started = session.start(portal.url)
        session.end()
    finally:
        session.close()
    (seen,) = probe.seen
    runs["agent"] = what_matters(seen, Path(started["run_dir"]))

    # A plan item under pytest (its own Chromium, in a subprocess).
    pytester.makeconftest(CONFTEST % {"url": portal.url, "root": str(Path(__file__).resolve().parents[2])})
    pytester.path.joinpath("wired.actions.yaml").write_text(PLAN, encoding="utf-8")
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)
    (seen,) = [json.loads(line) for line in pytester.path.joinpath("contexts.jsonl").read_text().splitlines()]
    (run_dir,) = [p.parent for p in pytester.path.joinpath("cometlocal-runs").glob("*/run_manifest.json")]
    runs["pytest"] = what_matters(seen, run_dir)

    assert runs["run_plan"] == runs["agent"] == runs["pytest"], runs
    assert runs["pytest"] == {
        "args": ["accept_downloads", "viewport"], "viewport": {"width": 1280, "height": 720},
        "accept_downloads": True, "proxy_bypass": "<-loopback>,127.0.0.1", "timeout": 30_000,
        "channels_binding": True, "allowlist": ["127.0.0.1"], "page_script": True,
    }
